import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inpageLLM, inpageRuntimePrecache } from './plugin.ts';

describe('inpageRuntimePrecache', () => {
  it("lists the runtime files under the app's base for a workbox build, the wasm versioned, no models", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-scripts-'));
    await mkdir(join(dir, 'inpage-llm'), { recursive: true });
    await writeFile(join(dir, 'inpage-llm-sw.js'), '// sw');
    await writeFile(join(dir, 'inpage-llm', 'client.js'), '// client');
    const entries = await inpageRuntimePrecache({ base: '/app', scriptsDir: dir });
    expect(entries.map((e) => e.url)).toEqual(['/app/inpage-llm/client.js', expect.stringMatching(/^\/app\/inpage-llm\/ort-wasm-simd-threaded\.asyncify\.js\?v=\d/), expect.stringMatching(/^\/app\/inpage-llm\/ort-wasm-simd-threaded\.asyncify\.wasm\?v=\d/)]);
    expect(entries.every((e) => /^[0-9a-f]{16}$/.test(e.revision))).toBe(true);
  });
});

describe('cross-origin isolation in dev and preview', () => {
  const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
  const SAFARI = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15';

  async function site(): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), 'inpage-vite-'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>app</title><p>app</p>');
    return root;
  }

  const headersOf = async (origin: string, userAgent: string) => {
    const res = await fetch(`${origin}/`, { headers: { 'user-agent': userAgent } });
    await res.text();
    return { coop: res.headers.get('cross-origin-opener-policy'), coep: res.headers.get('cross-origin-embedder-policy') };
  };

  it('the dev server isolates every page (credentialless where the browser has it), unless told not to', async () => {
    const { createServer } = await import('vite');
    const root = await site();
    for (const crossOriginIsolation of [undefined, false]) {
      const server = await createServer({ root, configFile: false, logLevel: 'silent', plugins: [inpageLLM(crossOriginIsolation === undefined ? {} : { crossOriginIsolation })], server: { port: 0, host: '127.0.0.1' } });
      await server.listen();
      try {
        const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
        if (crossOriginIsolation === false) expect(await headersOf(origin, CHROME)).toEqual({ coop: null, coep: null });
        else {
          expect(await headersOf(origin, CHROME)).toEqual({ coop: 'same-origin', coep: 'credentialless' });
          expect(await headersOf(origin, SAFARI)).toEqual({ coop: 'same-origin', coep: 'require-corp' });
        }
      } finally {
        await server.close();
      }
    }
  });

  it('the preview server isolates the built app too', async () => {
    const { preview } = await import('vite');
    const root = await site();
    await mkdir(join(root, 'dist'));
    await writeFile(join(root, 'dist', 'index.html'), '<!doctype html><p>built</p>');
    const server = await preview({ root, configFile: false, logLevel: 'silent', plugins: [inpageLLM()], preview: { port: 0, host: '127.0.0.1' } });
    try {
      const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
      expect(await headersOf(origin, CHROME)).toEqual({ coop: 'same-origin', coep: 'credentialless' });
    } finally {
      await server.close();
    }
  });
});
