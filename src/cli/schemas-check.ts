/**
 * `npx inpage-llm schemas check`: whether this product can enforce each JSON schema it is given,
 * and how fast, measured as MaskBench measures constraint engines (JSONSchemaBench's benchmark,
 * github.com/guidance-ai/jsonschemabench): for every test instance of a file, its compact JSON
 * (`JSON.stringify`, members in the order the schema declares them, as the output is written) is
 * tokenized without special tokens and fed
 * token by token; before each token the mask must allow it, and it is accepted; at the end a stop
 * token must be allowed. A valid instance must go through to the stop, an invalid one must be
 * refused somewhere on the way.
 *
 * The times: the time to first mask (ttfm) runs from the schema read to its first mask ready,
 * admission and compiling included, nothing reused from an earlier file; a time between masks
 * (tbm, one "mask") from a token given to the matcher to the next mask ready, accepting the token
 * included. A later instance's first mask (a matcher started on the grammar compiled already) is
 * neither.
 *
 * A schema goes the way a server's request goes: parsed as chat completions' `response_format`
 * and admitted for a model of this device (core/admit.ts), so a schema refused here is refused
 * with the 400 message a server would answer; the grammar then comes from the admitted request
 * as the engine makes it (engines/grammar/ebnf.ts). The engine that compiles and matches it is
 * pluggable (`SchemaEngine`): `matcher`, what transformers.js models enforce JSON answers with
 * (the default), and `xgrammar`, what web-llm models and every tool call use.
 *
 * No Node API here nor in the tokenizer's module (schemas-check-tokenizer.ts): reading the files
 * and the tokenizer folder is schemas-check-files.ts's, so the same check runs in a browser's
 * worker (`npm run bench -- --schemas`, bench/pages/workers/schemas-check.ts) over files fetched.
 * @module
 */
import { admitFor } from '../core/admit.ts';
import type { ModelInfo } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import { grammarSpecOf, type GrammarSpec } from '../engines/grammar/ebnf.ts';
import type { TokenConstraint, Vocabulary } from '../engines/grammar/vocabulary.ts';
import { inDefinitionOrder, readSchema } from '../core/json-schema/schema-node.ts';
import { parseChatCompletion } from '../protocol/openai/chat/parse.ts';
import type { CheckTokenizer } from './schemas-check-tokenizer.ts';

/**
 * A constraint engine the runner measures. Prepared once per tokenizer, before any file is timed;
 * then each file's grammar is compiled, and a matcher started from it for each test instance.
 */
export interface SchemaEngine {
  /** What `--engine` calls it. */
  readonly name: string;
  prepare(vocabulary: Vocabulary): Promise<PreparedSchemaEngine>;
}

export interface PreparedSchemaEngine {
  /** Admission checks schemas by what the schema matcher reads (ModelInfo.schemaMatcher), not by the grammar engine's rules. */
  readonly schemaMatcher?: boolean;
  /**
   * The grammar of `spec` (an admitted schema, as the server hands it to its engine), compiled
   * afresh: nothing of an earlier call may be reused, since the time it takes is part of the
   * time to first mask. A schema the engine cannot enforce rejects with a GatewayError (a 400:
   * its message is what the caller would read).
   */
  compile(spec: GrammarSpec): Promise<CompiledSchema>;
}

export interface CompiledSchema {
  /**
   * A matcher at the start of the output. Its `mask()` may be undefined until `ready()` resolves
   * (xgrammar computes masks asynchronously); a synchronous engine has it at once, and is timed
   * without a wait. The runner disposes of each matcher it started.
   */
  start(): Promise<TokenConstraint>;
}

export type CheckStatus = 'passing' | 'compile_error' | 'validation_error' | 'invalidation_error' | 'timeout';

