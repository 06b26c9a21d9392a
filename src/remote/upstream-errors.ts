/**
 * An upstream's error response, passed on to the caller in the caller's own flavour: whatever the
 * upstream sent (OpenAI, Anthropic, vLLM, llama.cpp, Ollama bodies, FastAPI validation errors,
 * plain text, an HTML proxy page, nothing), the caller's SDK gets its usual body, the upstream's
 * status (so it raises the same error class) and the upstream's retry advice.
 * @module
 */
import { GatewayError } from '../core/errors.ts';
import { readErrorCode } from '../protocol/openai/codes.ts';

/** An upstream's non-2xx response, read into one shape, whatever server sent it (OpenAI, Anthropic, vLLM, llama.cpp, Ollama bodies, plain text, HTML, empty). */
export interface UpstreamFailure {
  readonly status: number;
  /** Names the upstream, then gives its own message. */
  readonly message: string;
  readonly retryAfter?: string;
  readonly shouldRetry?: string;
  /** The upstream's own string `error.code` (`context_length_exceeded`), kept for OpenAI-flavoured callers. */
  readonly code?: string;
}

const MAX_BODY_BYTES = 64 * 1024;
const MAX_MESSAGE_CHARS = 2_000;

export async function readUpstreamFailure(response: Response, url: string): Promise<UpstreamFailure> {
  const text = (await readCapped(response)).trim();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (or cut off at the cap): read as text.
  }
  const found = json === undefined ? undefined : messageOf(json);
  const own = found ?? (json !== undefined ? text : textOf(text)) ?? '';
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const message = `The upstream ${url} answered ${status}${own ? `: ${cap(own)}` : ' with no message.'}`;
  // The OpenAI family's `error.code` (its table reads it), kept for OpenAI-flavoured callers.
  const code = readErrorCode(json);
  const retryAfter = response.headers.get('retry-after');
  const shouldRetry = response.headers.get('x-should-retry');
  return {
    status: response.status,
    message,
    ...(retryAfter !== null && { retryAfter }),
    ...(shouldRetry !== null && { shouldRetry }),
    ...(code !== undefined && { code }),
  };
}

/**
 * That failure as the error its caller gets, in the caller's own API (the gateway renders it with
 * the caller's descriptor): the upstream's status kept (a 422 stays 422, a 529 stays 529, a status
 * that is not an error becomes 502), retry-after / x-should-retry kept, and a message that says it
 * came from the upstream (naming the URL) followed by the upstream's own message.
 */
export function toUpstreamError(failure: UpstreamFailure, url: string): GatewayError {
  return new GatewayError('upstream_error', failure.message, {
    upstream: {
      status: failure.status,
      url,
      ...(failure.code !== undefined && { code: failure.code }),
      ...(failure.retryAfter !== undefined && { retryAfter: failure.retryAfter }),
      ...(failure.shouldRetry !== undefined && { shouldRetry: failure.shouldRetry }),
    },
  });
}

/** The body as text, reading at most MAX_BODY_BYTES: an error page is no reason to read a stream to its end. */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < MAX_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      const chunk = value.subarray(0, MAX_BODY_BYTES - bytes);
      bytes += chunk.byteLength;
      text += decoder.decode(chunk, { stream: true });
    }
    await reader.cancel().catch(() => {});
    return text + decoder.decode();
  } catch {
    // A body that fails half-way still says something.
    return text;
  }
}

/**
 * The message inside the error bodies servers send: `{error:{message}}` (OpenAI, vLLM, llama.cpp,
 * Ollama's /v1, and Anthropic's envelope), `{error:"…"}` (Ollama's own API, LM Studio),
 * `{message}` (older vLLM), `{detail}` (FastAPI validation: a string or a list of `{loc,msg}`).
 */
function messageOf(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return typeof json === 'string' && json ? json : undefined;
  const { error, message, detail } = json as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof error === 'string' && error) return error;
  const nested = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof nested === 'string' && nested) return nested;
  if (typeof message === 'string' && message) return message;
  if (typeof detail === 'string' && detail) return detail;
  if (Array.isArray(detail)) {
    const items = detail.map((d: { loc?: unknown; msg?: unknown }) => {
      const where = Array.isArray(d?.loc) ? d.loc.join('.') : '';
      return typeof d?.msg === 'string' ? (where ? `${where}: ${d.msg}` : d.msg) : JSON.stringify(d);
    });
    return items.join('; ') || undefined;
  }
  return undefined;
}

/** Plain text as it is; an HTML page (a proxy's 502) by its title, else its text without tags. */
function textOf(text: string): string | undefined {
  if (!/^<(!doctype|html|head|body|\?xml)/i.test(text)) return text || undefined;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  if (title) return title;
  const stripped = text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return stripped || undefined;
}

function cap(message: string): string {
  const flat = message.trim();
  return flat.length > MAX_MESSAGE_CHARS ? `${flat.slice(0, MAX_MESSAGE_CHARS)}… (cut)` : flat;
}
