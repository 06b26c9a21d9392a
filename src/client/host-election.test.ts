/**
 * The host election's transitions, in Node: the pure table, then the election driven by a fake
 * Web Locks (one lock manager shared by several tabs, each with its own client id) and recorded
 * effects, in the orders that matter.
 */
import { describe, expect, it } from 'vitest';
import { createHostElection, holdsHostLock, nextElectionState, type ElectionEvent, type ElectionState, type HostLocks } from './host-election.ts';

const LOCK = 'inpage-llm:engine-host';

/** Web Locks for one origin, as far as the election uses them: exclusive locks, granted in line. */
function fakeLockManager() {
  interface Request {
    readonly clientId: string;
    readonly callback: (lock: object | null) => Promise<void> | void;
    readonly signal?: AbortSignal;
    readonly settle: (value: unknown) => void;
    readonly fail: (error: unknown) => void;
  }
  const queue: Request[] = [];
  let holder: string | undefined;
  /** While set, `query()` waits for it: a grant then stays unseen by the election. */
  let gate: Promise<void> | undefined;
  const grantNext = () => {
    if (holder !== undefined) return;
    const next = queue.shift();
    if (!next) return;
    holder = next.clientId;
    void Promise.resolve(next.callback({ name: LOCK })).then((value) => {
      holder = undefined;
      next.settle(value);
      grantNext();
    });
  };
  const manager = {
    get holder() {
      return holder;
    },
    /** Holds every `query()` until the returned function is called. */
    holdQueries(): () => void {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return () => {
        gate = undefined;
        open();
      };
    },
    /** How many requests wait in line. */
    get waiting() {
      return queue.length;
    },
    /** The lock manager one tab sees. */
    forClient(clientId: string): HostLocks {
      return {
        request(_name, options, callback) {
          return new Promise((settle, fail) => {
            if (options.ifAvailable && (holder !== undefined || queue.length > 0)) return settle(Promise.resolve(callback(null)));
            const request: Request = { clientId, callback, signal: options.signal, settle, fail };
            // As Web Locks do: an abort takes a request out of the line, never a lock already held.
            options.signal?.addEventListener('abort', () => {
              const at = queue.indexOf(request);
              if (at < 0) return;
              queue.splice(at, 1);
              fail(new DOMException('The request was aborted.', 'AbortError'));
            });
            queue.push(request);
            grantNext();
          });
        },
        async query() {
          await gate;
          return { held: holder === undefined ? [] : [{ name: LOCK, clientId: holder }] };
        },
      };
    },
  };
  return manager;
}

/** A tab's election, with what its effects did. */
function tab(locks: HostLocks) {
  const did: string[] = [];
  const moves: string[] = [];
  const election = createHostElection<string>({
    locks,
    lockName: LOCK,
    effects: {
      host: (lockId) => void did.push(`host ${lockId}`),
      unhost: () => void did.push('unhost'),
      replaceWorker: ({ reason, exit }) => void did.push(`replace ${reason}${exit ? ` (${exit})` : ''}`),
      announceLeaving: () => void did.push('announce leaving'),
    },
    onTransition: (from, event, to) => void moves.push(`${from} -${event.type}-> ${to}`),
  });
  return { election, did, moves };
}