/** One file's result: the line `--json` prints for it. Times in microseconds; null where nothing was measured. */
export interface FileResult {
  readonly file: string;
  readonly status: CheckStatus;
  readonly message?: string;
  /** From reading the schema to its first mask, compiling included (null: refused). */
  readonly ttfm_us: number | null;
  /** Masks computed after a token was accepted, over all the file's instances. */
  readonly masks: number;
  readonly tbm_us_p50: number | null;
  readonly tbm_us_p99: number | null;
  readonly tbm_us_max: number | null;
}

export interface Summary {
  readonly files: number;
  readonly passing: number;
  readonly compile_error: number;
  readonly validation_error: number;
  readonly invalidation_error: number;
  readonly timeout: number;
  /** Over the files that got a first mask. */
  readonly ttfm_us_p50: number | null;
  readonly ttfm_us_p95: number | null;
  /** Over every mask of every file. */
  readonly tbm_us_p50: number | null;
  readonly tbm_us_p99: number | null;
}

/** A test instance of a MaskBench file: `data` must be accepted when `valid`, refused when not. */
export interface SchemaTest {
  readonly valid: boolean;
  readonly data: unknown;
}

/** One file read: its schema, and its instances (none for a plain schema file). */
export interface SchemaFile {
  readonly file: string;
  readonly schema: unknown;
  readonly tests: readonly SchemaTest[];
  /** The file's own `strict`, where it says. */
  readonly strict?: boolean;
  /** Why the file could not be read as a schema file, instead of the rest. */
  readonly unreadable?: string;
}

export interface CheckOptions {
  /** Strict mode where a file does not say (MaskBench's default: not strict). */
  readonly strict: boolean;
  readonly timeoutMs: number;
  /** The clock, in milliseconds (tests may slow it down). */
  readonly now?: () => number;
  /** Where each mask's time (ms) is also put: the run's percentiles are over every mask. */
  readonly masks?: number[];
}

/** The model the schemas are admitted for: one of this device's, which enforces schemas with a grammar. */
const LOCAL_MODEL: ModelInfo = { id: 'schemas-check', kind: 'chat', engine: 'schemas-check', contextWindow: 32_768, structuredOutput: true };

/**
 * The grammar the server would hand its engine for `schema` as a chat completion's
 * `response_format`; throws the 400 it would answer instead.
 */
