/**
 * The fetch the engines fetch model files with, checked before an engine (or its download cache)
 * sees them. A server that answers a model file's URL with an HTML page (a single-page app's
 * fallback for unknown paths, a login or error page) would otherwise fail deep inside the engine,
 * as a JSON parse error or an invalid protobuf, naming neither the file nor the cause; and a cache
 * could keep the page and hand it back on every later load. Where the catalog says what a file
 * must be (its size, its hash), the bytes are checked here too, before any cache keeps them; and a
 * download that would not fit in the browser's storage is refused after its first chunk. Each
 * file's bytes are counted as the engine reads them: that is the load's progress (file-progress.ts).
 * With `resume`, a binary file is downloaded whole before the engine sees it, and a cut connection
 * resumes from the byte it stopped at (resumable-download.ts) rather than failing the load.
 * @module
 */
import type { DownloadState } from '../../contracts/model-progress.ts';
import { GatewayError } from '../../core/errors.ts';
import { CHECKED_HEADER, checkSize, verifyFile, type FileCheck } from './file-integrity.ts';
import { downloadResumable, NotDownloaded, type DownloadProgress, type ResumeOptions } from './resumable-download.ts';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Files that are JSON, and files that are binary; anything else is passed through unchecked. */
const JSON_FILE = /\.json$/i;
// transformers.js splits large external data into `model.onnx_data`, `model.onnx_data_1`, ...
const BINARY_FILE = /\.(onnx|onnx_data(_\d+)?|bin|safetensors|wasm)$/i;

export interface ModelFetchChecks {
  /** What the file at this URL must be, when the catalog says. */
  check?(url: string): FileCheck | undefined;
  /** Throws when `bytes` more would not fit in storage (see storage.ts). */
  room?(bytes: number, url: string): Promise<void>;
  /**
   * Bytes of a model file's body so far as it is read (`total` 0 when unknown), and once more when
   * it ends; with `download` when a resumable download was cut or resumed (its retries, last cut).
   */
  onBytes?(url: string, loaded: number, total: number, download?: DownloadState): void;
  /**
   * A body that failed as it was read (cut off, or not the catalog's file), with the error naming
   * it: a reader that takes the body whole (`arrayBuffer()`) sees only "Failed to fetch".
   */
  onFailure?(url: string, error: unknown): void;
  /**
   * When given, a checked file's body ends with its last byte, and the check (hashing: 1.4–1.5 s
   * for a 0.8 GB file on 2 cores) runs beside what the engine does next; its verdict comes here, and
   * whoever keeps or uses the file must wait for it: the download cache holds the file's write
   * until it passes, the loader the load (verified-cache.ts). Without it, the body's last read
   * waits for the check.
   */
  verdictLater?(url: string, verdict: Promise<void>): void;
  /**
   * Binary files are fetched with resumable-download.ts: a cut body resumes with a range request,
   * bytes received are kept in `resume.store` across reloads, and the engine gets the whole file.
   */
  resume?: ResumeOptions;
}

export function checkedModelFetch(fetchImpl: Fetch, checks: ModelFetchChecks = {}): Fetch {
  return async (input, init) => {
    if (checks.resume && !(input instanceof Request) && BINARY_FILE.test(pathOf(String(input))) && wholeGet(init)) return resumed(fetchImpl, String(input), init, checks);
    const response = await fetchImpl(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const path = pathOf(url);
    const json = JSON_FILE.test(path);
    const binary = BINARY_FILE.test(path);
    // Failures (a 404 for a missing file) are the engine's to report, as they are today.
    if (!response.ok || (!json && !binary)) return unstamped(response);
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'text/html') throw notTheFile(url, 'an HTML page', type);
    // A JSON error body where weights belong: a proxy or a hub answering with an error object.
    if (binary && type === 'application/json') throw notTheFile(url, 'a JSON document', type);
    if (!response.body) return unstamped(response);
    // The body is read once, here, chunk by chunk as the engine asks for it; its first chunk now.
    const reader = response.body.getReader();
    const first = await reader.read().catch((error: unknown) => ({ error }));
    if ('value' in first && first.value && startsLikeHtml(first.value)) {
      void reader.cancel().catch(() => {});
      throw notTheFile(url, 'an HTML page', type);
    }
    const headers = new Headers(response.headers);
    headers.delete(CHECKED_HEADER);
    const answer = (body: ReadableStream<Uint8Array>) => new Response(body, { status: response.status, statusText: response.statusText, headers });
    // A range (transformers.js reads a file's size with `Range: bytes=0-0`) is a piece, not the file.
    if (response.status === 206) return answer(readAlong(reader, first, url, undefined, undefined, {}));
    let check = checks.check?.(url);
    if (check?.bytes === undefined && check?.integrity === undefined) check = undefined;
    // The length header is the encoded size; a check's `bytes` is the file's own.
    const length = Number(response.headers.get('content-length')) || undefined;
    if (binary) {
      try {
        await checks.room?.(check?.bytes ?? length ?? 0, url);
      } catch (error) {
        void reader.cancel().catch(() => {});
        throw error;
      }
    }
    // transformers.js stores the file with these headers: stamped with the hash it is checked
    // against, the cache knows it was checked (it is stored only once the check passed).
    if (check?.integrity !== undefined) headers.set(CHECKED_HEADER, check.integrity);
    return answer(readAlong(reader, first, url, length, check, checks));
  };
}

