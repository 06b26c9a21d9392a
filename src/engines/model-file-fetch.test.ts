import { describe, expect, it } from 'vitest';
import { GatewayError } from '../core/errors.ts';
import { checkedModelFetch } from './model-file-fetch.ts';

/** A server answering every URL with the same response (a fresh copy per call). */
const serving = (body: BodyInit | null, headers: Record<string, string>, status = 200) => checkedModelFetch(async () => new Response(body, { status, headers }));

const HTML = '<!doctype html><html><body>app</body></html>';
const fails = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
};

describe('checkedModelFetch', () => {
  it('refuses an HTML page served for a JSON or a binary model file, naming the URL (the SPA fallback trap)', async () => {
    const html = serving(HTML, { 'content-type': 'text/html; charset=utf-8' });
    for (const url of ['https://hub.test/m/resolve/main/config.json', 'https://hub.test/m/resolve/main/onnx/model.onnx', '/models/x/tokenizer.json']) {
      const error = await fails(html(url));
      expect(error.code).toBe('model_unavailable');
      expect(error.message).toContain(url);
      expect(error.message).toMatch(/an HTML page \(text\/html\), not the model file/);
    }
  });

  it('sees an HTML page by its first byte when its content type lies', async () => {
    const error = await fails(serving(`\ufeff  \n${HTML}`, { 'content-type': 'application/octet-stream' })('/m/onnx/model.onnx'));
    expect(error.message).toMatch(/an HTML page \(application\/octet-stream\)/);
  });

  it('refuses a JSON document where weights belong', async () => {
    const error = await fails(serving('{"error":"rate limited"}', { 'content-type': 'application/json' })('/m/onnx/model_quantized.onnx'));
    expect(error.message).toMatch(/a JSON document/);
  });

  it('passes real files through whole, and leaves failures and other files to the engine', async () => {
    const weights = new Uint8Array([8, 1, 18, 4, 0x3c, 0x3c]);
    const binary = await serving(weights, { 'content-type': 'application/octet-stream' })('/m/onnx/model.onnx');
    expect(new Uint8Array(await binary.arrayBuffer())).toEqual(weights);
    const json = await serving('{"model_type":"bert"}', { 'content-type': 'application/json' })('/m/config.json');
    expect(await json.json()).toEqual({ model_type: 'bert' });
    const missing = await serving(HTML, { 'content-type': 'text/html' }, 404)('/m/config.json');
    expect(missing.status).toBe(404);
    const page = await serving(HTML, { 'content-type': 'text/html' })('/m/README.md');
    expect(page.status).toBe(200);
  });
});
