/** Model lookup shared by every endpoint: existence, per-key visibility and kind. @module */
import type { ModelInfo } from './engine.ts';
import { GatewayError } from './errors.ts';

/** An API key the app configures: the key alone (every model), or the key and the models it may use. */
export type ApiKey = string | { readonly key: string; readonly models?: readonly string[] };

/** Which models a caller's key may use; `undefined` means all of them. */
export type ModelScope = ReadonlySet<string> | undefined;

export function visibleModels(models: readonly ModelInfo[], scope: ModelScope): ModelInfo[] {
  return scope ? models.filter((m) => scope.has(m.id)).map((m) => asSeenBy(m, scope)) : [...models];
}

/** The model as a caller with this scope may see it listed: a fallback it may not use is not named. */
export function asSeenBy(model: ModelInfo, scope: ModelScope): ModelInfo {
  if (!scope || model.fallback === undefined || scope.has(model.fallback)) return model;
  const { fallback: _hidden, ...rest } = model;
  return rest;
}

/**
 * The model named by the request. A model the key may not use is reported exactly like one that
 * does not exist, so keys do not reveal what else is installed.
 */
export function findModel(models: readonly ModelInfo[], id: string, scope: ModelScope, kind?: ModelInfo['kind']): ModelInfo {
  const model = models.find((m) => m.id === id);
  return requireModel(model && (!scope || scope.has(id)) ? model : undefined, id, kind);
}

/**
 * `model` when it exists and is of `kind`: the one place that decides what an unknown model or a
 * model of the wrong kind answers, for the gateway, the model host and the adapters alike.
 */
export function requireModel(model: ModelInfo | undefined, id: string, kind?: ModelInfo['kind']): ModelInfo {
  if (!model) throw modelNotFound(id);
  if (kind && model.kind !== kind) {
    const what = model.kind === 'embedding' ? 'an embedding model' : 'a chat model';
    const use = model.kind === 'embedding' ? '/embeddings' : '/chat/completions or /messages';
    throw new GatewayError('invalid_request', `The model '${id}' is ${what}: use it with ${use}.`, { param: 'model' });
  }
  return model;
}

export function modelNotFound(id: string): GatewayError {
  return new GatewayError('model_not_found', `The model '${id}' does not exist or you do not have access to it.`, { param: 'model' });
}
