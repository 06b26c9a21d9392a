/** The per-request latency table: each path against its baseline, and the product's overhead above the floor. @module */
import { BUSY_MS, FLOOR_ROWS as FLOOR } from '../../pages/lib/floor-rows.ts';
import type { MainResult } from '../results.ts';
import { exact, f, find, ratio, type Row, signed, table } from './format.ts';
import { floors } from './floors.ts';
import { PAIRED, pairedLines } from './paired-overhead.ts';

export function latencyReport(latency: NonNullable<MainResult['latency']>, checks: MainResult['checks']): string[] {
  const median = (prefix: string) => find(latency, prefix)?.median;
  const p95 = (prefix: string) => find(latency, prefix)?.p95;
  const fl = floors(latency);
  const both = (path: string, base: string, floor: { median: number; p95: number } = { median: 0, p95: 0 }) => {
    const m = median(path)! - median(base)! - floor.median;
    const q = p95(path)! - p95(base)! - floor.p95;
    return `${signed(m)} (p95 ${signed(q)})`;
  };
  // What each row is compared with: [baseline row, overhead column].
  const compare = (name: string): [string | undefined, string] => {
    const kind = name.split(':')[0]!;
    if (name === FLOOR.relay || name === FLOOR.swConst) return [FLOOR.worker, 'the floor'];
    if (name === FLOOR.relayBusy) return [FLOOR.workerBusy, 'the engine-like floor'];
    if (name.startsWith('rpc:')) return [FLOOR.worker, `${both(name, FLOOR.worker)} over a bare postMessage`];
    if (name.startsWith('models:') && name.includes('SW')) return [FLOOR.swConst, `${both(name, FLOOR.swConst)} over the bare SW's constant answer`];
    if (name.startsWith('models:')) return [undefined, `${both(name, FLOOR.inpage)} (all product: no transport)`];
    if (name === FLOOR.shape) return [undefined, 'the fetch-shim floor'];
    if (name.includes('diag: the gateway alone')) return [undefined, `${signed(median(name)! - fl.shape)} above the fetch-shape floor: the product's own code per request`];
    if (name.startsWith('floor')) return [undefined, ''];
    const direct = `${kind}: direct`;
    if (name.startsWith(direct)) return [direct, `${both(name, `${kind}: raw`)} over transformers.js called directly`];
    if (name.includes('fetch shim')) return [direct, `${both(name, direct)}; ${signed(median(name)! - median(direct)! - fl.shape)} above the fetch-shape floor`];
    if (name.includes('SW')) return [direct, `${both(name, direct, fl.busy)} above the engine-like floor; ${both(name, direct, fl.instant)} above the instant floor`];
    return [direct, ''];
  };
  const rows: Row[] = latency
    .filter((l) => !l.name.endsWith(PAIRED))
    .map((l) => {
      const [base, over] = compare(l.name);
      return [l.name, f(l.median), f(l.p95), base ? ratio(l.median / median(base)!) : '', over];
    });
  const messages = (checks.messagesPerRequest ?? {}) as Record<string, { sent: number; received: number }>;
  return [
    '### Per-request latency (ms; measured in the page, paths interleaved round by round)',
    table(['path', 'median', 'p95', 'ratio to direct', 'overhead above the floor: median (p95)'], rows),
    '',
    `The browser's floor of the service-worker route in this run (bare SW relay − bare page⇄worker): ${f(fl.busy.median)} ms median (p95 ${f(fl.busy.p95)}) when the worker works ${BUSY_MS} ms per answer like an engine (the *engine-like floor*), ${f(fl.instant.median)} ms (p95 ${f(fl.instant.p95)}) when it answers at once (the *instant floor*); a constant answer from the bare SW itself: ${f(fl.constant)} ms.`,
    'Overhead column: SW rows = (SW − direct) − that floor (the product’s own cost), against both floors; fetch-shim rows = shim − direct (nothing but the product sits between), and that minus the in-page Request + Response floor; direct rows = direct − transformers.js called directly in a plain worker (the product’s engine side: RPC, model host, batching window, usage counting); `GET /v1/models` needs no engine, so it shows the gateway alone.',
    `MessagePort messages the page sends/receives per request: ${Object.entries(messages)
      .map(([k, v]) => `${k} ${v.sent}/${v.received}`)
      .join('; ')} (the same exchange runs between the service worker and its engine worker on the SW path).`,
    ...pairedLines(latency),
    `Drift: per-round medians of the SW chat path ${find(latency, 'chat 1 token: SW')?.roundMedians.map((v) => f(v, 2)).join(', ')} ms; of the bare SW relay ${exact(latency, FLOOR.relay)?.roundMedians.map((v) => f(v, 2)).join(', ')} ms.`,
  ];
}
