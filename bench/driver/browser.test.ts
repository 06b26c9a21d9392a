import { describe, expect, it } from 'vitest';
import { browserArgs } from './browser.ts';

describe('browserArgs', () => {
  it('keeps WebGPU on SwiftShader by default', () => {
    const args = browserArgs('chromium', {});
    expect(args).toContain('--use-webgpu-adapter=swiftshader');
    expect(args).not.toContain('--enable-features=Vulkan');
  });

  it('puts WebGPU on the GPU through Vulkan under BENCH_GPU=1', () => {
    const args = browserArgs('chromium', { BENCH_GPU: '1' });
    expect(args).not.toContain('--use-webgpu-adapter=swiftshader');
    expect(args).toEqual(expect.arrayContaining(['--enable-unsafe-webgpu', '--use-angle=vulkan', '--enable-features=Vulkan', '--disable-vulkan-surface']));
  });

  it('appends the flags of BENCH_CHROMIUM_ARGS last, for either driver', () => {
    expect(browserArgs('chromium', { BENCH_CHROMIUM_ARGS: ' --foo  --bar=1 ' }).slice(-2)).toEqual(['--foo', '--bar=1']);
    expect(browserArgs('playwright', { BENCH_GPU: '1', BENCH_CHROMIUM_ARGS: '--foo' }).at(-1)).toBe('--foo');
  });
});
