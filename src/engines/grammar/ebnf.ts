/**
 * The grammar a request's output must follow, written as xgrammar EBNF: one JSON value (any
 * object, or a schema's), or tool calls in the format of core/tool-syntax.ts (each call's
 * arguments by its tool's schema), or, where the model may choose, a text reply or calls.
 * Both engines use the same grammar: the transformers.js engine compiles it itself, web-llm gets
 * it as a `grammar` response format.
 * @module
 */
import { outputToEnforce, type ChatRequest, type OutputConstraint, type ToolSpec } from '../../core/engine.ts';
import type { ReasoningFormat } from '../../core/reasoning.ts';
import { GatewayError } from '../../core/errors.ts';
import { toGrammarSchema } from '../../core/json-schema-support.ts';
import { checkSchemaLimits, STACK_LIMITS } from '../../core/schema-limits.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, TOOL_CALL_SEPARATOR, TOOL_JSON_SEPARATORS } from '../../core/tool-syntax.ts';
import { factorLiteralAlternatives, literalTrieRules } from './factor-literals.ts';
import { discardInstance } from './xgrammar-instances.ts';
import type { XGrammar } from './xgrammar.ts';

/** A thinking model's thinking, which comes before what the grammar constrains (left free, but for its closing marker). */
export type GrammarThinking = Pick<ReasoningFormat, 'open' | 'close' | 'startsInside'>;

/** What the output must be. Serialised as the key of the compiled-grammar cache. */
export type GrammarSpec = (
  | {
      readonly kind: 'json';
      readonly output: OutputConstraint;
      /**
       * The output as the request asked for it, where its grammar form (`output`) differs: the
       * schema matcher enforces this one exactly (a zod `int()`'s ±2^53 bounds, which the grammar
       * form drops as no bounds xgrammar can keep).
       */
      readonly asked?: OutputConstraint;
    }
  | {
      readonly kind: 'tools';
      /** The tools a call may name (only the chosen one, for a named choice). */
      readonly tools: readonly ToolSpec[];
      /** `calls`: at least one call; `either`: a reply (text, or `output`) or calls; `reply`: no calls. */
      readonly mode: 'calls' | 'either' | 'reply';
      readonly parallel: boolean;
      readonly output?: OutputConstraint;
    }
) & { readonly thinking?: GrammarThinking };

/**
 * The grammar a request needs, or none (free text). A model that thinks (`reasoning`, unless the
 * request turned the thinking off and the model could be told) may think first: the grammar
 * applies after its thinking.
 */
export function grammarSpecOf(request: ChatRequest, reasoning?: ReasoningFormat): GrammarSpec | undefined {
  const spec = answerSpecOf(request);
  if (!spec || !reasoning || (request.thinking === false && reasoning.switch)) return spec;
  const { open, close, startsInside } = reasoning;
  return { ...spec, thinking: { open, close, ...(startsInside ? { startsInside } : {}) } };
}

function answerSpecOf(request: ChatRequest): GrammarSpec | undefined {
  const tools = request.tools ?? [];
  const output = outputToEnforce(request);
  if (tools.length === 0) return output ? { kind: 'json', output, ...(request.output && request.output !== output ? { asked: request.output } : {}) } : undefined;
  const choice = request.toolChoice ?? 'auto';
  const named = typeof choice === 'object' ? tools.filter((tool) => tool.name === choice.name) : tools;
  const mode = choice === 'none' ? 'reply' : choice === 'auto' ? 'either' : 'calls';
  // Only the names and schemas shape the grammar: descriptions stay out of the cache key.
  const shapes = named.map(({ name, parameters }) => ({ name, parameters: toGrammarSchema(parameters) as Record<string, unknown> }));
  return { kind: 'tools', tools: mode === 'reply' ? [] : shapes, mode, parallel: request.parallelToolCalls ?? true, ...(output ? { output } : {}) };
}

export interface Ebnf {
  readonly ebnf: string;
  readonly root: string;
  /** Whether a newline may be written outside JSON strings (tool calls and text replies need it). */
  readonly newlines: boolean;
}

const ROOT = 'root';

/**
 * The most characters of grammar one request may compile. Compiling is synchronous wasm that
 * nothing can interrupt (in Node it holds the event loop), and its time and memory grow with the
 * grammar: at this size, up to 2.2 s on tiny-chat and 3.6 s on a 151,936-token vocabulary, and
 * 12-26 MiB of wasm memory while compiled (2 cores; docs/decisions/schema-limits.md). A grammar
 * past it is a 400 before it compiles. The schema limits (core/schema-limits.ts) keep the work of
 * getting here small.
 */
