/**
 * Output constraints as token masks: a JSON schema (or "any JSON object") compiled by xgrammar for
 * one tokenizer, then matched token by token. Compiled grammars are cached per constraint, so a
 * schema sent again costs nothing to prepare.
 *
 * The mask for the next step is computed as soon as a token is accepted, off the decoding loop's
 * synchronous path (xgrammar's call is async): by the time the model's next forward pass has run,
 * it is ready.
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import { toEbnf, type GrammarSpec } from './ebnf.ts';
import { createGrammarCache } from './grammar-cache.ts';
import { createSchemaConstraints } from './schema-constraint.ts';
import { tokenBytes, type TokenConstraint, type Vocabulary } from './vocabulary.ts';
import { onInstance, onInstanceSync } from './xgrammar-instances.ts';
import type { CompiledGrammar, GrammarCompiler, GrammarMatcher, XGrammar } from './xgrammar.ts';

export interface ConstraintCompiler {
  /** A fresh matcher for one request; an unsupported schema is a 400. */
  start(spec: GrammarSpec): Promise<TokenConstraint>;
}

/**
 * Compiled grammars kept for a tokenizer: at most this many, and at most this much grammar text
 * (a compiled grammar's memory grows with its grammar; see docs/decisions/schema-limits.md).
 */
export const CACHE_ENTRIES = 64;
export const CACHE_BYTES = 1024 * 1024;

interface Compiled {
  readonly compiled: CompiledGrammar;
  readonly newlines: boolean;
}

/** A cached grammar, and how many requests are making matchers from it right now. */
interface Entry {
  readonly ready: Promise<Compiled>;
  users: number;
  dropped: boolean;
}

export interface CompilerOptions {
  /** JSON answers by the schema matcher (schema-constraint.ts); false: every constraint by xgrammar (what web-llm gets, for measuring it). */
  readonly schemaMatcher?: boolean;
}

export async function createConstraintCompiler(xgrammar: XGrammar, vocabulary: Vocabulary, options: CompilerOptions = {}): Promise<ConstraintCompiler> {
  const { compiler } = await onInstance(xgrammar, async () => {
    const info = await xgrammar.TokenizerInfo.createTokenizerInfo([...vocabulary.tokens], vocabulary.type, vocabulary.prependSpace, vocabulary.size, [...vocabulary.stopTokenIds]);
    return { compiler: (await xgrammar.GrammarCompiler.createGrammarCompiler(info)) as GrammarCompiler };
  });
  const schemas = createSchemaConstraints(vocabulary);
  const gates = new Map<boolean, Utf8Gate>();
  const gate = (newlines: boolean) => {
    let found = gates.get(newlines);
    if (!found) gates.set(newlines, (found = utf8Gate(vocabulary, newlines)));
    return found;
  };
  // A grammar's wasm memory is freed when it leaves the cache, or once the last request that
  // was making a matcher from it has one (a matcher keeps what it needs of it).
  const release = (entry: Entry) => {
    if (entry.dropped && entry.users === 0) entry.ready.then(({ compiled }) => compiled.dispose(), () => {});
  };
  const cache = createGrammarCache<Entry>(CACHE_ENTRIES, CACHE_BYTES, (entry) => {
    entry.dropped = true;
    release(entry);
  });

  const compile = (spec: GrammarSpec): Entry => {
    const key = JSON.stringify(spec);
    const hit = cache.get(key);
    if (hit) return hit;
    // JSON replies are compact (no whitespace between tokens): fewer tokens, and no run of spaces
    // a weak model could fill its budget with. Tool calls are written as the template shows them.
    const entry: Entry = {
      ready: toEbnf(xgrammar, spec).then(async ({ ebnf, root, newlines }) => {
        const compiled = await onInstance(xgrammar, () => compiler.compileGrammar(ebnf, root));
        cache.weigh(key, entry, key.length + ebnf.length);
        return { compiled, newlines };
      }),
      users: 0,
      dropped: false,
    };
    entry.ready.catch(() => cache.delete(key));
    cache.set(key, entry, key.length);
    return entry;
  };

  return {
    async start(spec) {
      // JSON answers and tool calls (after any thinking) by the schema matcher; what it refuses by xgrammar.
      const bySchema = options.schemaMatcher === false ? undefined : schemas.start(spec);
      if (bySchema) return bySchema;
      const param = spec.kind === 'tools' ? 'tools' : 'response_format';
      const entry = compile(spec);
      entry.users++;
      let constraint: TokenConstraint;
      try {
        const { compiled, newlines } = await entry.ready.catch((error: unknown) => {
          if (error instanceof GatewayError) throw error;
          throw new GatewayError('invalid_request', `This output cannot be enforced: ${error instanceof Error ? error.message : String(error)}`, { param });
        });
        const matcher = await onInstance(xgrammar, () => xgrammar.GrammarMatcher.createGrammarMatcher(compiled));
        constraint = track(xgrammar, matcher, gate(newlines));
      } finally {
        entry.users--;
        release(entry);
      }
      return constraint;
    },
  };
}

