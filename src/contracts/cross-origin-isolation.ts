/**
 * Cross-origin isolation, which gives a page SharedArrayBuffer and so lets the CPU engines run on
 * more than one thread: the two response headers that make a page isolated, as the vite plugin
 * sends them in dev and preview and the product's service worker adds them to the app's own pages
 * when `startInference({ crossOriginIsolation: true })` asks it to. What it costs an app:
 * docs/guides/cross-origin-isolation.md.
 *
 * `Cross-Origin-Embedder-Policy: credentialless` where the browser has it (Chromium 96+, Firefox
 * 119+): cross-origin images, scripts and iframes without CORP headers still load, only without
 * cookies. Elsewhere (Safari) `require-corp`: each cross-origin resource must opt in (CORP or CORS).
 * @module
 */

export type EmbedderPolicy = 'credentialless' | 'require-corp';

/** The embedder policy a browser, known by its user agent string, supports best. */
export function embedderPolicyFor(userAgent: string): EmbedderPolicy {
  const chromium = /\b(?:Chrome|Chromium|CriOS|Edg)\/(\d+)/.exec(userAgent);
  if (chromium && !/\bCriOS\//.test(userAgent)) return Number(chromium[1]) >= 96 ? 'credentialless' : 'require-corp';
  const firefox = /\bFirefox\/(\d+)/.exec(userAgent);
  if (firefox) return Number(firefox[1]) >= 119 ? 'credentialless' : 'require-corp';
  // Safari, and every browser on iOS (WebKit underneath): no credentialless.
  return 'require-corp';
}

/** The headers that make a document (and the workers it starts) cross-origin isolated. */
export function isolationHeaders(userAgent: string): Readonly<Record<string, string>> {
  return { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': embedderPolicyFor(userAgent) };
}

/**
 * The response with the isolation headers added (an opaque or redirect response as it is: its
 * headers cannot be read or set, and it is never a same-origin page).
 */
export function withIsolationHeaders(response: Response, userAgent: string): Response {
  if (response.type === 'opaque' || response.type === 'opaqueredirect' || response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(isolationHeaders(userAgent))) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** How many threads a CPU engine may use here, and why that many. */
export interface CpuThreads {
  readonly threads: number;
  readonly reason: string;
}

/** At most this many: a decoder's matrix products gain little past four threads, and the page keeps a core. */
export const MAX_CPU_THREADS = 4;

/**
 * Threads for a CPU engine in a context with `isolated` (crossOriginIsolated) and `cores`
 * (navigator.hardwareConcurrency): one without isolation (no SharedArrayBuffer), else the cores,
 * at most MAX_CPU_THREADS, or `asked` where the app set a number.
 */
export function cpuThreads(isolated: boolean, cores: number | undefined, asked?: number): CpuThreads {
  if (!isolated) return { threads: 1, reason: 'one thread: the page is not cross-origin isolated (no COOP/COEP headers), so WebAssembly threads are unavailable; see crossOriginIsolation in startInference' };
  const available = Math.max(1, Math.floor(cores ?? 1));
  if (asked !== undefined) {
    const threads = Math.max(1, Math.min(Math.floor(asked), available));
    return { threads, reason: `${threads} thread${threads > 1 ? 's' : ''}: the app asked for ${asked}, of ${available} core${available > 1 ? 's' : ''}` };
  }
  const threads = Math.min(available, MAX_CPU_THREADS);
  return { threads, reason: threads === available ? `${threads} thread${threads > 1 ? 's' : ''}: every core (cross-origin isolated)` : `${threads} threads: ${available} cores, at most ${MAX_CPU_THREADS} (cross-origin isolated)` };
}
