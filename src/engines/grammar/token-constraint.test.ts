// The UTF-8 gate over xgrammar: tokens are allowed only where their bytes continue the output as
// valid UTF-8 without control characters, stop tokens only between characters, and special
// tokens never as text. Most tests drive the gate alone; the last ones go through xgrammar.
import { describe, expect, it } from 'vitest';
import { loadXGrammar } from './load-xgrammar.node.ts';
import { createConstraintCompiler, utf8Gate } from './token-constraint.ts';
import { tokenBytes, type Vocabulary } from './vocabulary.ts';
import type { GrammarSpec } from './ebnf.ts';
import { writeToolCall } from '../../core/tool-syntax.ts';

/** GPT-2's byte-level spelling of each byte (printable bytes as themselves, the rest from U+0100). */
const BYTE_CHARS: string[] = [];
{
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    BYTE_CHARS.push(String.fromCharCode(printable ? b : 256 + extra++));
  }
}
const spell = (...bytes: number[]) => bytes.map((b) => BYTE_CHARS[b]!).join('');

/** Ids 0–255: one token per byte; then the tokens below. */
const EXTRA = {
  imStart: '<|im_start|>',
  imEnd: '<|im_end|>',
  eAcute: spell(0xc3, 0xa9), // é whole
  euroTail: spell(0x82, 0xac), // the last two bytes of € (E2 82 AC)
  tailThenA: spell(0xa9) + 'a', // a continuation byte, then a new character
  spaceWord: spell(0x20) + 'hi', // Ġhi
  plainNewlines: '\n\n', // an added token stored as plain text: not a byte-level spelling
  empty: '',
  toolCall: '<tool_call>', // an added token the tokenizer does not mark special
} as const;
type Extra = keyof typeof EXTRA;
const TOKENS = [...BYTE_CHARS, ...Object.values(EXTRA)];
const id = (name: Extra) => 256 + Object.keys(EXTRA).indexOf(name);

const VOCABULARY: Vocabulary = {
  tokens: TOKENS,
  type: 'byte_level',
  prependSpace: false,
  size: TOKENS.length + 7, // padded logits
  stopTokenIds: [id('imEnd')],
  specialTokenIds: [id('imStart'), id('imEnd')],
};

/** The state after feeding `tokens` from the start, or -1 where one is refused. */
function run(gate: ReturnType<typeof utf8Gate>, tokens: readonly number[]): number {
  let state = gate.start;
  for (const token of tokens) {
    state = gate.next(state, token);
    if (state < 0) return -1;
  }
  return state;
}
const allowed = (mask: Int32Array, token: number) => ((mask[token >> 5]! >>> (token & 31)) & 1) === 1;

