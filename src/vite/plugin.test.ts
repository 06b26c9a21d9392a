import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inpageRuntimePrecache } from './plugin.ts';

describe('inpageRuntimePrecache', () => {
  it("lists the runtime files under the app's base for a workbox build, the wasm versioned, no models", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-scripts-'));
    await mkdir(join(dir, 'inpage-llm'), { recursive: true });
    await writeFile(join(dir, 'inpage-llm-sw.js'), '// sw');
    await writeFile(join(dir, 'inpage-llm', 'client.js'), '// client');
    const entries = await inpageRuntimePrecache({ base: '/app', scriptsDir: dir });
    expect(entries.map((e) => e.url)).toEqual(['/app/inpage-llm/client.js', expect.stringMatching(/^\/app\/inpage-llm\/ort-wasm-simd-threaded\.asyncify\.wasm\?v=\d/)]);
    expect(entries.every((e) => /^[0-9a-f]{16}$/.test(e.revision))).toBe(true);
  });
});
