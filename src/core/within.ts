/** A wait bounded in time, for the stream paths that must not wait on an engine for too long. @module */

/**
 * The result of `promise` if it settles within `ms`, else undefined. `promise` is left running;
 * a rejection after the timeout is marked handled here and reaches whoever awaits it next.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  promise.catch(() => {});
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
