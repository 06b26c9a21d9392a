/**
 * One model file downloaded so that a cut connection costs only what was in flight: when a body
 * breaks, the rest is asked for with `Range: bytes=<received>-` and `If-Range: <validator>`, and
 * spliced on only when the server answers `206` from exactly that byte, under the same validator
 * (a server that ignores `If-Range` can send a range of a new version). A server that ignores
 * ranges, or whose file changed (a new `ETag`/`Last-Modified`: `If-Range` then yields the whole new
 * file as a `200`), starts the file over instead, and the progress says why. Retries are bounded:
 * after `maxStalls` attempts in a row that add no byte the download fails, naming the file, how far
 * it got and the last cut's reason. Bytes received are handed to a `PartialStore` as they come, so a
 * reload or a closed tab resumes where it stopped (partial-store.ts keeps them in Cache Storage).
 * The caller checks the assembled file (size and hash) before anything trusts it.
 * See docs/decisions/resumable-downloads.md.
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import { corruptFile } from './file-integrity.ts';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What was kept of a file whose download stopped, and what to check a resumed one against. */
export interface KeptPart {
  /** The `ETag` (strong) or `Last-Modified` the bytes came with: `If-Range` sends it back. */
  readonly validator: string;
  /** The file's full size, when the server said. */
  readonly total?: number;
  /** The bytes from the file's first, in order. */
  readonly chunks: readonly Uint8Array[];
}

/** Where the bytes of an unfinished download are kept between attempts, reloads and tabs. */
export interface PartialStore {
  read(url: string): Promise<KeptPart | undefined>;
  /** Appends `chunk` (the bytes after those kept so far) under `validator` and `total`. */
  append(url: string, chunk: Uint8Array, validator: string, total: number | undefined): Promise<void>;
  /** Forgets what was kept of `url` (done, restarted, or refused). */
  clear(url: string): Promise<void>;
}

/** A download's state as it goes, for progress. */
export interface DownloadProgress {
  /** Bytes of the file held so far (resumed ones included), and its size (0 when unknown). */
  readonly loaded: number;
  readonly total: number;
  /** Bytes this download began with, kept from an earlier one (a reload, a closed tab). */
  readonly resumedFrom: number;
  /** Attempts after the first: cuts, refused resumes and restarts together. */
  readonly retries: number;
  /** Why the last attempt ended early, when one did. */
  readonly lastCut?: string;
  /** Whether the server resumes (ranges with a validator); false: a cut starts the file over. */
  readonly ranges: boolean;
}

export interface ResumeOptions {
  /** Where bytes are kept across reloads; without one they are kept only for this download's retries. */
  readonly store?: PartialStore;
  /** Attempts in a row that add no byte before the download fails (default 4). */
  readonly maxStalls?: number;
  /** The first retry's wait in ms, doubled for each attempt in a row without progress, at most 8 s (default 250). */
  readonly backoffMs?: number;
  /** How many bytes are gathered before they are handed to the store (default 4 MiB). */
  readonly chunkBytes?: number;
}

export interface DownloadOptions extends ResumeOptions {
  readonly init?: RequestInit;
  /** The file's size when the catalog says (preferred to the length the server sends). */
  readonly bytes?: number;
  readonly onProgress?: (progress: DownloadProgress) => void;
  /**
   * Looks at each response before its body is read; throws to refuse it (an HTML page where a model
   * file belongs). `from` is the byte the body starts at.
   */
  readonly inspect?: (response: Response, from: number) => void | Promise<void>;
  /** Looks at the file's first bytes; throws to refuse them. */
  readonly inspectFirst?: (chunk: Uint8Array) => void;
}

export interface Downloaded {
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** The headers the file was served with (from its last response), as for a whole `200`. */
  readonly headers: Headers;
  readonly progress: DownloadProgress;
  /** Bytes that crossed the network in this download (all attempts), resumed ones not included. */
  readonly transferred: number;
}

/** A response that is not the file (a 404): the download ends with it, and the caller reports it. */
export class NotDownloaded extends Error {
  readonly response: Response;
  constructor(response: Response) {
    super(`HTTP ${response.status}`);
    this.response = response;
  }
}

const DEFAULT_CHUNK = 4 * 1024 * 1024;
const MAX_BACKOFF_MS = 8000;