export function admittedSpec(schema: unknown, strict: boolean, schemaMatcher = false): GrammarSpec {
  const body = { model: LOCAL_MODEL.id, messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema', json_schema: { name: 'schema', schema, strict } } };
  const { chat } = admitFor(parseChatCompletion(body), schemaMatcher ? { ...LOCAL_MODEL, schemaMatcher } : LOCAL_MODEL);
  const spec = grammarSpecOf(chat);
  if (!spec) throw new Error('The admitted request has no output constraint.');
  return spec;
}

/** Checks one file with `engine` and `tokenizer`. */
export async function checkFile(input: SchemaFile, engine: PreparedSchemaEngine, tokenizer: CheckTokenizer, options: CheckOptions): Promise<FileResult> {
  const now = options.now ?? (() => performance.now());
  const refused = (message: string): FileResult => ({ file: input.file, status: 'compile_error', message, ttfm_us: null, masks: 0, tbm_us_p50: null, tbm_us_p99: null, tbm_us_max: null });
  if (input.unreadable !== undefined) return refused(input.unreadable);

  const begun = now();
  const deadline = begun + options.timeoutMs;
  let compiled: CompiledSchema;
  let first: TokenConstraint;
  try {
    compiled = await engine.compile(admittedSpec(input.schema, input.strict ?? options.strict, engine.schemaMatcher));
    first = await compiled.start();
  } catch (error) {
    return refused(error instanceof GatewayError ? error.message : `The engine failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const tbm: number[] = [];
  // Each instance as the output would be written: members in the schema's order (MaskBench's way).
  let order = (data: unknown): unknown => data;
  try {
    const node = readSchema(input.schema);
    order = (data) => inDefinitionOrder(node, data);
  } catch {
    // A schema the reader refuses (one only the grammar engine takes): the instances as they are.
  }
  let ttfm: number;
  try {
    await maskOf(first);
    ttfm = now() - begun;
  } catch (error) {
    first.dispose();
    return refused(`The engine failed on the first mask: ${error instanceof Error ? error.message : String(error)}`);
  }

  const refusedValid: string[] = [];
  const acceptedInvalid: string[] = [];
  let timedOut = false;
  let constraint: TokenConstraint | undefined = first;
  let checked = 0;
  for (const [index, test] of input.tests.entries()) {
    if (ttfm > options.timeoutMs || now() > deadline) {
      timedOut = true;
      break;
    }
    try {
      constraint ??= await compiled.start();
      const outcome = await feed(constraint, tokenizer, JSON.stringify(order(test.data)), tbm, now, deadline);
      if (outcome === 'timeout') {
        timedOut = true;
        break;
      }
      if (test.valid && outcome !== 'accepted') refusedValid.push(`#${index} ${outcome}`);
      if (!test.valid && outcome === 'accepted') acceptedInvalid.push(`#${index}`);
      checked++;
    } catch (error) {
      // The engine broke on this instance: it produced no output, which refuses it.
      if (test.valid) refusedValid.push(`#${index}: the engine failed (${error instanceof Error ? error.message : String(error)})`);
      checked++;
    } finally {
      constraint?.dispose();
      constraint = undefined;
    }
  }
  if (constraint === first) first.dispose();
  if (ttfm > options.timeoutMs) timedOut = true;

  const messages = [
    acceptedInvalid.length ? `invalid instance${plural(acceptedInvalid)} accepted: ${acceptedInvalid.join(', ')}` : '',
    refusedValid.length ? `valid instance${plural(refusedValid)} refused: ${refusedValid.join('; ')}` : '',
    !timedOut ? '' : ttfm > options.timeoutMs ? `the first mask took ${Math.round(ttfm)} ms, past the ${options.timeoutMs} ms a file may take (compiling is not interrupted)` : `ran past ${options.timeoutMs} ms after ${checked} of ${input.tests.length} instances`,
  ].filter(Boolean);
  // One status a file, as MaskBench counts: an invalid instance accepted is the real bug (output
  // the schema forbids), so it is reported before a valid one refused; either, once found, before
  // running out of time.
  const status: CheckStatus = acceptedInvalid.length ? 'invalidation_error' : refusedValid.length ? 'validation_error' : timedOut ? 'timeout' : 'passing';
  options.masks?.push(...tbm);
  tbm.sort((a, b) => a - b);
  return {
    file: input.file,
    status,
    ...(messages.length ? { message: messages.join('; ') } : {}),
    ttfm_us: Math.round(ttfm * 1000),
    masks: tbm.length,
    tbm_us_p50: micros(percentile(tbm, 50)),
    tbm_us_p99: micros(percentile(tbm, 99)),
    tbm_us_max: micros(tbm.at(-1)),
  };
}

const plural = (items: readonly unknown[]) => (items.length > 1 ? 's' : '');

/**
 * Feeds `text` through `constraint` token by token, then a stop token; each mask after an accepted
 * token is timed into `tbm` (from the accept, which starts it, to the mask ready).
 */
async function feed(constraint: TokenConstraint, tokenizer: CheckTokenizer, text: string, tbm: number[], now: () => number, deadline: number): Promise<'accepted' | 'timeout' | string> {
  const ids = tokenizer.encode(text);
  let mask = await maskOf(constraint);
  for (const [at, id] of ids.entries()) {
    if (!allows(mask, id)) return `at token ${at} of ${ids.length} (${near(tokenizer, ids, at)})`;
    const start = now();
    if (!constraint.accept(id)) return `at token ${at} of ${ids.length} (${near(tokenizer, ids, at)}), which its mask allowed`;
    mask = constraint.mask() ?? (await maskOf(constraint));
    tbm.push(now() - start);
    if (now() > deadline) return 'timeout';
  }
  const stop = tokenizer.vocabulary.stopTokenIds.find((id) => allows(mask, id));
  if (stop === undefined) return `at the end: no stop token allowed after ${JSON.stringify(clip(text))}`;
  if (!constraint.accept(stop) || !constraint.terminated) return 'at the end: the stop token, which its mask allowed, did not end it';
  return 'accepted';
}

/** The constraint's mask, waiting for it where it is being computed. */
async function maskOf(constraint: TokenConstraint): Promise<Int32Array> {
  const ready = constraint.mask();
  if (ready) return ready;
  await constraint.ready();
  const mask = constraint.mask();
  if (!mask) throw new Error('no mask after ready()');
  return mask;
}

const allows = (mask: Int32Array, id: number) => ((mask[id >> 5] ?? 0) & (1 << (id & 31))) !== 0;

/** The text up to and including token `at`, its end, for a message. */
function near(tokenizer: CheckTokenizer, ids: readonly number[], at: number): string {
  const before = tokenizer.decode(ids.slice(Math.max(0, at - 12), at));
  return `${JSON.stringify(tokenizer.decode([ids[at]!]))} after ${JSON.stringify(before)}`;
}

const clip = (text: string) => (text.length > 40 ? `…${text.slice(-40)}` : text);

/** Nearest rank; undefined for no values. `sorted` ascending. */
function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const micros = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms * 10_000) / 10);

