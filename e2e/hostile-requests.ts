/**
 * Requests no well-behaved client sends, aimed at the real endpoints of a runtime serving the tiny
 * models: deep nesting, huge valid bodies, number literals JSON forbids or reads oddly, empty and
 * over-long embedding inputs, invalid UTF-8 inside strings, huge headers, long and odd paths.
 * The browser fuzz mixes these into test/property/requests.ts's arbitrary requests.
 */
import fc from 'fast-check';
import type { BodySpec, RequestSpec } from '../test/property/requests.ts';
import type { BodyPart, FuzzCase } from './page-fetch.ts';

interface Route {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A small valid body for the route. */
  readonly body: Readonly<Record<string, unknown>>;
  /** Fields worth corrupting. */
  readonly fields: readonly string[];
}

const JSON_TYPE = { 'content-type': 'application/json' };
const ROUTES: readonly Route[] = [
  {
    path: '/v1/chat/completions',
    headers: JSON_TYPE,
    body: { model: 'tiny-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 },
    fields: ['model', 'messages', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n', 'seed', 'stop', 'stream', 'user', 'metadata'],
  },
  {
    path: '/v1/messages',
    headers: { ...JSON_TYPE, 'anthropic-version': '2023-06-01' },
    body: { model: 'tiny-chat', max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] },
    fields: ['model', 'messages', 'max_tokens', 'system', 'temperature', 'top_k', 'stop_sequences', 'stream', 'metadata'],
  },
  {
    path: '/v1/embeddings',
    headers: JSON_TYPE,
    body: { model: 'tiny-embed', input: 'hi' },
    fields: ['model', 'input', 'dimensions', 'encoding_format', 'user'],
  },
];

/** The route's body up to where `field`'s value goes: `{"model":"tiny-chat",…,"field":`. */
function headUpTo(route: Route, field: string): string {
  const rest = Object.fromEntries(Object.entries(route.body).filter(([k]) => k !== field));
  const json = JSON.stringify(rest);
  return `${json.slice(0, -1)}${Object.keys(rest).length ? ',' : ''}${JSON.stringify(field)}:`;
}

/** A case whose wire body is `head + parts + '}'`; the spec holds the body as checks should read it. */
function caseOf(origin: string, route: Route, field: string, parts: readonly BodyPart[], logical: unknown, extraHeaders: Record<string, string> = {}): FuzzCase {
  const spec: RequestSpec = {
    gateway: 'service-worker',
    method: 'POST',
    url: `${origin}${route.path}`,
    headers: { ...route.headers, ...extraHeaders },
    body: { kind: 'json', value: { ...route.body, [field]: logical } },
  };
  return { spec, wire: { parts: [headUpTo(route, field), ...parts, '}'] } };
}

const route = fc.constantFrom(...ROUTES);
const routeAndField = route.chain((r) => fc.tuple(fc.constant(r), fc.constantFrom(...r.fields)));

export function hostileRequests(origin: string): fc.Arbitrary<FuzzCase> {
  // Brackets or objects nested up to a million deep, balanced (valid JSON) or not.
  const deep = fc.tuple(routeAndField, fc.constantFrom(2_000, 100_000, 1_000_000), fc.constantFrom('array', 'object', 'unbalanced')).map(([[r, field], depth, shape]) => {
    const parts: BodyPart[] =
      shape === 'array'
        ? [{ repeat: '[', times: depth }, { repeat: ']', times: depth }]
        : shape === 'object'
          ? [{ repeat: '{"a":', times: depth }, '1', { repeat: '}', times: depth }]
          : [{ repeat: '[', times: depth }];
    return caseOf(origin, r, field, parts, `<${shape} nested ${depth} deep>`);
  });

  // Valid JSON of up to 12 MB (under the 16 MiB cap) in one string field, or thousands of messages.
  const huge = fc.oneof(
    fc.tuple(routeAndField, fc.constantFrom(100_000, 1_000_000, 12_000_000)).map(([[r, field], size]) => caseOf(origin, r, field, ['"', { repeat: 'x', times: size }, '"'], `<${size} x>`)),
    fc.tuple(fc.constantFrom(ROUTES[0]!, ROUTES[1]!), fc.constantFrom(1_000, 20_000)).map(([r, count]) =>
      caseOf(origin, r, 'messages', ['[', { repeat: '{"role":"user","content":"hi"},', times: count }, '{"role":"user","content":"hi"}]'], `<${count + 1} messages>`),
    ),
  );

  // Number literals: ones JSON forbids (NaN, Infinity, hex), ones it reads oddly (1e400 is Infinity, -0, 5.0 is 5), strings of numbers.
  const literal = fc.constantFrom(
    'NaN', 'Infinity', '-Infinity', '1e400', '-1e400', '-0', '0.0', '1e-400', '5.0', '5e0', '0x10', '"5"', '"NaN"', '"Infinity"', '05', '+5', '.5', '5.',
    '1E1', '9007199254740993', '1e21', '1e9', '2147483648', '1e308', '-1', '4.9e-324', 'true', 'null', '[]', '{}',
  );
  const numbers = fc.tuple(routeAndField, literal).map(([[r, field], text]) => {
    let logical: unknown = text;
    try {
      logical = JSON.parse(text);
    } catch {
      // Not JSON at all: the answer must be a 400 whatever the spec says.
    }
    return caseOf(origin, r, field, [text], logical);
  });

  // Embedding inputs: empty, empty strings, at and over the 2,048-input limit, 10,000 items, token ids.
  const inputs = fc
    .constantFrom<[string, () => unknown]>(
      ['[]', () => []],
      ['""', () => ''],
      ['[""]', () => ['']],
      ['["a",""]', () => ['a', '']],
      ['2,048 texts', () => Array.from({ length: 2048 }, (_, i) => `text ${i}`)],
      ['2,049 texts', () => Array.from({ length: 2049 }, () => 'a')],
      ['10,000 texts', () => Array.from({ length: 10_000 }, (_, i) => `text ${i}`)],
      ['10,000 empty strings', () => Array.from({ length: 10_000 }, () => '')],
      ['10,000 token ids', () => Array.from({ length: 10_000 }, (_, i) => i % 500)],
      ['[null]', () => [null]],
      ['[[1,2]]', () => [[1, 2]]],
      ['a 20,000-character text', () => 'word '.repeat(4_000)],
    )
    .chain(([, make]) => fc.tuple(fc.constant(make()), fc.constantFrom('float', 'base64')))
    .map(([input, encoding_format]): FuzzCase => ({
      spec: { gateway: 'service-worker', method: 'POST', url: `${origin}/v1/embeddings`, headers: JSON_TYPE, body: { kind: 'json', value: { model: 'tiny-embed', input, encoding_format } } },
    }));

  // Invalid UTF-8 inside a string value of an otherwise valid body.
  const badBytes = fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xfe, 0xfe, 0xff, 0xff], [0x80]);
  const invalidUtf8 = fc.tuple(route, badBytes).map(([r, bad]): FuzzCase => {
    const field = r.path === '/v1/embeddings' ? 'input' : 'system';
    const head = new TextEncoder().encode(`${headUpTo(r, field)}"ok `);
    const bytes = [...head, ...bad, ...new TextEncoder().encode(' ok"}')];
    const spec: RequestSpec = { gateway: 'service-worker', method: 'POST', url: `${origin}${r.path}`, headers: r.headers, body: { kind: 'bytes', bytes } };
    return { spec };
  });

  // Valid JSON that reads oddly: lone surrogates and NUL escapes, duplicate keys, a __proto__ key, a BOM.
  const oddJson = fc.tuple(
    route,
    fc.constantFrom<(r: Route) => [string, unknown]>(
      (r) => [`${headUpTo(r, 'user')}"\\ud800 \\udfff \\u0000"}`, { ...r.body, user: '\ud800 \udfff \u0000' }],
      (r) => [`{"model":"nope",${JSON.stringify(r.body).slice(1)}`, r.body],
      (r) => [`{"__proto__":{"model":"tiny-chat","admin":true},${JSON.stringify(r.body).slice(1)}`, r.body],
      (r) => [`\ufeff${JSON.stringify(r.body)}`, r.body],
      (r) => [`${JSON.stringify(r.body)} // comment`, r.body],
      (r) => [`${JSON.stringify(r.body).slice(0, -1)},}`, r.body],
    ),
  ).map(([r, make]): FuzzCase => {
    const [text, value] = make(r);
    return { spec: { gateway: 'service-worker', method: 'POST', url: `${origin}${r.path}`, headers: r.headers, body: { kind: 'json', value } }, wire: { parts: [text] } };
  });

  // Huge and many headers, and header values the API reads.
  const headers = fc.tuple(
    route,
    fc.constantFrom<Record<string, string>>(
      { 'x-big': 'a'.repeat(32_768) },
      Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`x-h${i}`, String(i)])),
      { 'anthropic-version': '2023-06-01'.repeat(800) },
      { authorization: `Bearer ${'k'.repeat(16_384)}` },
      { 'content-type': 'application/json; charset=utf-16' },
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-type': `application/json; ${'p=1; '.repeat(1_000)}` },
      { accept: 'text/event-stream', 'x-stainless-retry-count': '999999999999' },
    ),
  ).map(([r, extra]): FuzzCase => ({ spec: { gateway: 'service-worker', method: 'POST', url: `${origin}${r.path}`, headers: { ...r.headers, ...extra }, body: { kind: 'json', value: r.body } } }));

  // Long and odd paths and queries on the models route.
  const paths = fc
    .constantFrom(
      `/v1/models/${'a'.repeat(20_000)}`,
      '/v1/models/%00',
      `/v1/models/${encodeURIComponent('é🦊\u0000')}`,
      `/v1/models?${'limit=1&'.repeat(2_000)}`,
      '/v1/models;x',
      '/v1/models#fragment',
      '/v1/models/tiny-chat/',
      `/v1/${'models/'.repeat(500)}`,
      '/v1/models/..%2F..%2Fsw.js',
    )
    .chain((path) => fc.tuple(fc.constant(path), fc.constantFrom<Record<string, string>>({}, { 'anthropic-version': '2023-06-01' })))
    .map(([path, versionHeader]): FuzzCase => ({ spec: { gateway: 'service-worker', method: 'GET', url: `${origin}${path}`, headers: versionHeader, body: { kind: 'none' } as BodySpec } }));

  return fc.oneof(deep, huge, numbers, inputs, invalidUtf8, oddJson, headers, paths);
}
