/** The memory table: each realm's peak over the samples the main page took between sections. @module */
import type { MainResult } from '../results.ts';
import { table } from './format.ts';

const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;

export function memoryReport(memory: MainResult['memory']): string[] {
  const peaks = new Map<string, number>();
  let pagePeak = 0;
  let totalPeak = 0;
  for (const m of memory) {
    pagePeak = Math.max(pagePeak, m.pageHeapBytes ?? 0);
    totalPeak = Math.max(totalPeak, m.totalBytes ?? 0);
    for (const [realm, bytes] of Object.entries(m.byRealm ?? {})) peaks.set(realm, Math.max(peaks.get(realm) ?? 0, bytes));
  }
  return [
    '',
    `### Memory (peak of ${memory.length} samples taken between sections; measureUserAgentSpecificMemory, cross-origin isolated)`,
    table(['realm', 'peak'], [['page JS heap (performance.memory.usedJSHeapSize)', mb(pagePeak)], ['all realms of the page (measureUserAgentSpecificMemory)', mb(totalPeak)], ...[...peaks].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, mb(v)])]),
    ...(memory.some((m) => m.error) ? [`Memory errors: ${memory.filter((m) => m.error).map((m) => `${m.label}: ${m.error}`).join('; ')}`] : []),
    'Three product engine workers run (same script, told apart by size): the one the service worker uses (startInference), the one of createWorkerEngine (direct and fetch-shim paths), both holding tiny-chat and tiny-embed, and an idle one for the RPC ping. The service workers cannot be measured from the page.',
  ];
}
