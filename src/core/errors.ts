/**
 * One error type for every failure the gateway reports. Protocol modules render it in their own
 * wire shape; it crosses worker boundaries as plain data (`toJSON` / `GatewayError.from`).
 * @module
 */

/** What a code tells every caller, whatever its API (see ERROR_CODES). */
interface CodeRule {
  /** The HTTP status it is answered with. */
  readonly status: number;
  /** Whether a client retry could succeed: the answer says so in `x-should-retry`. */
  readonly retryable: boolean;
  /**
   * It passes a remote server's error answer on (`GatewayError.upstream`): that server's status
   * where it is an error status (else `status`), and its retry advice as it came, none where it
   * gave none; retryable, where it did not say, as the SDKs retry by status (429 and 5xx).
   */
  readonly passesOn?: true;
}

/**
 * Every code, once: its HTTP status and whether a retry could succeed. Deterministic failures (bad
 * input, auth, an unknown model, a model that cannot be fetched) are not retryable, so the SDKs,
 * which retry 408/409/429/5xx by default, are told not to retry them. Each API family names the
 * codes in its own table (src/protocol/openai/codes.ts, src/protocol/anthropic/codes.ts).
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, retryable: false },
  context_length_exceeded: { status: 400, retryable: false },
  authentication: { status: 401, retryable: false },
  permission: { status: 403, retryable: false },
  not_found: { status: 404, retryable: false },
  /** A stored object (a response, an item) that this server does not hold: the URL itself is known. */
  resource_not_found: { status: 404, retryable: false },
  model_not_found: { status: 404, retryable: false },
  method_not_allowed: { status: 405, retryable: false },
  request_too_large: { status: 413, retryable: false },
  queue_full: { status: 429, retryable: true },
  internal: { status: 500, retryable: true },
  model_unavailable: { status: 503, retryable: false },
  engine_unavailable: { status: 503, retryable: true },
  /** The GPU device was lost (memory pressure, a driver reset): the engine is rebuilt, so a retry is served. */
  device_lost: { status: 503, retryable: true },
  /** The browser's storage cannot hold the model's files: the message says how much is needed and free. */
  insufficient_storage: { status: 507, retryable: false },
  /** A remote model's upstream server(s) could not be reached (refused, reset, DNS): a retry may find one up. */
  upstream_unreachable: { status: 502, retryable: true },
  /**
   * A remote model's upstream did not send its response headers in time. Not retryable: the server
   * may still be working on it, and a retry would ask it for the same work again.
   */
  upstream_timeout: { status: 504, retryable: false },
  /**
   * A remote model's upstream answered with an error of its own, passed on (a 422 stays 422, a 529
   * stays 529) with its message and retry advice; 502 where it sent a status that is not an error.
   */
  upstream_error: { status: 502, retryable: false, passesOn: true },
  /** The client went away; nobody reads this status, but it must not look like a success. */
  aborted: { status: 499, retryable: false },
} as const satisfies Record<string, CodeRule>;

/** The status column of ERROR_CODES. */
export const STATUS_BY_CODE = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, rule]) => [code, rule.status])) as { readonly [C in keyof typeof ERROR_CODES]: (typeof ERROR_CODES)[C]['status'] };

export type GatewayErrorCode = keyof typeof ERROR_CODES;

export interface GatewayErrorData {
  readonly code: GatewayErrorCode;
  readonly message: string;
  /** The request field at fault, in the flavour's notation (`messages[0].content`, `max_tokens`). */
  readonly param?: string;
  /** Seconds a client should wait before retrying (429, 503). */
  readonly retryAfter?: number;
  /** An `upstream_error` (the one code that passes an answer on): what the upstream answered, passed on to the caller in its own flavour. */
  readonly upstream?: UpstreamAnswer;
}

/** An upstream's error answer, as far as the caller is told of it. */
export interface UpstreamAnswer {
  /** Its HTTP status. */
  readonly status: number;
  /** Its own string `error.code` (`context_length_exceeded`), kept for OpenAI-flavoured callers. */
  readonly code?: string;
  /** Its `retry-after` header, passed on as it came. */
  readonly retryAfter?: string;
  /** Its `x-should-retry` header, passed on as it came. */
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
    // Only a code that passes an answer on carries one (see CodeRule.passesOn).
    if (options.upstream !== undefined && (ERROR_CODES[code] as CodeRule).passesOn) this.upstream = options.upstream;
  }

  get status(): number {
    // Only an error status can be passed on as one: a 3xx or 2xx would read as success.
    const passed = this.upstream?.status;
    return passed !== undefined && passed >= 400 && passed <= 599 ? passed : ERROR_CODES[this.code].status;
  }

  /** Whether a client retry could succeed (see ERROR_CODES); an error that names a wait always may. */
  get retryable(): boolean {
    const passed = this.upstream;
    if (passed) return passed.shouldRetry !== undefined ? passed.shouldRetry === 'true' : this.status === 429 || this.status >= 500;
    return ERROR_CODES[this.code].retryable || this.retryAfter !== undefined;
  }

  /**
   * The headers its answer carries: the retry advice (`x-should-retry`, `retry-after`), or a
   * passed-on answer's own advice as it came (none where it gave none) and the URL that gave it.
   */
  get answerHeaders(): Record<string, string> {
    const passed = this.upstream;
    if (!passed) return { 'x-should-retry': String(this.retryable), ...(this.retryAfter !== undefined ? { 'retry-after': String(this.retryAfter) } : {}) };
    return {
      ...(passed.retryAfter !== undefined ? { 'retry-after': passed.retryAfter } : {}),
      ...(passed.shouldRetry !== undefined ? { 'x-should-retry': passed.shouldRetry } : {}),
      ...(passed.url !== undefined ? { 'x-inpage-llm-upstream': passed.url } : {}),
    };
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
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code) && typeof message === 'string';
}
