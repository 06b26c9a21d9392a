/**
 * The floor rows of the latency section, by name: the main page names its paths with them and the
 * report (bench/driver/report) finds them by the same names. Plain constants, no DOM: both the
 * page and the Node driver import this.
 * @module
 */

/** CPU the engine-like floor worker spends per answer (about tiny-chat's 1-token request on WASM). */
export const BUSY_MS = 2;

export const FLOOR_ROWS = {
  inpage: 'floor: async call in the page',
  worker: 'floor: page ⇄ bare worker (MessagePort)',
  shape: 'floor: in-page Request + Response (the fetch shape alone)',
  swConst: 'floor: bare SW, constant JSON',
  relay: 'floor: bare SW relaying to a bare worker',
  workerBusy: `floor: page ⇄ bare worker busy ${BUSY_MS} ms`,
  relayBusy: `floor: bare SW relaying to a bare worker busy ${BUSY_MS} ms`,
} as const;
