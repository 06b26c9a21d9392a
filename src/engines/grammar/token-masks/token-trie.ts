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
import { tokenBytes, type Vocabulary } from '../token-constraint.ts';

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
  return { trie: buildTrie(text, (id) => data.subarray(offset[id]!, offset[id + 1]!)), bytes };
}

/**
 * The trie of some byte strings, each named by an id (several ids may share one string; an empty
 * string ends at the root). Used for the vocabulary and for the rests of the tokens that close a
 * JSON string.
 */
export function buildTrie(ids: readonly number[], bytesOf: (id: number) => Uint8Array): TokenTrie {
  // Sorting the strings as Latin-1 text sorts them by bytes, and V8 sorts strings fast; once
  // sorted, a string's new nodes are those past its common prefix with the one before.
  const keys = ids.map((id) => latin1(bytesOf(id)));
  const order = ids.map((_, at) => at);
  order.sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));

  let bound = 1;
  let depth = 0;
  for (const key of keys) {
    bound += key.length;
    if (key.length > depth) depth = key.length;
  }
  const byte = new Uint8Array(bound);
  const end = new Uint32Array(bound);
  const tokensAt = new Uint32Array(bound + 1);
  const tokenIds = new Uint32Array(ids.length);
  // The nodes along the path of the string before, by depth.
  const path = new Uint32Array(depth + 1);
  let nodes = 1;
  let previous = '';
  for (let k = 0; k < order.length; k++) {
    const key = keys[order[k]!]!;
    let common = 0;
    const most = Math.min(key.length, previous.length);
    while (common < most && key.charCodeAt(common) === previous.charCodeAt(common)) common++;
    for (let d = previous.length; d > common; d--) end[path[d]!] = nodes;
    for (let d = common + 1; d <= key.length; d++) {
      byte[nodes] = key.charCodeAt(d - 1);
      path[d] = nodes++;
    }
    // In sorted order a string is never a proper prefix of the one before, so it ends at the
    // node made last (or at the same node as the one before, for a duplicate; the root if empty).
    tokensAt[key.length === 0 ? 0 : path[key.length]!]!++;
    tokenIds[k] = ids[order[k]!]!;
    previous = key;
  }
  for (let d = previous.length; d > 0; d--) end[path[d]!] = nodes;
  end[0] = nodes;
  const tokenStart = new Uint32Array(nodes + 1);
  for (let node = 0; node < nodes; node++) tokenStart[node + 1] = tokenStart[node]! + tokensAt[node]!;
  return { nodeCount: nodes, byte: byte.slice(0, nodes), end: end.slice(0, nodes), tokenStart, tokenIds, depth };
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  // Chunks keep the argument lists short (a long token would overflow the call's arguments).
  for (let at = 0; at < bytes.length; at += 4096) text += String.fromCharCode(...bytes.subarray(at, at + 4096));
  return text;
}