describe('the UTF-8 gate', () => {
  const gate = utf8Gate(VOCABULARY, false);

  it('takes whole characters, one byte per token or several', () => {
    expect(run(gate, [0x61, 0xc3, 0xa9])).toBe(0); // a é
    expect(run(gate, [id('eAcute')])).toBe(0);
    expect(run(gate, [0xe2, id('euroTail')])).toBe(0); // €
    expect(run(gate, [0xf0, 0x9f, 0x98, 0x80])).toBe(0); // 😀
    expect(run(gate, [id('spaceWord')])).toBe(0);
  });

  it('holds a character split across tokens open until it is finished', () => {
    const open = run(gate, [0xc3]);
    expect(open).toBeGreaterThan(0);
    expect(gate.next(open, 0x61)).toBe(-1); // a new character before the continuation
    expect(gate.next(open, id('eAcute'))).toBe(-1);
    expect(gate.next(open, id('tailThenA'))).toBe(0); // the continuation and a new character in one token
    expect(gate.next(run(gate, [0xe2]), 0xac)).toBeGreaterThan(0); // one of two continuations
    expect(run(gate, [0xe2, 0x82, 0xac, 0x82])).toBe(-1); // a continuation after the character ended
  });

  it('refuses overlong forms', () => {
    for (const lead of [0xc0, 0xc1]) expect(gate.next(0, lead)).toBe(-1);
    expect(run(gate, [0xe0, 0x9f])).toBe(-1); // E0 80..9F: a 3-byte form of a 2-byte character
    expect(run(gate, [0xe0, 0xa0, 0x80])).toBe(0);
    expect(run(gate, [0xf0, 0x8f])).toBe(-1); // F0 80..8F: a 4-byte form of a 3-byte character
    expect(run(gate, [0xf0, 0x90, 0x80, 0x80])).toBe(0);
  });

  it('refuses surrogates and code points past U+10FFFF', () => {
    expect(run(gate, [0xed, 0xa0])).toBe(-1); // ED A0..BF: U+D800..DFFF
    expect(run(gate, [0xed, 0xbf])).toBe(-1);
    expect(run(gate, [0xed, 0x9f, 0xbf])).toBe(0); // U+D7FF
    expect(run(gate, [0xf4, 0x90])).toBe(-1); // past U+10FFFF
    expect(run(gate, [0xf4, 0x8f, 0xbf, 0xbf])).toBe(0); // U+10FFFF
    for (const lead of [0xf5, 0xf8, 0xff]) expect(gate.next(0, lead)).toBe(-1);
    expect(gate.next(0, 0x80)).toBe(-1); // a continuation byte with no lead
  });

  it('refuses control characters, and a newline unless the grammar writes newlines', () => {
    expect(gate.next(0, 0x0c)).toBe(-1);
    expect(gate.next(0, 0x00)).toBe(-1);
    expect(gate.next(0, 0x0a)).toBe(-1);
    expect(utf8Gate(VOCABULARY, true).next(0, 0x0a)).toBe(0);
    expect(utf8Gate(VOCABULARY, true).next(0, 0x0c)).toBe(-1);
  });

  it('allows a stop token only between characters', () => {
    expect(gate.next(0, id('imEnd'))).toBe(0);
    expect(gate.next(run(gate, [0xc3]), id('imEnd'))).toBe(-1);
    expect(gate.next(run(gate, [0xf0, 0x9f, 0x98]), id('imEnd'))).toBe(-1);
    expect(allowed(gate.mask(0), id('imEnd'))).toBe(true);
    expect(allowed(gate.mask(run(gate, [0xc3])), id('imEnd'))).toBe(false);
  });

  it('never takes a special token as text, though its spelling is a byte-level one', () => {
    // Every character of <|im_start|> is printable ASCII, which the byte map keeps as itself.
    expect(tokenBytes(EXTRA.imStart, 'byte_level')).toEqual([...new TextEncoder().encode(EXTRA.imStart)]);
    expect(gate.next(0, id('imStart'))).toBe(-1);
    expect(allowed(gate.mask(0), id('imStart'))).toBe(false);
    // Not listed as special, the same token would be text: the ids decide, not the spelling.
    expect(utf8Gate({ ...VOCABULARY, specialTokenIds: [] }, false).next(0, id('imStart'))).toBe(0);
    // An added token the tokenizer does not mark special stays text (Qwen's <tool_call>).
    expect(gate.next(0, id('toolCall'))).toBe(0);
  });

  it('never takes a token that spells nothing', () => {
    expect(gate.next(0, id('empty'))).toBe(-1);
    expect(allowed(gate.mask(0), id('empty'))).toBe(false);
  });

  it('leaves ids past the vocabulary to the grammar', () => {
    for (let state = 0; state < 8; state++) expect(allowed(gate.mask(state), TOKENS.length + 3)).toBe(true);
  });

  it('agrees with its masks', () => {
    for (const state of [0, run(gate, [0xc3]), run(gate, [0xe0]), run(gate, [0xed]), run(gate, [0xf4])]) {
      const mask = gate.mask(state);
      for (let token = 0; token < TOKENS.length; token++) expect(allowed(mask, token)).toBe(gate.next(state, token) >= 0);
    }
  });
});

describe('token spellings', () => {
  it('reads byte_level tokens through the byte map', () => {
    expect(tokenBytes(spell(0x20), 'byte_level')).toEqual([0x20]); // Ġ
    expect(tokenBytes(spell(0x0a), 'byte_level')).toEqual([0x0a]); // Ċ
    expect(tokenBytes(spell(0xc3, 0xa9), 'byte_level')).toEqual([0xc3, 0xa9]); // Ã© is é
    expect(tokenBytes('hello', 'byte_level')).toEqual([...new TextEncoder().encode('hello')]);
  });

  it('reads a byte_level token outside the byte map as plain text (an added token)', () => {
    expect(tokenBytes('\n\n', 'byte_level')).toEqual([0x0a, 0x0a]);
    expect(tokenBytes('→', 'byte_level')).toEqual([0xe2, 0x86, 0x92]);
  });

  it('reads byte_fallback byte tokens as their byte, and other tokens as UTF-8 with ▁ as the space it stands for', () => {
    expect(tokenBytes('<0xC3>', 'byte_fallback')).toEqual([0xc3]);
    expect(tokenBytes('<0x0a>', 'byte_fallback')).toEqual([0x0a]);
    expect(tokenBytes('▁é', 'byte_fallback')).toEqual([0x20, 0xc3, 0xa9]);
    // Only byte_fallback vocabularies spell bytes this way.
    expect(tokenBytes('<0xC3>', 'raw')).toEqual([...new TextEncoder().encode('<0xC3>')]);
  });

  it('joins byte_fallback bytes split across tokens into a character, and refuses a broken one', () => {
    const tokens = ['<0xC3>', '<0xA9>', '<0x22>', 'a', '</s>'];
    const gate = utf8Gate({ tokens, type: 'byte_fallback', size: tokens.length, stopTokenIds: [4], specialTokenIds: [4] }, false);
    expect(run(gate, [0, 1])).toBe(0);
    expect(run(gate, [0, 2])).toBe(-1);
    expect(run(gate, [0, 4])).toBe(-1);
    expect(run(gate, [0, 1, 4])).toBe(0);
  });
});