/** Lets the fake's promise chains run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('nextElectionState: the transition table', () => {
  const rows: [ElectionState, ElectionEvent<string>, ElectionState, string[]][] = [
    ['idle', { type: 'start' }, 'trying', ['tryLock']],
    ['trying', { type: 'lockGranted', lockId: 'lock-1' }, 'hosting', ['host']],
    ['trying', { type: 'lockBusy' }, 'waiting', ['queue']],
    ['trying', { type: 'stopAsked' }, 'stopped', []],
    ['waiting', { type: 'lockGranted' }, 'hosting', ['host']],
    ['waiting', { type: 'stopAsked' }, 'stopped', ['leaveQueue']],
    ['waiting', { type: 'workerEnded', reason: 'r' }, 'waiting', []],
    ['waiting', { type: 'pageHidden' }, 'waiting', []],
    ['hosting', { type: 'stopAsked' }, 'stopped', ['unhost', 'release']],
    ['hosting', { type: 'workerEnded', reason: 'r', exit: 'crashed' }, 'hosting', ['replaceWorker']],
    ['hosting', { type: 'pageHidden' }, 'hosting', ['announceLeaving']],
    ['hosting', { type: 'start' }, 'hosting', []],
    ['stopped', { type: 'lockGranted' }, 'stopped', ['release']],
    ['stopped', { type: 'lockBusy' }, 'stopped', []],
    ['stopped', { type: 'stopAsked' }, 'stopped', []],
    ['stopped', { type: 'start' }, 'stopped', []],
    ['stopped', { type: 'workerEnded', reason: 'r' }, 'stopped', []],
    ['idle', { type: 'stopAsked' }, 'stopped', []],
  ];
  it.each(rows)('%s, %j → %s', (state, event, next, effects) => {
    const transition = nextElectionState(state, event);
    expect(transition.state).toBe(next);
    expect(transition.effects.map((effect) => effect.type)).toEqual(effects);
  });

  it('hands the lock id to `host`, and the reason and exit to `replaceWorker`', () => {
    expect(nextElectionState('waiting', { type: 'lockGranted', lockId: 'lock-1' }).effects).toEqual([{ type: 'host', lockId: 'lock-1' }]);
    expect(nextElectionState('hosting', { type: 'workerEnded', reason: 'gone', exit: 'device_lost' }).effects).toEqual([{ type: 'replaceWorker', reason: 'gone', exit: 'device_lost' }]);
  });
});

describe('createHostElection, over a fake Web Locks', () => {
  it('hosts at once where the lock is free, with its Web Locks id, and resolves once hosting', async () => {
    const locks = fakeLockManager();
    const first = tab(locks.forClient('lock-a'));
    expect(await first.election.start()).toBe('hosting');
    expect(first.did).toEqual(['host lock-a']);
    expect(first.moves).toEqual(['idle -start-> trying', 'trying -lockGranted-> hosting']);
    expect(locks.holder).toBe('lock-a');
  });

  it('waits in line where another tab hosts, and takes over when that one stops', async () => {
    const locks = fakeLockManager();
    const first = tab(locks.forClient('lock-a'));
    const second = tab(locks.forClient('lock-b'));
    await first.election.start();
    expect(await second.election.start()).toBe('waiting');
    expect(second.did).toEqual([]);

    first.election.send({ type: 'stopAsked' });
    // Stopping hosting comes before giving the lock back.
    expect(first.did).toEqual(['host lock-a', 'unhost']);
    await settle();
    expect(second.election.state).toBe('hosting');
    expect(second.did).toEqual(['host lock-b']);
    expect(locks.holder).toBe('lock-b');
    expect(second.moves).toEqual(['idle -start-> trying', 'trying -lockBusy-> waiting', 'waiting -lockGranted-> hosting']);
  });

  it('stop while waiting: leaves the line, so the lock goes to the next tab and this one never hosts', async () => {
    const locks = fakeLockManager();
    const [first, second, third] = [tab(locks.forClient('lock-a')), tab(locks.forClient('lock-b')), tab(locks.forClient('lock-c'))];
    await first.election.start();
    await second.election.start();
    await third.election.start();
    expect(locks.waiting).toBe(2);

    second.election.send({ type: 'stopAsked' });
    expect(second.election.state).toBe('stopped');
    expect(locks.waiting).toBe(1);
    first.election.send({ type: 'stopAsked' });
    await settle();
    expect(locks.holder).toBe('lock-c');
    expect(third.did).toEqual(['host lock-c']);
    expect(second.did).toEqual([]);
  });

  it('lock granted after stop: given back at once, without hosting', async () => {
    const locks = fakeLockManager();
    const first = tab(locks.forClient('lock-a'));
    const second = tab(locks.forClient('lock-b'));
    await first.election.start();
    await second.election.start();
    // The lock comes free and is granted to the second tab; its stop lands before the grant is
    // seen (while its Web Locks id is looked up): the line was left too late.
    const seen = locks.holdQueries();
    first.election.send({ type: 'stopAsked' });
    await settle();
    expect(locks.holder).toBe('lock-b');
    expect(second.election.state).toBe('waiting');
    second.election.send({ type: 'stopAsked' });
    seen();
    await settle();
    expect(second.did).toEqual([]);
    expect(second.moves).toContain('stopped -lockGranted-> stopped');
    expect(locks.holder).toBeUndefined();
  });

  it('a stop while the first try is out: a grant that comes is given back', async () => {
    const locks = fakeLockManager();
    const only = tab(locks.forClient('lock-a'));
    const started = only.election.start();
    only.election.send({ type: 'stopAsked' });
    expect(await started).toBe('stopped');
    await settle();
    expect(only.did).toEqual([]);
    expect(locks.holder).toBeUndefined();
  });

  it('replacement while hosting replaces the worker and keeps the lock; not while waiting, nor after stop', async () => {
    const locks = fakeLockManager();
    const first = tab(locks.forClient('lock-a'));
    const second = tab(locks.forClient('lock-b'));
    await first.election.start();
    await second.election.start();

    first.election.send({ type: 'workerEnded', reason: 'The GPU device was lost.', exit: 'device_lost' });
    first.election.send({ type: 'workerEnded', reason: 'restarted' });
    expect(first.did).toEqual(['host lock-a', 'replace The GPU device was lost. (device_lost)', 'replace restarted']);
    expect(first.election.state).toBe('hosting');
    expect(locks.holder).toBe('lock-a');

    second.election.send({ type: 'workerEnded', reason: 'restarted' });
    expect(second.did).toEqual([]);
    first.election.send({ type: 'stopAsked' });
    first.election.send({ type: 'workerEnded', reason: 'late exit of the old worker' });
    expect(first.did.at(-1)).toBe('unhost');
  });

  it('page hidden: the host tells the service worker; a tab in line has nothing to tell', async () => {
    const locks = fakeLockManager();
    const first = tab(locks.forClient('lock-a'));
    const second = tab(locks.forClient('lock-b'));
    await first.election.start();
    await second.election.start();
    first.election.send({ type: 'pageHidden' });
    second.election.send({ type: 'pageHidden' });
    expect(first.did).toEqual(['host lock-a', 'announce leaving']);
    expect(second.did).toEqual([]);
  });

  it('holdsHostLock: the holder by its id; any holder for a host that did not say it', async () => {
    const locks = fakeLockManager();
    await tab(locks.forClient('lock-a')).election.start();
    const view = locks.forClient('lock-b');
    expect(await holdsHostLock(view, LOCK, 'lock-a')).toBe(true);
    expect(await holdsHostLock(view, LOCK, 'lock-b')).toBe(false);
    expect(await holdsHostLock(view, LOCK, 'unknown')).toBe(true);
  });
});
