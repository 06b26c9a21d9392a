/**
 * What one `npm run bench` does: the devices and repetition profiles it measures, and the browser
 * tasks (main page runs, cold/warm load samples) that measure them.
 * @module
 */
import type { RealWorkload } from './real-size-results.ts';
import type { Device, Options, Profile } from './options.ts';

export interface DeviceRun {
  device: Device;
  profile: Profile;
  sections?: string[];
}

export interface Task {
  readonly name: string;
  readonly page: string;
  readonly config: Record<string, unknown>;
  /** Results the page posts before the task is over (load pages post one per iteration). */
  readonly results: number;
  readonly timeoutMs: number;
}

export function planDevices(options: Options): DeviceRun[] {
  const devices: DeviceRun[] = [];
  const quick = options.quick;
  if (options.device === 'wasm' || options.device === 'both') devices.push({ device: 'wasm', profile: quick ? 'quick' : 'full', sections: options.sections });
  if (options.device === 'webgpu') devices.push({ device: 'webgpu', profile: quick ? 'quick' : 'full', sections: options.sections });
  // The short WebGPU section: the model-bound paths only (the burst section uses no model).
  if (options.device === 'both') devices.push({ device: 'webgpu', profile: quick ? 'quick' : 'short', sections: options.sections ?? ['latency', 'stream', 'embeddings'] });
  if (options.profile) for (const d of devices) d.profile = options.profile;
  return devices;
}

export function planTasks(options: Options, devices: readonly DeviceRun[], real?: RealWorkload): Task[] {
  const tasks: Task[] = [];
  if (options.models === 'real') {
    // WebGPU through SwiftShader runs a 0.5B decoder at a token every few seconds: only when asked alone.
    const realDevices = options.device === 'webgpu' ? devices : devices.filter((d) => d.device === 'wasm');
    for (let run = 1; run <= (options.main ? options.runs : 0); run++) {
      for (const d of realDevices) {
        const name = options.runs > 1 ? `real-${d.device}-run${run}` : `real-${d.device}`;
        tasks.push({ name, page: '/bench/pages/real.html', config: { device: d.device, profile: d.profile, real, ...(options.sections ? { sections: options.sections } : {}) }, results: 1, timeoutMs: 40 * 60_000 });
      }
    }
    if (options.load) tasks.push(...loadTasks(realDevices, real, 15 * 60_000));
    return tasks;
  }
  for (let run = 1; run <= options.runs; run++) {
    for (const d of options.main ? devices : []) {
      const name = options.runs > 1 ? `main-${d.device}-run${run}` : `main-${d.device}`;
      tasks.push({ name, page: '/bench/pages/bench.html', config: { device: d.device, profile: d.profile, sections: d.sections }, results: 1, timeoutMs: (d.profile === 'full' ? 15 : 12) * 60_000 });
    }
  }
  if (options.load) tasks.push(...loadTasks(devices, undefined, 3 * 60_000));
  return tasks;
}

/** Fresh profiles per engine (each: one cold load, then warm reloads), product and raw alternating. */
function loadTasks(devices: readonly DeviceRun[], real: RealWorkload | undefined, timeoutMs: number): Task[] {
  const tasks: Task[] = [];
  for (const d of devices) {
    const colds = d.profile === 'full' ? 3 : 1;
    const iterations = 1 + (d.profile === 'full' ? 3 : d.profile === 'short' ? 2 : 1);
    for (let i = 0; i < colds; i++) {
      for (const engine of i % 2 === 0 ? (['product', 'raw'] as const) : (['raw', 'product'] as const)) {
        tasks.push({ name: `load-${engine}-${d.device}-${i}`, page: '/bench/pages/load.html', config: { device: d.device, profile: d.profile, engine, iteration: 0, iterations, ...(real ? { real } : {}) }, results: iterations, timeoutMs });
      }
    }
  }
  return tasks;
}