/** A plain GET of a whole file (not a size probe with `Range`, not a HEAD). */
function wholeGet(init: RequestInit | undefined): boolean {
  return (init?.method ?? 'GET').toUpperCase() === 'GET' && !new Headers(init?.headers).has('range');
}

/**
 * A binary model file downloaded whole with resumable-download.ts, refused on the same grounds as
 * a streamed one (an HTML page or a JSON document, no room), checked as a whole, and handed to the
 * engine as one body. The bytes kept to resume it are dropped once it is whole: checked, it goes to
 * the engine's cache; not the catalog's file, it is refused, and the next load starts over.
 */
async function resumed(fetchImpl: Fetch, url: string, init: RequestInit | undefined, checks: ModelFetchChecks): Promise<Response> {
  let check = checks.check?.(url);
  if (check?.bytes === undefined && check?.integrity === undefined) check = undefined;
  const store = checks.resume?.store;
  let type = '';
  // Not the file (an HTML page, no room): refused before its body, as a streamed file is, and not
  // a body's failure (transformers.js tries a local path first, and goes on to the host when it fails).
  let refused = false;
  const refuse = (error: unknown) => {
    refused = true;
    throw error;
  };
  let done;
  try {
    done = await downloadResumable(fetchImpl, url, {
      ...checks.resume,
      ...(init ? { init } : {}),
      ...(check?.bytes !== undefined ? { bytes: check.bytes } : {}),
      inspect: async (response, from) => {
        type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (type === 'text/html') refuse(notTheFile(url, 'an HTML page', type));
        if (type === 'application/json') refuse(notTheFile(url, 'a JSON document', type));
        if (from === 0) await checks.room?.(check?.bytes ?? (Number(response.headers.get('content-length')) || 0), url).catch(refuse);
      },
      inspectFirst: (chunk) => {
        if (startsLikeHtml(chunk)) refuse(notTheFile(url, 'an HTML page', type));
      },
      onProgress: (progress) => checks.onBytes?.(url, progress.loaded, progress.total, progress.retries > 0 || progress.resumedFrom > 0 ? downloadState(progress) : undefined),
    });
  } catch (error) {
    if (error instanceof NotDownloaded) return unstamped(error.response);
    if (!refused) checks.onFailure?.(url, error);
    throw error;
  }
  await store?.clear(url).catch(() => {});
  const { bytes, headers } = done;
  headers.delete(CHECKED_HEADER);
  if (check) {
    if (check.integrity !== undefined) headers.set(CHECKED_HEADER, check.integrity);
    const verdict = verifyFile(url, bytes, check).catch((error: unknown) => {
      checks.onFailure?.(url, error);
      throw error;
    });
    if (checks.verdictLater) {
      verdict.catch(() => {});
      checks.verdictLater(url, verdict);
    } else await verdict;
  }
  return new Response(bytes, { status: 200, statusText: 'OK', headers });
}