export async function downloadResumable(fetchImpl: Fetch, url: string, options: DownloadOptions = {}): Promise<Downloaded> {
  const { store, maxStalls = 4, backoffMs = 250, chunkBytes = DEFAULT_CHUNK, init, onProgress, inspect, inspectFirst } = options;
  const signal = init?.signal ?? undefined;
  let parts = gathered(options.bytes);
  let received = 0;
  /** Bytes handed to the store so far; those after it wait in `parts` for the next `keep`. */
  let kept = 0;
  let validator: string | undefined;
  let total: number | undefined = options.bytes;
  let ranges = false;
  let retries = 0;
  let stalls = 0;
  /** The furthest any attempt got: an attempt that ends before it made no progress (a restart that is cut again). */
  let best = 0;
  let lastCut: string | undefined;
  let transferred = 0;
  let headers = new Headers();

  const stored = await store?.read(url).catch(() => undefined);
  if (stored && (options.bytes === undefined || stored.total === undefined || stored.total === options.bytes)) {
    for (const chunk of stored.chunks) parts.add(chunk);
    received = kept = best = parts.size;
    validator = stored.validator;
    total ??= stored.total;
    ranges = true;
  } else if (stored) await store?.clear(url).catch(() => {});
  const resumedFrom = received;
  const state = (): DownloadProgress => ({ loaded: received, total: total ?? 0, resumedFrom, retries, ranges, ...(lastCut !== undefined ? { lastCut } : {}) });
  const restart = async (why: string) => {
    parts = gathered(options.bytes);
    received = kept = 0;
    lastCut = why;
    await store?.clear(url).catch(() => {});
  };
  /** Hands what is not kept yet to the store, once there is at least `least` of it. */
  const keep = async (least: number) => {
    if (!store || !ranges || validator === undefined || received - kept < least || received === kept) return;
    const from = kept;
    kept = received;
    await store.append(url, parts.slice(from, received), validator, total).catch(() => void (kept = Math.min(kept, from)));
  };

  for (;;) {
    signal?.throwIfAborted();
    const request = new Headers(init?.headers);
    if (received > 0 && validator !== undefined) {
      request.set('range', `bytes=${received}-`);
      request.set('if-range', validator);
    }
    let failure: string | undefined;
    try {
      const response = await fetchImpl(url, { ...init, headers: request });
      const from = await startOf(response, received, total, validator);
      if (typeof from === 'string') {
        // A range the server did not answer as asked: the whole file again, from its first byte.
        await response.body?.cancel().catch(() => {});
        validator = undefined;
        await restart(from);
        failure = from;
      } else {
        if (from === 0 && received > 0) await restart(validatorOf(response) !== validator ? CHANGED : 'the server does not resume downloads');
        if (from === 0) {
          validator = resumable(response) ? validatorOf(response) : undefined;
          ranges = validator !== undefined;
          total = options.bytes ?? (lengthOf(response) || undefined);
          headers = new Headers(response.headers);
        }
        await inspect?.(response, from);
        const cut = await readBody(response, from === 0 ? inspectFirst : undefined, async (chunk) => {
          parts.add(chunk);
          received += chunk.byteLength;
          transferred += chunk.byteLength;
          onProgress?.(state());
          await keep(chunkBytes);
        });
        failure = cut ?? (total !== undefined && received < total ? `the body ended after ${received} of ${total} bytes` : undefined);
      }
    } catch (error) {
      if (error instanceof NotDownloaded || error instanceof GatewayError || signal?.aborted) throw error;
      failure = error instanceof Error ? error.message : String(error);
    }
    if (failure === undefined) break;
    // Whatever came is kept, so a reload resumes from here (not from the last whole chunk).
    await keep(1);
    retries++;
    lastCut = failure;
    stalls = received > best ? 0 : stalls + 1;
    best = Math.max(best, received);
    if (stalls > maxStalls) {
      const of = total !== undefined ? ` of ${total}` : '';
      throw new GatewayError(
        'model_unavailable',
        `The download of ${url} was cut off after ${received}${of} bytes (${failure}), ${retries} times in all, ${stalls} in a row without progress. ${ranges ? 'The bytes received are kept: the next load resumes from them.' : 'The server does not resume downloads, so the next load starts this file over; files fetched whole are kept.'}`,
      );
    }
    if (!ranges && received > 0) await restart(failure);
    onProgress?.(state());
    await sleep(Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** Math.max(0, stalls - 1)), signal);
  }
  if (total !== undefined && received !== total) {
    // More than the file's size: refused here (its buffer holds only the size's bytes); nothing kept is reused.
    await store?.clear(url).catch(() => {});
    throw corruptFile(url, `it is ${received} bytes, ${options.bytes !== undefined ? 'the catalog says' : 'the server said'} ${total}`);
  }
  headers.delete('content-range');
  headers.set('content-length', String(received));
  onProgress?.(state());
  return { bytes: parts.slice(0, received), headers, progress: state(), transferred };
}

/**
 * The byte the response's body starts at, or why it cannot be used. A `206` is spliced on only when
 * it is a piece of the same file (RFC 9110 §13.1.5, §14.4: parts combine only when their strong
 * validators match): it must carry the validator sent in `If-Range`, start exactly at `received`,
 * and name the same size. A server that ignores `If-Range` can otherwise answer with a range of a
 * new version, and the joined bytes would be neither version. A `200` is the whole file from its
 * first byte (the server ignored the range, or `If-Range` found the file changed).
 */
