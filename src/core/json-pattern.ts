/**
 * A string schema's `pattern` as the grammar may use it. xgrammar matches a pattern against the
 * raw characters between the quotes, so a pattern that allows `"`, `\` or a control character
 * (`.`, `[^a]`, `\s`, `[ -~]`) lets output through that is not JSON (`{"s":"a"b"}`). Each such part
 * is narrowed to the characters that need no escape: the output then matches a subset of the
 * pattern, so it still matches the schema. What cannot be narrowed (a quote or backslash the
 * pattern requires, `\S` inside a class) is refused, and so is what xgrammar 0.1.27 cannot compile
 * and aborts on (lookaround, backreferences, `\p{...}`, word boundaries): refused here, it is a 400
 * that says why, not an abort inside the compiler.
 * @module
 */

/** Characters a JSON string cannot hold raw, as a class body. */
const UNSAFE = String.raw`"\\\u0000-\u001f`;
const isUnsafe = (code: number) => code < 0x20 || code === 0x22 || code === 0x5c;

/** Outside a class: each shorthand as a class of the safe characters it matches. */
const SHORTHANDS: Record<string, string> = {
  s: ' ',
  S: `[^ ${UNSAFE}]`,
  D: `[^0-9${UNSAFE}]`,
  W: `[^A-Za-z0-9_${UNSAFE}]`,
};

/** Escapes xgrammar cannot compile (it aborts), with why they are refused; `\1`..`\9` count as `\k`. */
const UNSUPPORTED_ESCAPES: Record<string, string> = {
  k: 'backreferences cannot be enforced while decoding',
  p: 'Unicode property classes (\\p{...}) cannot be enforced while decoding',
  P: 'Unicode property classes (\\P{...}) cannot be enforced while decoding',
  b: 'word boundaries (\\b) cannot be enforced while decoding',
  B: 'word boundaries (\\B) cannot be enforced while decoding',
};

export function safePattern(pattern: string): { pattern: string } | { refused: string } {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      i++;
      if (next === '"' || next === '\\') return { refused: 'it requires a quote or backslash, which a JSON string holds only escaped' };
      const unsupported = UNSUPPORTED_ESCAPES[next] ?? (/[1-9]/.test(next) ? UNSUPPORTED_ESCAPES.k : undefined);
      if (unsupported) return { refused: unsupported };
      out += SHORTHANDS[next] ?? `\\${next}`;
    } else if (char === '.') {
      out += `[^${UNSAFE}]`;
    } else if (char === '"') {
      return { refused: 'it requires a quote, which a JSON string holds only escaped' };
    } else if (char === '(' && /^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) {
      return { refused: 'lookahead and lookbehind cannot be enforced while decoding' };
    } else if (char === '[') {
      const end = classEnd(pattern, i);
      if (end < 0) return { refused: 'a character class is not closed' };
      const narrowed = narrowClass(pattern.slice(i + 1, end));
      if ('refused' in narrowed) return narrowed;
      out += narrowed.class;
      i = end;
    } else {
      out += char;
    }
  }
  return { pattern: out };
}

/** The index of the `]` closing the class opened at `start`. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return -1;
}

/** A class body (between the brackets) with the unsafe characters taken out. */
function narrowClass(body: string): { class: string } | { refused: string } {
  const negated = body.startsWith('^');
  const items = negated ? body.slice(1) : body;
  // A negated class excludes them by adding them.
  if (negated && /\\[pP]/.test(items)) return { refused: UNSUPPORTED_ESCAPES.p! };
  if (negated) return /\\[SWD]/.test(items) ? { refused: '\\S, \\W and \\D inside a class cannot be narrowed' } : { class: `[^${items.replace(/\\s/g, ' ')}${UNSAFE}]` };
  const ranges: [number, number][] = [];
  const parts: string[] = [];
  let i = 0;
  const unit = (): number | string => {
    const char = items[i++]!;
    if (char !== '\\') return char.codePointAt(0)!;
    const next = items[i++] ?? '';
    if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(items.slice(i, i + 4))) return parseInt(items.slice(i, (i += 4)), 16);
    if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(items.slice(i, i + 2))) return parseInt(items.slice(i, (i += 2)), 16);
    const escapes: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11 };
    if (next in escapes) return escapes[next]!;
    if (next === 'd' || next === 'w') return `\\${next}`;
    if (next === 's') return ' '.codePointAt(0)!;
    if (next === 'S' || next === 'W' || next === 'D') return `refuse`;
    // Taken as the letters it is spelled with, it would let other characters through.
    if (next === 'p' || next === 'P') return 'property';
    return next.codePointAt(0)!;
  };
  while (i < items.length) {
    const from = unit();
    if (from === 'refuse') return { refused: '\\S, \\W and \\D inside a class cannot be narrowed' };
    if (from === 'property') return { refused: UNSUPPORTED_ESCAPES.p! };
    if (typeof from === 'string') {
      parts.push(from);
      continue;
    }
    if (items[i] === '-' && i + 1 < items.length) {
      i++;
      const to = unit();
      if (typeof to !== 'number') return { refused: 'a class range must run between two characters' };
      ranges.push([from, to]);
    } else {
      ranges.push([from, from]);
    }
  }
  for (const [from, to] of ranges) {
    let start = from;
    for (let code = from; code <= to + 1; code++) {
      if (code <= to && !isUnsafe(code)) continue;
      if (code > start) parts.push(code - 1 === start ? escapeUnit(start) : `${escapeUnit(start)}-${escapeUnit(code - 1)}`);
      start = code + 1;
    }
  }
  if (parts.length === 0) return { refused: 'its class holds no character a JSON string holds unescaped' };
  return { class: `[${parts.join('')}]` };
}

function escapeUnit(code: number): string {
  const char = String.fromCodePoint(code);
  return /[\]\\^\-[]/.test(char) ? `\\${char}` : code > 0x7e ? `\\u${code.toString(16).padStart(4, '0')}` : char;
}
