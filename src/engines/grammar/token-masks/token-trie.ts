/**
 * A vocabulary's tokens as a byte trie, built once per vocabulary, so that a mask walks each
 * shared prefix once (stepping a matcher per edge) and drops every token below an edge the matcher
 * refuses.
 *
 * The nodes are numbered in preorder, children in byte order, and a node records only its edge's
 * byte and where its subtree ends: a node's first child is the next node, its next sibling is the
 * node its subtree ends at. A walk is then a loop over one array with skips, no pointers chased.
 * Tokens are numbered in the same order, so the tokens ending at a node, and those anywhere below
 * it, are each one run of `tokenIds`.
 * @module
 */
import { tokenBytes, type Vocabulary } from '../vocabulary.ts';

/** What a token id may be in a mask. */
export const TEXT = 0;
/** A stop token: allowed exactly where the output may end. */
export const STOP = 1;
/** A special token that does not stop, a token that spells nothing, an id with no token: never allowed. */
export const NEVER = 2;

export interface TokenTrie {
  /** Nodes, the root (no byte, no token) included. */
  readonly nodeCount: number;
  /** The byte on the edge into each node. */
  readonly byte: Uint8Array;
  /** The node past each node's subtree (its next sibling, or an ancestor's). */
  readonly end: Uint32Array;
  /** The tokens ending at node i: `tokenIds[tokenStart[i]]` up to `tokenIds[tokenStart[i + 1]]`. */
  readonly tokenStart: Uint32Array;
  readonly tokenIds: Uint32Array;
  /** The longest token's bytes (the deepest node). */
  readonly depth: number;
}

/** Each token's bytes, all in one buffer: token i is `data[offset[i]]` up to `data[offset[i + 1]]`. */
export interface TokenBytes {
  readonly data: Uint8Array;
  readonly offset: Uint32Array;
  /** TEXT, STOP or NEVER, by id. */
  readonly kind: Uint8Array;
}

export interface VocabularyTrie {
  readonly trie: TokenTrie;
  readonly bytes: TokenBytes;
}

/** The bytes and kind of every token of a vocabulary, and the trie of its text tokens. */
export function buildVocabularyTrie(vocabulary: Pick<Vocabulary, 'tokens' | 'type' | 'stopTokenIds' | 'specialTokenIds'>): VocabularyTrie {
  const count = vocabulary.tokens.length;
  const kind = new Uint8Array(count);
  for (const id of vocabulary.specialTokenIds ?? []) if (id >= 0 && id < count) kind[id] = NEVER;
  // A stop token that is also special (`<|im_end|>`) is a stop token: it may end the output.
  for (const id of vocabulary.stopTokenIds) if (id >= 0 && id < count) kind[id] = STOP;

  const spelled: number[][] = new Array(count);
  let total = 0;
  for (let id = 0; id < count; id++) {
    const bytes = tokenBytes(vocabulary.tokens[id] ?? '', vocabulary.type);
    spelled[id] = bytes;
    total += bytes.length;
    if (bytes.length === 0 && kind[id] === TEXT) kind[id] = NEVER;
  }
  const data = new Uint8Array(total);
  const offset = new Uint32Array(count + 1);
  for (let id = 0, at = 0; id < count; id++) {
    data.set(spelled[id]!, at);
    at += spelled[id]!.length;
    offset[id + 1] = at;
  }
  const text: number[] = [];
  for (let id = 0; id < count; id++) if (kind[id] === TEXT) text.push(id);
  const bytes = { data, offset, kind };
  return { trie: buildTrie(text, data, offset.subarray(0, count), offset.subarray(1)), bytes };
}

/**
 * The trie of some byte strings, each named by an id: id's string is `data[begin[id]]` up to
 * `data[finish[id]]` (several ids may share one string; an empty string ends at the root). Used
 * for the vocabulary and for the rests of the tokens that close a JSON string.
 */
