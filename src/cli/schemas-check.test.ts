/**
 * `npx inpage-llm schemas check` on small handmade MaskBench files, with the built-in tokenizer
 * (tiny-chat's) and both of the product's engines (the schema matcher, the default, and xgrammar):
 * the status of each file, the lines printed, the summary, and the exit codes, through the
 * functions and once through the command.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenConstraint } from '../engines/grammar/vocabulary.ts';
import { admittedSpec, checkFile, parseSchemaFile, runSchemasCheck, sampleFiles, type FileResult, type PreparedSchemaEngine, type SchemaEngine, type SchemaFile } from './schemas-check.ts';
import { matcherEngine } from './schemas-check-matcher.ts';
import { loadCheckTokenizer, readSchemaFile, schemaPaths } from './schemas-check-files.ts';
import type { CheckTokenizer } from './schemas-check-tokenizer.ts';
import { xgrammarEngine } from './schemas-check-xgrammar.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NODE = join(ROOT, 'node_modules/.bin/node');

const PERSON = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0, maximum: 150 } }, required: ['name', 'age'], additionalProperties: false };
const COUNT = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
/** A oneOf of disjoint branches: the matcher enforces it, xgrammar's admission refuses it. */
const ONE_OF = { type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }, required: ['a'], additionalProperties: false };

/** The files, by name: what each must come to. */
const FILES: Record<string, object> = {
  'passing.json': {
    schema: PERSON,
    tests: [
      { valid: true, data: { name: 'Ada', age: 36 } },
      { valid: true, data: { name: 'Grace "Amazing" Hopper ✓', age: 85 } },
      { valid: false, data: { name: 'Ada', age: 200 } },
      { valid: false, data: { name: 'Ada' } },
      { valid: false, data: { name: 'Ada', age: 36, nickname: 'A' } },
    ],
  },
  // `not` is outside what the grammar enforces: a 400 names it.
  'refused.json': { schema: { type: 'object', not: { required: ['a'] } }, tests: [{ valid: true, data: {} }] },
  // Labelled the wrong way round: a valid instance said to be invalid, and an invalid one said to be valid.
  'accepts-invalid.json': { schema: COUNT, tests: [{ valid: true, data: { n: 1 } }, { valid: false, data: { n: 2 } }] },
  'refuses-valid.json': { schema: COUNT, tests: [{ valid: true, data: { n: 'one' } }, { valid: false, data: { n: 'two' } }] },
  'both.json': { schema: COUNT, tests: [{ valid: true, data: { n: 'one' } }, { valid: false, data: { n: 2 } }] },
  // A plain schema, with no instances: it compiles, so it passes.
  'plain.json': { type: 'array', items: { type: 'boolean' }, maxItems: 3 },
};

let dir: string;
let tokenizer: CheckTokenizer;
const ENGINES = { matcher: matcherEngine, xgrammar: xgrammarEngine } as const;
type EngineName = keyof typeof ENGINES;
const ENGINE_NAMES = Object.keys(ENGINES) as EngineName[];
const prepared = {} as Record<EngineName, PreparedSchemaEngine>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'schemas-check-'));
  for (const [name, content] of Object.entries(FILES)) await writeFile(join(dir, name), JSON.stringify(content));
  await mkdir(join(dir, 'nested'));
  await writeFile(join(dir, 'nested', 'skipped.json'), '{}');
  await writeFile(join(dir, 'notes.txt'), 'not a schema');
  tokenizer = await loadCheckTokenizer();
  for (const name of ENGINE_NAMES) prepared[name] = await ENGINES[name].prepare(tokenizer.vocabulary);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(files: string[], json: boolean, schemaEngine: SchemaEngine) {
  const lines: string[] = [];
  const code = await runSchemasCheck({ files, read: readSchemaFile, engine: schemaEngine, tokenizer, json, strict: false, timeoutMs: 10_000, write: (line) => lines.push(line) });
  return { code, lines };
}

const check = async (name: string, engine: EngineName = 'matcher') => checkFile(await readSchemaFile(join(dir, name)), prepared[engine], tokenizer, { strict: false, timeoutMs: 10_000 });
const checkTests = (engine: EngineName, schema: unknown, tests: SchemaFile['tests'], strict = false) => checkFile({ file: 'x', schema, tests }, prepared[engine], tokenizer, { strict, timeoutMs: 10_000 });

