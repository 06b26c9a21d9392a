/**
 * The `matcher` engine of `npx inpage-llm schemas check`: the product's own path for JSON
 * answers on transformers.js (src/engines/grammar/schema-constraint.ts), measured as it runs: the
 * vocabulary's trie and tables are built once, before any file (as once per loaded model); each
 * file's schema is read into a matcher of its own, so nothing of another file's masks is reused.
 * @module
 */
import { readSchema } from '../core/json-schema/schema-node.ts';
import { GatewayError } from '../core/errors.ts';
import type { GrammarSpec } from '../engines/grammar/ebnf.ts';
import { jsonMatcher } from '../engines/grammar/schema-matcher/json-matcher.ts';
import { createTokenMasks } from '../engines/grammar/token-masks/token-masks.ts';
import type { SchemaEngine } from './schemas-check.ts';

export const matcherEngine: SchemaEngine = {
  name: 'matcher',
  async prepare(vocabulary) {
    const masks = createTokenMasks(vocabulary);
    return {
      schemaMatcher: true,
      async compile(spec: GrammarSpec) {
        if (spec.kind !== 'json') throw new GatewayError('invalid_request', 'The schema matcher takes JSON answers only.');
        const output = spec.asked ?? spec.output;
        const matcher = jsonMatcher(output.kind === 'json_schema' ? readSchema(output.schema) : readSchema({ type: 'object' }));
        return { start: async () => masks.constraint(matcher) };
      },
    };
  },
};
