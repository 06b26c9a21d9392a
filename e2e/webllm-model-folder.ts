/**
 * What e2e/webllm.real.spec.ts reads from a local MLC model folder to check web-llm's answers
 * apart from web-llm: whether the folder has a real tokenizer, the prompt web-llm builds for a
 * conversation, and a character that tokenizer can only spell with several tokens.
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The conversation template in an MLC model's `mlc-chat-config.json` (the fields web-llm's prompt uses). */
export interface ConvTemplate {
  readonly system_template: string;
  readonly system_message: string;
  readonly system_prefix_token_ids?: readonly number[] | null;
  readonly add_role_after_system_message?: boolean;
  readonly roles: Readonly<Record<string, string>>;
  readonly role_templates?: Readonly<Record<string, string>>;
  readonly seps: readonly string[];
  readonly role_content_sep?: string;
  readonly role_empty_sep?: string;
}

export interface Message {
  readonly role: 'system' | 'user';
  readonly content: string;
}

interface TokenizerJson {
  readonly model: { readonly type: string; readonly vocab: Readonly<Record<string, number>> };
  readonly decoder?: { readonly type?: string } | null;
  readonly added_tokens: readonly { readonly id: number; readonly content: string }[];
}

/** The folder of `model`'s variant in `dir` (the q4f32 one, which GPUs without `shader-f16` load, first). */
export function modelFolder(dir: string, model: string): string | undefined {
  return ['q4f32_1', 'q4f16_1'].map((q) => join(dir, `${model}-${q}-MLC`)).find((folder) => existsSync(join(folder, 'mlc-chat-config.json')));
}

export function convTemplate(folder: string): ConvTemplate {
  return (JSON.parse(readFileSync(join(folder, 'mlc-chat-config.json'), 'utf8')) as { conv_template: ConvTemplate }).conv_template;
}

/**
 * The tokens of a real byte-level BPE vocabulary (Qwen's, Llama 3's) by id, or undefined for
 * anything else: a generated model folder may carry a made-up vocabulary of a few hundred tokens
 * (with `<|im_start|>` too) rather than a real tokenizer, and SentencePiece vocabularies
 * spell bytes in another way.
 */
export function byteLevelVocabulary(folder: string): string[] | undefined {
  const file = join(folder, 'tokenizer.json');
  if (!existsSync(file)) return undefined;
  const json = JSON.parse(readFileSync(file, 'utf8')) as TokenizerJson;
  if (json.model?.type !== 'BPE' || json.decoder?.type !== 'ByteLevel') return undefined;
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(json.model.vocab)) tokens[id] = token;
  for (const { id, content } of json.added_tokens) tokens[id] = content;
  return tokens.length >= 32_000 ? Array.from(tokens, (t) => t ?? '') : undefined;
}

/**
 * The prompt web-llm prefills for `messages`, in the pieces it tokenizes one by one (its
 * `Conversation.getPromptArray()` for text messages, then the assistant's reply header). web-llm
 * renders its own conversation template from mlc-chat-config.json, not the tokenizer's Jinja
 * `chat_template`: with no system message it writes the template's default one.
 */
export function webllmPromptPieces(conv: ConvTemplate, messages: readonly Message[]): string[] {
  const system = messages.find((m) => m.role === 'system')?.content ?? conv.system_message;
  // Functions as replacements: web-llm's replace() would read `$&` and the like in a message; a test should not send those.
  const systemPrompt = conv.system_template.replace('{system_message}', () => system);
  const pieces = systemPrompt === '' ? [] : [systemPrompt];
  messages
    .filter((m) => m.role !== 'system')
    .forEach((m, i) => {
      const body = (conv.role_templates?.[m.role] ?? '{user_message}').replace('{user_message}', () => m.content).replace('{function_string}', '');
      const prefix = conv.add_role_after_system_message === false && systemPrompt !== '' && i === 0 ? '' : `${conv.roles[m.role]}${conv.role_content_sep ?? ': '}`;
      pieces.push(prefix + body + conv.seps[i % conv.seps.length]);
    });
  pieces.push(`${conv.roles.assistant}${conv.role_empty_sep ?? ': '}`);
  return pieces;
}

/** GPT-2's byte-level alphabet: the character each byte is spelled with in a byte-level vocabulary. */
function byteLevelChar(byte: number): string {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  if (printable(byte)) return String.fromCharCode(byte);
  let n = 0;
  for (let b = 0; b < byte; b++) if (!printable(b)) n++;
  return String.fromCharCode(256 + n);
}

export const byteLevel = (text: string): string => Array.from(new TextEncoder().encode(text), byteLevelChar).join('');

/**
 * A 4-byte character (an emoji, a rare CJK ideograph) that no token of `tokens` holds whole, so
 * any output that writes it writes it over several tokens, and that no token starting with `"`
 * begins: written as a JSON string, the quote is a token of its own and the character comes after.
 * With those, the first 2 tokens of `"<char>"` never finish the character and the first 5 always do.
 */
export function splitCharacter(tokens: readonly string[]): string | undefined {
  return ['🫎', '🪿', '🫏', '𠀀', '𪚥', '🦊'].find((char) => {
    const spelled = byteLevel(char);
    return !tokens.some((t) => t.includes(spelled) || (t.length > 1 && t.startsWith('"') && spelled.startsWith(t.slice(1))));
  });
}
