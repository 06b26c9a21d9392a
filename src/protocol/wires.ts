/**
 * The API families the gateway answers, and which one a request gets: decided once per request,
 * from its path and headers, so that even its errors come in the shape its SDK reads.
 * @module
 */
import type { Flavour, WireDescriptor } from '../core/wire.ts';
import { ANTHROPIC } from './anthropic/wire.ts';
import { OPENAI } from './openai/wire.ts';

export const WIRES: Readonly<Record<Flavour, WireDescriptor>> = { openai: OPENAI, anthropic: ANTHROPIC };

/** The family a request belongs to (`path`: below the base URL; null when outside it). */
export function wireOf(path: string | null, headers: Headers): WireDescriptor {
  return Object.values(WIRES).find((wire) => wire.claims(path, headers)) ?? OPENAI;
}