export const MAX_GRAMMAR_CHARS = 256 * 1024;

export async function toEbnf(xgrammar: XGrammar, spec: GrammarSpec): Promise<Ebnf> {
  const answer = await answerEbnf(xgrammar, spec);
  return spec.thinking ? afterThinking(answer, spec.thinking) : answer;
}

/**
 * The answer's grammar after a thinking block: the opening marker (or none, where the template
 * opened it), any text without the closing marker, the closing marker, up to four spaces or
 * newlines, then the answer. The block may also be left out, as a model told not to think may.
 */
export function afterThinking(answer: Ebnf, thinking: GrammarThinking): Ebnf {
  const body = renameRules(answer.ebnf, 'answer_');
  const root = `answer_${answer.root}`;
  const block = `${thinking.startsInside ? '' : `${literal(thinking.open)} `}thinking_text ${literal(thinking.close)} thinking_gap`;
  const rules = [
    body,
    `${ROOT} ::= thinking_block ${root} | ${root}`,
    `thinking_block ::= ${block}`,
    // At most four: a model the grammar lets write whitespace without end may do just that.
    'thinking_gap ::= ([ \\n] ([ \\n] ([ \\n] [ \\n]?)?)?)?',
    ...withoutMarker('thinking_text', thinking.close),
  ];
  return { ebnf: rules.join('\n'), root: ROOT, newlines: true };
}

/**
 * Any text that does not contain `marker`, as one rule per characters of it matched so far
 * (`<name>`, `<name>_1`, …): the next character goes on matching it (but never completes it), or
 * starts it again, or is any other character. It may end anywhere. Written for markers whose first
 * character does not come again in them (`</think>`, `[/THINK]`), where matching never falls
 * back to a shorter part.
 */
function withoutMarker(name: string, marker: string): string[] {
  const chars = [...marker];
  const head = chars[0]!;
  if (chars.slice(1).includes(head)) throw new Error(`A thinking marker whose first character comes again in it is not supported: ${JSON.stringify(marker)}.`);
  const state = (i: number) => (i === 0 ? name : `${name}_${i}`);
  return chars.map((char, i) => {
    if (i === 0) return `${state(0)} ::= "" | [^${classChar(head)}] ${state(0)} | ${literal(head)} ${state(1)}`;
    const goesOn = i < chars.length - 1 ? ` | ${literal(char)} ${state(i + 1)}` : '';
    return `${state(i)} ::= "" | [^${classChar(char)}${classChar(head)}] ${state(0)} | ${literal(head)} ${state(1)}${goesOn}`;
  });
}

async function answerEbnf(xgrammar: XGrammar, spec: GrammarSpec): Promise<Ebnf> {
  const param = spec.kind === 'tools' ? 'tools' : 'response_format';
  let size = 0;
  // Checked as each part is made: many large tool schemas stop at the first that passes it.
  const counted = (part: string) => {
    size += part.length;
    if (size > MAX_GRAMMAR_CHARS) {
      throw new GatewayError('invalid_request', `The grammar for this ${param === 'tools' ? 'request\'s tools' : 'schema'} comes to more than ${MAX_GRAMMAR_CHARS} characters, the limit on the grammar one request may compile; use fewer or smaller schemas, enums and integer ranges.`, { param });
    }
    return part;
  };
  if (spec.kind === 'json') return { ebnf: counted(await jsonEbnf(xgrammar, spec.output, [',', ':'], '')), root: ROOT, newlines: false };
  const rules: string[] = [];
  const reply = spec.output ? `reply_${ROOT}` : 'free_text';
  if (spec.mode !== 'calls') rules.push(counted(spec.output ? await jsonEbnf(xgrammar, spec.output, [',', ':'], 'reply_') : freeText(TOOL_CALL_OPEN)));
  if (spec.mode !== 'reply') {
    const bodies: (readonly [string[], string])[] = [];
    for (const [i, tool] of spec.tools.entries()) {
      const prefix = `tool${i}_`;
      rules.push(counted(await jsonEbnf(xgrammar, { kind: 'json_schema', schema: tool.parameters, strict: true }, TOOL_JSON_SEPARATORS, prefix)));
      // What follows `{"name": `: the quoted name, then the arguments by this tool's schema. As a
      // trie: xgrammar 0.1.27 matches alternatives sharing leading characters too loosely.
      bodies.push([[...`"${tool.name}", "arguments": `].map((char) => literal(char).slice(1, -1)), `${prefix}${ROOT}`]);
    }
    rules.push(...literalTrieRules('tool_call_body', bodies));
    rules.push(`tool_call ::= ${literal(`${TOOL_CALL_OPEN}{"name": `)} tool_call_body ${literal(`}${TOOL_CALL_CLOSE}`)}`);
    rules.push(`tool_calls ::= tool_call${spec.parallel ? ` (${literal(TOOL_CALL_SEPARATOR)} tool_call)*` : ''}`);
  }
  const top = spec.mode === 'calls' ? 'tool_calls' : spec.mode === 'reply' ? reply : `tool_calls | ${reply}`;
  rules.push(`${ROOT} ::= ${top}`);
  return { ebnf: rules.join('\n'), root: ROOT, newlines: true };
}

