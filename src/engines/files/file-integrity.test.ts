import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkFor, integrityOf, isIntegrity, verifyFile, type FileChecks } from './file-integrity.ts';

describe('file integrity', () => {
  const data = new TextEncoder().encode('weights');

  it('computes SRI strings as an integrity attribute would hold them', async () => {
    expect(await integrityOf(data)).toBe(`sha256-${createHash('sha256').update(data).digest('base64')}`);
    expect(await integrityOf(data, 'sha384-x')).toBe(`sha384-${createHash('sha384').update(data).digest('base64')}`);
    expect(isIntegrity(await integrityOf(data))).toBe(true);
    expect(isIntegrity('md5-abc')).toBe(false);
  });

  it('accepts the file it describes and refuses any other', async () => {
    const integrity = await integrityOf(data);
    await expect(verifyFile('/m/a.bin', data, { bytes: 7, integrity })).resolves.toBeUndefined();
    await expect(verifyFile('/m/a.bin', new TextEncoder().encode('weighTs'), { integrity })).rejects.toMatchObject({ code: 'model_unavailable' });
    await expect(verifyFile('/m/a.bin', data, { bytes: 8 })).rejects.toThrow(/\/m\/a\.bin .*it is 7 bytes, the catalog says 8/);
  });

  it('finds a file of a model folder in hub and local URLs, and nothing of another folder', () => {
    const folders = new Map<string, FileChecks>([
      ['org/embed', { 'onnx/model.onnx': { bytes: 1 } }],
      ['tiny-embed', { 'config.json': { bytes: 2 } }],
    ]);
    expect(checkFor('https://hub.test/org/embed/resolve/main/onnx/model.onnx', folders)).toEqual({ bytes: 1 });
    expect(checkFor('http://app.test/inpage-llm/models/tiny-embed/config.json', folders)).toEqual({ bytes: 2 });
    expect(checkFor('/inpage-llm/models/tiny-embed/config.json', folders)).toEqual({ bytes: 2 });
    expect(checkFor('https://hub.test/org/embed/resolve/main/tokenizer.json', folders)).toBeUndefined();
    expect(checkFor('https://hub.test/other/org/embedded/resolve/main/onnx/model.onnx', folders)).toBeUndefined();
  });
});
