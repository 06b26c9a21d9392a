import { describe, expect, it } from 'vitest';
import { checkRoom, formatBytes, freeBytes, isQuotaError } from './storage.ts';

const estimate = (usage: number, quota: number) => ({ estimate: async () => ({ usage, quota }) });

describe('storage room', () => {
  it('refuses a download larger than what is free, saying how much is needed and free', async () => {
    const error = await checkRoom(5 * 1024 ** 2, 'the model "m"', estimate(9 * 1024 ** 2, 10 * 1024 ** 2)).then(
      () => undefined,
      (e: unknown) => e as { code: string; status: number; message: string },
    );
    expect(error?.code).toBe('insufficient_storage');
    expect(error?.status).toBe(507);
    expect(error?.message).toMatch(/download the model "m": it needs 5\.0 MiB, and 1\.0 MiB is free/);
  });

  it('lets a download that fits through, and checks nothing where the browser does not say', async () => {
    await expect(checkRoom(1024, 'x', estimate(0, 4096))).resolves.toBeUndefined();
    expect(await freeBytes({ estimate: async () => ({}) })).toBeUndefined();
    expect(await freeBytes({ estimate: async () => Promise.reject(new Error('no')) })).toBeUndefined();
    await expect(checkRoom(1e12, 'x', { estimate: async () => ({ usage: 0 }) })).resolves.toBeUndefined();
  });

  it('tells a quota failure however it is wrapped', () => {
    const quota = Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' });
    expect(isQuotaError(quota)).toBe(true);
    expect(isQuotaError(new Error('load failed', { cause: quota }))).toBe(true);
    expect(isQuotaError(new Error("Failed to execute 'put' on 'Cache': QuotaExceededError"))).toBe(true);
    expect(isQuotaError(new Error('network error'))).toBe(false);
    expect(isQuotaError(undefined)).toBe(false);
  });

  it('formats sizes in binary units', () => {
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.00 GiB');
  });
});
