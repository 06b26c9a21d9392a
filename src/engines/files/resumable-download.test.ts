import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../core/errors.ts';
import { downloadResumable, NotDownloaded, type KeptPart, type PartialStore } from './resumable-download.ts';

const FILE = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 7 + 3) & 0xff);
const URL_ = 'https://hub.test/m/resolve/main/model.bin';

interface ServerOptions {
  /** Bytes each response sends before its connection drops (Infinity: the whole rest). */
  cuts?: number[];
  ranges?: boolean;
  /** The file per response number (a file that changes between attempts). */
  version?: (attempt: number) => { bytes: Uint8Array; etag: string };
}

/** A server as fetch sees it: ranges with `If-Range`, and bodies that break after a set count. */
function server({ cuts = [], ranges = true, version = () => ({ bytes: FILE, etag: '"v1"' }) }: ServerOptions = {}) {
  const requests: { range: string | null; ifRange: string | null }[] = [];
  let sent = 0;
  const fetch = async (_input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const attempt = requests.length;
    requests.push({ range: headers.get('range'), ifRange: headers.get('if-range') });
    const { bytes, etag } = version(attempt);
    const range = /^bytes=(\d+)-$/.exec(headers.get('range') ?? '');
    const matches = !headers.get('if-range') || headers.get('if-range') === etag;
    const from = ranges && range && matches ? Number(range[1]) : 0;
    const body = bytes.subarray(from);
    const cut = cuts[attempt] ?? Infinity;
    const part = body.subarray(0, Math.min(cut, body.byteLength));
    let at = 0;
    // Chunk by chunk as they are read; an error only after the last (an error drops what is queued).
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at < part.byteLength) {
          const chunk = part.slice(at, at + 1000);
          at += chunk.byteLength;
          sent += chunk.byteLength;
          return controller.enqueue(chunk);
        }
        if (cut < body.byteLength) controller.error(new TypeError('network error'));
        else controller.close();
      },
    }, { highWaterMark: 0 });
    const common: Record<string, string> = { etag, 'content-type': 'application/octet-stream', ...(ranges ? { 'accept-ranges': 'bytes' } : {}) };
    if (from > 0) return new Response(stream, { status: 206, headers: { ...common, 'content-length': String(body.byteLength), 'content-range': `bytes ${from}-${bytes.byteLength - 1}/${bytes.byteLength}` } });
    return new Response(stream, { status: 200, headers: { ...common, 'content-length': String(bytes.byteLength) } });
  };
  return { fetch, requests, sent: () => sent };
}

function memoryStore(): PartialStore & { kept: Map<string, { validator: string; total?: number; chunks: Uint8Array[] }> } {
  const kept = new Map<string, { validator: string; total?: number; chunks: Uint8Array[] }>();
  return {
    kept,
    read: async (url): Promise<KeptPart | undefined> => kept.get(url),
    async append(url, chunk, validator, total) {
      const entry = kept.get(url);
      const chunks = entry?.validator === validator ? entry.chunks : [];
      kept.set(url, { validator, ...(total !== undefined ? { total } : {}), chunks: [...chunks, chunk.slice()] });
    },
    clear: async (url) => void kept.delete(url),
  };
}

const fast = { backoffMs: 1 };

/** A body that hands over `bytes`, then breaks as a dropped connection does. */
function cutAfter(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new TypeError('network error'));
      sent = true;
      controller.enqueue(bytes);
    },
  }, { highWaterMark: 0 });
}

