/**
 * web-llm reports loading as text with a fraction that restarts at 0 in every phase (download,
 * copy to the GPU, shader compilation). This folds those reports into `stage` events whose
 * `fraction` covers the whole load and never goes back.
 * @module
 */

import type { InitProgressReport } from '@mlc-ai/web-llm';
import type { LoadProgress } from '../../contracts/model-progress.ts';

export type LoadPhase = 'fetch' | 'cache' | 'shaders' | 'done' | 'other';

/**
 * Each phase's share of the whole load. Downloading dominates a first visit, shader compilation a
 * slow GPU; when the weights are already cached the fetch phase is skipped and the bar jumps.
 */
const BANDS: Record<Exclude<LoadPhase, 'other'>, readonly [number, number]> = {
  fetch: [0, 0.6],
  cache: [0.6, 0.8],
  shaders: [0.8, 1],
  done: [1, 1],
};

/** The phase of one report, from the fixed prefixes web-llm (and its tvmjs runtime) writes. */
export function parsePhase(text: string): LoadPhase {
  if (text.startsWith('Start to fetch params') || text.startsWith('Fetching param cache')) return 'fetch';
  if (text.startsWith('Loading model from cache')) return 'cache';
  if (text.startsWith('Loading GPU shader modules')) return 'shaders';
  if (text.startsWith('Finish loading on')) return 'done';
  return 'other';
}

export type StageProgress = Extract<LoadProgress, { status: 'stage' }>;

/** A mapper for one load. The `ready` event is the adapter's, sent once `reload()` has resolved. */
export function createProgressMapper(model: string): { map(report: InitProgressReport): StageProgress; readonly phase: LoadPhase | undefined } {
  let fraction = 0;
  let phase: LoadPhase | undefined;
  return {
    get phase() {
      return phase;
    },
    map(report) {
      const current = parsePhase(report.text);
      if (current !== 'other') {
        phase = current;
        const [from, to] = BANDS[current];
        fraction = Math.max(fraction, from + (to - from) * phaseFraction(report));
      }
      return { status: 'stage', model, text: tidy(report.text), fraction };
    },
  };
}

/** web-llm's own fraction for the phase; NaN when a model has no weight bytes (0 / 0). */
function phaseFraction(report: InitProgressReport): number {
  const value = report.progress;
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

/** Drops the advice web-llm appends to every download report; the numbers stay. */
function tidy(text: string): string {
  return text.replace(/\s*It can take a while when we first visit this page.*$/s, '').trim();
}