/** The 400 each engine's admission answers for refused.json. */
const REFUSED_NOT: Record<EngineName, string> = {
  matcher: 'Invalid schema for response_format at #/not: not is supported only for whole types.',
  xgrammar: "Invalid schema for response_format at #/not: 'not' cannot be enforced while decoding.",
};

describe('schemas check', () => {
  it.each(ENGINE_NAMES)('says of each file whether it passes, and why not, one JSON line each, then the summary (%s)', async (name) => {
    const { code, lines } = await run(await schemaPaths([dir]), true, ENGINES[name]);
    expect(code).toBe(1);
    const results = lines.slice(0, -1).map((line) => JSON.parse(line) as FileResult);
    const byName = Object.fromEntries(results.map((result) => [result.file.slice(dir.length + 1), result]));
    // The folder's *.json, by name, not its sub-folders' nor other files.
    expect(Object.keys(byName)).toEqual(Object.keys(FILES).sort());
    expect(Object.fromEntries(Object.entries(byName).map(([name, result]) => [name, result.status]))).toEqual({
      'accepts-invalid.json': 'invalidation_error',
      'both.json': 'invalidation_error',
      'passing.json': 'passing',
      'plain.json': 'passing',
      'refused.json': 'compile_error',
      'refuses-valid.json': 'validation_error',
    });
    // The 400 message a server answers for it.
    expect(byName['refused.json']).toEqual({ file: join(dir, 'refused.json'), status: 'compile_error', message: REFUSED_NOT[name], ttfm_us: null, masks: 0, tbm_us_p50: null, tbm_us_p99: null, tbm_us_max: null });
    expect(byName['both.json']!.message).toMatch(/^invalid instance accepted: #1; valid instance refused: #0 at token \d+ of \d+ \("\\""/);
    expect(byName['refuses-valid.json']!.message).toMatch(/^valid instance refused: #0 at token/);

    const passing = byName['passing.json']!;
    expect(Object.keys(passing)).toEqual(['file', 'status', 'ttfm_us', 'masks', 'tbm_us_p50', 'tbm_us_p99', 'tbm_us_max']);
    // A mask after every token of the valid instances (and of the invalid ones, up to where they are refused).
    const valid = (FILES['passing.json'] as { tests: { valid: boolean; data: unknown }[] }).tests.filter((test) => test.valid);
    expect(passing.masks).toBeGreaterThanOrEqual(valid.reduce((sum, test) => sum + tokenizer.encode(JSON.stringify(test.data)).length, 0));
    expect(passing.ttfm_us).toBeGreaterThan(0);
    expect(passing.tbm_us_p50!).toBeGreaterThan(0);
    expect(passing.tbm_us_p50!).toBeLessThanOrEqual(passing.tbm_us_p99!);
    expect(passing.tbm_us_p99!).toBeLessThanOrEqual(passing.tbm_us_max!);
    expect(byName['plain.json']).toMatchObject({ status: 'passing', masks: 0, tbm_us_p50: null });

    const { summary } = JSON.parse(lines.at(-1)!) as { summary: Record<string, number | null> };
    expect(summary).toMatchObject({ files: 6, passing: 2, compile_error: 1, validation_error: 1, invalidation_error: 2, timeout: 0 });
    expect(Object.keys(summary)).toEqual(['files', 'passing', 'compile_error', 'validation_error', 'invalidation_error', 'timeout', 'ttfm_us_p50', 'ttfm_us_p95', 'tbm_us_p50', 'tbm_us_p99']);
    expect(summary.ttfm_us_p50!).toBeLessThanOrEqual(summary.ttfm_us_p95!);
  });

  it.each(ENGINE_NAMES)('exits 0 when every file passes, and prints a line a file and the summary to read (%s)', async (name) => {
    const { code, lines } = await run([join(dir, 'passing.json'), join(dir, 'plain.json')], false, ENGINES[name]);
    expect(code).toBe(0);
    expect(lines[0]).toMatch(new RegExp(`^Checking 2 file\\(s\\) with ${name}, tokenizer tiny-chat`));
    expect(lines[1]).toMatch(/^ok {3}.*passing\.json: ttfm [\d.]+ (ms|µs), \d+ masks \(p50 /);
    expect(lines[2]).toMatch(/^ok {3}.*plain\.json: ttfm [\d.]+ (ms|µs), 0 masks$/);
    expect(lines[3]).toBe('2 file(s): 2 passing, 0 refused (compile_error), 0 validation_error, 0 invalidation_error, 0 timeout.');
    expect(lines[4]).toMatch(/^Time to first mask p50 .+, p95 .+; time between masks p50 .+, p99 .+\.$/);
  });

  it.each(ENGINE_NAMES)('accepts a valid instance whose properties come out of the order the schema gives: it is written in that order first, as the output would be (%s)', async (name) => {
    // Members in the schema's order (name, then age), nested ones too; the engines write them so.
    const nested = { type: 'object', properties: { person: PERSON, n: { type: 'integer' } }, required: ['person', 'n'], additionalProperties: false };
    const swapped = await checkTests(name, nested, [
      { valid: true, data: { n: 1, person: { age: 36, name: 'Ada' } } },
      // Reordered, an invalid instance stays invalid.
      { valid: false, data: { n: 1, person: { age: 36, nickname: 'A', name: 'Ada' } } },
      { valid: false, data: { person: { age: 200, name: 'Ada' }, n: 1 } },
    ]);
    expect(swapped).toMatchObject({ status: 'passing' });
    expect(swapped.masks).toBeGreaterThan(0);
  });

  it.each(ENGINE_NAMES)('refuses an instance that is only the beginning of a valid one where no stop token is allowed after it (%s)', async (name) => {
    const twoDigits = { type: 'integer', minimum: 10, maximum: 99 };
    expect((await checkTests(name, twoDigits, [{ valid: true, data: 12 }, { valid: false, data: 1 }])).status).toBe('passing');
    const labelledValid = await checkTests(name, twoDigits, [{ valid: true, data: 1 }]);
    expect(labelledValid).toMatchObject({ status: 'validation_error', message: 'valid instance refused: #0 at the end: no stop token allowed after "1"' });
  });

  it.each(ENGINE_NAMES)('stops a file that runs past its time, with status timeout (%s)', async (name) => {
    const engine = prepared[name];
    let clock = 0;
    const result = await checkFile(await readSchemaFile(join(dir, 'passing.json')), engine, tokenizer, { strict: false, timeoutMs: 50, now: () => (clock += 10) });
    expect(result.status).toBe('timeout');
    expect(result.message).toMatch(/^ran past 50 ms after [0-4] of 5 instances$/);
    // A first mask later than that: no instance is fed.
    clock = 0;
    const slow = await checkFile(await readSchemaFile(join(dir, 'passing.json')), engine, tokenizer, { strict: false, timeoutMs: 5, now: () => (clock += 10) });
    expect(slow).toMatchObject({ status: 'timeout', message: 'the first mask took 10 ms, past the 5 ms a file may take (compiling is not interrupted)', masks: 0 });
  });

  it('takes a file\'s own "strict", and --strict for files that do not say (xgrammar: strict forbids members beyond the schema\'s)', async () => {
    const engine = prepared.xgrammar;
    const open = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
    const extra = [{ valid: false, data: { a: 1, b: 2 } }];
    const options = { timeoutMs: 10_000 };
    expect((await checkFile({ file: 'x', schema: open, tests: extra }, engine, tokenizer, { ...options, strict: true })).status).toBe('passing');
    expect((await checkFile({ file: 'x', schema: open, tests: extra }, engine, tokenizer, { ...options, strict: false })).status).toBe('invalidation_error');
    expect((await checkFile({ file: 'x', schema: open, tests: extra, strict: true }, engine, tokenizer, { ...options, strict: false })).status).toBe('passing');
  });

  it('enforces a schema as JSON Schema reads it with the matcher: members beyond those named are allowed unless additionalProperties says not', async () => {
    const open = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
    const extra = { a: 1, b: 2 };
    expect((await checkTests('matcher', open, [{ valid: true, data: { a: 1 } }, { valid: true, data: extra }, { valid: false, data: { b: 2 } }])).status).toBe('passing');
    expect((await checkTests('matcher', { ...open, additionalProperties: false }, [{ valid: true, data: { a: 1 } }, { valid: false, data: extra }])).status).toBe('passing');
    expect((await checkTests('matcher', { ...open, additionalProperties: { type: 'string' } }, [{ valid: true, data: { a: 1, b: 'two' } }, { valid: false, data: extra }])).status).toBe('passing');
  });

  it('admits a schema as the server does: the grammar of the admitted form, or the 400', () => {
    // The grammar form, and beside it the request's own output where they differ.
    expect(admittedSpec({ type: 'integer', minimum: 1, maximum: 3 }, false)).toEqual({
      kind: 'json',
      output: { kind: 'json_schema', schema: { enum: [1, 2, 3] }, strict: false },
      asked: { kind: 'json_schema', name: 'schema', schema: { type: 'integer', minimum: 1, maximum: 3 }, strict: false },
    });
    expect(admittedSpec(COUNT, true)).toMatchObject({ kind: 'json', output: { kind: 'json_schema', schema: COUNT, strict: true } });
    expect(() => admittedSpec(true, false)).toThrow("Invalid type for 'response_format.json_schema.schema': expected an object, but got a boolean true.");
    // For the schema matcher, by what it reads: a oneOf of disjoint branches is admitted.
    expect(() => admittedSpec(ONE_OF, false)).toThrow("Invalid schema for response_format at #/properties/a/oneOf: 'oneOf' cannot be enforced while decoding.");
    expect(admittedSpec(ONE_OF, false, true)).toMatchObject({ kind: 'json', output: { kind: 'json_schema', schema: ONE_OF } });
  });

  it('reads a MaskBench file without tests as its schema alone', async () => {
    await writeFile(join(dir, 'untested.txt'), JSON.stringify({ description: 'no tests', schema: COUNT }));
    expect(await readSchemaFile(join(dir, 'untested.txt'))).toEqual({ file: join(dir, 'untested.txt'), schema: COUNT, tests: [] });
    expect(await check('untested.txt')).toMatchObject({ status: 'passing', masks: 0 });
  });

  it('reads a file that is not JSON, or whose tests lack "valid", as refused, saying why', async () => {
    await writeFile(join(dir, 'broken.txt'), '{"schema": ');
    await writeFile(join(dir, 'unlabelled.txt'), JSON.stringify({ schema: COUNT, tests: [{ data: { n: 1 } }] }));
    expect(await check('broken.txt')).toMatchObject({ status: 'compile_error', message: expect.stringMatching(/^Not a JSON file: /) });
    expect(await check('unlabelled.txt')).toMatchObject({ status: 'compile_error', message: 'tests[0] needs "valid" (true or false) and "data".' });
  });

  it('samples files evenly and the same every time, then limits them', async () => {
    const all = await schemaPaths([dir]);
    expect(await schemaPaths([dir], { sample: 3 })).toEqual([all[0], all[2], all[4]]);
    expect(await schemaPaths([dir], { sample: 3, limit: 2 })).toEqual([all[0], all[2]]);
    expect(await schemaPaths([join(dir, 'plain.json'), dir], { limit: 2 })).toEqual([join(dir, 'plain.json'), all[0]]);
    await expect(schemaPaths([join(dir, 'missing.json')])).rejects.toThrow(`${join(dir, 'missing.json')}: no such file or folder.`);
  });

  it('samples a list of names as it samples the files on disk (the browser bench gets the same files)', async () => {
    const all = await schemaPaths([dir]);
    const names = all.map((file) => file.slice(dir.length + 1));
    expect(sampleFiles(names, { sample: 3, limit: 2 }).map((name) => join(dir, name))).toEqual(await schemaPaths([dir], { sample: 3, limit: 2 }));
    expect(sampleFiles(names, { sample: 100 })).toEqual(names);
  });

  it('checks files read another way, as the browser bench fetches them, to the same results', async () => {
    const files = await schemaPaths([dir]);
    const fromDisk = await run(files, true, matcherEngine);
    const texts = new Map(Object.entries(FILES).map(([name, content]) => [join(dir, name), JSON.stringify(content)]));
    const lines: string[] = [];
    const code = await runSchemasCheck({ files, read: async (file) => parseSchemaFile(file, texts.get(file)!), engine: matcherEngine, tokenizer, json: true, strict: false, timeoutMs: 10_000, write: (line) => lines.push(line) });
    const untimed = (line: string) => {
      const { ttfm_us: _, tbm_us_p50: _50, tbm_us_p99: _99, tbm_us_max: _max, ...rest } = JSON.parse(line) as FileResult;
      return rest;
    };
    expect(code).toBe(fromDisk.code);
    expect(lines.slice(0, -1).map(untimed)).toEqual(fromDisk.lines.slice(0, -1).map(untimed));
  });

  it('measures another engine through the same interface: one whose masks are there at once', async () => {
    // Allows every token: every invalid instance gets through.
    const everything: SchemaEngine = {
      name: 'everything',
      prepare: async (vocabulary) => ({
        compile: async () => ({
          start: async (): Promise<TokenConstraint> => {
            const mask = new Int32Array(Math.ceil(vocabulary.size / 32)).fill(-1);
            let terminated = false;
            return { mask: () => mask, ready: async () => {}, accept: (token) => ((terminated = vocabulary.stopTokenIds.includes(token)), true), get terminated() { return terminated; }, dispose: () => {} };
          },
        }),
      }),
    };
    const { code, lines } = await run([join(dir, 'passing.json'), join(dir, 'refused.json')], true, everything);
    expect(code).toBe(1);
    expect(lines.map((line) => (JSON.parse(line) as FileResult).status)).toEqual(['invalidation_error', 'compile_error', undefined]);
  });
});

describe('npx inpage-llm schemas check', () => {
  function cli(...args: string[]) {
    const child = spawn(NODE, ['src/cli/main.ts', 'schemas', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    return once(child, 'exit').then(([code]) => ({ code: code as number | null, stdout, stderr }));
  }

  it('checks a folder and a file, exits 1 when one does not pass, 0 when all do', async () => {
    // xgrammar warns on stdout that it ignores a length beside a pattern: not in the report.
    const warned = join(dir, 'warned.schema');
    await writeFile(warned, JSON.stringify({ type: 'string', pattern: '^[a-z]+$', maxLength: 8 }));
    const [failing, passing, json] = await Promise.all([cli('check', dir, '--json'), cli('check', join(dir, 'passing.json'), '--limit', '1'), cli('check', warned, '--json', '--engine', 'xgrammar')]);
    expect(failing.code, failing.stderr).toBe(1);
    const lines = failing.stdout.trim().split('\n').map((line) => JSON.parse(line) as { status?: string; summary?: { files: number } });
    expect(lines.map((line) => line.status ?? 'summary')).toEqual(['invalidation_error', 'invalidation_error', 'passing', 'passing', 'compile_error', 'validation_error', 'summary']);
    expect(lines.at(-1)!.summary!.files).toBe(6);
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toMatch(/^1 file\(s\): 1 passing,/m);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout.trim().split('\n').map((line) => Object.keys(JSON.parse(line) as object)[0])).toEqual(['file', 'summary']);
    expect(json.stderr).toMatch(/ignoring minLength\/maxLength\/format/);
  });

  it('measures with the matcher unless --engine says xgrammar, which refuses a schema the matcher enforces', async () => {
    const file = join(dir, 'one-of.schema');
    await writeFile(file, JSON.stringify({ schema: ONE_OF, tests: [{ valid: true, data: { a: 'x' } }, { valid: true, data: { a: 3 } }, { valid: false, data: { a: true } }] }));
    const [byDefault, matcher, xgrammar] = await Promise.all([cli('check', file), cli('check', file, '--json', '--engine', 'matcher'), cli('check', file, '--json', '--engine', 'xgrammar')]);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(byDefault.stdout).toMatch(/^Checking 1 file\(s\) with matcher, /);
    expect(byDefault.stdout).toMatch(/^1 file\(s\): 1 passing,/m);
    expect(matcher.code, matcher.stderr).toBe(0);
    expect(JSON.parse(matcher.stdout.trim().split('\n')[0]!)).toMatchObject({ file, status: 'passing' });
    expect(xgrammar.code, xgrammar.stderr).toBe(1);
    expect(JSON.parse(xgrammar.stdout.trim().split('\n')[0]!)).toEqual({ file, status: 'compile_error', message: "Invalid schema for response_format at #/properties/a/oneOf: 'oneOf' cannot be enforced while decoding.", ttfm_us: null, masks: 0, tbm_us_p50: null, tbm_us_p99: null, tbm_us_max: null });
  });

  it.each([
    [['check'], 'schemas check takes at least one file or folder.'],
    [['verify', 'x.json'], 'Unknown schemas command "verify"; the one there is: check.'],
    [['check', 'nowhere.json'], 'nowhere.json: no such file or folder.'],
    [['check', 'x.json', '--engine', 'nope'], "--engine takes matcher or xgrammar, not 'nope'."],
    [['check', 'x.json', '--timeout-ms', 'soon'], "--timeout-ms takes a whole number from 1 to 3600000, not 'soon'."],
    [['check', 'x.json', '--frobnicate'], "Unknown option '--frobnicate'"],
  ])('exits 2 for a mistake in the command line: %j', async (args, message) => {
    const { code, stderr } = await cli(...args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain('npx inpage-llm schemas check FILE_OR_DIR...');
  });
});
