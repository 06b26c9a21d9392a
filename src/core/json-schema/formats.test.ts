/**
 * The format automata against ajv-formats' "full" formats: never accepting what ajv refuses, and
 * accepting the usual valid forms (the automata may be stricter, see formats.ts).
 */
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { CharAutomaton } from './char-automaton.ts';
import { FORMAT_NAMES, formatAutomaton } from './formats.ts';

type AjvFormat = RegExp | ((s: string) => boolean) | { validate: RegExp | ((s: string) => boolean) };

let fullFormats: Record<string, AjvFormat> | undefined;
try {
  fullFormats = (createRequire(import.meta.url)('ajv-formats/dist/formats.js') as { fullFormats: Record<string, AjvFormat> }).fullFormats;
} catch {
  fullFormats = undefined;
}

function ajvAccepts(name: string, text: string): boolean {
  let format = fullFormats![name]!;
  if (typeof format === 'object' && !(format instanceof RegExp)) format = format.validate;
  return format instanceof RegExp ? format.test(text) : format(text);
}

function matches(automaton: CharAutomaton, text: string): boolean {
  let state = automaton.start;
  for (const ch of text) if ((state = automaton.next(state, ch.codePointAt(0)!)) === -1) return false;
  return automaton.accepts(state);
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
const hex = fc.constantFrom(...'0123456789abcdefABCDEF');
const hexes = (min: number, max: number) => fc.array(hex, { minLength: min, maxLength: max }).map((a) => a.join(''));

/** Near-valid and valid samples per format: the automaton must never accept one ajv refuses. */
const samples: Record<string, fc.Arbitrary<string>> = {
  date: fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
  time: fc
    .tuple(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }), fc.constantFrom('', '.5', '.123'), fc.constantFrom('Z', 'z', '', '+00:00', '-00:00', '+05:30', '-23:59', '+24:00', '+05', '+0530', '+01:60'))
    .map(([h, m, s, f, z]) => `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${f}${z}`),
  ipv4: fc.array(fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('01', '00', '')), { minLength: 3, maxLength: 5 }).map((a) => a.join('.')),
  ipv6: fc.oneof(
    fc.array(fc.oneof(hexes(0, 5), fc.constant('1.2.3.4')), { minLength: 1, maxLength: 9 }).map((a) => a.join(':')),
    fc.tuple(fc.array(hexes(1, 4), { maxLength: 7 }), fc.array(hexes(1, 4), { maxLength: 7 })).map(([a, b]) => `${a.join(':')}::${b.join(':')}`),
  ),
  uuid: fc.tuple(hexes(7, 9), hexes(4, 4), hexes(3, 4), hexes(4, 4), hexes(12, 13)).map((parts) => parts.join('-')),
  email: fc
    .tuple(
      fc.array(fc.constantFrom('a', 'B', '0', '.', '-', '+', '_', '!', ' ', 'é', "'"), { minLength: 0, maxLength: 5 }),
      fc.array(fc.array(fc.constantFrom('a', 'Z', '0', '-', '_', 'é'), { minLength: 0, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
    )
    .map(([local, labels]) => `${local.join('')}@${labels.map((l) => l.join('')).join('.')}`),
  hostname: fc.oneof(
    fc.array(fc.constantFrom('a', 'Z', '0', '.', '-', '_'), { minLength: 0, maxLength: 12 }).map((a) => a.join('')),
    fc.tuple(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 6 })).map(([len, n]) => Array.from({ length: n }, () => 'a'.repeat(len)).join('.')),
  ),
  duration: fc
    .tuple(fc.constantFrom('P', 'p', ''), fc.array(fc.constantFrom('1Y', '2M', '3D', 'T', '4H', '5M', '6S', '7W', '8', '.5S', 'Y'), { maxLength: 5 }))
    .map(([p, parts]) => p + parts.join('')),
  uri: fc.array(fc.constantFrom('http', 'a', ':', '/', '//', '?', '#', '%2F', '%', '[', ']', '::1', 'v1.x', '@', 'Z', '9', ' ', '"', '.', '-', '~', '!'), { minLength: 1, maxLength: 10 }).map((a) => a.join('')),
};
samples['date-time'] = fc.tuple(samples.date!, fc.constantFrom('T', 't', ' ', 'X'), samples.time!).map(([d, t, h]) => d + t + h);
samples['uri-reference'] = samples.uri!;

const valid: Record<string, string[]> = {
  date: ['2024-02-29', '2000-02-29', '1999-12-31', '0000-02-29', '2023-04-30'],
  time: ['00:00:00Z', '23:59:59.999+05:30', '12:34:56z', '23:59:60Z', '23:59:60.5-00:00'],
  'date-time': ['2024-02-29T12:00:00Z', '1970-01-01t00:00:00.1+01:00'],
  ipv4: ['0.0.0.0', '255.255.255.255', '192.168.1.10'],
  ipv6: ['::', '::1', '2001:db8::8a2e:370:7334', 'fe80::1:2:3:4', '1:2:3:4:5:6:7:8', '::ffff:192.168.0.1', 'ABCD:EF01:2345:6789:ABCD:EF01:2345:6789'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000', 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE'],
  email: ['a@b.c', 'john.doe+tag@example.co.uk', "o'brien@x-y.org"],
  hostname: ['localhost', 'example.com', 'example.com.', 'a-b.c0', `${'a'.repeat(63)}.com`],
  duration: ['P1Y', 'P1Y2M3DT4H5M6S', 'PT1S', 'P2W', 'P1D', 'PT0M'],
  uri: ['http://example.com', 'https://u:p@host:8080/a/b?q=1#frag', 'urn:isbn:0451450523', 'mailto:a@b.c', 'http://[::1]:80/', 'file:///etc/hosts', 'a:/b'],
  'uri-reference': ['', '/a/b', 'a/b?c', '#frag', '//host/x', '../x', 'http://example.com'],
};

