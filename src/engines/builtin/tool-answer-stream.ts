/**
 * The built-in model's JSON answer to a tool schema (`tool-schema.ts`), turned into the Hermes text
 * the gateway parses while it streams: a call's head as soon as its name is known, its arguments
 * as they arrive, a reply in words character by character. Where the answer takes a shape this
 * does not follow as it streams (the keys in another order, a reply that is not a string or an
 * object), the rest is gathered and converted whole at the end (`toolAnswerText`).
 * @module
 */
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, TOOL_CALL_SEPARATOR, writeToolCall } from '../../core/tool-syntax.ts';
import { toolAnswerText } from './tool-schema.ts';

type State = 'start' | 'open-list' | 'call' | 'arguments' | 'after-call' | 'value' | 'words' | 'reply' | 'done' | 'whole';

const START = /^\s*\{\s*"(tool_calls|content)"\s*:\s*/;
const OPEN_LIST = /^\[\s*/;
const CALL_HEAD = /^\s*\{\s*"name"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"arguments"\s*:\s*(?=\{)/;
const AFTER_CALL = /^\s*\}\s*([,\]])\s*/;
/** Text this long that still matches no expected step is not going to. */
const GIVE_UP = 2048;

export class ToolAnswerStream {
  #state: State = 'start';
  /** Everything received, for the whole conversion. */
  #all = '';
  /** Received and not yet consumed. */
  #rest = '';
  #calls = 0;
  /** Inside the JSON value being passed through: nesting depth, in a string, after a backslash. */
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** A `\u` escape of a reply in words, until its four digits are there. */
  #pendingEscape = '';

  /** Hermes text for this piece of the answer ('' while it is not yet known). */
  push(piece: string): string {
    this.#all += piece;
    this.#rest += piece;
    let out = '';
    for (let moved = true; moved; ) {
      const step = this.#step();
      out += step.text;
      moved = step.moved;
    }
    return out;
  }

  /** What is still owed once the answer is over. */
  end(): string {
    if (this.#state === 'whole' || this.#state === 'start') return this.#calls > 0 ? this.#restOfCalls() : toolAnswerText(this.#all);
    return '';
  }

  #step(): { text: string; moved: boolean } {
    const none = { text: '', moved: false };
    switch (this.#state) {
      case 'start': {
        const m = START.exec(this.#rest);
        if (!m) return this.#waitOrGiveUp(['{"tool_calls":', '{"content":'].some((start) => start.startsWith(compact(this.#rest))));
        this.#consume(m[0].length);
        this.#state = m[1] === 'tool_calls' ? 'open-list' : 'value';
        return { text: '', moved: true };
      }
      case 'open-list': {
        const m = OPEN_LIST.exec(this.#rest);
        if (!m) return this.#waitOrGiveUp(this.#rest === '');
        this.#consume(m[0].length);
        this.#state = 'call';
        return { text: '', moved: true };
      }
      case 'call': {
        const m = CALL_HEAD.exec(this.#rest);
        if (!m) return this.#waitOrGiveUp(couldBeCallHead(compact(this.#rest)));
        this.#consume(m[0].length);
        const name = JSON.parse(m[1]!) as string;
        const text = `${this.#calls > 0 ? TOOL_CALL_SEPARATOR : ''}${TOOL_CALL_OPEN}{"name": ${JSON.stringify(name)}, "arguments": `;
        this.#calls++;
        this.#state = 'arguments';
        return { text, moved: true };
      }
      case 'arguments': {
        const passed = this.#passValue();
        if (this.#depth === 0 && passed.length > 0) {
          this.#state = 'after-call';
          return { text: `${passed}}${TOOL_CALL_CLOSE}`, moved: true };
        }
        return { text: passed, moved: false };
      }
      case 'after-call': {
        const m = AFTER_CALL.exec(this.#rest);
        if (!m) return this.#waitOrGiveUp(/^\s*(\}\s*)?$/.test(this.#rest));
        this.#consume(m[0].length);
        this.#state = m[1] === ',' ? 'call' : 'done';
        return { text: '', moved: true };
      }
      case 'value': {
        const first = this.#rest.trimStart()[0];
        if (first === undefined) return none;
        this.#consume(this.#rest.length - this.#rest.trimStart().length);
        if (first === '"') {
          this.#consume(1);
          this.#state = 'words';
          return { text: '', moved: true };
        }
        if (first !== '{' && first !== '[') return this.#waitOrGiveUp(false);
        this.#state = 'reply';
        return { text: '', moved: true };
      }
      case 'reply': {
        // A reply in the requested JSON: passed on as it comes.
        const passed = this.#passValue();
        if (this.#depth === 0 && passed.length > 0) this.#state = 'done';
        return { text: passed, moved: false };
      }
      case 'words':
        return { text: this.#words(), moved: false };
      default:
        return none;
    }
  }

  /** Waits for more text while `possible`; else gathers the rest for the end. */
  #waitOrGiveUp(possible: boolean): { text: string; moved: boolean } {
    if (!possible || this.#rest.length > GIVE_UP) this.#state = 'whole';
    return { text: '', moved: false };
  }

  #consume(n: number): void {
    this.#rest = this.#rest.slice(n);
  }

  /** Passes on the JSON value (an object or array) at the start of the rest, up to its end. */
  #passValue(): string {
    let i = 0;
    for (; i < this.#rest.length; i++) {
      const c = this.#rest[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === '\\') this.#escaped = true;
        else if (c === '"') this.#inString = false;
      } else if (c === '"') this.#inString = true;
      else if (c === '{' || c === '[') this.#depth++;
      else if (c === '}' || c === ']') {
        this.#depth--;
        if (this.#depth === 0) {
          i++;
          break;
        }
      }
    }
    const passed = this.#rest.slice(0, i);
    this.#consume(i);
    return passed;
  }

  /** Decodes a reply in words (a JSON string) up to its closing quote. */
  #words(): string {
    let out = '';
    let i = 0;
    for (; i < this.#rest.length; i++) {
      const c = this.#rest[i]!;
      if (this.#pendingEscape) {
        this.#pendingEscape += c;
        const needed = this.#pendingEscape.startsWith('\\u') ? 6 : 2;
        if (this.#pendingEscape.length < needed) continue;
        out += JSON.parse(`"${this.#pendingEscape}"`) as string;
        this.#pendingEscape = '';
      } else if (c === '\\') this.#pendingEscape = c;
      else if (c === '"') {
        this.#state = 'done';
        i++;
        break;
      } else out += c;
    }
    this.#consume(i);
    return out;
  }

  /** The calls after those already given, from the whole answer. */
  #restOfCalls(): string {
    try {
      const { tool_calls: calls } = JSON.parse(this.#all) as { tool_calls?: { name: string; arguments?: unknown }[] };
      return (calls ?? [])
        .slice(this.#calls)
        .map((c) => `${TOOL_CALL_SEPARATOR}${writeToolCall(c.name, c.arguments ?? {})}`)
        .join('');
    } catch {
      return '';
    }
  }
}

/** The text without whitespace (the keys and names compared here have none). */
const compact = (text: string) => text.replace(/\s+/g, '');

/** Whether `text` (compacted) may still become `{"name": "…", "arguments": {` with more text. */
function couldBeCallHead(text: string): boolean {
  if ('{"name":'.startsWith(text)) return true;
  const head = /^\{"name":"((?:[^"\\]|\\.)*)("?)(.*)$/s.exec(text);
  if (!head) return false;
  return head[2] === '' || ',"arguments":{'.startsWith(head[3]!);
}
