/**
 * How a model writes tool calls in its output, and how they are read back: the Hermes format,
 * which the chat templates of Qwen 2.5 and 3, Hermes, SmolLM3 and others define:
 *
 *     <tool_call>
 *     {"name": "get_weather", "arguments": {"city": "Paris"}}
 *     </tool_call>
 *
 * one block per call, blocks separated by a newline, at the very start of the reply. The decoding
 * grammar (engines/grammar/ebnf.ts) writes exactly this; the parser here reads it back as the
 * tokens arrive, so the protocols can stream a call's name, then its argument fragments.
 * Templates without tool support get the same format described in a system message
 * (`toolInstructions`), so every model is steered the same way.
 * @module
 */
import type { ChatMessage, ToolSpec } from './engine.ts';

export const TOOL_CALL_OPEN = '<tool_call>\n';
export const TOOL_CALL_CLOSE = '\n</tool_call>';
/** Between two calls of one turn. */
export const TOOL_CALL_SEPARATOR = '\n';
/** JSON separators inside a call: as Python's `json.dumps` (the templates' `tojson`) writes them. */
export const TOOL_JSON_SEPARATORS: readonly [string, string] = [', ', ': '];

/** What the parser reads from the output, in order. */
export type ToolOutputPiece =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'call'; readonly index: number; readonly name: string }
  | { readonly type: 'arguments'; readonly index: number; readonly text: string };

/**
 * `{"name": "…", "arguments": ` at the start of a call: the name is known, the arguments follow.
 * Matched once the arguments' first character is there, so they never start with a space.
 */
const HEAD = /^\s*\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"arguments"\s*:\s*(?=\S)/;
/** The end of a call's arguments: the call object's `}`, then the closing tag. */
const END = `}${TOOL_CALL_CLOSE}`;

/** Where the parser is: at the reply's start, in a call's head or arguments, between calls, or in text. */
type ParserState = 'lead' | 'head' | 'arguments' | 'between' | 'text';

/**
 * Reads a reply as it streams: either text, or tool calls. Text that could still be the opening of
 * a call is held back until it is known either way; a call's arguments are passed on as they
 * arrive, less any tail that could be the call's end.
 */
export class ToolCallParser {
  #state: ParserState = 'lead';
  #buffer = '';
  #calls = 0;

  /** Calls begun so far. */
  get calls(): number {
    return this.#calls;
  }