/** A JSON schema's grammar (or any object's), its rules renamed with `prefix`. */
async function jsonEbnf(xgrammar: XGrammar, output: OutputConstraint, separators: readonly [string, string], prefix: string): Promise<string> {
  const param = prefix.startsWith('tool') ? 'tools' : 'response_format';
  if (output.kind === 'json_schema') {
    // The gateway checked it already; an engine asked directly (createWorkerEngine, the Node
    // engine) must not let a schema overrun xgrammar's stack either.
    checkSchemaLimits(output.schema, (at, reason) => new GatewayError('invalid_request', `Invalid schema for ${param} at ${at}: ${reason}.`, { param }), STACK_LIMITS);
  }
  const schema = output.kind === 'json_schema' ? JSON.stringify(output.schema) : '{"type":"object"}';
  let ebnf: string;
  try {
    ebnf = await xgrammar.Testings._jsonSchemaToEBNF(schema, false, -1, [separators[0], separators[1]], output.kind === 'json_schema' && output.strict);
  } catch (error) {
    // The converter aborted: whatever state it left, the instance is not used again.
    discardInstance(xgrammar);
    throw new GatewayError('invalid_request', `This JSON schema cannot be enforced: ${error instanceof Error ? error.message : String(error)}`, { param });
  }
  return renameRules(withoutControlCharacters(factorLiteralAlternatives(ebnf.trim())), prefix);
}

/** The characters xgrammar 0.1.27 allows in a string with length bounds (`minLength`, `maxLength`). */
const BOUNDED_STRING_CHARACTER = String.raw`[^"\\\r\n]`;
const JSON_STRING_CHARACTER = String.raw`[^\0-\x1f"\\]`;

/**
 * That class lets raw control characters other than CR and LF into a string, which JSON forbids:
 * it is narrowed to what xgrammar's rule for other strings allows. (It cannot occur inside a
 * literal, where `"` is escaped.) The transformers.js engine's byte gate would catch them too;
 * web-llm, which matches with xgrammar alone, needs the grammar to be right.
 */
export function withoutControlCharacters(ebnf: string): string {
  return ebnf.replaceAll(BOUNDED_STRING_CHARACTER, JSON_STRING_CHARACTER);
}

/** One EBNF item of a string, or of a rule's name; skipped: string literals and character classes. */
const ITEM = /"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]|[A-Za-z_][A-Za-z0-9_]*/g;

/** Prefixes every rule name (where defined and where used), so that grammars can be joined. */
export function renameRules(ebnf: string, prefix: string): string {
  if (!prefix) return ebnf;
  const names = new Set(ebnf.split('\n').map((line) => /^(\S+) ::=/.exec(line)?.[1]).filter((name) => name !== undefined));
  return ebnf.replace(ITEM, (item) => (names.has(item) ? prefix + item : item));
}

/** A string as an EBNF literal. */
export function literal(text: string): string {
  return JSON.stringify(text);
}

/**
 * Any text that does not begin with `opening`: a text reply that cannot be mistaken for a tool
 * call. Written as one branch per character of `opening` matched so far, where the next
 * character either differs (and the rest is free) or the text ends.
 */
function freeText(opening: string): string {
  let rule = '';
  for (let i = opening.length - 1; i >= 0; i--) {
    const char = opening[i]!;
    const after = rule ? ` | ${literal(char)} (${rule})` : '';
    rule = `"" | [^${classChar(char)}] free_text_rest${after}`;
  }
  // Every character but NUL: control characters other than newline are kept out token by token.
  return `free_text ::= ${rule}\nfree_text_rest ::= [^\\0]*`;
}

function classChar(char: string): string {
  if (char === '\n') return '\\n';
  return /[\]\\^-]/.test(char) ? `\\${char}` : char;
}
