import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAdmission } from './admission.ts';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('createAdmission', () => {
  it('admits up to the limit, then not until a place is given back', () => {
    const admission = createAdmission({ limit: 2, waitMs: 1000, maxWaiting: 4 });
    const first = admission.tryEnter()!;
    expect(admission.tryEnter()).toBeTypeOf('function');
    expect(admission.tryEnter()).toBeUndefined();
    first();
    first();
    expect(admission.inFlight).toBe(1);
    expect(admission.tryEnter()).toBeTypeOf('function');
  });

  it('admits a waiting request, first come first served, when a place is given back within the wait', async () => {
    const admission = createAdmission({ limit: 1, waitMs: 1000, maxWaiting: 4 });
    const running = admission.tryEnter()!;
    const a = admission.wait();
    const b = admission.wait();
    expect(admission.waiting).toBe(2);
    vi.advanceTimersByTime(500);
    running();
    const admitted = await a.admitted;
    expect(admitted).toBeTypeOf('function');
    expect(admission.inFlight).toBe(1);
    expect(admission.waiting).toBe(1);
    // b's wait ran out before a gave its place back.
    vi.advanceTimersByTime(500);
    expect(await b.admitted).toBeUndefined();
    expect(admission.waiting).toBe(0);
  });

  it('refuses at once when the wait list is full, and a cancelled wait takes no place', async () => {
    const admission = createAdmission({ limit: 1, waitMs: 1000, maxWaiting: 1 });
    const running = admission.tryEnter()!;
    const waiting = admission.wait();
    expect(await admission.wait().admitted).toBeUndefined();
    waiting.cancel();
    expect(await waiting.admitted).toBeUndefined();
    expect(admission.waiting).toBe(0);
    running();
    expect(admission.inFlight).toBe(0);
  });

  it('refuses everyone waiting when told to (the server is closing)', async () => {
    const admission = createAdmission({ limit: 1, waitMs: 60_000, maxWaiting: 8 });
    admission.tryEnter();
    const tickets = [admission.wait(), admission.wait()];
    admission.refuseWaiting();
    expect(await Promise.all(tickets.map((t) => t.admitted))).toEqual([undefined, undefined]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('wants a whole limit of at least 1', () => {
    expect(() => createAdmission({ limit: 0, waitMs: 1, maxWaiting: 1 })).toThrow(/at least 1/);
  });
});