describe('through xgrammar', () => {
  const STRING: GrammarSpec = {
    kind: 'json',
    output: { kind: 'json_schema', schema: { type: 'object', properties: { s: { type: 'string' } }, required: ['s'], additionalProperties: false }, strict: true },
  };
  const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

  it('lets no special token into a JSON string, which xgrammar alone would', async () => {
    const xgrammar = await loadXGrammar();
    // xgrammar 0.1.27 reads <|im_start|> as the text it is spelt with: inside a string it allows it.
    const info = await xgrammar.TokenizerInfo.createTokenizerInfo(TOKENS, 'byte_level', false, VOCABULARY.size, [...VOCABULARY.stopTokenIds]);
    const bare = await xgrammar.GrammarMatcher.createGrammarMatcher(await (await xgrammar.GrammarCompiler.createGrammarCompiler(info)).compileJSONSchema(JSON.stringify((STRING.output as { schema: object }).schema), false, -1, [',', ':'], true));
    for (const token of ascii('{"s":"')) expect(bare.acceptToken(token)).toBe(true);
    expect(allowed(await bare.getNextTokenBitmask(), id('imStart'))).toBe(true);
    bare.dispose();

    const constraint = await (await createConstraintCompiler(xgrammar, VOCABULARY)).start(STRING);
    for (const token of ascii('{"s":"')) expect(constraint.accept(token)).toBe(true);
    await constraint.ready();
    const mask = constraint.mask()!;
    expect(allowed(mask, id('imStart'))).toBe(false);
    expect(allowed(mask, id('imEnd'))).toBe(false);
    expect(allowed(mask, 0x61)).toBe(true);
    expect(constraint.accept(id('imStart'))).toBe(false);
    constraint.dispose();
  });

  it('finishes a split character before the string may close, and stops only at the end', async () => {
    const constraint = await (await createConstraintCompiler(await loadXGrammar(), VOCABULARY)).start(STRING);
    for (const token of [...ascii('{"s":"'), 0xc3]) expect(constraint.accept(token)).toBe(true);
    await constraint.ready();
    expect(allowed(constraint.mask()!, 0x22)).toBe(false); // the closing quote, mid-character
    expect(allowed(constraint.mask()!, 0xa9)).toBe(true);
    for (const token of [0xa9, ...ascii('"}')]) expect(constraint.accept(token)).toBe(true);
    await constraint.ready();
    expect(allowed(constraint.mask()!, id('imEnd'))).toBe(true);
    expect(constraint.accept(id('imEnd'))).toBe(true);
    expect(constraint.terminated).toBe(true);
    constraint.dispose();
  });
});

describe('tool calls by the schema matcher, in the language of the grammar they replace', () => {
  const WEATHER = { type: 'object', properties: { city: { type: 'string', maxLength: 8 }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'], additionalProperties: false };
  const FLAG = { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'], additionalProperties: false };
  const tools = [
    { name: 'get_weather', parameters: WEATHER },
    { name: 'set_flag', parameters: FLAG },
  ];
  const bytes = (text: string) => [...new TextEncoder().encode(text)];
  /** Whether a constraint takes the text a byte a token, then its stop token. */
  const takes = async (spec: GrammarSpec, text: string, schemaMatcher: boolean) => {
    const constraint = await (await createConstraintCompiler(await loadXGrammar(), VOCABULARY, { schemaMatcher })).start(spec);
    try {
      for (const byte of bytes(text)) {
        await constraint.ready();
        if (!constraint.accept(byte)) return false;
      }
      await constraint.ready();
      return constraint.accept(id('imEnd'));
    } finally {
      constraint.dispose();
    }
  };

  it('go to the schema matcher (whose constraints tell forced tokens), after a thinking block too', async () => {
    const compiler = await createConstraintCompiler(await loadXGrammar(), VOCABULARY);
    const calls: GrammarSpec = { kind: 'tools', tools, mode: 'calls', parallel: true };
    expect(typeof (await compiler.start(calls)).forced).toBe('function');
    expect(typeof (await compiler.start({ ...calls, thinking: { open: '<think>', close: '</think>' } })).forced).toBe('function');
    expect((await (await createConstraintCompiler(await loadXGrammar(), VOCABULARY, { schemaMatcher: false })).start(calls)).forced).toBeUndefined();
  });

  it.each(['calls', 'either'] as const)('take and refuse what xgrammar takes and refuses (%s)', async (mode) => {
    const spec: GrammarSpec = { kind: 'tools', tools, mode, parallel: true };
    const texts = [
      writeToolCall('get_weather', { city: 'Paris', days: 3 }),
      writeToolCall('set_flag', { on: false }),
      `${writeToolCall('set_flag', { on: true })}\n${writeToolCall('get_weather', { city: 'Oslo' })}`,
      writeToolCall('get_weather', { city: 'Amsterdam!' }),
      writeToolCall('get_weather', { days: 2 }),
      writeToolCall('set_flag', { on: 1 }),
      '<tool_call>\n{"name": "set_flag", "arguments": {"on":true}}\n</tool_call>',
      `${writeToolCall('set_flag', { on: true })}\n`,
      'Sure, here it is.',
      '',
      '<tool_',
      '<tool_call>\nhello',
    ];
    for (const text of texts) expect(await takes(spec, text, true), text).toBe(await takes(spec, text, false));
    expect(await takes(spec, texts[0]!, true)).toBe(true);
  });
});