/**
 * Keeps constrained output valid UTF-8 without control characters, two gaps in xgrammar 0.1.27:
 * - its string rule lets raw control characters (a form feed, say) into strings, which JSON
 *   forbids, and compact output has no whitespace between tokens: no byte below 0x20 is allowed
 *   but, where the grammar writes newlines itself (tool calls, text replies), the newline;
 * - it joins tokens that are parts of UTF-8 characters into invalid sequences: a token is allowed
 *   only where its bytes continue the output as valid UTF-8 (a character begun in one token must
 *   be finished by the next ones). Stop tokens are allowed only between characters;
 * and a third: it reads a special token as the text it is spelt with (`<|im_start|>` inside a
 * JSON string), so special tokens and tokens that spell nothing are never allowed as text.
 * The state is where the output stands inside a character; each state has its mask of tokens.
 */
export interface Utf8Gate {
  readonly start: number;
  mask(state: number): Int32Array;
  /** The state after `token`, or -1 if it is not allowed from `state`. */
  next(state: number, token: number): number;
}

/** Inside a character: how many continuation bytes remain, and the range the next one must be in. */
const STATES: readonly (readonly [number, number, number])[] = [
  [0, 0, 0],
  [1, 0x80, 0xbf],
  [2, 0x80, 0xbf],
  [2, 0xa0, 0xbf], // after E0: no overlong forms
  [2, 0x80, 0x9f], // after ED: no surrogates
  [3, 0x80, 0xbf],
  [3, 0x90, 0xbf], // after F0
  [3, 0x80, 0x8f], // after F4: nothing above U+10FFFF
];
const stateOf = (need: number, lo: number, hi: number) => STATES.findIndex(([n, l, h]) => n === need && l === lo && h === hi);

function step(state: number, byte: number, newlines: boolean): number {
  const [need, lo, hi] = STATES[state]!;
  if (need > 0) {
    if (byte < lo || byte > hi) return -1;
    return need === 1 ? 0 : stateOf(need - 1, 0x80, 0xbf);
  }
  if (byte < 0x20) return newlines && byte === 0x0a ? 0 : -1;
  if (byte < 0x80) return 0;
  if (byte >= 0xc2 && byte <= 0xdf) return stateOf(1, 0x80, 0xbf);
  if (byte === 0xe0) return stateOf(2, 0xa0, 0xbf);
  if (byte === 0xed) return stateOf(2, 0x80, 0x9f);
  if (byte >= 0xe1 && byte <= 0xef) return stateOf(2, 0x80, 0xbf);
  if (byte === 0xf0) return stateOf(3, 0x90, 0xbf);
  if (byte === 0xf4) return stateOf(3, 0x80, 0x8f);
  if (byte >= 0xf1 && byte <= 0xf3) return stateOf(3, 0x80, 0xbf);
  return -1;
}

/** Exported for its test: the gate of one vocabulary, with or without newlines outside strings. */
export function utf8Gate(vocabulary: Pick<Vocabulary, 'tokens' | 'type' | 'size' | 'stopTokenIds' | 'specialTokenIds'>, newlines: boolean): Utf8Gate {
  const stops = new Set(vocabulary.stopTokenIds);
  const specials = new Set(vocabulary.specialTokenIds);
  const bytesOf = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));
  const next = (state: number, token: number): number => {
    // A stop token: only between characters.
    if (stops.has(token)) return state === 0 ? 0 : -1;
    const bytes = bytesOf[token];
    // A special token is never text, whatever it is spelt with; nor is a token that spells nothing.
    if (specials.has(token) || bytes === undefined || bytes.length === 0) return -1;
    let at = state;
    for (const byte of bytes) {
      at = step(at, byte, newlines);
      if (at < 0) return -1;
    }
    return at;
  };
  const words = Math.ceil(vocabulary.size / 32);
  const masks = STATES.map((_, state) => {
    const mask = new Int32Array(words);
    for (let id = 0; id < vocabulary.tokens.length; id++) if (next(state, id) >= 0) mask[id >> 5]! |= 1 << (id & 31);
    // Ids past the vocabulary (padding in the logits) keep whatever the grammar says: it forbids them.
    for (let id = vocabulary.tokens.length; id < vocabulary.size; id++) mask[id >> 5]! |= 1 << (id & 31);
    return mask;
  });
  return { start: 0, mask: (state) => masks[state]!, next };
}

/** A matcher of `xgrammar`'s, step by step; a failure inside it discards that instance. */
function track(xgrammar: XGrammar, matcher: GrammarMatcher, gate: Utf8Gate): TokenConstraint {
  let current: Int32Array | undefined;
  let pending: Promise<void> = Promise.resolve();
  let utf8 = gate.start;
  const compute = () => {
    current = undefined;
    const next = onInstance(xgrammar, () => matcher.getNextTokenBitmask()).then((mask) => {
      const allowed = gate.mask(utf8);
      for (let i = 0; i < mask.length; i++) mask[i]! &= allowed[i] ?? -1;
      current = mask;
    });
    // A failed mask leaves `current` unset, which fails the step that needs it; never unhandled.
    next.catch(() => {});
    pending = next;
  };
  compute();
  return {
    mask: () => current,
    ready: () => pending,
    accept(token) {
      const state = gate.next(utf8, token);
      if (state < 0) return false;
      utf8 = state;
      const accepted = onInstanceSync(xgrammar, () => matcher.acceptToken(token));
      if (accepted && !matcher.isTerminated()) compute();
      return accepted;
    },
    get terminated() {
      return matcher.isTerminated();
    },
    dispose: () => matcher.dispose(),
  };
}
