/** The report of one main-page run: its sections' tables in page order, then its targets. @module */
import type { MainResult } from '../results.ts';
import { embeddingsReport } from './embeddings.ts';
import { f, find } from './format.ts';
import { latencyReport } from './latency.ts';
import { memoryReport } from './memory.ts';
import { burstReport, grammarReport, streamingReport } from './streaming.ts';
import { type Target, targetsTable } from './targets.ts';

export function mainReport(r: MainResult, targets: Target[] | undefined): string {
  const out: string[] = [`## ${r.device.toUpperCase()} (${r.profile} profile)`];
  if (r.latency) out.push(...latencyReport(r.latency, r.checks));
  if (r.streaming) out.push(...streamingReport(r.streaming));
  if (r.grammar) out.push(...grammarReport(r.grammar));
  if (r.burst) out.push(...burstReport(r.burst, r.streaming));
  if (r.embeddings) out.push(...embeddingsReport(r.embeddings));
  out.push(...memoryReport(r.memory));
  if (targets) out.push('', '### Targets', targetsTable(targets));
  const chatDirect = find(r.latency, 'chat 1 token: direct');
  if (targets && r.device === 'webgpu' && chatDirect) {
    out.push(
      '',
      `WebGPU here runs on SwiftShader (the CPU): one engine call takes ${f(chatDirect.median, 0)} ms with a p95 ${f(chatDirect.p95 - chatDirect.median, 0)} ms above it, so sub-millisecond differences are within the engine's own jitter; read this section as "the paths work on WebGPU and keep their ordering", and the WASM section for the overheads.`,
    );
  }
  return out.join('\n');
}
