/**
 * Reads a request body as one JSON object, with a size cap that holds even when the client
 * sends no (or a false) Content-Length; and any body's bytes within a cap (`readBytesWithin`).
 * @module
 */
import { GatewayError } from './errors.ts';

/**
 * `whole`: read the body in one step and check its size after, for requests whose body the
 * browser already holds in memory (see GatewayOptions.readBodyWhole).
 */
export async function readJsonObject(request: Request, maxBytes: number, { whole = false } = {}): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type');
  if (!isJsonMediaType(type)) {
    throw new GatewayError('invalid_request', `Expected a JSON body with Content-Type: application/json, got ${type ? `'${type}'` : 'no Content-Type'}.`);
  }
  const length = request.headers.get('content-length');
  const declared = length === null ? NaN : Number(length);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

  // With a declared size within the cap, the platform's one-shot read is the fast path; otherwise
  // count bytes while reading, so a missing or false Content-Length cannot get past the cap.
  const bytes = whole || Number.isFinite(declared) ? new Uint8Array(await request.arrayBuffer()) : await readBytesWithin(request.body, maxBytes);
  if (bytes === undefined || bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new GatewayError('invalid_request', 'The request body is not valid UTF-8.');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError('invalid_request', 'We could not parse the JSON body of your request: it is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayError('invalid_request', 'The request body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

export function isJsonMediaType(type: string | null): boolean {
  if (!type) return false;
  const essence = type.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'));
}

/**
 * A body's bytes, counted as they arrive: undefined once they pass `maxBytes`, the body then
 * cancelled, so that no Content-Length (or a false one) gets a body past the cap unread.
 */
export async function readBytesWithin(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Not awaited: cancelling one branch of a tee'd body (a cloned Request) settles only once
      // the other branch is cancelled too.
      reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError('request_too_large', `The request body is larger than the limit of ${maxBytes} bytes.`);
}
