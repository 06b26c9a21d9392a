/** The embedding throughput table and the dynamic-batching lines. @module */
import type { MainResult } from '../results.ts';
import { f, find, ratio, table } from './format.ts';

export function embeddingsReport(e: NonNullable<MainResult['embeddings']>): string[] {
  const batchDirect = find(e.batch, `1 request × ${e.texts} texts: direct`)!;
  const seqDirect = find(e.concurrent, `${e.texts} sequential 1-text calls: direct`)!;
  const seqRaw = find(e.concurrent, `${e.texts} sequential 1-text calls: raw`)!;
  const maxDiff = (x: { maxAbsDiff: number }) => x.maxAbsDiff.toExponential(2);
  return [
    '',
    `### Embedding throughput (${e.texts} texts; time from the call to the vectors in hand, base64 decoded to Float32Array)`,
    table(
      ['path', 'median ms', 'p95 ms', 'texts/s median', 'ratio to direct (throughput)'],
      [
        ...e.batch.map((p) => [p.name, f(p.ms.median, 1), f(p.ms.p95, 1), p.name.startsWith('diag') ? '' : Math.round(p.textsPerSec.median), p.name.startsWith('diag') ? '' : ratio(batchDirect.ms.median / p.ms.median)]),
        ...e.concurrent.map((p) => [
          p.name,
          f(p.ms.median, 1),
          f(p.ms.p95, 1),
          Math.round(p.textsPerSec.median),
          p.name.startsWith('floor') ? '' : `${ratio(seqDirect.ms.median / p.ms.median)} vs sequential direct, ${ratio(seqRaw.ms.median / p.ms.median)} vs sequential transformers.js`,
        ]),
      ],
    ),
    '',
    'Dynamic batching: requests all in flight at once vs the same requests sent one at a time (each alone, unbatched):',
    ...Object.entries(e.exact).map(
      ([k, x]) =>
        `- ${k}: ${x.bitIdentical}/${x.vectors} vectors bit-identical (max |Δ| ${maxDiff(x)}), usage exact for ${x.usageExact}/${x.requests} requests; every vector matched its own text by index.${x.merging ? ` The engine host got ${x.merging.requests} requests and made ${x.merging.engineCalls} engine calls for them.` : ''}`,
    ),
    ...e.concurrent
      .filter((p) => p.merging)
      .map((p) => `- ${p.name}, all timed rounds: ${p.merging!.requests} requests took ${p.merging!.engineCalls} engine calls (${(p.merging!.requests / Math.max(1, p.merging!.engineCalls)).toFixed(1)} requests per call).`),
    ...(e.engineBatch
      ? [`- The engine itself (no batcher): the texts of each of those 1–4-text requests in one call vs one call per text: ${e.engineBatch.bitIdentical}/${e.engineBatch.vectors} vectors bit-identical (max |Δ| ${maxDiff(e.engineBatch)}).`]
      : []),
  ];
}
