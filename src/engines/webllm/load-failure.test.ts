import { describe, expect, it } from 'vitest';
import { loadFailure } from './load-failure.ts';

const record = { model_id: 'M-q4f32_1-MLC', model: 'https://hub.test/M/resolve/main/', model_lib: 'https://libs.test/M.wasm' };

describe('web-llm load failures', () => {
  it('reports a full storage quota as 507 naming the model', () => {
    const quota = Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' });
    const error = loadFailure('m', record, quota, 'fetch');
    expect(error.code).toBe('insufficient_storage');
    expect(error.status).toBe(507);
    expect(error.message).toContain('the WebLLM model "m" (M-q4f32_1-MLC)');
  });

  it("reports web-llm's IntegrityError as model_unavailable naming the file that failed", () => {
    // The shape of web-llm's own IntegrityError (its message names the URL and both hashes).
    const integrity = Object.assign(new Error('Integrity verification failed for https://hub.test/M/resolve/main/mlc-chat-config.json\n  Expected: sha256-a\n  Actual: sha256-b'), { name: 'IntegrityError' });
    const error = loadFailure('m', record, integrity, undefined);
    expect(error.code).toBe('model_unavailable');
    expect(error.message).toContain('could not be loaded from https://hub.test/M/resolve/main/mlc-chat-config.json');
    expect(error.message).toContain('IntegrityError');
  });
});
