/**
 * Sending generated requests from a page with plain `fetch`, one at a time, each with a time limit
 * (a request that gets no complete answer within it is a hang). Bodies travel to the page as parts
 * and are built there, so a 16 MiB body or a million nested brackets cost the test no transfer.
 */
import { isBodyless, toBodyInit, type RequestSpec } from '../test/property/requests.ts';
import type { Outcome } from './wire-checks.ts';

export type BodyPart = string | { readonly repeat: string; readonly times: number };
export type PageBody = { readonly parts: readonly BodyPart[] } | { readonly bytes: readonly number[] } | null;

export interface PageRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: PageBody;
}

/** A request to send and the spec its answer is checked against (the wire body may say more, e.g. a deep nesting). */
export interface FuzzCase {
  readonly spec: RequestSpec;
  readonly wire?: PageBody;
}

export function toPageRequest({ spec, wire }: FuzzCase): PageRequest {
  const base = { method: spec.method, url: spec.url, headers: spec.headers };
  if (isBodyless(spec.method)) return { ...base, body: null };
  if (wire !== undefined) return { ...base, body: wire };
  if (spec.body.kind === 'padded') {
    const json = JSON.stringify(spec.body.value) ?? '';
    return { ...base, body: { parts: [json, { repeat: ' ', times: Math.max(0, spec.body.bytes - json.length) }] } };
  }
  const body = toBodyInit(spec);
  if (body === undefined) return { ...base, body: null };
  return { ...base, body: typeof body === 'string' ? { parts: [body] } : { bytes: [...body] } };
}

/**
 * Runs in the page (passed to `page.evaluate`, so it uses nothing from this module's scope): sends
 * each request in turn and records what came back.
 */
export async function sendInPage({ requests, hangMs }: { requests: readonly PageRequest[]; hangMs: number }): Promise<Outcome[]> {
  const render = (body: PageBody): string | Uint8Array<ArrayBuffer> | undefined => {
    if (body === null) return undefined;
    if ('bytes' in body) return new Uint8Array(body.bytes);
    return body.parts.map((p) => (typeof p === 'string' ? p : p.repeat.repeat(p.times))).join('');
  };
  const outcomes: Outcome[] = [];
  for (const request of requests) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), hangMs);
    const started = performance.now();
    try {
      const response = await fetch(request.url, { method: request.method, headers: request.headers, body: render(request.body), signal: controller.signal });
      const body = await response.text();
      const headers = Object.fromEntries(response.headers);
      outcomes.push({ kind: 'answered', status: response.status, headers, body, ms: performance.now() - started });
    } catch (error) {
      const ms = performance.now() - started;
      outcomes.push(controller.signal.aborted ? { kind: 'hang', ms } : { kind: 'network-error', message: String(error), ms });
    } finally {
      clearTimeout(timer);
    }
  }
  return outcomes;
}
