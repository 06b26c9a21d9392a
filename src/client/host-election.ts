/**
 * Which tab of the origin hosts the engine worker, as a state machine: exactly one tab holds the
 * host lock (Web Locks) and hosts; every other tab that runs `startInference` waits in line for
 * it and hosts when the holder goes (it closed, crashed, or stopped). Pure: the lock manager and
 * what hosting does are injected, so the transitions are tested in Node (host-election.test.ts).
 *
 *   idle ──start──▶ trying ──lockGranted──▶ hosting ──stopAsked──▶ stopped
 *                     │                       ▲  ↺ workerEnded (replace the worker)
 *                  lockBusy                   │  ↺ pageHidden (tell the service worker)
 *                     ▼                       │
 *                  waiting ───lockGranted─────┘
 *
 * `stopAsked` from any state but `stopped` ends in `stopped`, which is final: a place in line is
 * given up, and a lock granted after the stop (its request was already answered) is given back at
 * once, without hosting. Events that do not apply to a state change nothing.
 * @module
 */

export type ElectionState = 'idle' | 'trying' | 'waiting' | 'hosting' | 'stopped';

/** What reason a replaced worker's calls are cut with, and why it ended where it ended on its own. */
export interface WorkerEnd<Exit> {
  readonly reason: string;
  /** Absent for a restart on request. */
  readonly exit?: Exit;
}

export type ElectionEvent<Exit = unknown> =
  /** `startInference` began the election. */
  | { readonly type: 'start' }
  /** The lock is this tab's (at once, or after waiting in line); `lockId` is Web Locks' id for this tab. */
  | { readonly type: 'lockGranted'; readonly lockId?: string }
  /** The first try found the lock held by another tab. */
  | { readonly type: 'lockBusy' }
  /** `stop()`: stop hosting, or give up the place in line. */
  | { readonly type: 'stopAsked' }
  /** The engine worker is to be replaced: `restartWorker()`, or it ended on its own (`exit`). */
  | ({ readonly type: 'workerEnded' } & WorkerEnd<Exit>)
  /** The page is going away (`pagehide`): the service worker should stop sending it requests. */
  | { readonly type: 'pageHidden' };

export type ElectionEffect<Exit = unknown> =
  /** Ask for the lock only if it is free (the answer is `lockGranted` or `lockBusy`). */
  | { readonly type: 'tryLock' }
  /** Wait in line for the lock (the answer, some day, is `lockGranted`). */
  | { readonly type: 'queue' }
  /** Leave the line. */
  | { readonly type: 'leaveQueue' }
  /** Start hosting: spawn the engine worker, offer it, preload. */
  | { readonly type: 'host'; readonly lockId?: string }
  /** Stop hosting: the worker ends, the service worker and this page's link are told. */
  | { readonly type: 'unhost' }
  /** Give the lock back (the next tab in line is granted it). */
  | { readonly type: 'release' }
  | ({ readonly type: 'replaceWorker' } & WorkerEnd<Exit>)
  /** Tell the service worker this host is leaving. */
  | { readonly type: 'announceLeaving' };

export interface Transition<Exit = unknown> {
  readonly state: ElectionState;
  readonly effects: readonly ElectionEffect<Exit>[];
}

/** The transition table: the state an event leads to, and what is to be done for it, in order. */
export function nextElectionState<Exit>(state: ElectionState, event: ElectionEvent<Exit>): Transition<Exit> {
  const to = (next: ElectionState, ...effects: ElectionEffect<Exit>[]): Transition<Exit> => ({ state: next, effects });
  const stay = to(state);
  switch (event.type) {
    case 'start':
      return state === 'idle' ? to('trying', { type: 'tryLock' }) : stay;
    case 'lockBusy':
      return state === 'trying' ? to('waiting', { type: 'queue' }) : stay;
    case 'lockGranted':
      if (state === 'trying' || state === 'waiting') return to('hosting', { type: 'host', ...(event.lockId !== undefined ? { lockId: event.lockId } : {}) });
      // Granted after a stop (its request was answered before the stop): nobody is to host with it.
      return state === 'stopped' ? to('stopped', { type: 'release' }) : stay;
    case 'stopAsked':
      if (state === 'hosting') return to('stopped', { type: 'unhost' }, { type: 'release' });
      if (state === 'waiting') return to('stopped', { type: 'leaveQueue' });
      // While trying, the try's answer comes anyway: a grant is then given back (above).
      return state === 'stopped' ? stay : to('stopped');
    case 'workerEnded':
      return state === 'hosting' ? to('hosting', { type: 'replaceWorker', reason: event.reason, ...(event.exit !== undefined ? { exit: event.exit } : {}) }) : stay;
    case 'pageHidden':
      return state === 'hosting' ? to('hosting', { type: 'announceLeaving' }) : stay;
  }
}

