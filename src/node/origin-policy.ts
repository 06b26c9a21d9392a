/**
 * Which web pages may call the Node server from a browser (CORS). Without an API key the server
 * answers whoever reaches it, so by default only pages on this machine may: any other site a user
 * visits could otherwise drive the local model. Why, and what Ollama does: docs/decisions/node-server.md.
 * @module
 */

export interface OriginPolicy {
  /** True when every origin is allowed (`access-control-allow-origin: *`). */
  readonly any: boolean;
  /** Whether a page of `origin` (an `Origin` header's value) may call the server. */
  allows(origin: string): boolean;
}

/**
 * `extra`: origins allowed besides the loopback ones (`https://app.example`, `null` for sandboxed
 * and `file:` pages), or `*` among them for any. Throws on an entry that is not an origin.
 */
export function createOriginPolicy(extra: readonly string[] = []): OriginPolicy {
  if (extra.includes('*')) return { any: true, allows: () => true };
  const listed = new Set(extra.map(parseOrigin));
  return { any: false, allows: (origin) => listed.has(origin.toLowerCase()) || isLoopbackOrigin(origin) };
}

/** `http(s)://` on localhost (or a name under it), 127.0.0.0/8 or [::1], any port. */
export function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An Origin header is exactly scheme://host[:port]; anything more is not one a browser sends.
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase()) return false;
  return isLoopbackHostname(url.hostname);
}

/** A hostname as URL gives it (IPv6 in brackets), lower case. */
export function isLoopbackHostname(hostname: string): boolean {
  // The URL parser has already turned 127.1 and 0x7f.0.0.1 into dotted decimal.
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function parseOrigin(entry: string): string {
  if (entry === 'null') return entry;
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  // A trailing slash is forgiven (pasted from the address bar); a path is not: it would never match.
  const bare = url && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  if (!url || !bare || url.origin === 'null') {
    throw new Error(`'${entry}' is not an origin: give scheme://host[:port], such as https://app.example or http://192.168.1.5:3000, or * for any.`);
  }
  return url.origin;
}
