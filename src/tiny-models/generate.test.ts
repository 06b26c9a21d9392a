import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateTinyModels } from './generate.ts';

const dirs: string[] = [];

async function generate(seed?: number): Promise<Map<string, { hash: string; size: number }>> {
  const dir = await mkdtemp(join(tmpdir(), 'tiny-models-'));
  dirs.push(dir);
  const files = new Map<string, { hash: string; size: number }>();
  for (const path of await generateTinyModels(dir, seed)) {
    const bytes = await readFile(path);
    files.set(relative(dir, path), { hash: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
  }
  return files;
}

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('tiny model generator', () => {
  it('writes byte-identical files for the same seed', async () => {
    const [a, b] = [await generate(), await generate()];
    expect([...a.keys()].sort()).toEqual([
      'tiny-chat/config.json', 'tiny-chat/generation_config.json', 'tiny-chat/onnx/model.onnx', 'tiny-chat/tokenizer.json', 'tiny-chat/tokenizer_config.json',
      'tiny-embed/config.json', 'tiny-embed/onnx/model.onnx', 'tiny-embed/tokenizer.json', 'tiny-embed/tokenizer_config.json',
    ]);
    expect(b).toEqual(a);
  });

  it('keeps each model well under 1 MB, and the seed changes the weights', async () => {
    const [a, c] = [await generate(), await generate(7)];
    for (const model of ['tiny-chat', 'tiny-embed']) {
      const size = [...a].filter(([path]) => path.startsWith(`${model}/`)).reduce((sum, [, f]) => sum + f.size, 0);
      expect(size).toBeLessThan(800_000);
      expect(c.get(`${model}/onnx/model.onnx`)?.hash).not.toBe(a.get(`${model}/onnx/model.onnx`)?.hash);
      expect(c.get(`${model}/tokenizer.json`)?.hash).toBe(a.get(`${model}/tokenizer.json`)?.hash);
    }
  });
});
