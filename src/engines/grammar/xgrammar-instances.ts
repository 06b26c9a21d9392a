/**
 * One xgrammar instance at a time, replaced when anything inside it fails. xgrammar is C++ in
 * wasm without exceptions or stack checks: an error aborts the call, and an overrun of its 64 KiB
 * stack writes over its own memory, so after any failure the instance cannot be trusted (after one
 * overrun every later schema failed, and memory grew by hundreds of MB a request). So a failure
 * discards the instance, and the next load evaluates the module again: a fresh wasm instance.
 * Work already running on the old one (a matcher mid-request) finishes on it.
 * @module
 */
import type { LoadXGrammar, XGrammar } from './xgrammar.ts';

const discarded = new WeakSet<XGrammar>();

/** Marks `instance` as not to be used again: the next load makes a fresh one. */
export function discardInstance(instance: XGrammar): void {
  discarded.add(instance);
}

/** Runs `work` on `instance`; a failure discards the instance and is thrown on. */
export async function onInstance<T>(instance: XGrammar, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    discardInstance(instance);
    throw error;
  }
}

/** The synchronous form of `onInstance`. */
export function onInstanceSync<T>(instance: XGrammar, work: () => T): T {
  try {
    return work();
  } catch (error) {
    discardInstance(instance);
    throw error;
  }
}

/**
 * A loader that keeps the instance `create` made until it is discarded, then makes another.
 * `create(n)` makes the n-th instance (0 first). A failed creation is tried again at the next load;
 * an instance just made is used even if it was discarded before (a runtime that cannot make a
 * fresh one gives the old one back).
 */
export function instanceLoader(create: (n: number) => Promise<XGrammar>): LoadXGrammar {
  let current: Promise<XGrammar> | undefined;
  let made = 0;
  return async () => {
    for (;;) {
      const fresh = current === undefined;
      const loading = (current ??= create(made++));
      let instance: XGrammar;
      try {
        instance = await loading;
      } catch (error) {
        if (current === loading) current = undefined;
        throw error;
      }
      if (fresh || !discarded.has(instance)) return instance;
      if (current === loading) current = undefined;
    }
  };
}
