/**
 * One error type for every failure the gateway reports. Protocol modules render it in their own
 * wire shape; it crosses worker boundaries as plain data (`toJSON` / `GatewayError.from`).
 * @module
 */

/** Each code fixes the HTTP status; the protocol renderers map codes to their own `type` names. */
export const STATUS_BY_CODE = {
  invalid_request: 400,
  context_length_exceeded: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  /** A stored object (a response, an item) that this server does not hold: the URL itself is known. */
  resource_not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  queue_full: 429,
  internal: 500,
  model_unavailable: 503,
  engine_unavailable: 503,
  /** The GPU device was lost (memory pressure, a driver reset): the engine is rebuilt, so a retry is served. */
  device_lost: 503,
  /** The browser's storage cannot hold the model's files: the message says how much is needed and free. */
  insufficient_storage: 507,
  /** A remote model's upstream server(s) could not be reached (refused, reset, DNS): a retry may find one up. */
  upstream_unreachable: 502,
  /**
   * A remote model's upstream did not send its response headers in time. Not retryable: the server
   * may still be working on it, and a retry would ask it for the same work again.
   */
  upstream_timeout: 504,
  /**
   * A remote model's upstream answered with an error of its own: its status is passed on (a 422
   * stays 422, a 529 stays 529) with its message and retry advice (`GatewayError.upstream`); 502
   * where it sent a status that is not an error.
   */
  upstream_error: 502,
  /** The client went away; nobody reads this status, but it must not look like a success. */
  aborted: 499,
} as const;

export type GatewayErrorCode = keyof typeof STATUS_BY_CODE;

export interface GatewayErrorData {
  readonly code: GatewayErrorCode;
  readonly message: string;
  /** The request field at fault, in the flavour's notation (`messages[0].content`, `max_tokens`). */
  readonly param?: string;
  /** Seconds a client should wait before retrying (429, 503). */
  readonly retryAfter?: number;
  /** An `upstream_error`: what the upstream answered, passed on to the caller in its own flavour. */
  readonly upstream?: UpstreamAnswer;
}

/** An upstream's error answer, as far as the caller is told of it. */
export interface UpstreamAnswer {
  /** Its HTTP status. */
  readonly status: number;
  /** Its own string `error.code` (`context_length_exceeded`), kept for OpenAI-flavoured callers. */
  readonly code?: string;
  /** Its `retry-after` and `x-should-retry` headers, passed on as they came. */
  readonly retryAfter?: string;
  readonly shouldRetry?: string;
  /** The upstream URL that answered (`x-inpage-llm-upstream`). */
  readonly url?: string;
}

export class GatewayError extends Error implements GatewayErrorData {
  override readonly name = 'GatewayError';
  readonly code: GatewayErrorCode;
  readonly param?: string;
  readonly retryAfter?: number;
  readonly upstream?: UpstreamAnswer;

  constructor(code: GatewayErrorCode, message: string, options: { param?: string; retryAfter?: number; upstream?: UpstreamAnswer; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.param !== undefined) this.param = options.param;
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
    if (options.upstream !== undefined) this.upstream = options.upstream;
  }

  get status(): number {
    // Only an error status can be passed on as one: a 3xx or 2xx would read as success.
    const passed = this.upstream?.status;
    return passed !== undefined && passed >= 400 && passed <= 599 ? passed : STATUS_BY_CODE[this.code];
  }

  /**
   * Whether a client retry could succeed. Deterministic failures (bad input, auth, unknown model,
   * a model that cannot be fetched) are not retryable, so the SDKs are told not to retry them.
   */
  get retryable(): boolean {
    if (this.upstream) return this.upstream.shouldRetry !== undefined ? this.upstream.shouldRetry === 'true' : this.status === 429 || this.status >= 500;
    return this.code === 'queue_full' || this.code === 'internal' || this.code === 'engine_unavailable' || this.code === 'device_lost' || this.code === 'upstream_unreachable' || this.retryAfter !== undefined;
  }

  toJSON(): GatewayErrorData & { name: 'GatewayError' } {
    return { name: 'GatewayError', code: this.code, message: this.message, param: this.param, retryAfter: this.retryAfter, upstream: this.upstream };
  }

  /** Rebuilds an error that crossed `postMessage` as data; anything else becomes `internal`. */
  static from(value: unknown): GatewayError {
    if (value instanceof GatewayError) return value;
    if (isGatewayErrorData(value)) {
      return new GatewayError(value.code, value.message, { param: value.param ?? undefined, retryAfter: value.retryAfter ?? undefined, upstream: value.upstream ?? undefined });
    }
    const message = value instanceof Error ? value.message : String(value);
    return new GatewayError('internal', message || 'The engine failed.', { cause: value });
  }
}

/**
 * The one error for work stopped because its client went away (HTTP 499: nobody reads it, but it
 * must not look like a success). `while` says where the request was, for logs.
 */
export function abortedError(while_?: string): GatewayError {
  return new GatewayError('aborted', `The request was aborted by the client${while_ ? ` ${while_}` : ''}.`);
}

/** Matches by shape, not `instanceof`, so errors rebuilt in another realm still count. */
export function isGatewayError(value: unknown): value is GatewayError {
  return isGatewayErrorData(value) && (value as { name?: unknown }).name === 'GatewayError';
}

function isGatewayErrorData(value: unknown): value is GatewayErrorData {
  if (typeof value !== 'object' || value === null) return false;
  const { code, message } = value as { code?: unknown; message?: unknown };
  return typeof code === 'string' && Object.hasOwn(STATUS_BY_CODE, code) && typeof message === 'string';
}
