/** What the report says about the browser the main page ran in. @module */
import { BUILD } from '../../../src/contracts/control-messages.ts';

export async function environment() {
  // Timer resolution: the smallest non-zero step of performance.now().
  let step = Infinity;
  for (let i = 0; i < 2000; i++) {
    const a = performance.now();
    let b = performance.now();
    while (b === a) b = performance.now();
    step = Math.min(step, b - a);
  }
  let adapter: string | undefined;
  try {
    const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: { vendor: string; architecture: string; description: string } } | null> } }).gpu;
    const a = await gpu?.requestAdapter();
    adapter = a ? `${a.info?.vendor ?? '?'} ${a.info?.architecture ?? ''} ${a.info?.description ?? ''}`.trim() : 'none';
  } catch (error) {
    adapter = `error: ${error}`;
  }
  return { userAgent: navigator.userAgent, hardwareConcurrency: navigator.hardwareConcurrency, crossOriginIsolated, timerResolutionMs: step, webgpuAdapter: adapter, build: BUILD };
}
