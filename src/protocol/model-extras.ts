/**
 * What both families' `GET /models` add to a model beyond the real APIs' keys, in one wire form:
 * its fallback, and for a remote model one nested `remote` object (beside `local` for the models on
 * this device) saying where it runs and whether it can be reached now. Never its key or headers.
 * Like the local states, best effort and quick: a listing never fails, or waits long, for want of them.
 * @module
 */
import type { RequestContext } from '../core/context.ts';
import type { ModelInfo } from '../core/engine.ts';
import { readWithin } from '../core/local-state.ts';
import type { RemoteState } from '../core/remote-state.ts';

export interface WireRemoteState {
  /** The APIs its server speaks; requests in another flavour are translated. */
  readonly speaks: readonly string[];
  /** At least one of its servers answered its last request or health check. */
  readonly available: boolean;
  /** Each server: its URL, `up`/`down`/`unknown`, requests in flight, and the last error when down. */
  readonly upstreams: readonly { readonly url: string; readonly state: string; readonly in_flight: number; readonly last_error?: string; readonly checked_at?: string }[];
}

/** How long a listing waits for health checks (they time out at 2 s themselves). */
export const REMOTE_STATES_TIMEOUT_MS = 2500;

export async function readRemoteStates(ctx: RequestContext, models: readonly ModelInfo[], timeoutMs = REMOTE_STATES_TIMEOUT_MS): Promise<ReadonlyMap<string, RemoteState>> {
  if (!models.some((model) => model.upstream)) return new Map();
  return (await readWithin(() => ctx.remoteStates(models), timeoutMs)) ?? new Map();
}

export function toWireRemoteState(state: RemoteState): WireRemoteState {
  return {
    speaks: state.speaks,
    available: state.available,
    upstreams: state.upstreams.map((u) => ({
      url: u.url,
      state: u.state,
      in_flight: u.inFlight,
      ...(u.lastError !== undefined ? { last_error: u.lastError } : {}),
      ...(u.checkedAt !== undefined ? { checked_at: u.checkedAt } : {}),
    })),
  };
}

/** What both flavours add to a model beyond the real APIs' keys: its fallback, and its remote state. */
export function wireRouting(model: ModelInfo, remote: RemoteState | undefined) {
  return {
    ...(model.fallback !== undefined ? { fallback: model.fallback } : {}),
    ...(remote ? { remote: toWireRemoteState(remote) } : {}),
  };
}

/**
 * What a remote model's listing says of it: what its entry sets, else what its server lists of it
 * (`remote.model`), else nothing (no figure is made up); it is owned by whom its server says, else
 * by its server (the host of its first URL). Undefined for a model on this device.
 */
export function remoteFacts(model: ModelInfo, remote: RemoteState | undefined) {
  if (!model.upstream) return undefined;
  const listed = remote?.model;
  const first = typeof model.upstream.baseURL === 'string' ? model.upstream.baseURL : model.upstream.baseURL[0]!;
  const created = listed?.created ?? model.created;
  // 0: the entry does not say (ModelInfo.contextWindow).
  const contextWindow = model.contextWindow > 0 ? model.contextWindow : listed?.contextWindow;
  const maxOutputTokens = model.maxOutputTokens ?? listed?.maxOutputTokens;
  const displayName = model.displayName ?? listed?.displayName;
  return {
    ownedBy: listed?.ownedBy ?? new URL(first).host,
    ...(created !== undefined ? { created } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(displayName !== undefined ? { displayName } : {}),
  };
}
