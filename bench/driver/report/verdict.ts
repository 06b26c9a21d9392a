/**
 * A target's verdict: `met`, `not met`, or `not judgeable` where the run's own figures cannot tell
 * (docs/decisions/bench-verdicts.md). A figure with a 95% interval or an A/A comparison beside it
 * is judged on them too; one without (an exact count, a single median) on its value alone.
 * @module
 */
import type { Profile } from '../options.ts';
import type { Interval } from './noise.ts';

export type Verdict = 'met' | 'not met' | 'not judgeable';

/** The number a target is judged on and its bound. */
export interface Check {
  readonly value: number;
  readonly limit: number;
  readonly at: 'most' | 'least';
  readonly unit: string;
}

export interface Judged {
  readonly verdict: Verdict;
  /** What the verdict rests on ("1 run", "median of 3 runs"), or why none could be given. */
  readonly why?: string;
}

/** How far the value could move by chance, where the run measured it. */
export interface Noise {
  /** The value's own 95% interval. */
  readonly interval?: Pick<Interval, 'low' | 'high'>;
  /** The A/A comparison: the same method on two like paths, where the truth is zero. */
  readonly aa?: Interval;
}

export const holds = (c: Check, value = c.value) => (c.at === 'most' ? value <= c.limit : value >= c.limit);

const num = (v: number) => {
  const a = Math.abs(v);
  return v.toFixed(a >= 10 ? 1 : a >= 1 ? 2 : 3);
};

/**
 * The rule, in this order:
 * 1. the value lies outside its own interval, or the A/A estimate outside its own: the intervals
 *    cannot say how far the figures could move (too few samples), so not judgeable;
 * 2. the value's interval holds the bound (low ≤ limit ≤ high): not judgeable;
 * 3. the A/A reaches further from zero (the largest of |estimate|, |low|, |high|) than the value
 *    lies from the bound (|value − limit|): the method's own error could carry the value across the
 *    bound, so not judgeable;
 * 4. otherwise met or not met as the value holds the bound, resting on `basis`.
 * In the quick profile "met" becomes "not judgeable (quick profile)": its few repetitions are a
 * smoke run, not a measurement; "not met" stays.
 */
export function judge(c: Check, noise: Noise = {}, profile?: Profile, basis = '1 run'): Judged {
  return capped(rule(c, noise, basis), profile);
}

function rule(c: Check, { interval, aa }: Noise, basis: string): Judged {
  const unit = (v: number) => `${num(v)}${c.unit}`;
  const bound = `${c.limit}${c.unit}`;
  const no = (why: string): Judged => ({ verdict: 'not judgeable', why });
  if (interval && (c.value < interval.low || c.value > interval.high)) return no(`the value ${unit(c.value)} lies outside its own 95% interval, ${unit(interval.low)} to ${unit(interval.high)}: too few samples for one`);
  if (aa && (aa.estimate < aa.low || aa.estimate > aa.high)) return no(`the A/A ${unit(aa.estimate)} lies outside its own 95% interval, ${unit(aa.low)} to ${unit(aa.high)}: too few samples for one`);
  if (interval && interval.low <= c.limit && c.limit <= interval.high) return no(`the 95% interval ${unit(interval.low)} to ${unit(interval.high)} holds the bound, ${bound}`);
  if (aa) {
    const reach = Math.max(Math.abs(aa.estimate), Math.abs(aa.low), Math.abs(aa.high));
    const margin = Math.abs(c.value - c.limit);
    if (reach > margin) return no(`the A/A reads up to ${unit(reach)} where the truth is zero, more than the ${unit(margin)} between the value and the bound`);
  }
  return { verdict: holds(c) ? 'met' : 'not met', why: basis };
}

/** The quick profile's best verdict is "not judgeable". */
export function capped(j: Judged, profile: Profile | undefined): Judged {
  return profile === 'quick' && j.verdict === 'met' ? { verdict: 'not judgeable', why: 'quick profile' } : j;
}

/** A yes/no outcome with no interval (an exact count): met or not met, resting on `basis`. */
export const exactly = (ok: boolean, profile?: Profile, basis = '1 run'): Judged => capped({ verdict: ok ? 'met' : 'not met', why: basis }, profile);

const RANK: Record<Verdict, number> = { met: 0, 'not judgeable': 1, 'not met': 2 };

/** A target that needs every one of `parts` to hold: the worst of them (not met, then not judgeable, then met). */
export function allOf(...parts: Judged[]): Judged {
  return parts.reduce((worst, p) => (RANK[p.verdict] > RANK[worst.verdict] ? p : worst));
}

/** The verdict as the tables print it: "met (1 run)", "**not met** (1 run)", "not judgeable (why)", "n/a". */
export function shown(j: Partial<Judged> | undefined): string {
  if (!j?.verdict) return 'n/a';
  const word = j.verdict === 'not met' ? '**not met**' : j.verdict;
  return j.why ? `${word} (${j.why})` : word;
}