const invalid: Record<string, string[]> = {
  date: ['2023-02-29', '1900-02-29', '2024-13-01', '2024-04-31', '2024-1-01', '2024-01-00'],
  time: ['24:00:00Z', '12:60:00Z', '12:00:00', '12:00:60Z', '12:00:00+24:00'],
  'date-time': ['2024-02-30T12:00:00Z', '2024-02-29 12:00:00', '2024-02-29T12:00:00'],
  ipv4: ['256.0.0.1', '01.2.3.4', '1.2.3', '1.2.3.4.5'],
  ipv6: [':::', '1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '12345::'],
  uuid: ['123e4567e89b12d3a456426614174000', 'urn:uuid:123e4567-e89b-12d3-a456-426614174000'],
  email: ['a@b', '@b.c', 'a..b@c.d', 'a@-b.c'],
  hostname: ['-a.com', 'a-.com', `${'a'.repeat(64)}.com`, 'a..b', '', `${'a.'.repeat(127)}a`],
  duration: ['P', 'PT', 'P1W2D', 'P1H', '1Y'],
  uri: ['', '/relative', 'no-scheme', 'http://exa mple.com', 'a:'],
  'uri-reference': ['a b', '%zz', 'http://[::g]/'],
};

describe('formatAutomaton', () => {
  it('knows the listed formats and nothing else', () => {
    for (const name of FORMAT_NAMES) expect(formatAutomaton(name), name).toBeDefined();
    expect(formatAutomaton('no-such-format')).toBeUndefined();
    expect(formatAutomaton('constructor')).toBeUndefined();
  });

  it('accepts the usual valid forms and refuses the invalid ones', () => {
    for (const name of FORMAT_NAMES) {
      const automaton = formatAutomaton(name)!;
      for (const text of valid[name] ?? []) expect(matches(automaton, text), `${name}: ${JSON.stringify(text)}`).toBe(true);
      for (const text of invalid[name] ?? []) expect(matches(automaton, text), `${name}: ${JSON.stringify(text)}`).toBe(false);
    }
  });

  it('caps a hostname at 253 characters without a dead end', () => {
    const automaton = formatAutomaton('hostname')!;
    const longest = Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.').slice(0, 253);
    expect(matches(automaton, longest)).toBe(true);
    let state = automaton.start;
    for (const ch of longest.slice(0, 252)) state = automaton.next(state, ch.codePointAt(0)!);
    expect(automaton.canFinish(state, 1, 1)).toBe(true);
    expect(automaton.canFinish(state, 2, Infinity)).toBe(false);
    // A trailing dot still fits in the last place; after it, or after the last letter, nothing does.
    const dotted = automaton.next(state, '.'.codePointAt(0)!);
    expect(automaton.accepts(dotted)).toBe(true);
    state = automaton.next(state, 'a'.codePointAt(0)!);
    expect(automaton.accepts(state)).toBe(true);
    for (const ch of 'a.-') {
      expect(automaton.next(state, ch.codePointAt(0)!)).toBe(-1);
      expect(automaton.next(dotted, ch.codePointAt(0)!)).toBe(-1);
    }
  });

  describe.skipIf(!fullFormats)('against ajv-formats (full)', () => {
    it('never accepts what ajv refuses, and agrees on the valid samples', () => {
      const counts: Record<string, { accepted: number; ajv: number; total: number }> = {};
      for (const name of FORMAT_NAMES) {
        const automaton = formatAutomaton(name)!;
        for (const text of valid[name] ?? []) expect(ajvAccepts(name, text), `ajv ${name}: ${JSON.stringify(text)}`).toBe(true);
        for (const text of invalid[name] ?? []) if (matches(automaton, text)) expect(ajvAccepts(name, text), `${name}: ${JSON.stringify(text)}`).toBe(true);
        const count = (counts[name] = { accepted: 0, ajv: 0, total: 0 });
        for (const text of fc.sample(samples[name]!, { numRuns: 4000, seed: 7 })) {
          const ours = matches(automaton, text);
          const theirs = ajvAccepts(name, text);
          count.total++;
          if (ours) count.accepted++;
          if (theirs) count.ajv++;
          if (ours) expect(theirs, `${name}: ${JSON.stringify(text)} accepted here, refused by ajv`).toBe(true);
        }
      }
      console.log('format samples (accepted here / by ajv / total):', Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, `${v.accepted}/${v.ajv}/${v.total}`])));
    });

    it('agrees with ajv on every day of years that test the leap rule', () => {
      const automaton = formatAutomaton('date')!;
      for (const year of [0, 1, 4, 96, 100, 200, 400, 1600, 1900, 2000, 2023, 2024, 2100, 2400, 9996, 9999]) {
        for (let month = 0; month <= 13; month++) {
          for (let day = 0; day <= 32; day++) {
            const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
            expect(matches(automaton, text), text).toBe(ajvAccepts('date', text));
          }
        }
      }
    });

    it('agrees with ajv exactly on date, ipv4, ipv6, email, duration and uuid (no prefix)', () => {
      for (const name of ['date', 'ipv4', 'email', 'ipv6', 'duration']) {
        const automaton = formatAutomaton(name)!;
        for (const text of fc.sample(samples[name]!, { numRuns: 4000, seed: 11 })) {
          expect(matches(automaton, text), `${name}: ${JSON.stringify(text)}`).toBe(ajvAccepts(name, text));
        }
      }
      const uuid = formatAutomaton('uuid')!;
      for (const text of fc.sample(samples.uuid!, { numRuns: 2000, seed: 3 })) expect(matches(uuid, text), text).toBe(ajvAccepts('uuid', text));
    });
  });
});