/** The totals of `results`; `tbm` every mask's time in milliseconds. */
export function summarise(results: readonly FileResult[], tbm: readonly number[]): Summary {
  const count = (status: CheckStatus) => results.filter((result) => result.status === status).length;
  const ttfm = results.map((result) => result.ttfm_us).filter((us) => us !== null).sort((a, b) => a - b);
  const masks = [...tbm].sort((a, b) => a - b);
  const us = (value: number | undefined) => (value === undefined ? null : value);
  return {
    files: results.length,
    passing: count('passing'),
    compile_error: count('compile_error'),
    validation_error: count('validation_error'),
    invalidation_error: count('invalidation_error'),
    timeout: count('timeout'),
    ttfm_us_p50: us(percentile(ttfm, 50)),
    ttfm_us_p95: us(percentile(ttfm, 95)),
    tbm_us_p50: micros(percentile(masks, 50)),
    tbm_us_p99: micros(percentile(masks, 99)),
  };
}

/**
 * The files to check of `files` (in the order given): `sample`, that many, spread evenly over the
 * whole list (the same ones every run, wherever they run); `limit`: the first that many of what is
 * left.
 */
export function sampleFiles<T>(files: readonly T[], { sample, limit }: { sample?: number; limit?: number } = {}): T[] {
  const sampled = sample === undefined || sample >= files.length ? [...files] : Array.from({ length: sample }, (_, i) => files[Math.floor((i * files.length) / sample)]!);
  return limit === undefined ? sampled : sampled.slice(0, limit);
}

/**
 * One file as the runner reads it, from its text: a MaskBench file (`{"schema": …, "tests":
 * [{"valid", "data"}]}`, the tests optional, and optionally `"strict"`) or, any other JSON, a plain
 * schema with no instances.
 */
export function parseSchemaFile(file: string, text: string): SchemaFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    return { file, schema: undefined, tests: [], unreadable: `Not a JSON file: ${error instanceof Error ? error.message : String(error)}` };
  }
  const record = typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
  // A schema's own keywords never include `schema` and `tests`, MaskBench's.
  if (!record || !('schema' in record) || !(record.tests === undefined || Array.isArray(record.tests))) return { file, schema: doc, tests: [] };
  const tests: SchemaTest[] = [];
  for (const [index, test] of ((record.tests ?? []) as unknown[]).entries()) {
    const entry = test as { valid?: unknown; data?: unknown } | null;
    if (typeof entry?.valid !== 'boolean' || !('data' in entry)) return { file, schema: record.schema, tests: [], unreadable: `tests[${index}] needs "valid" (true or false) and "data".` };
    tests.push({ valid: entry.valid, data: entry.data });
  }
  return { file, schema: record.schema, tests, ...(typeof record.strict === 'boolean' ? { strict: record.strict } : {}) };
}

