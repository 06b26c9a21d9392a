#!/usr/bin/env node
/**
 * The `inpage-llm` command.
 *
 *   npx inpage-llm init <public folder> [--models]
 *   npx inpage-llm serve [--port 8080] [--host 127.0.0.1] [--models <dir> | --tiny] [--config routes.json] [--api-key-file FILE]
 *                        [--cors-origin ORIGIN]... [--allowed-host NAME]... [--max-requests N]
 *   npx inpage-llm schemas check FILE_OR_DIR... [--tokenizer DIR] [--json] [--strict] [--timeout-ms N]
 *
 * `init` copies the service worker and the engine's files into the folder the app serves as its
 * site root (like `msw init`); run it again after updating the package. `--models` adds the tiny
 * generated models (offline defaults for demos and tests).
 *
 * `serve` runs the same gateway as an HTTP server on onnxruntime-node (src/node/serve.ts), so any
 * OpenAI or Anthropic client can use it; SIGINT/SIGTERM/SIGHUP close it gracefully and exit 0, as
 * does the end of the npm (npx, an npm script) that started it.
 *
 * `schemas check` says whether the product can enforce each JSON schema given, and how fast
 * (src/cli/schemas-check.ts); it exits 1 when any file does not pass, so its usage errors exit 2.
 * @module
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { VERSION } from '../contracts/control-messages.ts';
import type { ModelEntry } from '../contracts/worker-config.ts';
import { SERVICE_WORKER_FILE, RUNTIME_DIR } from '../contracts/runtime-layout.ts';
import { runtimeFiles } from '../install/runtime-files.ts';
import { writeRuntimeFiles } from '../install/write-runtime-files.ts';
import { API_KEY_ENV, collectApiKeys } from './api-keys.ts';

const USAGE = `Usage: npx inpage-llm init <public folder> [--models]
       npx inpage-llm serve [options]
       npx inpage-llm schemas check FILE_OR_DIR... [options]

  init    Copies the service worker (${SERVICE_WORKER_FILE}) and the engine's files (${RUNTIME_DIR}/)
          into the folder your app serves at its site root (public/ in vite apps).
          --models   also write the tiny generated models (tiny-embed, tiny-chat)

  serve   Runs the OpenAI- and Anthropic-compatible API as an HTTP server, on onnxruntime-node (CPU).
          --port N          the port (default 8080; 0 takes any free one)
          --host ADDR       the interface (default 127.0.0.1: this machine only; 0.0.0.0 for all)
          --models DIR      the folder of local models, one sub-folder per model (default ./models)
          --tiny            serve the tiny generated models (tiny-chat, tiny-embed), written to a
                            temporary folder: offline, real inference on random weights
          --config FILE     a JSON file with models of your own and fallbacks, the shape of
                            startInference's engine config: {"models": [...], "fallbacks": {...}};
                            remote entries ({"engine": "remote", "upstream": {...}}) put vLLM,
                            Ollama, LM Studio or llama.cpp servers behind this one
          --api-key-file F  accept only requests with a key from this file (one a line); or set
                            ${API_KEY_ENV} (comma-separated), or --api-key KEY (repeatable; shown
                            in the process list). Default: no key, any caller that reaches the port
          --cors-origin O   also let pages of origin O (https://app.example, or * for any) call
                            from a browser (repeatable). Default: pages on this machine only
                            (localhost, 127.0.0.0/8, [::1]); with a key, any page
          --allowed-host N  also answer requests naming host N (llm.lan; .lan for every name under
                            it; * for any), besides IP addresses and localhost (repeatable); a
                            guard against DNS rebinding. Default: checked without a key only
          --max-requests N  model requests held at once, running or waiting (default 16); more
                            wait up to 1 s for a place, body unread, then get a 429
          --allow-remote    fetch catalog models missing from the folder from the Hugging Face hub
          --remote-host URL fetch them from this mirror of the hub instead
          --max-loaded N    models kept in memory at once (default 2)
          --prefix-cache-mb N
                            megabytes of key/value cache kept from finished chat requests, so a
                            conversation's next turn reads only its new tokens (default 256; 0: none)

  schemas check
          Says whether each JSON schema can be enforced here (or the 400 message a server would
          answer), and how fast: the time to first mask (compiling included) and between masks.
          A file is a schema, or a MaskBench file {"schema": ..., "tests": [{"valid", "data"}]},
          whose instances are fed token by token as compact JSON: each valid one must be accepted
          up to a stop token, each invalid one refused. A folder stands for every *.json in it.
          Each file gets one status: passing; compile_error (refused); invalidation_error (an
          invalid instance accepted: output the schema forbids, the real bug, so it is the one
          given when a file has both); validation_error (a valid instance refused); timeout.
          Exits 0 when all pass, 1 when any does not, 2 for a mistake in the command line.
          --tokenizer DIR   a folder with tokenizer.json and tokenizer_config.json (and, if there,
                            config.json for the logits size and stop tokens). Default: tiny-chat's
          --json            one JSON line a file, then {"summary": ...}
          --strict          strict mode (no properties beyond a schema's) for files that do not
                            say "strict" (default: not strict)
          --timeout-ms N    the time a file may take (default 10000); compiling is not interrupted
          --sample N        that many files, spread evenly over all those named (the same every run)
          --limit N         the first N files (after --sample)
          --engine NAME     matcher (default: how transformers.js models enforce JSON answers) or
                            xgrammar (how web-llm models do, and tool calls on every engine)`;

const COMMON = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } } as const satisfies ParseArgsConfig['options'];
const INIT_OPTIONS = { ...COMMON, models: { type: 'boolean' } } as const satisfies ParseArgsConfig['options'];
const SERVE_OPTIONS = {
  ...COMMON,
  port: { type: 'string' },
  host: { type: 'string' },
  models: { type: 'string' },
  tiny: { type: 'boolean' },
  'api-key': { type: 'string', multiple: true },
  'api-key-file': { type: 'string' },
  'cors-origin': { type: 'string', multiple: true },
  'allowed-host': { type: 'string', multiple: true },
  'max-requests': { type: 'string' },
  config: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'remote-host': { type: 'string' },
  'max-loaded': { type: 'string' },
  'prefix-cache-mb': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** A mistake in the command line: printed with the usage, exit code 1. */
