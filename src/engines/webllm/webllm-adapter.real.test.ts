// @vitest-environment node
/**
 * The adapter with the REAL @mlc-ai/web-llm package (default engine factory: `new MLCEngine`).
 * Node has no WebGPU and model libraries cannot be fetched here, so these tests drive web-llm up
 * to that boundary and check that every way it fails becomes a prompt `model_unavailable`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../core/errors.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';
import { createWebLLMAdapter } from './webllm-adapter.ts';

const QWEN: WebLLMModelSpec = {
  info: { id: 'qwen', kind: 'chat', engine: 'webllm', contextWindow: 4096, maxOutputTokens: 1024 },
  variants: { f16: 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC', f32: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC' },
};
const pretendWebGPU = async () => ({ hasShaderF16: false });

async function loadError(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).code).toBe('model_unavailable');
  return error as GatewayError;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('createWebLLMAdapter with the real MLCEngine', () => {
  it('finds no WebGPU in Node with the default probe and fails cleanly', { timeout: 10_000 }, async () => {
    expect((globalThis.navigator as { gpu?: unknown } | undefined)?.gpu).toBeUndefined();
    const adapter = createWebLLMAdapter({ models: [QWEN] });
    const error = await loadError(adapter.load('qwen'));
    expect(error.message).toMatch(/WebGPU is not available/);
  });

  it('turns the real engine failing in plain Node into model_unavailable', { timeout: 10_000 }, async () => {
    // Past the probe, web-llm's reload() reads `location.origin`, which Node lacks.
    const adapter = createWebLLMAdapter({ models: [QWEN], gpu: pretendWebGPU });
    const error = await loadError(adapter.load('qwen'));
    expect(error.message).toContain('"qwen" (Qwen2.5-0.5B-Instruct-q4f32_1-MLC)');
    expect(error.message).toContain('https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f32_1-MLC');
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  describe('against a local self-hosted folder', () => {
    let server: Server | undefined;
    afterEach(async () => {
      await new Promise((resolve) => server?.close(resolve));
      server = undefined;
    });

    /** Serves only `files`; every request is recorded. Browser globals web-llm needs are stubbed. */
    async function selfHosted(files: Record<string, string>) {
      const requested: string[] = [];
      server = createServer((req, res) => {
        requested.push(req.url ?? '');
        const body = files[req.url ?? ''];
        res.statusCode = body === undefined ? 404 : 200;
        res.end(body ?? 'not found');
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      vi.stubGlobal('location', new URL(`${origin}/`));
      vi.stubGlobal('caches', memoryCacheStorage());
      const adapter = createWebLLMAdapter({ models: [QWEN], gpu: pretendWebGPU, selfHost: { modelBase: `${origin}/models`, libBase: `${origin}/libs` } });
      return { adapter, origin, requested };
    }

    it('fetches the config from <modelBase>/<model_id>/resolve/main/ and names that URL when it is missing', { timeout: 10_000 }, async () => {
      const { adapter, origin, requested } = await selfHosted({});
      const error = await loadError(adapter.load('qwen'));
      expect(requested).toEqual(['/models/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/mlc-chat-config.json']);
      expect(error.message).toContain(`${origin}/models/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/`);
    });

    it('then fetches the index, the tokenizer and the library from <libBase>/<original file name>, and names it when it is missing', { timeout: 10_000 }, async () => {
      const config = JSON.stringify({ tokenizer_files: ['tokenizer.json'], context_window_size: 4096, conv_template: {} });
      const base = '/models/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main';
      const { adapter, origin, requested } = await selfHosted({
        [`${base}/mlc-chat-config.json`]: config,
        // No weight shards: the product's download (fetch-files.ts) goes on to the library.
        [`${base}/tensor-cache.json`]: JSON.stringify({ metadata: {}, records: [] }),
        [`${base}/tokenizer.json`]: '{}',
      });
      const error = await loadError(adapter.load('qwen'));
      expect(requested.slice(0, 2)).toEqual([`${base}/mlc-chat-config.json`, `${base}/tensor-cache.json`]);
      expect(requested).toContain(`${base}/tokenizer.json`);
      expect(requested.at(-1)).toBe('/libs/Qwen2-0.5B-Instruct-q4f32_1_cs1k-webgpu.wasm');
      expect(error.message).toContain(`${origin}/libs/Qwen2-0.5B-Instruct-q4f32_1_cs1k-webgpu.wasm`);
    });
  });
});

/**
 * A minimal in-memory Cache Storage (Node has none), with the browser's `add()` semantics: a
 * response that is not ok rejects with a TypeError that names no URL.
 */
function memoryCacheStorage() {
  const stores = new Map<string, Map<string, Response>>();
  return {
    async open(name: string) {
      let store = stores.get(name);
      if (!store) stores.set(name, (store = new Map()));
      const entries = store;
      return {
        async match(request: Request | string) {
          return entries.get(typeof request === 'string' ? request : request.url)?.clone();
        },
        async put(request: Request | string, response: Response) {
          entries.set(typeof request === 'string' ? request : request.url, response);
        },
        async add(request: Request) {
          const response = await fetch(request);
          if (!response.ok) throw new TypeError("Failed to execute 'add' on 'Cache': Request failed");
          entries.set(request.url, response);
        },
        async keys() {
          return [...entries.keys()].map((url) => new Request(url));
        },
        async delete(request: Request | string) {
          return entries.delete(typeof request === 'string' ? request : request.url);
        },
      };
    },
  };
}
