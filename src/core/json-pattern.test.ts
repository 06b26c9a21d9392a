import { describe, expect, it } from 'vitest';
import { safePattern } from './json-pattern.ts';

const UNSAFE = String.raw`"\\\u0000-\u001f`;

describe('safePattern', () => {
  it.each([
    ['^a.*b$', `^a[^${UNSAFE}]*b$`],
    ['^[^a]+$', `^[^a${UNSAFE}]+$`],
    [String.raw`^\s\S\D\W\d\w$`, `^ [^ ${UNSAFE}][^0-9${UNSAFE}][^A-Za-z0-9_${UNSAFE}]\\d\\w$`],
    ['^[ -~]{1,5}$', '^[ -!#-\\[\\]-~]{1,5}$'],
    [String.raw`^[a-z\s]+$`, '^[a-z ]+$'],
    ['^[A-Z]{3}-[0-9]{4}$', '^[A-Z]{3}-[0-9]{4}$'],
    [String.raw`^\d+\.\d+$`, String.raw`^\d+\.\d+$`],
  ])('narrows %s to %s, a subset with no character JSON must escape', (pattern, narrowed) => {
    expect(safePattern(pattern)).toEqual({ pattern: narrowed });
  });

  it.each(['^a"b$', String.raw`^a\\b$`, String.raw`^a\"$`, String.raw`^[\S]$`, '^["]$', '^[a-'])('refuses %s', (pattern) => {
    expect(safePattern(pattern)).toHaveProperty('refused');
  });

  it.each([
    ['^(?=a)b$', 'lookahead and lookbehind'],
    ['^(?!a)b$', 'lookahead and lookbehind'],
    ['^(?<=a)b$', 'lookahead and lookbehind'],
    ['^(?<!a)b$', 'lookahead and lookbehind'],
    [String.raw`^(a)\1$`, 'backreferences'],
    [String.raw`^(?<n>a)\k<n>$`, 'backreferences'],
    [String.raw`^\p{L}+$`, 'Unicode property classes'],
    [String.raw`^[\P{L}0-9]+$`, 'Unicode property classes'],
    [String.raw`^[^\p{L}]+$`, 'Unicode property classes'],
    [String.raw`^\bword$`, 'word boundaries'],
    [String.raw`^a\Bb$`, 'word boundaries'],
  ])('refuses %s, which xgrammar aborts on, saying why', (pattern, why) => {
    expect((safePattern(pattern) as { refused: string }).refused).toContain(why);
  });

  it.each(['^(?:ab)+$', '^(?<n>a)$', String.raw`^\u0041\x41$`])('keeps %s, which xgrammar compiles', (pattern) => {
    expect(safePattern(pattern)).toHaveProperty('pattern');
  });

  it('keeps what the narrowed pattern matches within the original, on samples', () => {
    const samples = ['ab', 'a"b', 'a\\b', 'a\tb', 'a b', 'axyzb', 'é', '~', '"'];
    for (const pattern of ['^a.*b$', '^[^a]+$', '^[ -~]+$', String.raw`^\S+$`]) {
      const narrowed = (safePattern(pattern) as { pattern: string }).pattern;
      for (const sample of samples) {
        if (new RegExp(narrowed, 'u').test(sample)) {
          expect(new RegExp(pattern, 'u').test(sample), `${pattern} ${sample}`).toBe(true);
          expect(/["\\\u0000-\u001f]/.test(sample), `${narrowed} lets ${JSON.stringify(sample)} through`).toBe(false);
        }
      }
    }
  });
});