class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  // The command comes first; each has its own options (`--models` is a flag for init, a folder for serve).
  const command = argv[0]?.startsWith('-') === false ? argv[0] : undefined;
  const args = command === undefined ? argv : argv.slice(1);
  try {
    if (command === 'init') return await init(args);
    if (command === 'serve') return await serve(args);
    if (command === 'schemas') return await schemas(args);
    const { values } = parseArgs({ args, options: COMMON });
    if (values.version) return console.log(VERSION), 0;
    if (command !== undefined) throw new UsageError(`Unknown command "${command}".`);
    return console.log(USAGE), values.help ? 0 : 1;
  } catch (error) {
    // parseArgs reports unknown or malformed options with a TypeError whose code starts ERR_PARSE_ARGS.
    const parse = error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS');
    if (!(error instanceof UsageError) && !parse) throw error;
    return console.error(`${error.message}\n\n${USAGE}`), command === 'schemas' ? 2 : 1;
  }
}

async function init(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: INIT_OPTIONS });
  if (values.help) return console.log(USAGE), 0;
  if (values.version) return console.log(VERSION), 0;
  const [folder, ...rest] = positionals;
  if (folder === undefined || rest.length > 0) throw new UsageError('init takes one folder.');
  const publicDir = resolve(folder);
  const files = await runtimeFiles({ models: values.models ?? false });
  const bytes = await writeRuntimeFiles(publicDir, files);
  console.log(`inpage-llm ${VERSION}: wrote ${files.length} files (${(bytes / 1e6).toFixed(1)} MB) to ${publicDir}`);
  console.log(`  ${SERVICE_WORKER_FILE}, ${RUNTIME_DIR}/ — serve them from your site root; startInference() finds them there.`);
  return 0;
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: SERVE_OPTIONS });
  if (values.help) return console.log(USAGE), 0;
  if (values.version) return console.log(VERSION), 0;
  if (values.tiny && values.models !== undefined) throw new UsageError('--tiny and --models each name the models folder: give one.');
  const port = integerOption('--port', values.port, 8080, 0, 65_535);
  const maxLoaded = integerOption('--max-loaded', values['max-loaded'], undefined, 1, 1_000);
  const prefixCacheMb = integerOption('--prefix-cache-mb', values['prefix-cache-mb'], undefined, 0, 1_000_000);
  const maxRequests = integerOption('--max-requests', values['max-requests'], undefined, 1, 100_000);
  const host = values.host ?? '127.0.0.1';
  const apiKeys = await collectApiKeys(values['api-key'] ?? [], process.env[API_KEY_ENV], values['api-key-file']).catch((error: Error) => {
    throw new UsageError(error.message);
  });
  const corsOrigins = values['cors-origin'];
  const allowedHosts = values['allowed-host'];
  const config = values.config === undefined ? {} : await readConfig(values.config);

  // Loaded here, not at the top: `init` must run where transformers.js is not installed (an
  // optional peer a browser app does not need); `serve` without it says what to install.
  const { createNodeEngine, serveGateway, writeTinyModels } = await import('../node/entry.ts');
  const tinyDir = values.tiny ? await mkdtemp(join(tmpdir(), 'inpage-llm-tiny-')) : undefined;
  const removeTiny = () => (tinyDir === undefined ? Promise.resolve() : rm(tinyDir, { recursive: true, force: true }));
  try {
    if (tinyDir !== undefined) await writeTinyModels(tinyDir);
    const modelDir = tinyDir ?? resolve(values.models ?? 'models');
    const engine = createNodeEngine({
      localModelPath: modelDir,
      allowRemoteModels: values['allow-remote'] ?? false,
      ...(values['remote-host'] !== undefined ? { remoteHost: values['remote-host'] } : {}),
      ...(maxLoaded !== undefined ? { maxLoaded } : {}),
      ...(prefixCacheMb !== undefined ? { prefixCacheBytes: prefixCacheMb * 1024 * 1024 } : {}),
      ...config,
    });
    const server = await serveGateway({
      engine,
      port,
      host,
      apiKeys,
      ...(corsOrigins ? { corsOrigins } : {}),
      ...(allowedHosts ? { allowedHosts } : {}),
      ...(maxRequests !== undefined ? { maxRequests } : {}),
    });
    // Exactly one line in this form: scripts and tests read the URL from it.
    console.log(`inpage-llm ${VERSION} listening on ${server.url}`);
    const states = new Map((await engine.modelStates()).map((state) => [state.id, state]));
    const remote = values['allow-remote'] ?? false;
    console.log(`  models (${tinyDir !== undefined ? 'the tiny generated ones' : modelDir}):`);
    for (const model of await engine.listModels()) {
      const where = model.upstream
        ? `forwarded to ${[model.upstream.baseURL].flat().join(', ')}`
        : states.get(model.id)?.downloaded
          ? 'on disk'
          : remote
            ? 'fetched on first use'
            : 'not on disk (--allow-remote fetches it)';
      console.log(`    ${model.id.padEnd(28)} ${model.kind.padEnd(10)} ${where}`);
    }
    console.log(`  OpenAI SDK baseURL ${server.url}, Anthropic SDK baseURL ${server.url.replace(/\/v1$/, '')}; ${apiKeys.length ? `${apiKeys.length} API key(s) required` : 'no API key required'}.`);
    // serveGateway's defaults, as the user reads them: without a key, this machine's pages and names only.
    const keyed = apiKeys.length > 0;
    const pages = corsOrigins?.includes('*') || (!corsOrigins && keyed) ? 'any page' : ['pages on this machine', ...(corsOrigins ?? [])].join(', ');
    const names = allowedHosts?.includes('*') || (!allowedHosts && keyed) ? 'any' : ['IP addresses', 'localhost', ...(allowedHosts ?? [])].join(', ');
    console.log(`  browsers: ${pages} (--cors-origin); Host names answered: ${names} (--allowed-host).`);
    if (apiKeys.length === 0 && !isLoopback(host)) {
      console.warn(`  warning: listening on ${host} without an API key: any program that can reach this port can use it. Set ${API_KEY_ENV}, --api-key-file or --api-key.`);
    }

    const reason = await untilStopped();
    // A second signal while requests finish ends the process at once.
    const force = () => process.exit(1);
    for (const signal of STOP_SIGNALS) process.once(signal, force);
    console.log(`inpage-llm: ${reason}, closing: requests in flight may finish (up to 10 s).`);
    await server.close();
    console.log('inpage-llm: closed.');
    return 0;
  } finally {
    await removeTiny();
  }
}

