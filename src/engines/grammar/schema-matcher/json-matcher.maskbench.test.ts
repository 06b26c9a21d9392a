/**
 * The matcher on real-world schemas, MaskBench's way, byte by byte: every instance marked valid is
 * accepted as compact JSON, none marked invalid is, and at least llguidance's share of the files
 * pass (79%: 8,909 of 11,306 in MaskBench's run). The schemas are data outside the project
 * (test/support/maskbench.ts says where); without them the test is skipped and says so. The token level,
 * with a real tokenizer, is `npx inpage-llm schemas check`'s (the bench runs it on every file).
 *
 *   MASKBENCH_STRIDE=1 npx vitest run src/engines/grammar/schema-matcher/json-matcher.maskbench.test.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { acceptsText } from '../byte-matcher.ts';
import { jsonMatcher } from './json-matcher.ts';
import { inDefinitionOrder, readSchema, UnenforceableSchema, type Node } from '../../../core/json-schema/schema-node.ts';
import { MASKBENCH_DIR, maskbenchMissing } from '../../../../test/support/maskbench.ts';
import { skippedTitle } from '../../../../test/support/skipped-title.ts';

/**
 * Files whose labels JSON Schema itself contradicts: an instance marked invalid that the schema
 * allows (ajv agrees, checked below). Not counted as accepted-but-invalid.
 */
const MISLABELLED: Readonly<Record<string, string>> = {
  // No additionalProperties: an undeclared member is allowed.
  'Github_easy---o24544.json': 'an undeclared member, which the schema does not forbid',
  // Only the first oneOf branch matches (its type enum is "addUser"); nothing forbids the other members.
  'Github_trivial---o14485.json': 'a oneOf whose first branch alone matches',
};

const DIR = MASKBENCH_DIR;
const missing = maskbenchMissing();
/** Every file at CI's pace would take half a minute: a third of them, spread over every source. */
const STRIDE = Number(process.env.MASKBENCH_STRIDE ?? 3);

const ajv = new Ajv({ strict: false, validateSchema: false, validateFormats: false });
/** Ajv reads draft-04 to -07 schemas as its own draft when not told otherwise. */
const withoutDialect = (schema: unknown) => {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
};

describe.skipIf(missing !== undefined)(skippedTitle('jsonMatcher on the MaskBench schemas', missing), () => {
  it('accepts every valid instance, refuses every invalid one, and passes at least llguidance\'s share', () => {
    const files = readdirSync(DIR).filter((name) => name.endsWith('.json')).sort().filter((_, i) => i % STRIDE === 0);
    const counts = { passing: 0, compile_error: 0, validation_error: 0, invalidation_error: 0 };
    const invalidAccepted: string[] = [];
    const validRefused: string[] = [];
    for (const name of files) {
      const file = JSON.parse(readFileSync(join(DIR, name), 'utf8')) as { schema: unknown; tests?: { valid: boolean; data: unknown }[] };
      let matcher;
      let node: Node;
      try {
        node = readSchema(file.schema);
        matcher = jsonMatcher(node);
      } catch (error) {
        if (!(error instanceof UnenforceableSchema)) throw new Error(`${name}: ${String(error)}`);
        counts.compile_error++;
        continue;
      }
      let status: keyof typeof counts = 'passing';
      for (const test of file.tests ?? []) {
        // As the output would be written: members in the schema's order (MaskBench's way).
        const text = JSON.stringify(inDefinitionOrder(node, test.data));
        if (/\\ud[89a-f]/i.test(text)) continue; // a lone surrogate is never written (byte-matcher.ts)
        const accepted = acceptsText(matcher, text);
        if (accepted && !test.valid && name in MISLABELLED) {
          expect(ajv.validate(withoutDialect(file.schema), test.data), `${name}: ${MISLABELLED[name]}`).toBe(true);
          continue;
        }
        if (accepted && !test.valid) {
          status = 'invalidation_error';
          invalidAccepted.push(`${name}: ${text.slice(0, 200)}`);
        } else if (!accepted && test.valid && status === 'passing') {
          status = 'validation_error';
          validRefused.push(`${name}: ${text.slice(0, 200)}`);
        }
      }
      counts[status]++;
    }
    console.log(`MaskBench, ${files.length} files (every ${STRIDE}th): ${JSON.stringify(counts)}`);
    expect(invalidAccepted).toEqual([]);
    expect(validRefused.length, validRefused.join('\n')).toBeLessThanOrEqual(Math.ceil(files.length * 0.002));
    expect(counts.passing / files.length).toBeGreaterThanOrEqual(8909 / 11306);
  }, 120_000);
});
