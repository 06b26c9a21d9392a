import { afterAll, describe, expect, it } from 'vitest';

/**
 * Node has no WebGPU: these stand-ins have the two members the watch relies on, a device's `lost`
 * promise (resolved by `destroy()`, as browsers do) and the adapter's `requestDevice`.
 */
class FakeDevice {
  private resolveLost!: (info: { reason: string; message: string }) => void;
  readonly lost = new Promise<{ reason: string; message: string }>((resolve) => (this.resolveLost = resolve));
  destroy() {
    this.resolveLost({ reason: 'destroyed', message: 'Device was destroyed.' });
  }
  loseForReal() {
    this.resolveLost({ reason: 'unknown', message: 'D3D12 device removed' });
  }
}
class FakeAdapter {
  async requestDevice() {
    return new FakeDevice();
  }
}
const scope = globalThis as Record<string, unknown>;
scope.GPUAdapter = FakeAdapter;
scope.GPUDevice = FakeDevice;
afterAll(() => {
  delete scope.GPUAdapter;
  delete scope.GPUDevice;
});

const { onGpuDeviceLost, releasingGpu } = await import('./gpu-device-watch.ts');
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('GPU device watch', () => {
  it('reports a device lost, whoever requested it, and a device destroyed outside a release', async () => {
    const losses: { reason: string; message: string }[] = [];
    const stop = onGpuDeviceLost((loss) => losses.push(loss));
    const first = (await new FakeAdapter().requestDevice()) as FakeDevice;
    const second = (await new FakeAdapter().requestDevice()) as FakeDevice;
    first.loseForReal();
    second.destroy();
    await settle();
    expect(losses).toEqual([
      { reason: 'unknown', message: 'D3D12 device removed' },
      { reason: 'destroyed', message: 'Device was destroyed.' },
    ]);
    stop();
  });

  it('does not report a device an engine destroys while releasing its model', async () => {
    const losses: unknown[] = [];
    const stop = onGpuDeviceLost((loss) => losses.push(loss));
    const device = (await new FakeAdapter().requestDevice()) as FakeDevice;
    await releasingGpu(async () => {
      await settle();
      device.destroy();
    });
    await settle();
    expect(losses).toEqual([]);
    stop();
  });
});
