#!/usr/bin/env node
/**
 * The `inpage-llm` command.
 *
 *   npx inpage-llm init <public folder> [--models]
 *
 * `init` copies the service worker and the engine's files into the folder the app serves as its
 * site root (like `msw init`); run it again after updating the package. `--models` adds the tiny
 * generated models (offline defaults for demos and tests).
 * @module
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { VERSION } from '../contracts/control-messages.ts';
import { SERVICE_WORKER_FILE, RUNTIME_DIR } from '../contracts/runtime-layout.ts';
import { runtimeFiles } from '../install/runtime-files.ts';
import { writeRuntimeFiles } from '../install/write-runtime-files.ts';

const USAGE = `Usage: npx inpage-llm init <public folder> [--models]

  init    Copies the service worker (${SERVICE_WORKER_FILE}) and the engine's files (${RUNTIME_DIR}/)
          into the folder your app serves at its site root (public/ in vite apps).
          --models   also write the tiny generated models (tiny-embed, tiny-chat)`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { models: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } } });
  if (values.version) return console.log(VERSION), 0;
  const [command, folder, ...rest] = positionals;
  if (values.help || command === undefined) return console.log(USAGE), command === undefined && !values.help ? 1 : 0;
  if (command !== 'init') return console.error(`Unknown command "${command}".\n\n${USAGE}`), 1;
  if (folder === undefined || rest.length > 0) return console.error(`init takes one folder.\n\n${USAGE}`), 1;
  const publicDir = resolve(folder);
  const files = await runtimeFiles({ models: values.models ?? false });
  const bytes = await writeRuntimeFiles(publicDir, files);
  console.log(`inpage-llm ${VERSION}: wrote ${files.length} files (${(bytes / 1e6).toFixed(1)} MB) to ${publicDir}`);
  console.log(`  ${SERVICE_WORKER_FILE}, ${RUNTIME_DIR}/ — serve them from your site root; startInference() finds them there.`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`inpage-llm: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
