/**
 * Which `Host` headers the Node server answers: the guard against DNS rebinding, where a site the
 * user visits points its own name at 127.0.0.1 and so becomes same-origin with this server, out of
 * CORS's reach. A rebound request still names the attacker's domain in `Host`, so only names known
 * to be this machine's are answered (as vite's dev server does). An IP address cannot be rebound
 * (no DNS is involved), so any address is accepted: a server on 0.0.0.0 is reached by its LAN one.
 * @module
 */
import { isIP } from 'node:net';
import { isLoopbackHostname } from './origin-policy.ts';

/**
 * `extra`: names answered besides IP addresses and localhost: `llm.lan` exactly, `.lan` for `lan`
 * and every name under it, `*` among them for any. `bound`: the `host` the server listens on, a name
 * answered too.
 */
export function createHostPolicy(extra: readonly string[] = [], bound?: string): (host: string | undefined) => boolean {
  if (extra.includes('*')) return () => true;
  const names = [...extra, ...(bound && isIP(bound) === 0 ? [bound] : [])].map((name) => name.toLowerCase().replace(/\.$/, ''));
  return (host) => {
    // Browsers always send Host; a request without it is no rebinding (the adapter refuses it anyway).
    if (host === undefined) return true;
    const hostname = hostnameOf(host);
    if (hostname === undefined) return false;
    if (isIP(hostname.replace(/^\[|\]$/g, '')) !== 0 || isLoopbackHostname(hostname)) return true;
    return names.some((name) => (name.startsWith('.') ? hostname === name.slice(1) || hostname.endsWith(name) : hostname === name));
  };
}

/** The name part of a Host header (`example.com:8080` → `example.com`, `[::1]:80` → `[::1]`), lower case; undefined if it is not one. */
function hostnameOf(host: string): string | undefined {
  // Anything beyond host[:port] (a path, credentials) is not a Host header.
  if (host === '' || /[/?#@\\\s]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}
