/**
 * A remote model's state: where it runs and whether it can be reached now, as its pool
 * (src/remote) last learnt it. Data only; `GET /models` shows it in each family's shape
 * (src/protocol/model-extras.ts), never its key or headers.
 * @module
 */
import type { Flavour } from './flavour.ts';

/** One upstream URL's health, as its pool (remote/upstream-pool.ts) last learnt it. */
export interface UpstreamHealth {
  readonly url: string;
  readonly state: 'up' | 'down' | 'unknown';
  readonly inFlight: number;
  readonly lastError?: string;
  /** When the state was last learnt (a response, a failure or a probe), ISO 8601. */
  readonly checkedAt?: string;
}

/** What a remote model's server says of it in its own `GET /models`, where it lists it. */
export interface UpstreamModel {
  /** Unix seconds. */
  readonly created?: number;
  readonly ownedBy?: string;
  readonly displayName?: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
}

/** A remote model as `GET /models` shows it: where it runs and whether it can be reached now. */
export interface RemoteState {
  readonly speaks: readonly Flavour[];
  /** At least one upstream answered its last request or health check. */
  readonly available: boolean;
  readonly upstreams: readonly UpstreamHealth[];
  /** What its server lists of it, where its server listed it. */
  readonly model?: UpstreamModel;
}
