// The vocabulary's trie: every text token at the node its bytes lead to, and nothing else in it.
import { describe, expect, it } from 'vitest';
import { tokenBytes, type Vocabulary } from '../vocabulary.ts';
import { buildTrie, buildVocabularyTrie, NEVER, STOP, TEXT } from './token-trie.ts';

describe('the token trie', () => {
  const vocabulary: Vocabulary = {
    tokens: ['a', 'ab', 'abc', 'b', '', 'ab', '<|im_end|>', '<|im_start|>', 'Ġx', '<0x41>'],
    type: 'byte_level',
    prependSpace: false,
    size: 16,
    stopTokenIds: [6],
    specialTokenIds: [6, 7],
  };
  const { trie, bytes } = buildVocabularyTrie(vocabulary);

  /** Each node's path from the root, read back from the preorder layout. */
  function paths(): Map<number, string> {
    const found = new Map<number, string>([[0, '']]);
    const walk = (node: number, path: string) => {
      for (let child = node + 1; child < trie.end[node]!; child = trie.end[child]!) {
        const childPath = path + String.fromCharCode(trie.byte[child]!);
        found.set(child, childPath);
        walk(child, childPath);
      }
    };
    walk(0, '');
    return found;
  }

  it('holds each text token at the node of its bytes, duplicates together', () => {
    const byNode = paths();
    const at = new Map<number, string>();
    for (let node = 0; node < trie.nodeCount; node++) {
      for (let k = trie.tokenStart[node]!; k < trie.tokenStart[node + 1]!; k++) at.set(trie.tokenIds[k]!, byNode.get(node)!);
    }
    const spelled = (id: number) => String.fromCharCode(...tokenBytes(vocabulary.tokens[id]!, 'byte_level'));
    expect([...at.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 5, 8, 9]);
    for (const [id, path] of at) expect(path).toBe(spelled(id));
    expect(trie.nodeCount).toBe(1 + 3 + 1 + 2 + 6); // a ab abc; b; Ġx as two bytes; <0x41> spelled out
    expect(trie.depth).toBe(6);
  });

  it('marks stop tokens, specials and empty tokens apart from text', () => {
    expect([...bytes.kind]).toEqual([TEXT, TEXT, TEXT, TEXT, NEVER, TEXT, STOP, NEVER, TEXT, TEXT]);
    expect([...bytes.data.subarray(bytes.offset[8]!, bytes.offset[9]!)]).toEqual([0x20, 0x78]);
  });

  it('holds random strings with shared prefixes, duplicates and empty ones, children in byte order', () => {
    let seed = 5;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = [0x00, 0x01, 0x22, 0x7f, 0x80, 0xff];
    const strings = Array.from({ length: 3000 }, () => Array.from({ length: Math.floor(next() * 7) }, () => alphabet[Math.floor(next() * alphabet.length)]!));
    const begin = new Uint32Array(strings.length);
    const finish = new Uint32Array(strings.length);
    strings.forEach((string, id) => {
      begin[id] = id === 0 ? 0 : finish[id - 1]!;
      finish[id] = begin[id]! + string.length;
    });
    // Every other id, in a shuffled order: the trie must not depend on the order given.
    const ids = strings.map((_, id) => id).filter((id) => id % 2 === 0);
    for (let k = ids.length - 1; k > 0; k--) {
      const other = Math.floor(next() * (k + 1));
      [ids[k], ids[other]] = [ids[other]!, ids[k]!];
    }
    const built = buildTrie(ids, Uint8Array.from(strings.flat()), begin, finish);
    const found = new Map<number, string>();
    const walk = (node: number, path: number[]) => {
      for (let k = built.tokenStart[node]!; k < built.tokenStart[node + 1]!; k++) {
        expect(found.has(built.tokenIds[k]!)).toBe(false);
        found.set(built.tokenIds[k]!, path.join());
      }
      let last = -1;
      for (let child = node + 1; child < built.end[node]!; child = built.end[child]!) {
        expect(built.byte[child]!).toBeGreaterThan(last);
        expect(built.end[child]!).toBeLessThanOrEqual(built.end[node]!);
        last = built.byte[child]!;
        walk(child, [...path, last]);
      }
    };
    walk(0, []);
    expect(found.size).toBe(ids.length);
    for (const id of ids) expect(found.get(id)).toBe(strings[id]!.join());
    const prefixes = new Set(ids.flatMap((id) => strings[id]!.map((_, length) => strings[id]!.slice(0, length + 1).join())));
    expect(built.nodeCount).toBe(1 + prefixes.size);
  });

  it('puts an empty string at the root', () => {
    // Id 3 is empty, id 4 is a comma.
    const rests = buildTrie([3, 4], Uint8Array.of(0x2c), new Uint32Array(5), Uint32Array.of(0, 0, 0, 0, 1));
    expect([...rests.tokenIds.subarray(rests.tokenStart[0]!, rests.tokenStart[1]!)]).toEqual([3]);
    expect(rests.nodeCount).toBe(2);
  });
});
