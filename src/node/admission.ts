/**
 * How many model requests the Node server holds at once. A request past the limit waits, its body
 * unread, for up to a second for one to finish, and is then admitted or refused (a 429). Its body
 * is never read or parsed while it waits, and a client that ignores `retry-after` gets at most one
 * answer a second: a flood of such clients costs the server next to nothing, and the streams it
 * admitted keep their pace. Refusing at once was measured too and was not enough (see
 * docs/decisions/node-server.md and bench/server/flood.ts).
 * @module
 */

/** Gives the request's place back; call it once the response is over (more calls do nothing). */
export type Release = () => void;

export interface AdmissionOptions {
  /** Requests held at once. */
  readonly limit: number;
  /** How long a request past the limit waits for a place before it is refused. */
  readonly waitMs: number;
  /** Requests allowed to wait at once; past that, refused at once (each holds a connection). */
  readonly maxWaiting: number;
}

export interface Ticket {
  /** A release function once the request is admitted; undefined when it is refused. */
  readonly admitted: Promise<Release | undefined>;
  /** The client went away: gives up the wait (does nothing once admitted). */
  cancel(): void;
}

export interface Admission {
  /** A place for a request now, or undefined when the server is full (then `wait`). */
  tryEnter(): Release | undefined;
  wait(): Ticket;
  /** Refuses every request still waiting, at once (the server is closing). */
  refuseWaiting(): void;
  readonly inFlight: number;
  readonly waiting: number;
}

interface Waiter {
  readonly settle: (release: Release | undefined) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

export function createAdmission({ limit, waitMs, maxWaiting }: AdmissionOptions): Admission {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`maxRequests must be a whole number of at least 1, not ${limit}.`);
  let inFlight = 0;
  const queue: Waiter[] = [];

  const place = (): Release => {
    inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight--;
      // First come, first admitted.
      const next = queue.shift();
      if (next) {
        clearTimeout(next.timer);
        next.settle(place());
      }
    };
  };
  const remove = (waiter: Waiter): boolean => {
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    return index >= 0;
  };

  return {
    tryEnter: () => (inFlight < limit ? place() : undefined),
    wait() {
      if (inFlight < limit) return { admitted: Promise.resolve(place()), cancel() {} };
      if (queue.length >= maxWaiting) return { admitted: Promise.resolve(undefined), cancel() {} };
      let waiter!: Waiter;
      const admitted = new Promise<Release | undefined>((resolve) => {
        waiter = { settle: resolve, timer: setTimeout(() => remove(waiter) && resolve(undefined), waitMs) };
      });
      queue.push(waiter);
      return {
        admitted,
        cancel() {
          if (!remove(waiter)) return;
          clearTimeout(waiter.timer);
          waiter.settle(undefined);
        },
      };
    },
    refuseWaiting() {
      for (const waiter of queue.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.settle(undefined);
      }
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return queue.length;
    },
  };
}
