/**
 * Where the API lives when the app names no base URL: the path the OpenAI SDK's `baseURL` ends
 * in (the Anthropic SDK adds `/v1` itself). Decided here once for the gateway, the service worker,
 * the page client, msw's handlers and the Node server.
 * @module
 */
export const DEFAULT_BASE_URL = '/v1';
