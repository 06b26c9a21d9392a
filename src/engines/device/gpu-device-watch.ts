/**
 * GPU device loss, seen for every engine in this context. onnxruntime-web and web-llm each request
 * their own `GPUDevice` and keep it for their lifetime; neither can be handed a new one after a
 * loss (memory pressure, a driver reset, a phone backgrounding the tab), so losing it leaves the
 * engine failing or hanging on every later call. Watching `GPUAdapter.prototype.requestDevice`
 * sees each device whoever asks for it, without reaching into either library.
 *
 * A device an engine destroys itself is not a loss: web-llm destroys its device in `unload()`, and
 * in `reload()` when a buffer does not fit in GPU memory (then failing the load with its own clear
 * error). Those calls run inside `releasingGpu`, and devices destroyed meanwhile are left out.
 * @module
 */

export interface GpuDeviceLoss {
  /** `destroyed` or `unknown`, as `GPUDeviceLostInfo.reason` says. */
  readonly reason: string;
  readonly message: string;
}

type Listener = (loss: GpuDeviceLoss) => void;

interface DeviceLike {
  readonly lost: Promise<{ reason: string; message: string }>;
  destroy(): void;
}

const listeners = new Set<Listener>();
const released = new WeakSet<object>();
let releasing = 0;
let installed = false;

/** Calls `listener` when any GPU device of this context is lost; returns the unsubscriber. */
export function onGpuDeviceLost(listener: Listener): () => void {
  install();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Runs engine work during which the engine may destroy its own device (a release, a failed load): those are not reported as lost. */
export async function releasingGpu<T>(work: () => Promise<T>): Promise<T> {
  releasing++;
  try {
    return await work();
  } finally {
    releasing--;
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  const scope = globalThis as { GPUAdapter?: { prototype: { requestDevice(...args: unknown[]): Promise<DeviceLike> } }; GPUDevice?: { prototype: DeviceLike } };
  const adapter = scope.GPUAdapter?.prototype;
  const device = scope.GPUDevice?.prototype;
  // No WebGPU here (Node, a browser without it): nothing can be lost.
  if (!adapter?.requestDevice || !device?.destroy) return;

  const requestDevice = adapter.requestDevice;
  adapter.requestDevice = async function (this: unknown, ...args: unknown[]) {
    const created = await requestDevice.apply(this, args);
    void created.lost.then((info) => {
      if (released.has(created)) return;
      const loss = { reason: String(info?.reason ?? 'unknown'), message: String(info?.message ?? '') };
      for (const listener of listeners) listener(loss);
    });
    return created;
  };
  const destroy = device.destroy;
  device.destroy = function (this: DeviceLike) {
    if (releasing > 0) released.add(this);
    return destroy.call(this);
  };
}
