import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ortWebVersion, runtimeFiles } from './runtime-files.ts';
import { writeRuntimeFiles } from './write-runtime-files.ts';

/** A stand-in for the package's built `dist/browser` (the real one is checked by e2e/package.spec.ts). */
async function scriptsDir(withWorker = true): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'inpage-scripts-'));
  await mkdir(join(dir, 'inpage-llm', 'chunks'), { recursive: true });
  if (withWorker) await writeFile(join(dir, 'inpage-llm-sw.js'), '// sw');
  await writeFile(join(dir, 'inpage-llm', 'engine-worker.js'), '// worker');
  await writeFile(join(dir, 'inpage-llm', 'chunks', 'a.js'), '// chunk');
  return dir;
}

describe('the runtime files', () => {
  it('lays out the scripts, the onnxruntime wasm from its package, and the tiny models when asked', async () => {
    const files = await runtimeFiles({ scriptsDir: await scriptsDir(), models: true });
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['inpage-llm-sw.js', 'inpage-llm/engine-worker.js', 'inpage-llm/chunks/a.js', 'inpage-llm/ort-wasm-simd-threaded.asyncify.wasm', 'inpage-llm/models/tiny-embed/config.json', 'inpage-llm/models/tiny-chat/onnx/model.onnx']));
    const wasm = await files.find((f) => f.path.endsWith('.wasm'))!.read();
    // The wasm magic number: the real file, not a placeholder.
    expect([...(wasm as Uint8Array).subarray(0, 4)]).toEqual([0, 0x61, 0x73, 0x6d]);
  });

  it('leaves the models out unless asked, and the scripts when the build makes its own', async () => {
    const paths = (await runtimeFiles({ scripts: false })).map((f) => f.path);
    expect(paths).toEqual(['inpage-llm/ort-wasm-simd-threaded.asyncify.wasm', 'inpage-llm/ort-wasm-simd-threaded.asyncify.js']);
  });

  it('writes them under a public folder', async () => {
    const out = await mkdtemp(join(tmpdir(), 'inpage-public-'));
    const bytes = await writeRuntimeFiles(out, await runtimeFiles({ scriptsDir: await scriptsDir() }));
    expect(await readFile(join(out, 'inpage-llm', 'engine-worker.js'), 'utf8')).toBe('// worker');
    expect(bytes).toBeGreaterThan(1e6);
  });

  it("lists the runtime files for an app's own service worker: all under inpage-llm/ but the models, the wasm with its ?v=", async () => {
    const dir = await scriptsDir();
    const files = await runtimeFiles({ scriptsDir: dir, models: true });
    const manifest = JSON.parse((await files.find((f) => f.path === 'inpage-llm/precache-manifest.json')!.read()) as string) as { url: string; revision: string }[];
    expect(manifest.map((e) => e.url)).toEqual(['inpage-llm/chunks/a.js', 'inpage-llm/engine-worker.js', `inpage-llm/ort-wasm-simd-threaded.asyncify.js?v=${encodeURIComponent(ortWebVersion())}`, `inpage-llm/ort-wasm-simd-threaded.asyncify.wasm?v=${encodeURIComponent(ortWebVersion())}`]);
    expect(ortWebVersion()).toMatch(/^\d+\.\d+\.\d+/);
    // A changed file changes its revision, and only its own.
    await writeFile(join(dir, 'inpage-llm', 'engine-worker.js'), '// worker, changed');
    const again = await runtimeFiles({ scriptsDir: dir });
    const changed = JSON.parse((await again.find((f) => f.path === 'inpage-llm/precache-manifest.json')!.read()) as string) as { url: string; revision: string }[];
    expect(changed.map((e) => e.revision === manifest.find((m) => m.url === e.url)!.revision)).toEqual([true, false, true, true]);
  });

  it("takes the package's own copy of the wasm when the built scripts carry one", async () => {
    const dir = await scriptsDir();
    await writeFile(join(dir, 'inpage-llm', 'ort-wasm-simd-threaded.asyncify.wasm'), 'the copy in dist');
    const wasm = (await runtimeFiles({ scriptsDir: dir })).filter((f) => f.path.endsWith('.wasm'));
    expect(wasm).toHaveLength(1);
    expect(String(await wasm[0]!.read())).toBe('the copy in dist');
  });

  it('says to build the package when the scripts are missing', async () => {
    await expect(runtimeFiles({ scriptsDir: join(tmpdir(), 'no-such-dir-inpage') })).rejects.toThrow(/build the package first/);
    await expect(runtimeFiles({ scriptsDir: await scriptsDir(false) })).rejects.toThrow(/service worker is missing/);
  });
});