const SCHEMAS_OPTIONS = {
  ...COMMON,
  tokenizer: { type: 'string' },
  json: { type: 'boolean' },
  strict: { type: 'boolean' },
  'timeout-ms': { type: 'string' },
  sample: { type: 'string' },
  limit: { type: 'string' },
  engine: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

async function schemas(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: SCHEMAS_OPTIONS });
  if (values.help) return console.log(USAGE), 0;
  if (values.version) return console.log(VERSION), 0;
  const [sub, ...paths] = positionals;
  // Loaded here, not at the top: init and serve need none of it.
  const { runSchemasCheck } = await import('./schemas-check.ts');
  const { schemaPaths, SchemaPathError, readSchemaFile } = await import('./schemas-check-files.ts');
  const { SCHEMA_ENGINES } = await import('./schemas-check-engines.ts');
  if (sub !== 'check') throw new UsageError(sub === undefined ? 'schemas takes a command: check.' : `Unknown schemas command "${sub}"; the one there is: check.`);
  if (paths.length === 0) throw new UsageError('schemas check takes at least one file or folder.');
  const engine = SCHEMA_ENGINES.find((known) => known.name === (values.engine ?? SCHEMA_ENGINES[0]!.name));
  if (!engine) throw new UsageError(`--engine takes ${SCHEMA_ENGINES.map((known) => known.name).join(' or ')}, not '${values.engine}'.`);
  const timeoutMs = integerOption('--timeout-ms', values['timeout-ms'], 10_000, 1, 3_600_000)!;
  const sample = integerOption('--sample', values.sample, undefined, 1, 10_000_000);
  const limit = integerOption('--limit', values.limit, undefined, 1, 10_000_000);
  const files = await schemaPaths(paths, { ...(sample !== undefined ? { sample } : {}), ...(limit !== undefined ? { limit } : {}) }).catch((error: unknown) => {
    throw error instanceof SchemaPathError ? new UsageError(error.message) : error;
  });
  // Loaded here: it needs transformers.js (an optional peer), which init and serve --help do not.
  const { loadCheckTokenizer, TokenizerFolderError } = await import('./schemas-check-files.ts');
  const tokenizer = await loadCheckTokenizer(values.tokenizer).catch((error: unknown) => {
    throw error instanceof TokenizerFolderError ? new UsageError(error.message) : error;
  });
  // xgrammar's wasm prints its warnings (a keyword it ignores) with console.log, bound when an
  // instance is made: sent to stderr, they leave stdout to the report, one JSON line a file.
  const log = console.log;
  console.log = (...args: unknown[]) => console.error(...args);
  try {
    return await runSchemasCheck({ files, read: readSchemaFile, engine, tokenizer, json: values.json ?? false, strict: values.strict ?? false, timeoutMs, write: (line) => process.stdout.write(`${line}\n`) });
  } finally {
    console.log = log;
  }
}

