import { describe, expect, it } from 'vitest';
import { discardInstance, instanceLoader, onInstance, onInstanceSync } from './xgrammar-instances.ts';
import type { XGrammar } from './xgrammar.ts';

const fake = (n: number) => ({ n }) as unknown as XGrammar;

describe('instanceLoader', () => {
  it('keeps one instance until it is discarded, then makes the next', async () => {
    const made: number[] = [];
    const load = instanceLoader(async (n) => {
      made.push(n);
      return fake(n);
    });
    const first = await load();
    expect(await load()).toBe(first);
    discardInstance(first);
    const second = await load();
    expect(second).not.toBe(first);
    expect(await load()).toBe(second);
    expect(made).toEqual([0, 1]);
  });

  it('makes one instance for loads that come together, and tries again after a failed creation', async () => {
    let calls = 0;
    const load = instanceLoader(async (n) => {
      calls++;
      if (n === 0) throw new Error('no wasm');
      return fake(n);
    });
    await expect(Promise.all([load(), load()])).rejects.toThrow('no wasm');
    expect(calls).toBe(1);
    expect(await load()).toEqual({ n: 1 });
  });

  it('gives back an instance it cannot replace rather than trying forever', async () => {
    const only = fake(0);
    const load = instanceLoader(async () => only);
    discardInstance(await load());
    expect(await load()).toBe(only);
  });
});

describe('onInstance', () => {
  it('discards the instance when the work fails, and only then', async () => {
    let n = 0;
    const load = instanceLoader(async () => fake(n++));
    const instance = await load();
    expect(await onInstance(instance, async () => 'fine')).toBe('fine');
    expect(onInstanceSync(instance, () => true)).toBe(true);
    expect(await load()).toBe(instance);
    await expect(onInstance(instance, async () => Promise.reject(new Error('memory access out of bounds')))).rejects.toThrow('memory access out of bounds');
    expect(await load()).not.toBe(instance);
    const next = await load();
    expect(() =>
      onInstanceSync(next, () => {
        throw new Error('Aborted()');
      }),
    ).toThrow('Aborted()');
    expect(await load()).not.toBe(next);
  });
});
