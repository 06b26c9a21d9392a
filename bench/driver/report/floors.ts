/** The browser's own costs in this run, from the latency section's floor rows. @module */
import { FLOOR_ROWS } from '../../pages/lib/floor-rows.ts';
import type { MainResult } from '../results.ts';
import { exact } from './format.ts';

/** The SW route over the direct route (instant and engine-like workers), a constant SW answer, the fetch shape. */
export function floors(latency: NonNullable<MainResult['latency']>) {
  const get = (name: string) => {
    const row = exact(latency, name);
    if (!row) throw new Error(`bench: no '${name}' row in the latency results`);
    return row;
  };
  const diff = (a: string, b: string) => ({ median: get(a).median - get(b).median, p95: get(a).p95 - get(b).p95 });
  return {
    instant: diff(FLOOR_ROWS.relay, FLOOR_ROWS.worker),
    busy: diff(FLOOR_ROWS.relayBusy, FLOOR_ROWS.workerBusy),
    constant: get(FLOOR_ROWS.swConst).median - get(FLOOR_ROWS.worker).median,
    shape: get(FLOOR_ROWS.shape).median - get(FLOOR_ROWS.inpage).median,
  };
}
