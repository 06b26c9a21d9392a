/**
 * Memory samples taken between sections: the page's heap (`performance.memory`) and every realm
 * of the page's agent cluster (`measureUserAgentSpecificMemory`: the page, the floor iframe, each
 * dedicated worker), attributed per realm by script URL.
 * @module
 */

export interface MemorySample {
  readonly label: string;
  readonly pageHeapBytes?: number;
  /** measureUserAgentSpecificMemory total (page, same-origin iframes, dedicated workers). */
  readonly totalBytes?: number;
  /** Bytes per realm: `Window`, or a worker's script name. */
  readonly byRealm?: Record<string, number>;
  readonly error?: string;
}

const workerNames: [RegExp, string][] = [
  [/\/main-[^/]*\.js$/, 'engine worker (product)'],
  [/\/raw-engine-[^/]*\.js$/, 'raw transformers.js worker'],
  [/\/floor-worker-[^/]*\.js$/, 'floor worker'],
  [/\/synthetic-worker-[^/]*\.js$/, 'synthetic producer worker'],
];

type UASM = { bytes: number; breakdown: { bytes: number; attribution: { url: string; scope: string }[] }[] };

export async function sampleMemory(label: string): Promise<MemorySample> {
  const pageHeapBytes = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize;
  const measure = (performance as unknown as { measureUserAgentSpecificMemory?: () => Promise<UASM> }).measureUserAgentSpecificMemory;
  if (!measure) return { label, pageHeapBytes, error: 'measureUserAgentSpecificMemory unavailable' };
  try {
    const result = await Promise.race([measure.call(performance), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out after 30 s')), 30_000))]);
    return { label, pageHeapBytes, totalBytes: result.bytes, byRealm: byRealm(result) };
  } catch (error) {
    return { label, pageHeapBytes, error: String(error) };
  }
}

/**
 * One entry per realm; workers of the same script (the product's engine workers) are told apart
 * by size: #1 is the largest.
 */
function byRealm(result: UASM): Record<string, number> {
  const realms: [string, number][] = [];
  for (const entry of result.breakdown) {
    if (entry.attribution.length === 0) {
      realms.push(['unattributed', entry.bytes]);
      continue;
    }
    for (const a of entry.attribution) {
      const name = a.scope === 'Window' ? (a.url.includes('/bench/floor/') ? 'floor page' : 'page') : (workerNames.find(([re]) => re.test(a.url))?.[1] ?? `${a.scope} ${a.url}`);
      realms.push([name, entry.bytes / entry.attribution.length]);
    }
  }
  const out: Record<string, number> = {};
  for (const name of new Set(realms.map(([n]) => n))) {
    const same = realms.filter(([n]) => n === name).sort((a, b) => b[1] - a[1]);
    same.forEach(([, bytes], i) => {
      const key = same.length > 1 && name !== 'unattributed' ? `${name} #${i + 1}` : name;
      out[key] = (out[key] ?? 0) + bytes;
    });
  }
  return out;
}