export function buildTrie(ids: ArrayLike<number>, data: Uint8Array, begin: Uint32Array, finish: Uint32Array): TokenTrie {
  const count = ids.length;
  const sorted = sortByBytes(ids, data, begin, finish);
  let bound = 1;
  let depth = 0;
  for (let k = 0; k < count; k++) {
    const length = finish[sorted[k]!]! - begin[sorted[k]!]!;
    bound += length;
    if (length > depth) depth = length;
  }
  const byte = new Uint8Array(bound);
  const end = new Uint32Array(bound);
  const tokensAt = new Uint32Array(bound + 1);
  // The nodes along the path of the string before, by depth.
  const path = new Uint32Array(depth + 1);
  let nodes = 1;
  let previousFrom = 0;
  let previousLength = 0;
  for (let k = 0; k < count; k++) {
    const id = sorted[k]!;
    const from = begin[id]!;
    const length = finish[id]! - from;
    // Once sorted, a string's new nodes are those past its common prefix with the one before.
    let common = 0;
    const most = Math.min(length, previousLength);
    while (common < most && data[from + common] === data[previousFrom + common]) common++;
    for (let d = previousLength; d > common; d--) end[path[d]!] = nodes;
    for (let d = common + 1; d <= length; d++) {
      byte[nodes] = data[from + d - 1]!;
      path[d] = nodes++;
    }
    // In sorted order a string is never a proper prefix of the one before, so it ends at the
    // node made last (or at the same node as the one before, for a duplicate; the root if empty).
    tokensAt[length === 0 ? 0 : path[length]!]!++;
    previousFrom = from;
    previousLength = length;
  }
  for (let d = previousLength; d > 0; d--) end[path[d]!] = nodes;
  end[0] = nodes;
  const tokenStart = new Uint32Array(nodes + 1);
  for (let node = 0; node < nodes; node++) tokenStart[node + 1] = tokenStart[node]! + tokensAt[node]!;
  return { nodeCount: nodes, byte: byte.slice(0, nodes), end: end.slice(0, nodes), tokenStart, tokenIds: sorted, depth };
}

/**
 * The ids in the byte order of their strings (a prefix first). Comparing strings one pair at a
 * time is slow for 150K of them; instead each is given a number made of its first bytes and its
 * id, exactly as a double holds it, and those sort as typed numbers. Only ids whose first bytes
 * tie (a few dozen at most, in a real vocabulary) are then compared byte by byte.
 */
function sortByBytes(ids: ArrayLike<number>, data: Uint8Array, begin: Uint32Array, finish: Uint32Array): Uint32Array {
  const count = ids.length;
  let largest = 0;
  for (let k = 0; k < count; k++) if (ids[k]! > largest) largest = ids[k]!;
  const idScale = 2 ** Math.max(1, Math.ceil(Math.log2(largest + 1)));
  // Each byte as 1..256 (0 past the end), so a prefix sorts before its extensions; all of it
  // below 2^53, where doubles are integers exactly.
  let prefixBytes = 0;
  while (257 ** (prefixBytes + 1) * idScale < 2 ** 53) prefixBytes++;
  const keys = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    const id = ids[k]!;
    let key = 0;
    for (let p = 0, at = begin[id]!; p < prefixBytes; p++, at++) key = key * 257 + (at < finish[id]! ? data[at]! + 1 : 0);
    keys[k] = key * idScale + id;
  }
  keys.sort();
  const sorted = new Uint32Array(count);
  for (let k = 0; k < count; k++) sorted[k] = keys[k]! % idScale;
  const compare = (a: number, b: number) => {
    const aFrom = begin[a]!;
    const bFrom = begin[b]!;
    const aLength = finish[a]! - aFrom;
    const bLength = finish[b]! - bFrom;
    for (let p = prefixBytes, most = Math.min(aLength, bLength); p < most; p++) {
      const diff = data[aFrom + p]! - data[bFrom + p]!;
      if (diff !== 0) return diff;
    }
    return aLength - bLength;
  };
  for (let k = 0; k < count; ) {
    const prefix = Math.floor(keys[k]! / idScale);
    let tied = k + 1;
    while (tied < count && Math.floor(keys[tied]! / idScale) === prefix) tied++;
    if (tied - k > 1) sorted.subarray(k, tied).sort(compare);
    k = tied;
  }
  return sorted;
}
