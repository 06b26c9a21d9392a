import { describe, expect, it } from 'vitest';
import { GatewayError } from './errors.ts';
import { isJsonMediaType, readJsonObject } from './json-body.ts';

const URL_ = 'https://llm.test/v1/chat/completions';

function post(body: BodyInit | null, contentType: string | null = 'application/json', extra: Record<string, string> = {}): Request {
  const headers = new Headers(extra);
  if (contentType !== null) headers.set('content-type', contentType);
  return new Request(URL_, { method: 'POST', body, headers });
}

/** A body with no Content-Length, delivered in `chunks` pieces. */
function streamed(chunks: readonly Uint8Array[], onCancel?: () => void): Request {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
    cancel: onCancel,
  });
  return new Request(URL_, { method: 'POST', body, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected readJsonObject to reject');
}

describe('isJsonMediaType', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    '  application/json ;charset=UTF-8',
    'application/vnd.x+json',
    'application/problem+json; charset=utf-8',
  ])('accepts %j', (type) => {
    expect(isJsonMediaType(type)).toBe(true);
  });

  it.each([null, '', 'text/plain', 'text/json', 'application/jsonl', 'application/json-seq', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'json'])(
    'rejects %j',
    (type) => {
      expect(isJsonMediaType(type)).toBe(false);
    },
  );
});

describe('readJsonObject', () => {
  it('returns the parsed object', async () => {
    expect(await readJsonObject(post('{"model":"m","n":1}'), 1000)).toEqual({ model: 'm', n: 1 });
  });

  it('accepts a charset parameter and +json media types', async () => {
    expect(await readJsonObject(post('{"a":1}', 'application/json; charset=utf-8'), 1000)).toEqual({ a: 1 });
    expect(await readJsonObject(post('{"a":2}', 'application/vnd.x+json'), 1000)).toEqual({ a: 2 });
  });

  it('decodes multi-byte UTF-8', async () => {
    expect(await readJsonObject(post(new TextEncoder().encode('{"t":"héllo ✓ 🦊"}')), 1000)).toEqual({ t: 'héllo ✓ 🦊' });
  });

  it('rejects a non-JSON content type with a 400 that names it', async () => {
    const error = await failure(readJsonObject(post('{"a":1}', 'text/plain'), 1000));
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.message).toContain("'text/plain'");
  });

  it('rejects a missing content type with a 400', async () => {
    // A byte body gets no default Content-Type (a string body would get text/plain).
    const request = post(new TextEncoder().encode('{"a":1}'), null);
    expect(request.headers.get('content-type')).toBeNull();
    const error = await failure(readJsonObject(request, 1000));
    expect(error.status).toBe(400);
    expect(error.message).toContain('no Content-Type');
  });

  it('accepts a body of exactly the size limit', async () => {
    const body = `{"p":"${'x'.repeat(92)}"}`;
    expect(body.length).toBe(100);
    expect(await readJsonObject(post(body), 100)).toEqual({ p: 'x'.repeat(92) });
  });

  it('rejects an over-limit body by its declared Content-Length without reading it', async () => {
    const request = post('{"a":1}', 'application/json', { 'content-length': '5000' });
    const error = await failure(readJsonObject(request, 100));
    expect(error.code).toBe('request_too_large');
    expect(error.status).toBe(413);
    expect(request.bodyUsed).toBe(false);
  });

  it('rejects an over-limit body that declares no Content-Length, and stops reading it', async () => {
    let cancelled = false;
    const chunk = new TextEncoder().encode(`{"p":"${'x'.repeat(60)}`);
    const request = streamed([chunk, chunk, chunk, chunk], () => (cancelled = true));
    expect(request.headers.get('content-length')).toBeNull();
    const error = await failure(readJsonObject(request, 100));
    expect(error.code).toBe('request_too_large');
    expect(cancelled).toBe(true);
  });

  it('rejects an over-limit body whose Content-Length understates it', async () => {
    const request = post(`{"p":"${'x'.repeat(500)}"}`, 'application/json', { 'content-length': '10' });
    expect((await failure(readJsonObject(request, 100))).status).toBe(413);
  });

  it('read whole (a body the page already holds), still answers 413 over the limit and parses within it', async () => {
    const body = `{"p":"${'x'.repeat(500)}"}`;
    expect((await failure(readJsonObject(post(body), 100, { whole: true }))).status).toBe(413);
    expect(await readJsonObject(post('{"a":[1,2]}'), 100, { whole: true })).toEqual({ a: [1, 2] });
    const chunks = new TextEncoder().encode('{"a":1}');
    expect(await readJsonObject(streamed([chunks.slice(0, 3), chunks.slice(3)]), 100, { whole: true })).toEqual({ a: 1 });
  });

  it('reads a streamed body in several chunks', async () => {
    const enc = new TextEncoder();
    expect(await readJsonObject(streamed([enc.encode('{"a"'), enc.encode(':[1,'), enc.encode('2]}')]), 100)).toEqual({ a: [1, 2] });
  });

  it('rejects invalid UTF-8 with a 400 that says so', async () => {
    const error = await failure(readJsonObject(post(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])), 1000));
    expect(error.status).toBe(400);
    expect(error.message).toContain('UTF-8');
  });

  it('rejects a truncated multi-byte character as invalid UTF-8', async () => {
    const bytes = new TextEncoder().encode('{"a":"é"}');
    const error = await failure(readJsonObject(post(bytes.slice(0, 7)), 1000));
    expect(error.message).toContain('UTF-8');
  });

  it.each(['', '{', '{"a":1,}', "{'a':1}", 'undefined', '{"a":1} x'])('rejects invalid JSON %j with a 400', async (body) => {
    const error = await failure(readJsonObject(post(body), 1000));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('not valid JSON');
  });

  it.each(['[]', '[{"a":1}]', '1', '"text"', 'null', 'true'])('rejects the non-object JSON %s with a 400', async (body) => {
    const error = await failure(readJsonObject(post(body), 1000));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('must be a JSON object');
  });

  it('treats a request without a body as empty, hence invalid JSON', async () => {
    const request = new Request(URL_, { method: 'POST', headers: { 'content-type': 'application/json' } });
    const error = await failure(readJsonObject(request, 1000));
    expect(error.message).toContain('not valid JSON');
  });
});
