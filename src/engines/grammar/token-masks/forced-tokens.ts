/**
 * Forced tokens: where a matcher allows exactly one next byte (a member's name in a fixed order,
 * the `":` after it, a literal's rest, a closing brace), the output's next bytes are known before
 * the model is asked, and so are tokens that spell them. A decoder appends those tokens without
 * a sampling step, and reads them in one forward pass with the token before (MaskBench counts
 * 13-15% of a JSON answer's tokens as forced).
 *
 * Which tokens: the longest token that spells the forced bytes from where they start, again from
 * where it ends, and so on, as a tokenizer's longest match would. Not the last stretch where a
 * token could go on past the forced bytes: `":"` before a free string may be the start of `":"The`
 * the model would rather write, so from where the forced bytes could run into such a token the
 * choice is left to the model, under its mask. The output's text is the same either way; the
 * forced tokens only fix how its forced part is cut into tokens.
 * @module
 */
import type { ByteMatcher, MatchState } from '../byte-matcher.ts';
import type { TokenTrie } from './token-trie.ts';

/** The most bytes forced at once: enough for any key or literal a schema spells out. */
export const FORCED_BYTES = 256;

export interface ForcedBytes {
  /** The bytes that must come next (while exactly one byte steps and the output may not end). */
  readonly bytes: Uint8Array;
  /** The state after them. */
  readonly state: MatchState;
}

/** The bytes that must come next from `state`, at most FORCED_BYTES, and the state after them. */
export function forcedBytes(matcher: ByteMatcher, state: MatchState): ForcedBytes {
  const forced: number[] = [];
  let at = state;
  while (forced.length < FORCED_BYTES && !matcher.canEnd(at)) {
    let only = -1;
    let next: MatchState | undefined;
    for (let byte = 0; byte < 256; byte++) {
      const stepped = matcher.step(at, byte);
      if (stepped === undefined) continue;
      // A second byte steps: nothing more is forced.
      if (only >= 0) return { bytes: Uint8Array.from(forced), state: at };
      only = byte;
      next = stepped;
    }
    if (!next) break;
    forced.push(only);
    at = next;
  }
  return { bytes: Uint8Array.from(forced), state: at };
}

/**
 * The tokens that spell a prefix of the bytes forced from `state` (see the module's note), in
 * order; empty where nothing is forced or no token may be fixed yet.
 */
export function forcedTokens(trie: TokenTrie, matcher: ByteMatcher, state: MatchState): number[] {
  const { bytes, state: after } = forcedBytes(matcher, state);
  const tokens: number[] = [];
  let from = 0;
  while (from < bytes.length) {
    // Down the trie along the forced bytes from `from`: the deepest node with a token on the way.
    let node = 0;
    let token = -1;
    let length = 0;
    let depth = 0;
    for (let at = from; at < bytes.length; at++) {
      const child = childOf(trie, node, bytes[at]!);
      if (child < 0) break;
      node = child;
      depth++;
      const last = trie.tokenStart[node + 1]!;
      // Several ids may spell the same bytes (a byte-fallback `<0x41>` and `A`): the last id, which
      // in a SentencePiece vocabulary is the plain token rather than the byte.
      if (last > trie.tokenStart[node]!) {
        token = trie.tokenIds[last - 1]!;
        length = depth;
      }
    }
    // Every forced byte left is on this path and a longer token goes on past them with a byte
    // the matcher allows there: the model may want that token, so it chooses from here.
    if (from + depth === bytes.length && continuesWith(trie, node, matcher, after)) break;
    if (token < 0) break;
    tokens.push(token);
    from += length;
  }
  return tokens;
}

/** The child of `node` along `byte`, or -1 (children are in byte order, each after the last's subtree). */
function childOf({ byte: edge, end }: TokenTrie, node: number, byte: number): number {
  for (let child = node + 1; child < end[node]!; child = end[child]!) {
    if (edge[child] === byte) return child;
    if (edge[child]! > byte) break;
  }
  return -1;
}

/** Whether a token below `node` goes on with a byte the matcher takes from `state`. */
function continuesWith({ byte: edge, end }: TokenTrie, node: number, matcher: ByteMatcher, state: MatchState): boolean {
  for (let child = node + 1; child < end[node]!; child = end[child]!) if (matcher.step(state, edge[child]!) !== undefined) return true;
  return false;
}
