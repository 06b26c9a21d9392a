import { describe, expect, it } from 'vitest';
import type { ModelInfo, ModelLocalState } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { toAnthropicModel, toAnthropicModelPage } from './models.ts';

const model = (id: string, extra: Partial<ModelInfo> = {}): ModelInfo => ({ id, kind: 'chat', engine: 'test', contextWindow: 1000, created: 1_763_000_000, ...extra });
const MODELS = ['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => model(id));

const page = (query: string, models: readonly ModelInfo[] = MODELS) => toAnthropicModelPage(models, new URLSearchParams(query));
const ids = (p: ReturnType<typeof page>) => p.data.map((m) => m.id);

function paramOf(query: string): string | undefined {
  try {
    page(query);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    return (error as GatewayError).param;
  }
  throw new Error(`expected ${query} to be rejected`);
}

describe('toAnthropicModel', () => {
  it('has the ModelInfo fields the SDK reads', () => {
    expect(toAnthropicModel(model('m', { displayName: 'My Model', maxOutputTokens: 256 }))).toEqual({
      type: 'model',
      id: 'm',
      display_name: 'My Model',
      created_at: '2025-11-13T02:13:20Z',
      max_input_tokens: 1000,
      max_tokens: 256,
    });
  });

  it('falls back to the id as display name, the epoch as creation time and null max_tokens', () => {
    const shaped = toAnthropicModel(model('plain', { created: undefined }));
    expect(shaped.display_name).toBe('plain');
    expect(shaped.created_at).toBe('1970-01-01T00:00:00Z');
    expect(Number.isFinite(Date.parse(shaped.created_at!))).toBe(true);
    expect(shaped.max_tokens).toBeNull();
  });

  it('writes RFC 3339 timestamps without milliseconds', () => {
    expect(toAnthropicModel(model('m', { created: 1_700_000_000 })).created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('toAnthropicModelPage', () => {
  it('returns everything on one page by default (limit 20)', () => {
    expect(page('')).toEqual({ data: MODELS.map((m) => toAnthropicModel(m)), has_more: false, first_id: 'm1', last_id: 'm5' });
  });

  it('limits the page and says there is more', () => {
    const first = page('limit=2');
    expect(ids(first)).toEqual(['m1', 'm2']);
    expect(first).toMatchObject({ has_more: true, first_id: 'm1', last_id: 'm2' });
  });

  it('continues after after_id', () => {
    expect(page('limit=2&after_id=m2')).toMatchObject({ has_more: true, first_id: 'm3', last_id: 'm4' });
    expect(page('limit=2&after_id=m4')).toMatchObject({ has_more: false, first_id: 'm5', last_id: 'm5' });
  });

  it('ends with has_more false and an empty page after the last id', () => {
    expect(page('after_id=m5')).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it('walks every model exactly once by following last_id, then stops', () => {
    for (const limit of [1, 2, 3, 5, 7]) {
      const seen: string[] = [];
      let query = `limit=${limit}`;
      for (let guard = 0; guard < 20; guard++) {
        const p = page(query);
        seen.push(...ids(p));
        if (!p.has_more) break;
        query = `limit=${limit}&after_id=${p.last_id}`;
      }
      expect(seen).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    }
  });

  it('pages backwards before before_id', () => {
    expect(page('limit=2&before_id=m5')).toMatchObject({ has_more: true, first_id: 'm3', last_id: 'm4' });
    expect(page('limit=2&before_id=m3')).toMatchObject({ has_more: false, first_id: 'm1', last_id: 'm2' });
    expect(page('limit=10&before_id=m3')).toMatchObject({ has_more: false, first_id: 'm1', last_id: 'm2' });
    expect(page('before_id=m1')).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it('walks every model exactly once backwards by following first_id', () => {
    const seen: string[] = [];
    let query = 'limit=2&before_id=m5';
    seen.unshift('m5');
    for (let guard = 0; guard < 20; guard++) {
      const p = page(query);
      seen.unshift(...ids(p));
      if (!p.has_more) break;
      query = `limit=2&before_id=${p.first_id}`;
    }
    expect(seen).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
  });

  it('accepts the limit bounds 1 and 1000', () => {
    expect(ids(page('limit=1'))).toEqual(['m1']);
    expect(ids(page('limit=1000'))).toHaveLength(5);
  });

  it('returns an empty last page for no models', () => {
    expect(page('', [])).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['limit=-1', 'limit'],
    ['after_id=nope', 'after_id'],
    ['after_id=', 'after_id'],
    ['before_id=nope', 'before_id'],
  ])('rejects %s', (query, param) => {
    expect(paramOf(query)).toBe(param);
  });
});

describe('local state', () => {
  const state = (id: string): ModelLocalState => ({ id, state: 'available', downloaded: false, bytesOnDisk: 0, runnable: false, reason: 'No WebGPU.', requires: ['webgpu'] });

  it('adds the state on this device as one nested local object beside the Anthropic fields', () => {
    expect(toAnthropicModel(model('m'), state('m'))).toEqual({
      ...toAnthropicModel(model('m')),
      local: { state: 'available', downloaded: false, size_bytes: 0, runnable: false, reason: 'No WebGPU.', requires: ['webgpu'] },
    });
  });

  it('gives the models of a page their own states, paging exactly as without them', () => {
    const states = new Map(MODELS.map((m) => [m.id, state(m.id)]));
    const withStates = toAnthropicModelPage(MODELS, new URLSearchParams('limit=2&after_id=m2'), states);
    expect(withStates.data.map((m) => m.local?.state)).toEqual(['available', 'available']);
    const { data, ...cursor } = withStates;
    const { data: plain, ...plainCursor } = page('limit=2&after_id=m2');
    expect(cursor).toEqual(plainCursor);
    expect(data.map(({ local: _, ...rest }) => rest)).toEqual(plain);
  });
});
