/**
 * The live figures strip: time to first token (with how much of the prompt the engine read from
 * its prefix cache, which is what makes a conversation's later turns start as fast as its first)
 * and tokens/s of the last reply, the last model load, and the backend (GPU adapter, or why WASM).
 * Every figure is measured, never assumed.
 * @module
 */
import { required } from './dom.ts';
import { formatMs } from './format.ts';
import { adapterName, transformersBackend, wasmReason, type DeviceChoice, type GpuReport } from './gpu-info.ts';

export interface ReplyTiming {
  readonly model: string;
  /** From sending the request to the first text (includes any model load the request waited for). */
  readonly ttftMs?: number;
  readonly tokens: number;
  /** Decoding time: first text to last. */
  readonly decodeMs?: number;
  /** The prompt's tokens, and of them those read from the engine's prefix cache (the reply's usage). */
  readonly promptTokens?: number;
  readonly cachedTokens?: number;
}

export function createFigures() {
  const ttft = required('#fig-ttft');
  const rate = required('#fig-rate');
  const load = required('#fig-load');
  const backend = required('#fig-backend');

  return {
    reply(timing: ReplyTiming): void {
      ttft.textContent = timing.ttftMs === undefined ? '—' : formatMs(timing.ttftMs);
      ttft.title = `${timing.model}: from sending the request to the first token`;
      if (timing.promptTokens !== undefined) {
        const cached = timing.cachedTokens ?? 0;
        ttft.append(Object.assign(document.createElement('small'), { textContent: `${cached.toLocaleString('en')} of ${timing.promptTokens.toLocaleString('en')} prompt tokens cached`, className: 'fig-cached' }));
        ttft.title += `; ${cached} of the prompt's ${timing.promptTokens} tokens came from the prefix cache (read by an earlier request), the rest were read now`;
      }
      // One token gives no interval to measure a rate over.
      const perSecond = timing.decodeMs && timing.tokens > 1 ? ((timing.tokens - 1) * 1000) / timing.decodeMs : undefined;
      rate.textContent = perSecond === undefined ? '—' : `${perSecond.toFixed(perSecond < 10 ? 1 : 0)} tok/s`;
      rate.title = `${timing.tokens} output tokens; rate over the time between the first and the last`;
    },
    load(model: string, ms: number, device: string): void {
      load.textContent = formatMs(ms);
      load.title = `${model} on ${device}`;
      load.dataset.model = model;
      load.append(Object.assign(document.createElement('small'), { textContent: `${model} · ${device.toUpperCase()}` }));
    },
    backend(report: GpuReport, choice: DeviceChoice): void {
      const uses = transformersBackend(report, choice);
      const reason = wasmReason(report, choice);
      backend.dataset.backend = uses.toLowerCase();
      const adapter =
        report.webgpu === 'ok'
          ? `GPU: ${adapterName(report)}${report.software ? ' (software, slow)' : ''} · shader-f16 ${report.shaderF16 ? 'yes' : 'no'}`
          : report.webgpu === 'absent'
            ? 'No WebGPU in this browser'
            : 'WebGPU offered no adapter';
      const small = (text: string) => Object.assign(document.createElement('small'), { textContent: text });
      backend.replaceChildren(`${uses === 'WASM' ? 'WASM (CPU)' : 'WebGPU'}`, small(adapter));
      if (reason) backend.append(small(reason));
      else if (report.webgpu === 'ok' && !report.shaderF16) backend.append(small('WebLLM picks its f32 variants (no shader-f16).'));
    },
    /** The CPU engine that runs the WASM models (from `GET /models`): its runtime, threads, and why that many. */
    cpu(facts: { readonly runtime: string; readonly threads: number; readonly reason: string }): void {
      backend.querySelector('.fig-cpu')?.remove();
      backend.dataset.cpuThreads = String(facts.threads);
      backend.append(Object.assign(document.createElement('small'), { className: 'fig-cpu', textContent: `CPU engine: ${facts.runtime}; ${facts.reason}` }));
    },
  };
}

export type Figures = ReturnType<typeof createFigures>;
