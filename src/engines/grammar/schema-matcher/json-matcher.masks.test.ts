/**
 * The masks of the schema matcher's states, fast paths and all, against the brute force (every
 * token's bytes stepped), on Qwen's real vocabulary: object names on the way to a declared one,
 * free names, strings, numbers, patterns.
 */
import { describe, expect, it } from 'vitest';
import { readSchema } from '../../../core/json-schema/schema-node.ts';
import type { MatchState } from '../byte-matcher.ts';
import { bruteMask, differences, qwenVocabulary } from '../token-masks/test-matchers.ts';
import { createTokenMasks } from '../token-masks/token-masks.ts';
import { tokenBytes } from '../vocabulary.ts';
import { jsonMatcher } from './json-matcher.ts';

const vocabulary = qwenVocabulary();
const masks = createTokenMasks(vocabulary);
const bytesOf = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));

describe('schema matcher masks on the Qwen vocabulary', () => {
  it.each([
    [{ type: 'object', properties: { action: { type: 'string' }, active: { type: 'boolean' } } }, ['{"', '{"a', '{"act', '{"acti', '{"x', '{"action":"', '{"action":"go","']],
    [{ type: 'object', properties: { id: { type: 'integer', minimum: 10, maximum: 20 } }, required: ['id'], additionalProperties: false }, ['{"', '{"id":', '{"id":1']],
    [{ type: 'object', patternProperties: { '^[a-z]+$': { type: 'string', maxLength: 3 } }, additionalProperties: false }, ['{"', '{"ab', '{"ab":"x']],
    [{ type: 'object', properties: { d: { type: 'string', format: 'date' } }, required: ['d'] }, ['{"d":"', '{"d":"2024-0']],
    // Unions: threads in strings of the same bounds go on together, each closing its own way.
    [{ anyOf: [{ type: 'object', properties: { a: { type: 'string' }, x: { type: 'integer' } }, required: ['a'] }, { type: 'object', properties: { a: { type: 'string' }, y: { type: 'boolean' } }, additionalProperties: false }] }, ['{"', '{"a', '{"z', '{"a":"', '{"a":"q', '{"a":"q","']],
    [{ type: 'array', items: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'string', maxLength: 5 }, { type: 'object', properties: { k: { type: 'string', maxLength: 4 } } }] } }, ['["', '["ab', '[{"', '[{"k":"ab', '["abcd']],
    // Names a pattern may give: any name where other names are taken too (the pattern decides the
    // value), or only those the one pattern matches, past the declared names.
    [{ type: 'object', properties: { alpha: { type: 'string' } }, patternProperties: { '^x-': { type: 'integer' } } }, ['{"', '{"a', '{"x', '{"x-', '{"x-1', '{"b', '{"alpha":"a","']],
    [{ type: 'object', properties: { p: { type: 'boolean' } }, patternProperties: { '^[a-z]{2}[0-9]$': { type: 'string', maxLength: 2 } }, additionalProperties: false }, ['{"', '{"q', '{"qr', '{"qr1', '{"p', '{"pq', '{"p":true,"', '{"qr1":"a","']],
    [{ type: 'object', patternProperties: { '^[é"\\\\]+$': { type: 'null' } }, additionalProperties: false, maxProperties: 2 }, ['{"', '{"é', '{"\\"', '{"\\\\é', '{"é":null,"']],
    // Bodies read through their automata: formats, patterns with lengths, escapes, characters of
    // several bytes, a quote or a backslash the pattern asks for, bodies entered from a structural state.
    [{ type: 'object', properties: { e: { type: 'string', format: 'email' }, u: { type: 'string', format: 'uri' } }, required: ['e', 'u'] }, ['{"e":', '{"e":"', '{"e":"a.b', '{"e":"ab@', '{"e":"ab@c.d', '{"e":"a@b.co","u":"', '{"e":"a@b.co","u":"https://x.org/p?q']],
    [{ type: 'array', items: { type: 'string', format: 'hostname', maxLength: 12 } }, ['[', '["', '["ab', '["abcdefghij', '["a.b",']],
    [{ type: 'array', items: { type: 'string', format: 'date-time' }, minItems: 1 }, ['["', '["2024-01-02T', '["2024-01-02T10:00:00']],
    [{ type: 'array', items: { type: 'string', pattern: '^(?:\\S+\\s+){0,3}\\S+$', minLength: 2, maxLength: 9 } }, ['["', '["a', '["ab ', '["ab\\', '["ab\\n', '["ab\\u00', '["a b c d']],
    [{ type: 'object', properties: { p: { type: 'string', pattern: '^[a-zé-ü]+"?\\\\?[\\u0001-\\u0010]?$' } } }, ['{"p":"', '{"p":"a', '{"p":"é', '{"p":"éa', '{"p":"a\\"', '{"p":"a\\\\', '{"p":"a\\u000', '{"p":"a\\u001']],
    [{ type: 'object', properties: { p: { type: 'string', pattern: '/api/v\\d+/x' }, q: { type: 'string', pattern: '[😀-😂]' } } }, ['{"p":"', '{"p":"/api/v', '{"p":"/api/v1', '{"p":"/api/v1/x","q":"', '{"p":"/api/v1/x","q":"a😁']],
    [{ type: 'string', pattern: '^[0-9]{3}$', format: 'ipv4' }, ['"', '"1', '"12']],
    // The same automaton in the same state under another closing: the body's masks kept, the rests walked anew.
    [{ type: 'object', properties: { a: { type: 'string', format: 'email' }, b: { type: 'array', items: { type: 'string', format: 'email' } } }, required: ['a', 'b'] }, ['{"a":"', '{"a":"x@y.z","b":["', '{"a":"x@y.z","b":["x@y.z","']],
  ])('equal to the brute force under %j', (schema, prefixes) => {
    const matcher = jsonMatcher(readSchema(schema));
    for (const prefix of prefixes) {
      let state: MatchState | undefined = matcher.start;
      for (const byte of new TextEncoder().encode(prefix)) state = state && matcher.step(state, byte);
      expect(state, prefix).toBeDefined();
      const differ = differences(masks.mask(matcher, state!), bruteMask(vocabulary, bytesOf, matcher, state!)).slice(0, 5);
      expect(differ.map((id) => JSON.stringify(vocabulary.tokens[id])), `after ${prefix}`).toEqual([]);
    }
  }, 120_000);
});
