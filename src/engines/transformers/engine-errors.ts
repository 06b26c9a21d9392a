/**
 * The adapter's failures that have a meaning for clients, as `GatewayError`s.
 * @module
 */

import { GatewayError } from '../../core/errors.ts';

/** A model that cannot be loaded: names the model and the cause; 503, not retried by SDKs. */
export function modelUnavailable(modelId: string, cause: unknown): GatewayError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new GatewayError('model_unavailable', `Model "${modelId}" could not be loaded: ${reason}`, { cause });
}
