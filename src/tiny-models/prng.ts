/**
 * A seeded PRNG (mulberry32). Only integer ops and one division, so the same seed gives the same
 * floats on every JS engine; weights use uniform draws to avoid Math.log/Math.cos, whose last bits
 * are implementation-defined.
 * @module
 */

export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** The next 32 random bits as an unsigned integer (the draw `next` divides by 2^32). */
  uint32(): number;
  /** Uniform in [-scale, scale). */
  uniform(scale: number): number;
  /** `count` uniform draws as float32. */
  floats(count: number, scale: number): Float32Array;
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const uint32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const next = (): number => uint32() / 4294967296;
  const uniform = (scale: number): number => (next() * 2 - 1) * scale;
  return {
    next,
    uint32,
    uniform,
    floats(count, scale) {
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = uniform(scale);
      return out;
    },
  };
}
