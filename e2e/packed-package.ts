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
import type { Page } from '@playwright/test';

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

/** A chat, an embedding and a JSON-schema reply from a page of an installed app, on the tiny models. */
export async function chatAndEmbed(page: Page) {
  return page.evaluate(async () => {
    const chat = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-chat', max_tokens: 8, messages: [{ role: 'user', content: 'hello' }] }),
    });
    const embed = await fetch('/v1/embeddings', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tiny-embed', input: 'hello' }) });
    // Constrained decoding: the grammar engine's wasm loads in the prebuilt worker too.
    const schema = { type: 'object', properties: { ok: { type: 'boolean' }, n: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['ok', 'n'], additionalProperties: false };
    const json = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-chat', max_tokens: 32, messages: [{ role: 'user', content: 'hello' }], response_format: { type: 'json_schema', json_schema: { name: 'r', schema } } }),
    });
    const chatBody = await chat.json();
    const embedBody = await embed.json();
    const parsed = JSON.parse((await json.json()).choices[0].message.content) as { ok: unknown; n: unknown };
    return { chat: chat.status, content: chatBody.choices?.[0]?.message?.content as string, embed: embed.status, dims: embedBody.data?.[0]?.embedding?.length as number, json: typeof parsed.ok === 'boolean' && Number.isInteger(parsed.n) && (parsed.n as number) >= 1 && (parsed.n as number) <= 9 };
  });
}