const WARM_UP: SchemaFile = {
  file: '(warm-up)',
  schema: { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { enum: ['a', 'b'] } } }, required: ['name'] },
  tests: [
    { valid: true, data: { name: 'warm-up', tags: ['a'] } },
    { valid: false, data: { tags: ['c'] } },
  ],
};

export interface RunOptions extends CheckOptions {
  readonly files: readonly string[];
  /** Reads one of `files` (from disk in Node: schemas-check-files.ts; over HTTP in the browser bench). */
  readonly read: (file: string) => Promise<SchemaFile>;
  readonly engine: SchemaEngine;
  readonly tokenizer: CheckTokenizer;
  readonly json: boolean;
  /** Where each line goes. */
  readonly write: (line: string) => void;
}

/**
 * Checks every file, printing a line for each as it is done and the summary last; the exit code:
 * 0 when every file passes, else 1.
 */
export async function runSchemasCheck(options: RunOptions): Promise<number> {
  const { write, json } = options;
  const engine = await options.engine.prepare(options.tokenizer.vocabulary);
  // Once through the whole path, unreported, so that the first file is not timed with what a
  // process pays once (code compiled on first use, tables built lazily).
  await checkFile(WARM_UP, engine, options.tokenizer, { ...options, masks: [] });
  const results: FileResult[] = [];
  const tbm: number[] = [];
  if (!json) write(`Checking ${options.files.length} file(s) with ${options.engine.name}, tokenizer ${options.tokenizer.source} (${options.tokenizer.vocabulary.size} logits), ${options.strict ? 'strict' : 'not strict'} unless a file says, ${options.timeoutMs} ms a file.`);
  for (const file of options.files) {
    const result = await checkFile(await options.read(file), engine, options.tokenizer, { ...options, masks: tbm });
    results.push(result);
    write(json ? JSON.stringify(result) : readable(result));
  }
  const summary = summarise(results, tbm);
  for (const line of json ? [JSON.stringify({ summary })] : readableSummary(summary)) write(line);
  return summary.passing === summary.files ? 0 : 1;
}

function readable(result: FileResult): string {
  const ms = (us: number | null) => (us === null ? '-' : us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${us} µs`);
  const head = `${result.status === 'passing' ? 'ok  ' : 'FAIL'} ${result.file}`;
  if (result.status === 'compile_error') return `${head}: refused: ${result.message}`;
  const times = `ttfm ${ms(result.ttfm_us)}, ${result.masks} masks${result.masks ? ` (p50 ${ms(result.tbm_us_p50)}, p99 ${ms(result.tbm_us_p99)}, max ${ms(result.tbm_us_max)})` : ''}`;
  return result.status === 'passing' ? `${head}: ${times}` : `${head}: ${result.status}: ${result.message}; ${times}`;
}

function readableSummary(summary: Summary): string[] {
  const ms = (us: number | null) => (us === null ? '-' : us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${us} µs`);
  return [
    `${summary.files} file(s): ${summary.passing} passing, ${summary.compile_error} refused (compile_error), ${summary.validation_error} validation_error, ${summary.invalidation_error} invalidation_error, ${summary.timeout} timeout.`,
    `Time to first mask p50 ${ms(summary.ttfm_us_p50)}, p95 ${ms(summary.ttfm_us_p95)}; time between masks p50 ${ms(summary.tbm_us_p50)}, p99 ${ms(summary.tbm_us_p99)}.`,
  ];
}
