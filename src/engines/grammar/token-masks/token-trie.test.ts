// The vocabulary's trie: every text token at the node its bytes lead to, and nothing else in it.
import { describe, expect, it } from 'vitest';
import { tokenBytes, type Vocabulary } from '../token-constraint.ts';
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

  it('puts an empty string at the root', () => {
    const rests = buildTrie([3, 4], (id) => (id === 3 ? new Uint8Array() : Uint8Array.of(0x2c)));
    expect([...rests.tokenIds.subarray(rests.tokenStart[0]!, rests.tokenStart[1]!)]).toEqual([3]);
    expect(rests.nodeCount).toBe(2);
  });
});
