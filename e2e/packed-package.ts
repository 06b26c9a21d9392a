/**
 * The package as users get it: built (`npm run build:package`) and packed (`npm pack`) once per
 * test run, then installed into fresh folders from the tarball, never from this repository's
 * sources. Installs resolve the package's own dependencies from the local npm cache first.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');
const run = promisify(execFile);

export async function sh(command: string, args: readonly string[], cwd: string, timeout = 240_000): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

let packed: Promise<{ tarball: string; bytes: number }> | undefined;

/** Builds and packs the package once; returns the tarball's path and size. */
export function packedTarball(): Promise<{ tarball: string; bytes: number }> {
  return (packed ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-pack-'));
    // `npm pack` runs the prepack script, which builds the package.
    await sh('npm', ['pack', '--pack-destination', dir], ROOT, 300_000);
    const name = (await readdir(dir)).find((file) => file.endsWith('.tgz'));
    if (!name) throw new Error(`npm pack wrote no tarball to ${dir}`);
    const tarball = join(dir, name);
    return { tarball, bytes: (await stat(tarball)).size };
  })());
}

/** A copy of an app folder of this repository in a temp folder, with the tarball installed as `inpage-llm`. */
export async function installApp(source: string, tarball: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-app-'));
  await cp(resolve(ROOT, source), dir, { recursive: true, filter: (path) => !/node_modules|[/\\]dist$/.test(path) });
  const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  manifest.dependencies['inpage-llm'] = `file:${tarball}`;
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir);
  return dir;
}

/** An empty app folder with only the tarball installed (for apps without a bundler). */
export async function emptyAppWithPackage(tarball: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-plain-'));
  // As examples/notes says: a browser app has no use for onnxruntime-node's CUDA download.
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'plain-app', private: true, type: 'module', allowScripts: { 'onnxruntime-node': false, protobufjs: false } }));
  await sh('npm', ['install', `file:${tarball}`, '--prefer-offline', '--no-audit', '--no-fund'], dir);
  await mkdir(join(dir, 'public'), { recursive: true });
  return dir;
}