/** The part of Web Locks the election uses (`navigator.locks`). */
export interface HostLocks {
  request(name: string, options: { readonly ifAvailable?: boolean; readonly signal?: AbortSignal }, callback: (lock: object | null) => Promise<void> | void): Promise<unknown>;
  query(): Promise<{ readonly held?: readonly { readonly name?: string; readonly clientId?: string }[] }>;
}

/** What hosting does, run by the election's effects. */
export interface HostingEffects<Exit> {
  /** Spawn the engine worker and offer it; `lockId` is this tab's id in Web Locks, which other tabs watch. */
  host(lockId: string | undefined): void;
  unhost(): void;
  replaceWorker(end: WorkerEnd<Exit>): void;
  announceLeaving(): void;
}

export interface HostElection<Exit> {
  readonly state: ElectionState;
  /** Starts the election; resolves once this tab hosts (its worker offered) or waits in line. */
  start(): Promise<'hosting' | 'waiting' | 'stopped'>;
  /** Sends an event (`stopAsked`, `workerEnded`, `pageHidden`); lock events come from the lock manager. */
  send(event: ElectionEvent<Exit>): void;
}

export interface HostElectionOptions<Exit> {
  readonly locks: HostLocks;
  /** The lock's name: one host per origin holds it. */
  readonly lockName: string;
  readonly effects: HostingEffects<Exit>;
  /** Called after each transition (for tests and logs). */
  readonly onTransition?: (from: ElectionState, event: ElectionEvent<Exit>, to: ElectionState) => void;
}

export function createHostElection<Exit>(options: HostElectionOptions<Exit>): HostElection<Exit> {
  const { locks, lockName, effects } = options;
  let state: ElectionState = 'idle';
  /** Settles the held lock's callback, which gives the lock back. */
  let release: (() => void) | undefined;
  let queue: AbortController | undefined;
  let settled: ((outcome: 'hosting' | 'waiting' | 'stopped') => void) | undefined;
  const started = new Promise<'hosting' | 'waiting' | 'stopped'>((resolve) => (settled = resolve));

  const send = (event: ElectionEvent<Exit>) => {
    const from = state;
    const { state: next, effects: todo } = nextElectionState(state, event);
    state = next;
    options.onTransition?.(from, event, next);
    for (const effect of todo) run(effect);
    if (next === 'hosting' || next === 'waiting' || next === 'stopped') settled?.(next);
  };

  /** The lock is held until the callback's promise settles: `release` settles it. */
  const holding = (): Promise<void> =>
    new Promise<void>((resolve) => {
      release = resolve;
      // Web Locks names this tab with an id of its own; other tabs watch the holder by it.
      void locks.query().then(
        ({ held = [] }) => send({ type: 'lockGranted', lockId: held.find((lock) => lock.name === lockName)?.clientId }),
        () => send({ type: 'lockGranted' }),
      );
    });

  function run(effect: ElectionEffect<Exit>): void {
    switch (effect.type) {
      case 'tryLock':
        void locks.request(lockName, { ifAvailable: true }, (lock) => (lock ? holding() : send({ type: 'lockBusy' })));
        return;
      case 'queue':
        queue = new AbortController();
        // A request left with `leaveQueue` rejects with the signal's reason: nothing to report.
        void locks.request(lockName, { signal: queue.signal }, holding).catch(() => {});
        return;
      case 'leaveQueue':
        queue?.abort();
        return;
      case 'host':
        return effects.host(effect.lockId);
      case 'unhost':
        return effects.unhost();
      case 'release':
        release?.();
        release = undefined;
        return;
      case 'replaceWorker':
        return effects.replaceWorker(effect);
      case 'announceLeaving':
        return effects.announceLeaving();
    }
  }

  return {
    get state() {
      return state;
    },
    start() {
      send({ type: 'start' });
      return started;
    },
    send,
  };
}

/**
 * Whether the tab with this Web Locks id still holds the host lock (otherwise it is gone, or no
 * longer hosts). `unknown` (a host that did not say its id): any holder will do.
 */
export async function holdsHostLock(locks: Pick<HostLocks, 'query'>, lockName: string, lockId: string): Promise<boolean> {
  const { held = [] } = await locks.query();
  return held.some((lock) => lock.name === lockName && (lockId === UNKNOWN_HOST_LOCK || lock.clientId === undefined || lock.clientId === lockId));
}

/** The lock id of a host that did not say it (a host of an older version). */
export const UNKNOWN_HOST_LOCK = 'unknown';
