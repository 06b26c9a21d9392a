/**
 * The API families the gateway answers, and which one a request gets: decided once per request,
 * from its path and headers, so that even its errors come in the shape its SDK reads; and the
 * client side of each family's chat API, through which remote servers are reached.
 * @module
 */
import type { Flavour } from '../core/flavour.ts';
import type { UpstreamClient, WireDescriptor } from '../core/wire.ts';
import { ANTHROPIC_CLIENT } from './anthropic/client.ts';
import { ANTHROPIC } from './anthropic/wire.ts';
import { OPENAI_CHAT_CLIENT } from './openai/chat/client.ts';
import { OPENAI } from './openai/wire.ts';

export const WIRES: Readonly<Record<Flavour, WireDescriptor>> = { openai: OPENAI, anthropic: ANTHROPIC };

/** How the gateway speaks each family's chat API to a remote server (src/remote sends it). */
export const UPSTREAM_CLIENTS: Readonly<Record<Flavour, UpstreamClient>> = { openai: OPENAI_CHAT_CLIENT, anthropic: ANTHROPIC_CLIENT };

/** The family a request belongs to (`path`: below the base URL; null when outside it). */
export function wireOf(path: string | null, headers: Headers): WireDescriptor {
  return Object.values(WIRES).find((wire) => wire.claims(path, headers)) ?? OPENAI;
}
