/** Random identifiers in the shapes the real APIs use (`req_…`, `chatcmpl-…`, `msg_…`). @module */

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `prefix` followed by `length` base62 characters from the platform's CSPRNG. */
export function randomId(prefix: string, length = 24): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = prefix;
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return out;
}
