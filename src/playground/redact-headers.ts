/**
 * Request headers as the inspector shows them: credentials redacted the way the API's own errors
 * do (`authorization: Bearer sk-***abcd`), so a key never appears on screen, in a screenshot or
 * in a snippet copied from it.
 * @module
 */
import { redactKey } from '../gateway/auth.ts';

/** Headers that carry a key or a token, by name. */
const CREDENTIAL = /^(?:proxy-)?authorization$|^(?:x-)?api-key$|(?:^|-)(?:token|secret)$/i;

export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, CREDENTIAL.test(name) ? redactCredential(value) : value]));
}

/** `Bearer <key>` keeps its scheme; anything else is a bare key. */
function redactCredential(value: string): string {
  const scheme = /^(\S+)\s+(.+)$/.exec(value.trim());
  return scheme ? `${scheme[1]} ${redactKey(scheme[2]!.trim())}` : redactKey(value.trim());
}