async function startOf(response: Response, received: number, total: number | undefined, validator: string | undefined): Promise<number | string> {
  if (response.status === 206) {
    // A range is asked for only with a validator (`If-Range`); another one names another version.
    if (received > 0 && (validator === undefined || !sameVersion(response, validator))) return CHANGED;
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
    if (!range) return 'the server answered a range without saying which (no readable Content-Range)';
    const size = range[3] === '*' ? undefined : Number(range[3]);
    if (Number(range[1]) !== received) return `the server sent bytes from ${range[1]}, not from ${received}`;
    if (total !== undefined && size !== undefined && size !== total) return `the file on the server is now ${size} bytes, not ${total}`;
    return received;
  }
  if (response.status === 416 && received > 0) return 'the server refused the range';
  if (response.ok) return 0;
  // 5xx and 429 are worth another attempt; anything else (a 404) is the caller's to report.
  if (response.status >= 500 || response.status === 429 || response.status === 408) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`HTTP ${response.status}`);
  }
  throw new NotDownloaded(response);
}

/**
 * The body's bytes, each to `take`; resolves to why it broke (a cut connection), or undefined once
 * it ended. A refusal by `first` (an HTML page) is thrown.
 */
async function readBody(response: Response, first: ((chunk: Uint8Array) => void) | undefined, take: (chunk: Uint8Array) => Promise<void>): Promise<string | undefined> {
  if (!response.body) return undefined;
  const reader = response.body.getReader();
  for (;;) {
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await reader.read();
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    if (result.done) return undefined;
    if (first) {
      try {
        first(result.value);
      } catch (error) {
        void reader.cancel().catch(() => {});
        throw error;
      }
      first = undefined;
    }
    await take(result.value);
  }
}

/** Why a download started over when the server's file is another version than the bytes kept. */
const CHANGED = 'the file changed on the server';

/**
 * Whether a response is of the version `validator` names: its strong `ETag` equal to that `ETag`,
 * or its `Last-Modified` equal to that date (the two kinds `validatorOf` sends in `If-Range`).
 */
function sameVersion(response: Response, validator: string): boolean {
  if (/^"/.test(validator)) return response.headers.get('etag') === validator;
  return response.headers.get('last-modified') === validator;
}

/** Only a validator that names one version of the file (a strong ETag, or Last-Modified) makes `If-Range` safe. */
function validatorOf(response: Response): string | undefined {
  const etag = response.headers.get('etag');
  if (etag && !etag.startsWith('W/')) return etag;
  return response.headers.get('last-modified') ?? undefined;
}

/** Ranges count bytes as sent: a compressed body's bytes are not the file's, and cannot be resumed. */
function resumable(response: Response): boolean {
  const encoding = response.headers.get('content-encoding');
  return response.headers.get('accept-ranges')?.toLowerCase() === 'bytes' && (!encoding || encoding === 'identity');
}

function lengthOf(response: Response): number {
  const encoding = response.headers.get('content-encoding');
  return encoding && encoding !== 'identity' ? 0 : Number(response.headers.get('content-length')) || 0;
}

/**
 * A file's bytes as they arrive. With its size known they go straight into one buffer of that
 * size (no second whole copy at the end); otherwise they are gathered, and a slice copies only the
 * chunks it covers (the store asks for each new 4 MiB as it comes: joining the whole file for each
 * would copy it over and over).
 */
function gathered(size: number | undefined): { add(chunk: Uint8Array): void; readonly size: number; slice(from: number, to: number): Uint8Array<ArrayBuffer> } {
  const buffer = size !== undefined ? new Uint8Array(size) : undefined;
  const chunks: Uint8Array[] = [];
  let at = 0;
  return {
    add(chunk) {
      // Bytes past the expected size are only counted: the caller's size check refuses such a file.
      if (buffer) buffer.set(chunk.subarray(0, Math.max(0, buffer.byteLength - at)), at);
      else chunks.push(chunk);
      at += chunk.byteLength;
    },
    get size() {
      return at;
    },
    slice(from, to) {
      if (buffer) return buffer.subarray(from, Math.min(to, buffer.byteLength));
      const end = Math.min(to, at);
      const out = new Uint8Array(Math.max(0, end - from));
      let offset = 0;
      for (const chunk of chunks) {
        const next = offset + chunk.byteLength;
        if (next > from && offset < end) out.set(chunk.subarray(Math.max(0, from - offset), Math.min(chunk.byteLength, end - offset)), Math.max(0, offset - from));
        if (next >= end) break;
        offset = next;
      }
      return out;
    },
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}
