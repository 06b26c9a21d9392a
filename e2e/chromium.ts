/**
 * How the project launches Chromium, shared by the browser tests and the benchmarks: Debian's
 * chromium (Playwright's own browser downloads are not used), WebGPU on the CPU through SwiftShader
 * where there is no GPU, so the real WebGPU code paths run.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
