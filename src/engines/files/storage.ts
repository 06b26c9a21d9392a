/**
 * Room in the browser's storage for a model's files. A download that cannot fit is refused before
 * it starts, with how much is needed and how much is free, rather than failing halfway (private
 * windows give an origin a small quota); a quota error met anyway is reported the same way. Where
 * there is no `navigator.storage` (Node) nothing is checked.
 * @module
 */
import { GatewayError } from '../../core/errors.ts';

interface StorageLike {
  estimate(): Promise<{ usage?: number; quota?: number }>;
}

const storageOf = (): StorageLike | undefined => (globalThis.navigator as { storage?: StorageLike } | undefined)?.storage;

/** Bytes this origin may still store, or undefined where the browser does not say. */
export async function freeBytes(storage: StorageLike | undefined = storageOf()): Promise<number | undefined> {
  if (!storage?.estimate) return undefined;
  try {
    const { usage = 0, quota } = await storage.estimate();
    return quota === undefined ? undefined : Math.max(0, quota - usage);
  } catch {
    return undefined;
  }
}

/** Throws `insufficient_storage` when `bytes` more would not fit. `what` names the download. */
export async function checkRoom(bytes: number, what: string, storage?: StorageLike): Promise<void> {
  if (!(bytes > 0)) return;
  const free = await freeBytes(storage ?? storageOf());
  if (free !== undefined && bytes > free) throw insufficientStorage(what, bytes, free);
}

export function insufficientStorage(what: string, needed: number | undefined, free: number | undefined): GatewayError {
  const need = needed === undefined ? 'more room' : formatBytes(needed);
  const have = free === undefined ? '' : `, and ${formatBytes(free)} is free`;
  return new GatewayError(
    'insufficient_storage',
    `Not enough browser storage to download ${what}: it needs ${need}${have}. Free some space (delete other models, or this site's data), or use a normal window rather than a private one; nothing partial was kept.`,
  );
}

/**
 * A write that the browser refused for want of quota. Browsers may report more room than they
 * grant (Chromium tells pages a fixed quota above their usage), so this can happen after a check.
 */
export function quotaExceeded(what: string, url: string, bytes: number | undefined): GatewayError {
  const size = bytes === undefined ? '' : ` (${formatBytes(bytes)})`;
  return new GatewayError(
    'insufficient_storage',
    `Not enough browser storage to download ${what}: storing ${url}${size} failed, the browser's storage quota is used up. Free some space (delete other models, or this site's data), or use a normal window rather than a private one; nothing partial was kept.`,
  );
}

/** A storage quota failure, however the engine or the browser wrapped it. */
export function isQuotaError(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as { name?: unknown }).name;
    const message = String((e as { message?: unknown }).message ?? e);
    if (name === 'QuotaExceededError' || /QuotaExceeded|quota (has been )?exceeded/i.test(message)) return true;
  }
  return false;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
