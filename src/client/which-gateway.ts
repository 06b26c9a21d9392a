/**
 * Which gateway answers a fetch, decided here once. The rule:
 *
 * - A URL outside the base URL is not the API: no gateway answers it (the browser fetches it, or
 *   the app's own service-worker listeners).
 * - A fetch made through a page's `fetch` once its fetch shim is installed is answered in that page,
 *   by the shim's gateway. `startInference` installs it by default (`inPage`, default true) as soon
 *   as the service worker controls the page, before the election, so before `startInference`
 *   resolves; `installFetchShim` installs it where there is no service worker.
 * - Every other fetch under the base URL is answered by the service worker's gateway, once a worker
 *   controls the context it comes from: a page started with `inPage: false`, a `fetch` function
 *   taken before the shim was installed (a client built with it keeps it), frames, workers, pages
 *   that do not call `startInference`. Before any worker controls it (a first visit, before
 *   `startInference` resolves), nothing of the app answers: the request goes to the network.
 *
 * Both gateways answer the same base URL: `startInference` registers the service worker with it.
 * What each then waits for is drawn in docs/guides/architecture.md (who answers what).
 * @module
 */

/** Who answers one fetch: the page's gateway, the service worker's, or neither. */
export type AnsweringGateway = 'page' | 'service-worker' | 'none';

export interface FetchRouting {
  /** Whether the URL is under the base URL (the gateway's `handles`). */
  handles(url: string): boolean;
  /** Whether the fetch goes through this page's fetch shim (a fetch function taken earlier does not). */
  readonly throughShim: boolean;
}

export function answeringGateway(url: string, routing: FetchRouting): AnsweringGateway {
  if (!routing.handles(url)) return 'none';
  return routing.throughShim ? 'page' : 'service-worker';
}

/** Whether `startInference` installs the fetch shim, so this page answers its own fetches. */
export function answersInPage(options: { readonly inPage?: boolean }): boolean {
  return options.inPage ?? true;
}
