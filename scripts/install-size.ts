/**
 * What `npm install inpage-llm` costs a browser app: packs the package (or takes `--tarball`),
 * installs it into a fresh app in a temp folder (no `allowScripts`, nothing else; dependencies from
 * the local npm cache first), and prints node_modules' size, its largest packages, and the install
 * scripts npm warns about or ran. Then checks that the Node entry, which needs transformers.js the
 * app did not install, says what to install.
 *
 *   npx node scripts/install-size.ts [--tarball inpage-llm-0.1.0.tgz] [--keep] [--json]
 *
 * Exits 1 when the install fails, or installs a package with an install script (npm warns about
 * each one not covered by the app's `allowScripts`), or when the Node entry's message does not
 * name the package. Recorded in docs/decisions/small-browser-install.md.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const { values } = parseArgs({ options: { tarball: { type: 'string' }, keep: { type: 'boolean' }, json: { type: 'boolean' } } });

/** Runs a command; its output and exit code, whether or not it failed. */
async function sh(command: string, args: readonly string[], cwd: string): Promise<{ output: string; code: number }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });
    return { output: stdout + stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number };
    return { output: (e.stdout ?? '') + (e.stderr ?? ''), code: typeof e.code === 'number' ? e.code : 1 };
  }
}

/** Bytes on disk under a folder (file sizes; links not followed). */
async function size(path: string): Promise<number> {
  const info = await lstat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await size(join(path, entry));
  return total;
}

/** Each installed package (scoped ones by their full name) and its size. */
async function packages(modules: string): Promise<[string, number][]> {
  const sizes: [string, number][] = [];
  for (const name of await readdir(modules)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) for (const inner of await readdir(join(modules, name))) sizes.push([`${name}/${inner}`, await size(join(modules, name, inner))]);
    else sizes.push([name, await size(join(modules, name))]);
  }
  return sizes.sort((a, b) => b[1] - a[1]);
}

async function pack(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-size-pack-'));
  const { output, code } = await sh('npm', ['pack', '--pack-destination', dir, '--json'], ROOT);
  if (code !== 0) throw new Error(`npm pack failed:\n${output}`);
  const name = (await readdir(dir)).find((file) => file.endsWith('.tgz'));
  if (!name) throw new Error(`npm pack wrote no tarball to ${dir}`);
  return join(dir, name);
}

const MB = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

const tarball = values.tarball ? resolve(values.tarball) : await pack();
const app = await mkdtemp(join(tmpdir(), 'inpage-size-app-'));
await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'browser-app', private: true, type: 'module' }, null, 2));
const args = [tarball, '--prefer-offline', '--no-audit', '--no-fund'];
const install = await sh('npm', ['install', ...args], app);
const warnings = install.output.split('\n').filter((line) => /^npm warn install-scripts\s+\S/.test(line));
// A failed install (an install script that needs the network, here) is measured without scripts.
if (install.code !== 0) await sh('npm', ['install', ...args, '--ignore-scripts'], app);
const modules = join(app, 'node_modules');
const installed = await packages(modules).catch(() => []);
const total = installed.reduce((sum, [, bytes]) => sum + bytes, 0);
// As `du -sh node_modules` says it (disk blocks), the figure users quote.
const disk = Number((await sh('du', ['-sk', modules], app)).output.split(/\s/)[0]) * 1024;
// What npm would run (and warn about) at install, whatever the network allowed this time.
const withScripts: string[] = [];
for (const [name] of installed) {
  const manifest = JSON.parse(await readFile(join(modules, name, 'package.json'), 'utf8')) as { version: string; scripts?: Record<string, string> };
  const scripts = Object.entries(manifest.scripts ?? {}).filter(([event]) => ['preinstall', 'install', 'postinstall'].includes(event));
  if (scripts.length) withScripts.push(`${name}@${manifest.version} (${scripts.map(([event, cmd]) => `${event}: ${cmd}`).join('; ')})`);
}

// The Node entry without its peer: the message must name what to install.
await writeFile(join(app, 'node-entry.mjs'), "try { await import('inpage-llm/node'); console.log('loaded'); } catch (e) { console.log(e.message); }\n");
const nodeEntry = (await sh(process.execPath, ['node-entry.mjs'], app)).output.trim();
const nodeEntryClear = /npm install @huggingface\/transformers/.test(nodeEntry) || nodeEntry === 'loaded';

const report = { tarball, app, installExit: install.code, nodeModulesBytes: total, nodeModulesDiskBytes: disk, packages: installed.length, largest: installed.slice(0, 8), scriptWarnings: warnings, installScripts: withScripts, nodeEntry };
if (values.json) console.log(JSON.stringify(report, null, 2));
else {
  console.log(`tarball: ${tarball}`);
  console.log(`npm install: exit ${install.code}${install.code ? ' (measured again with --ignore-scripts)' : ''}, ${installed.length} packages, node_modules ${MB(total)} (du: ${MB(disk)})`);
  for (const [name, bytes] of installed.slice(0, 8)) console.log(`  ${MB(bytes).padStart(9)}  ${name}`);
  console.log(`install-script warnings: ${warnings.length ? `\n  ${warnings.join('\n  ')}` : 'none'}`);
  console.log(`packages with install scripts: ${withScripts.length ? `\n  ${withScripts.join('\n  ')}` : 'none'}`);
  console.log(`inpage-llm/node without its peer: ${nodeEntry}`);
  if (install.code !== 0) console.log(install.output.split('\n').filter((line) => /npm error (path|command|Error)/.test(line)).join('\n'));
}
if (!values.keep) await rm(app, { recursive: true, force: true });
process.exitCode = install.code !== 0 || warnings.length > 0 || withScripts.length > 0 || !nodeEntryClear ? 1 : 0;
