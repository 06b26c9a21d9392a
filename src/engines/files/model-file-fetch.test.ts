import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../core/errors.ts';
import { CHECKED_HEADER, integrityOf } from './file-integrity.ts';
import { checkedModelFetch } from './model-file-fetch.ts';
import { insufficientStorage } from './storage.ts';

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

  describe('with what the catalog says of a file', () => {
    const weights = new Uint8Array(Array.from({ length: 300 }, (_, i) => (i * 7) % 256));
    const url = 'https://hub.test/m/resolve/main/onnx/model.onnx';
    const fetchWith = (body: Uint8Array, check: { bytes?: number; integrity?: string }) =>
      checkedModelFetch(async () => new Response(body.slice(), { headers: { 'content-type': 'application/octet-stream' } }), { check: (u) => (u === url ? check : undefined) });

    it('passes a file of the right size and hash, whole, stamped with the hash it was checked against', async () => {
      const integrity = await integrityOf(weights);
      const response = await fetchWith(weights, { bytes: 300, integrity })(url);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(weights);
      // The engine's cache keeps the headers: a copy stamped so is not hashed again at every load.
      expect(response.headers.get(CHECKED_HEADER)).toBe(integrity);
    });

    it('refuses one flipped byte by its hash, naming the URL and both hashes', async () => {
      const flipped = weights.slice();
      flipped[150]! ^= 0x01;
      const expected = await integrityOf(weights);
      // The response comes at once (a size probe that never reads it costs nothing); its last read fails.
      const error = await fails((await fetchWith(flipped, { bytes: 300, integrity: expected })(url)).arrayBuffer());
      expect(error.code).toBe('model_unavailable');
      expect(error.message).toContain(url);
      expect(error.message).toContain(`the catalog says ${expected}`);
      expect(error.message).toContain(await integrityOf(flipped));
    });

    it('refuses a short file by its size, and a long one', async () => {
      const error = await fails((await fetchWith(weights.subarray(0, 200), { bytes: 300 })(url)).arrayBuffer());
      expect(error.message).toMatch(/it is 200 bytes, the catalog says 300/);
      const long = await fails((await fetchWith(weights, { bytes: 200 })(url)).arrayBuffer());
      expect(long.message).toMatch(/it is 300 bytes, the catalog says 200/);
    });

    it('with verdictLater, ends the body at its last byte and hands over the check\'s verdict, which fails for a wrong file', async () => {
      const integrity = await integrityOf(weights);
      const flipped = weights.slice();
      flipped[7]! ^= 0x80;
      for (const [body, passes] of [[weights, true], [flipped, false]] as const) {
        const verdicts: [string, Promise<void>][] = [];
        const failures: unknown[] = [];
        const fetchLater = checkedModelFetch(async () => new Response(body.slice(), { headers: { 'content-type': 'application/octet-stream' } }), {
          check: () => ({ bytes: 300, integrity }),
          verdictLater: (u, verdict) => void verdicts.push([u, verdict]),
          onFailure: (_u, error) => void failures.push(error),
        });
        // The whole body is read, even when it is the wrong file: the verdict says so, not the read.
        expect(new Uint8Array(await (await fetchLater(url)).arrayBuffer())).toEqual(body);
        expect(verdicts.map(([u]) => u)).toEqual([url]);
        if (passes) {
          await expect(verdicts[0]![1]).resolves.toBeUndefined();
          expect(failures).toEqual([]);
        } else {
          const error = await fails(verdicts[0]![1]);
          expect(error.message).toContain(`the catalog says ${integrity}`);
          expect(failures).toEqual([error]);
        }
      }
    });
  });

  it('asks for room for a binary file before the engine reads it, and not for small JSON files', async () => {
    const asked: [number, string][] = [];
    const refuse = checkedModelFetch(async () => new Response(new Uint8Array(10), { headers: { 'content-length': '1000' } }), {
      room: async (bytes, url) => {
        asked.push([bytes, url]);
        if (bytes > 500) throw insufficientStorage(url, bytes, 500);
      },
    });
    const error = await fails(refuse('/m/onnx/model.onnx'));
    expect(error.code).toBe('insufficient_storage');
    expect(error.status).toBe(507);
    expect(asked).toEqual([[1000, '/m/onnx/model.onnx']]);
    await refuse('/m/config.json');
    expect(asked).toHaveLength(1);
  });

  it('names the file and how far it got when a download is cut off midway', async () => {
    const cut = checkedModelFetch(async () => {
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        // The connection drops a while after the first bytes, as a real one does.
        async pull(controller) {
          if (sent) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            return controller.error(new TypeError('network error'));
          }
          sent = true;
          controller.enqueue(new Uint8Array(40));
        },
      });
      return new Response(body, { headers: { 'content-length': '100' } });
    });
    const response = await cut('https://hub.test/m/resolve/main/onnx/model.onnx');
    const error = await fails(response.arrayBuffer());
    expect(error.code).toBe('model_unavailable');
    expect(error.message).toMatch(/download of https:\/\/hub\.test\/m\/resolve\/main\/onnx\/model\.onnx was cut off after 40 of 100 bytes \(network error\)/);
  });

  it('drops a stamp the server sent itself, and checks external-data chunks like the main file', async () => {
    const forged = checkedModelFetch(async () => new Response(new Uint8Array(8), { headers: { [CHECKED_HEADER]: 'sha256-forged' } }));
    expect((await forged('/m/onnx/model.onnx')).headers.has(CHECKED_HEADER)).toBe(false);
    expect((await forged('/m/config.json')).headers.has(CHECKED_HEADER)).toBe(false);
    const html = serving(HTML, { 'content-type': 'text/html' });
    expect((await fails(html('/m/onnx/model.onnx_data_1'))).message).toMatch(/an HTML page/);
  });

  it('counts each model file\'s bytes as the engine reads them, and tells the whole once it ends (load progress)', async () => {
    const told: [string, number, number][] = [];
    const chunks = [new Uint8Array(30), new Uint8Array(50), new Uint8Array(20)];
    const counting = checkedModelFetch(
      async (input) => {
        const url = String(input);
        const body = new ReadableStream<Uint8Array>({ pull: (c) => void (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
        return new Response(url.endsWith('.json') ? '{"a":1}' : body, { headers: url.endsWith('.json') ? {} : { 'content-length': '100' } });
      },
      { onBytes: (url, loaded, total) => void told.push([url, loaded, total]) },
    );
    expect((await (await counting('/m/onnx/model.onnx')).arrayBuffer()).byteLength).toBe(100);
    expect(told).toEqual([
      ['/m/onnx/model.onnx', 30, 100],
      ['/m/onnx/model.onnx', 80, 100],
      ['/m/onnx/model.onnx', 100, 100],
      ['/m/onnx/model.onnx', 100, 100],
    ]);
    told.length = 0;
    // Without a length the total is unknown (0) until the end; JSON files count too.
    expect(await (await counting('/m/config.json')).json()).toEqual({ a: 1 });
    expect(told).toEqual([
      ['/m/config.json', 7, 0],
      ['/m/config.json', 7, 7],
    ]);
  });

  it('does not count a range (a size probe) or a failed answer', async () => {
    const told: unknown[] = [];
    const onBytes = (...args: unknown[]) => void told.push(args);
    await (await checkedModelFetch(async () => new Response(new Uint8Array(1), { status: 206 }), { onBytes })('/m/onnx/model.onnx')).arrayBuffer();
    await (await checkedModelFetch(async () => new Response('missing', { status: 404 }), { onBytes })('/m/onnx/model.onnx')).text();
    expect(told).toEqual([]);
  });

  it('tells a body that failed as it was read, with the error naming the file, for a reader that sees only "Failed to fetch"', async () => {
    const failures: [string, unknown][] = [];
    const onFailure = (url: string, error: unknown) => void failures.push([url, error]);
    const body = new Uint8Array([1, 2, 3, 4]);
    const check = { bytes: 4, integrity: await integrityOf(new Uint8Array([4, 3, 2, 1])) };
    const wrong = checkedModelFetch(async () => new Response(body.slice()), { check: () => check, onFailure });
    const thrown = await fails((await wrong('/m/onnx/model.onnx')).arrayBuffer());
    expect(failures).toEqual([['/m/onnx/model.onnx', thrown]]);
    expect(thrown.message).toMatch(/is not the file the catalog names: its hash is sha256-/);
  });
});

describe('checkedModelFetch with resume', () => {
  const FILE = Uint8Array.from({ length: 5000 }, (_, i) => (i * 13 + 1) & 0xff);
  /** Cuts the first response after 2000 bytes; answers `Range` from its offset. */
  const cutOnce = () => {
    const ranges: (string | null)[] = [];
    const fetch = async (_input: string | URL | Request, init?: RequestInit) => {
      const range = new Headers(init?.headers).get('range');
      ranges.push(range);
      const from = Number(/bytes=(\d+)-/.exec(range ?? '')?.[1] ?? 0);
      const part = FILE.subarray(from, ranges.length === 1 ? 2000 : FILE.byteLength);
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!sent) return void ((sent = true), controller.enqueue(part.slice()));
          if (ranges.length === 1) controller.error(new TypeError('network error'));
          else controller.close();
        },
      }, { highWaterMark: 0 });
      const headers = { 'content-type': 'application/octet-stream', etag: '"a"', 'accept-ranges': 'bytes' };
      return from > 0
        ? new Response(body, { status: 206, headers: { ...headers, 'content-range': `bytes ${from}-${FILE.byteLength - 1}/${FILE.byteLength}` } })
        : new Response(body, { status: 200, headers: { ...headers, 'content-length': String(FILE.byteLength) } });
    };
    return { fetch, ranges };
  };

  it('hands the engine the whole file after a cut, resumed from where it stopped, checked and stamped, with the cut told in progress', async () => {
    const host = cutOnce();
    const integrity = await integrityOf(FILE);
    const reports: { loaded: number; retries?: number; lastCut?: string }[] = [];
    const fetch = checkedModelFetch(host.fetch, {
      resume: { backoffMs: 1 },
      check: () => ({ bytes: FILE.byteLength, integrity }),
      onBytes: (_url, loaded, _total, download) => reports.push({ loaded, ...(download ? { retries: download.retries, lastCut: download.lastCut } : {}) }),
    });
    const response = await fetch('/m/onnx/model.onnx');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(FILE);
    expect(host.ranges).toEqual([null, 'bytes=2000-']);
    expect(response.headers.get(CHECKED_HEADER)).toBe(integrity);
    expect(reports.at(-1)).toMatchObject({ loaded: FILE.byteLength, retries: 1, lastCut: 'network error' });
  });

  it('refuses a resumed file whose hash is not the catalog\'s, and an HTML page, before the engine sees them', async () => {
    const wrong = checkedModelFetch(cutOnce().fetch, { resume: { backoffMs: 1 }, check: () => ({ integrity: 'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' }) });
    expect((await fails(wrong('/m/onnx/model.onnx'))).message).toMatch(/is not the file the catalog names: its hash is sha256-/);
    const html = checkedModelFetch(async () => new Response(HTML, { headers: { 'content-type': 'application/octet-stream' } }), { resume: {} });
    expect((await fails(html('/m/onnx/model.onnx'))).message).toMatch(/an HTML page/);
  });
});