/** Ctrl-C, `kill`, and the terminal closing. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves, with the reason, when the server should stop: on a stop signal, or, when npx or an npm
 * script started it, once that npm is gone. npm passes SIGTERM on only to the `sh -c` it runs the
 * command in, which dies of it: `kill <npx pid>` (docker stop, a service manager) would otherwise
 * leave the server running without a parent. Started any other way (nohup, a service manager
 * running it directly), losing its parent is no reason to stop.
 */
function untilStopped(): Promise<string> {
  return new Promise((resolveStop) => {
    const parent = process.ppid;
    const stop = (reason: string) => {
      clearInterval(watch);
      for (const signal of STOP_SIGNALS) process.off(signal, stop);
      resolveStop(reason);
    };
    for (const signal of STOP_SIGNALS) process.once(signal, stop);
    const watch = process.env.npm_lifecycle_event === undefined ? undefined : setInterval(() => process.ppid !== parent && stop('npm, which started it, is gone'), 250);
  });
}

/** The `--config` file: the models and fallbacks parts of startInference's engine config. */
async function readConfig(path: string): Promise<{ models?: ModelEntry[]; fallbacks?: Record<string, string> }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(resolve(path), 'utf8'));
  } catch (error) {
    throw new UsageError(`--config ${path}: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--config ${path}: expected a JSON object with "models" and/or "fallbacks".`);
  const { models, fallbacks, ...rest } = parsed as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new UsageError(`--config ${path}: unknown key(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}; expected "models" and/or "fallbacks".`);
  if (models !== undefined && !Array.isArray(models)) throw new UsageError(`--config ${path}: "models" must be an array of model entries.`);
  if (fallbacks !== undefined && (typeof fallbacks !== 'object' || fallbacks === null || Array.isArray(fallbacks))) throw new UsageError(`--config ${path}: "fallbacks" must map model ids to model ids.`);
  return { ...(models ? { models: models as ModelEntry[] } : {}), ...(fallbacks ? { fallbacks: fallbacks as Record<string, string> } : {}) };
}

function integerOption(name: string, text: string | undefined, fallback: number | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) throw new UsageError(`${name} takes a whole number from ${min} to ${max}, not '${text}'.`);
  return value;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`inpage-llm: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