describe('downloadResumable', () => {
  it('resumes a cut body from the byte it stopped at, with Range and If-Range, sending each byte about once', async () => {
    const host = server({ cuts: [3500, 2000, 0, 1500] });
    const progress: { retries: number; lastCut?: string }[] = [];
    const done = await downloadResumable(host.fetch, URL_, { ...fast, onProgress: (p) => progress.push(p) });
    expect(done.bytes).toEqual(FILE);
    expect(host.requests.map((r) => r.range)).toEqual([null, 'bytes=3500-', 'bytes=5500-', 'bytes=5500-', 'bytes=7000-']);
    expect(host.requests.slice(1).every((r) => r.ifRange === '"v1"')).toBe(true);
    expect(host.sent()).toBe(FILE.byteLength);
    expect(done.progress).toMatchObject({ retries: 4, ranges: true, lastCut: 'network error', loaded: FILE.byteLength });
    expect(done.headers.get('content-length')).toBe(String(FILE.byteLength));
    expect(done.headers.has('content-range')).toBe(false);
  });

  it('starts over when the file changed on the server (If-Range answered with the whole new file)', async () => {
    const next = FILE.map((b) => b ^ 0xff);
    const host = server({ cuts: [4000], version: (attempt) => (attempt === 0 ? { bytes: FILE, etag: '"v1"' } : { bytes: next, etag: '"v2"' }) });
    const progress: { lastCut?: string }[] = [];
    const done = await downloadResumable(host.fetch, URL_, { ...fast, onProgress: (p) => progress.push(p) });
    expect(done.bytes).toEqual(next);
    expect(host.requests[1]).toEqual({ range: 'bytes=4000-', ifRange: '"v1"' });
    expect(progress.some((p) => p.lastCut === 'the file changed on the server')).toBe(true);
  });

  it('falls back to starting the file over on a server without ranges, and says so', async () => {
    const host = server({ ranges: false, cuts: [3000, 6000] });
    const done = await downloadResumable(host.fetch, URL_, fast);
    expect(done.bytes).toEqual(FILE);
    expect(host.requests.map((r) => r.range)).toEqual([null, null, null]);
    expect(done.progress).toMatchObject({ ranges: false, retries: 2 });
  });

  it('gives up after attempts in a row that add nothing, naming the file and how far it got', async () => {
    const host = server({ ranges: false, cuts: [5000, 5000, 5000, 5000] });
    const error = await downloadResumable(host.fetch, URL_, { ...fast, maxStalls: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as Error).message).toMatch(/download of https:\/\/hub\.test\/m\/resolve\/main\/model\.bin was cut off after 5000 of 10000 bytes \(network error\), 4 times in all, 3 in a row without progress/);
    expect(host.requests).toHaveLength(4);
  });

  it('keeps what came in a store, so a later download (a reload) starts from it; the store is read, not trusted blindly', async () => {
    const store = memoryStore();
    const first = server({ cuts: [6200, 0, 0, 0, 0, 0] });
    await expect(downloadResumable(first.fetch, URL_, { ...fast, store, chunkBytes: 2048, maxStalls: 1 })).rejects.toThrow(/cut off after 6200/);
    expect(store.kept.get(URL_)!.chunks.reduce((n, c) => n + c.byteLength, 0)).toBe(6200);
    // Kept in order as it came, each piece once (the size was not known: no catalog size here).
    expect(Uint8Array.from(store.kept.get(URL_)!.chunks.flatMap((c) => [...c]))).toEqual(FILE.subarray(0, 6200));

    const second = server();
    const done = await downloadResumable(second.fetch, URL_, { ...fast, store, bytes: FILE.byteLength });
    expect(done.bytes).toEqual(FILE);
    expect(done.progress.resumedFrom).toBe(6200);
    expect(second.requests).toEqual([{ range: 'bytes=6200-', ifRange: '"v1"' }]);
    expect(done.transferred).toBe(FILE.byteLength - 6200);
  });

  it('refuses a file longer than the catalog says, and a 206 that starts elsewhere restarts the file', async () => {
    const long = server({ version: () => ({ bytes: new Uint8Array(FILE.byteLength + 5), etag: '"v1"' }) });
    await expect(downloadResumable(long.fetch, URL_, { ...fast, bytes: FILE.byteLength })).rejects.toThrow(/is not the file the catalog names: it is 10005 bytes, the catalog says 10000/);

    let calls = 0;
    const wrong = async (input: string | URL | Request, init?: RequestInit) => {
      calls++;
      if (calls === 2) return new Response(FILE.subarray(10), { status: 206, headers: { 'content-range': `bytes 10-9999/10000`, etag: '"v1"', 'accept-ranges': 'bytes' } });
      return server({ cuts: calls === 1 ? [4000] : [] }).fetch(input, init);
    };
    const done = await downloadResumable(wrong, URL_, fast);
    expect(done.bytes).toEqual(FILE);
    expect(done.progress.lastCut).toMatch(/sent bytes from 10, not from 4000/);
  });

  it('never splices a 206 of another version: a server that ignores If-Range restarts the file, and says so', async () => {
    const next = Uint8Array.from(FILE, (b) => b ^ 0x5a);
    // The first response (v1) is cut; the server then has v2 and answers the range from it, If-Range ignored.
    const ignoring = (validators: { etag?: string; 'last-modified'?: string }) => {
      const requests: { range: string | null; ifRange: string | null }[] = [];
      const fetch = async (_input: string | URL | Request, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        requests.push({ range: headers.get('range'), ifRange: headers.get('if-range') });
        const first = requests.length === 1;
        const bytes = first ? FILE : next;
        const common = { 'accept-ranges': 'bytes', ...(first ? { etag: '"v1"', 'last-modified': 'Sun, 01 Nov 2026 00:00:00 GMT' } : validators) };
        const range = /^bytes=(\d+)-$/.exec(headers.get('range') ?? '');
        if (first) return new Response(cutAfter(FILE.slice(0, 4000)), { status: 200, headers: { ...common, 'content-length': String(FILE.byteLength) } });
        if (range) return new Response(bytes.slice(Number(range[1])), { status: 206, headers: { ...common, 'content-range': `bytes ${range[1]}-${bytes.byteLength - 1}/${bytes.byteLength}` } });
        return new Response(bytes, { status: 200, headers: { ...common, 'content-length': String(bytes.byteLength) } });
      };
      return { fetch, requests };
    };
    for (const validators of [{ etag: '"v2"' }, {}, { 'last-modified': 'Mon, 02 Nov 2026 00:00:00 GMT' }]) {
      const host = ignoring(validators);
      const done = await downloadResumable(host.fetch, URL_, fast);
      // The whole new version, never the old head with the new tail.
      expect(done.bytes).toEqual(next);
      expect(done.progress).toMatchObject({ lastCut: 'the file changed on the server', retries: 2 });
      expect(host.requests).toEqual([{ range: null, ifRange: null }, { range: 'bytes=4000-', ifRange: '"v1"' }, { range: null, ifRange: null }]);
    }
    // The same validator (here a Last-Modified, where the server sends no strong ETag) still resumes.
    const dated = ignoring({ 'last-modified': 'Sun, 01 Nov 2026 00:00:00 GMT' });
    const weak = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await dated.fetch(input, init);
      const headers = new Headers(response.headers);
      if (headers.get('etag') === '"v1"') headers.set('etag', 'W/"v1"');
      return new Response(response.body, { status: response.status, headers });
    };
    const resumed = await downloadResumable(weak, URL_, fast);
    expect(dated.requests).toEqual([{ range: null, ifRange: null }, { range: 'bytes=4000-', ifRange: 'Sun, 01 Nov 2026 00:00:00 GMT' }]);
    expect(resumed.bytes.subarray(0, 4000)).toEqual(FILE.subarray(0, 4000));
    expect(resumed.bytes.subarray(4000)).toEqual(next.subarray(4000));
  });

  it('hands a response that is not the file (a 404) back untouched; retries a 503', async () => {
    const missing = await downloadResumable(async () => new Response('Entry not found', { status: 404 }), URL_, fast).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotDownloaded);
    expect((missing as NotDownloaded).response.status).toBe(404);
    let calls = 0;
    const host = server();
    const busy = async (input: string | URL | Request, init?: RequestInit) => (++calls === 1 ? new Response('busy', { status: 503 }) : host.fetch(input, init));
    expect((await downloadResumable(busy, URL_, fast)).bytes).toEqual(FILE);
  });
});