/** A server's own copy of the stamp means nothing: only a check made here may set it. */
function unstamped(response: Response): Response {
  if (!response.headers.has(CHECKED_HEADER)) return response;
  const headers = new Headers(response.headers);
  headers.delete(CHECKED_HEADER);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

type FirstRead = ReadableStreamReadResult<Uint8Array> | { error: unknown };

/**
 * The rest of a body whose first chunk has been read, as one stream (one JS step per chunk: the
 * engine reads 0.8 GB in about 12,000 of them):
 * - each chunk is counted for `onBytes` as it is read, and the whole once it ends;
 * - a connection that drops midway fails the body with an error naming the file and how far it
 *   got (the browser's own says only "network error");
 * - with a `check`, the bytes are checked when the last one has come: a file that is not what the
 *   catalog says fails its final read, or its verdict with `verdictLater`, before the engine (or
 *   its cache) can keep it. Hashing needs the whole file, which the engine holds whole anyway.
 * The response comes at once, so a size probe that never reads the body costs nothing.
 */
function readAlong(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  first: FirstRead | undefined,
  url: string,
  length: number | undefined,
  check: FileCheck | undefined,
  { onBytes, onFailure, verdictLater }: ModelFetchChecks,
): ReadableStream<Uint8Array> {
  let received = 0;
  let whole = check && wholeFile(check.bytes);
  const verdict = async () => {
    try {
      checkSize(url, whole!.size, check!);
      await verifyFile(url, whole!.bytes(), check!);
    } catch (error) {
      onFailure?.(url, error);
      throw error;
    } finally {
      whole = undefined;
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        const read = first ?? (await reader.read());
        first = undefined;
        if ('error' in read) throw read.error;
        result = read;
      } catch (cause) {
        const of = length ? ` of ${length}` : '';
        const error = new GatewayError('model_unavailable', `The download of ${url} was cut off after ${received}${of} bytes (${cause instanceof Error ? cause.message : String(cause)}). Files fetched whole are kept: the next load fetches only what is missing.`, { cause });
        onFailure?.(url, error);
        return controller.error(error);
      }
      if (!result.done) {
        received += result.value.byteLength;
        onBytes?.(url, received, length ?? 0);
        whole?.add(result.value);
        return controller.enqueue(result.value);
      }
      onBytes?.(url, received, received);
      if (whole && verdictLater) {
        const later = verdict();
        // Whoever is handed the verdict handles it; this copy only keeps it from being reported unhandled.
        later.catch(() => {});
        verdictLater(url, later);
      } else if (whole) {
        try {
          await verdict();
        } catch (error) {
          return controller.error(error);
        }
      }
      controller.close();
    },
    cancel(reason) {
      whole = undefined;
      return reader.cancel(reason);
    },
  });
}

/**
 * A file's bytes gathered as they arrive. When its size is known they are copied into one buffer
 * of that size as they come, while the download waits on the network: no copy of the whole file
 * after its last byte, and no second whole copy held beside the pieces.
 */
function wholeFile(size: number | undefined): { add(chunk: Uint8Array): void; readonly size: number; bytes(): Uint8Array } {
  const chunks: Uint8Array[] = [];
  // Made at the first byte: a response whose body is never read (a size probe) costs nothing.
  let buffer: Uint8Array | undefined;
  let at = 0;
  return {
    add(chunk) {
      if (size && !buffer) buffer = new Uint8Array(size);
      // Bytes past the catalog's size are only counted: the size alone refuses such a file.
      if (!buffer) chunks.push(chunk);
      else if (at + chunk.byteLength <= buffer.byteLength) buffer.set(chunk, at);
      at += chunk.byteLength;
    },
    get size() {
      return at;
    },
    /** Asked for only once the size is the catalog's (when it gives one). */
    bytes: () => buffer ?? concat(chunks),
  };
}

function concat(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const size = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function pathOf(url: string): string {
  try {
    return new URL(url, 'http://relative.invalid').pathname;
  } catch {
    return url;
  }
}

/** Neither JSON nor a binary model file starts with `<`; an HTML page (whatever its type says) does. */
function startsLikeHtml(value: Uint8Array): boolean {
  let i = 0;
  // Skip a byte order mark and leading white space.
  if (value[0] === 0xef && value[1] === 0xbb && value[2] === 0xbf) i = 3;
  while (i < value.length && (value[i] === 0x20 || value[i] === 0x09 || value[i] === 0x0a || value[i] === 0x0d)) i++;
  return value[i] === 0x3c; // '<'
}

/** Refusals made before a file's body was read (see `refusedBeforeBody`). */
const beforeBody = new WeakSet<object>();

/**
 * Whether a failure is a file refused at its first bytes (an HTML page where a model file
 * belongs). transformers.js takes such a refusal in the app's own folder as "not here" and goes on
 * to the hub, so a load may hear it and then a failure of the file it really fetched: that later
 * failure (a cut, a wrong hash) is the one to report.
 */
export function refusedBeforeBody(error: unknown): boolean {
  return typeof error === 'object' && error !== null && beforeBody.has(error);
}

function notTheFile(url: string, what: string, type: string): GatewayError {
  const error = new GatewayError(
    'model_unavailable',
    `The server answered ${url} with ${what}${type ? ` (${type})` : ''}, not the model file it names. A single-page app's fallback for unknown paths does this: serve the model's files at that URL, or point the engine at a host that has them.`,
  );
  beforeBody.add(error);
  return error;
}

/** What progress events tell of a download that did not come in one piece. */
function downloadState({ resumedFrom, retries, ranges, lastCut }: DownloadProgress): DownloadState {
  return { resumedFrom, retries, ranges, ...(lastCut !== undefined ? { lastCut } : {}) };
}