  push(piece: string): ToolOutputPiece[] {
    if (this.#state === 'text') return piece ? [{ type: 'text', text: piece }] : [];
    this.#buffer += piece;
    const out: ToolOutputPiece[] = [];
    // Each pass either moves to another state or waits for more text.
    for (let moved = true; moved; ) moved = this.#step(out);
    return out;
  }

  /** The reply is over (or was cut short): whatever is held back comes out as what it was. */
  end(): ToolOutputPiece[] {
    const rest = this.#buffer;
    this.#buffer = '';
    const index = this.#calls - 1;
    switch (this.#state) {
      case 'lead':
      case 'text':
        return rest ? [{ type: 'text', text: rest }] : [];
      case 'head':
        // Cut before the name was complete: a call that cannot be named is given back as text.
        return [{ type: 'text', text: TOOL_CALL_OPEN + rest }];
      case 'arguments':
        return rest ? [{ type: 'arguments', index, text: rest }] : [];
      case 'between':
        return rest.trim() ? [{ type: 'text', text: rest }] : [];
    }
  }

  #step(out: ToolOutputPiece[]): boolean {
    const buffer = this.#buffer;
    switch (this.#state) {
      case 'lead': {
        // Exactly as the grammar has it: a call opens the reply, or the reply is text.
        if (buffer.startsWith(TOOL_CALL_OPEN)) return this.#to('head', buffer.slice(TOOL_CALL_OPEN.length));
        if (TOOL_CALL_OPEN.startsWith(buffer)) return false;
        out.push({ type: 'text', text: buffer });
        return this.#to('text', '');
      }
      case 'head': {
        const match = HEAD.exec(buffer);
        if (match) {
          out.push({ type: 'call', index: this.#calls++, name: JSON.parse(match[1]!) as string });
          return this.#to('arguments', buffer.slice(match[0].length));
        }
        const close = buffer.indexOf(TOOL_CALL_CLOSE);
        if (close < 0) return false;
        // A call written some other way (keys in the other order, say): read it whole.
        const call = readCall(buffer.slice(0, close));
        if (call) {
          out.push({ type: 'call', index: this.#calls, name: call.name }, { type: 'arguments', index: this.#calls++, text: call.arguments });
        } else {
          out.push({ type: 'text', text: TOOL_CALL_OPEN + buffer.slice(0, close + TOOL_CALL_CLOSE.length) });
        }
        return this.#to('between', buffer.slice(close + TOOL_CALL_CLOSE.length));
      }
      case 'arguments': {
        const index = this.#calls - 1;
        const end = buffer.indexOf(END);
        if (end >= 0) {
          if (end > 0) out.push({ type: 'arguments', index, text: buffer.slice(0, end) });
          return this.#to('between', buffer.slice(end + END.length));
        }
        const keep = heldBack(buffer, END);
        if (buffer.length > keep) out.push({ type: 'arguments', index, text: buffer.slice(0, buffer.length - keep) });
        this.#buffer = buffer.slice(buffer.length - keep);
        return false;
      }
      case 'between': {
        const next = TOOL_CALL_SEPARATOR + TOOL_CALL_OPEN;
        if (buffer.startsWith(next)) return this.#to('head', buffer.slice(next.length));
        if (next.startsWith(buffer) || buffer.trim() === '') return false;
        // Text after the calls: not something the grammar writes; kept, not dropped.
        out.push({ type: 'text', text: buffer });
        return this.#to('text', '');
      }
      case 'text':
        return false;
    }
  }

  #to(state: ParserState, buffer: string): boolean {
    this.#state = state;
    this.#buffer = buffer;
    return buffer.length > 0 || state === 'text';
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `marker`. */
function heldBack(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) if (text.endsWith(marker.slice(0, n))) return n;
  return 0;
}

function readCall(text: string): { name: string; arguments: string } | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const { name, arguments: args, parameters } = value as Record<string, unknown>;
    if (typeof name !== 'string') return undefined;
    return { name, arguments: JSON.stringify(args ?? parameters ?? {}) };
  } catch {
    return undefined;
  }
}

/** One call as the template's `tojson` would write it: what the grammar makes the model write. */
export function writeToolCall(name: string, args: unknown): string {
  return `${TOOL_CALL_OPEN}{"name": ${JSON.stringify(name)}, "arguments": ${pythonJSON(args)}}${TOOL_CALL_CLOSE}`;
}

/** JSON with `, ` and `: ` between items, as Python writes it (the form the model is shown). */
function pythonJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJSON).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJSON(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Parses a call's arguments for a template, which wants an object; anything else stays as it is. */
export function argumentsValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The tools and the call format, told in a system message: for chat templates that define no
 * tool format of their own. The wording is Qwen 2.5's, so models trained on it recognise it.
 */
export function toolInstructions(tools: readonly ToolSpec[]): string {
  const signatures = tools.map((tool) =>
    JSON.stringify({ type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters } }),
  );
  return [
    '# Tools',
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    `<tools>\n${signatures.join('\n')}\n</tools>`,
    '',
    'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>',
  ].join('\n');
}

/**
 * The conversation in plain roles, for templates without tool support: the tool instructions
 * joined to the system message, calls written into the assistant's text, results given back as
 * user turns in `<tool_response>` tags (consecutive results in one turn), as Qwen's template does.
 */
export function withToolsAsText(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const instructions = tools.length > 0 ? toolInstructions(tools) : '';
  const first = messages[0];
  const rest = first?.role === 'system' ? messages.slice(1) : messages;
  if (instructions || first?.role === 'system') {
    const system = first?.role === 'system' ? first.content : '';
    out.push({ role: 'system', content: [system, instructions].filter(Boolean).join('\n\n') });
  }
  for (const message of rest) {
    if (message.role === 'assistant' && message.toolCalls?.length) {
      const calls = message.toolCalls.map((call) => writeToolCall(call.name, argumentsValue(call.arguments)));
      out.push({ role: 'assistant', content: [message.content, ...calls].filter(Boolean).join('\n') });
    } else if (message.role === 'tool') {
      const response = `<tool_response>\n${message.content}\n</tool_response>`;
      const last = out.at(-1);
      // Results of one turn's calls go back together, in one user turn.
      if (last?.role === 'user' && last.content.startsWith('<tool_response>')) out[out.length - 1] = { role: 'user', content: `${last.content}\n${response}` };
      else out.push({ role: 'user', content: response });
    } else {
      out.push({ role: message.role, content: message.content });
    }
  }
  return out;
}
