/**
 * A failed `reload()` as a `model_unavailable` error that names the model, the URL that failed
 * when it can be told, and the cause. web-llm's own errors rarely carry the URL: a failed Cache
 * Storage `add()` says only "network error", so when the cause does not say, both URLs are named.
 * @module
 */

import { modelVersion, type ModelRecord } from '@mlc-ai/web-llm';
import { GatewayError } from '../../core/errors.ts';
import type { LoadPhase } from './progress.ts';
import { insufficientStorage, isQuotaError } from '../files/index.ts';

export function loadFailure(modelId: string, record: ModelRecord, cause: unknown, phase: LoadPhase | undefined): GatewayError {
  // web-llm stores each file as it fetches it (Cache Storage or IndexedDB); a full quota ends there.
  if (isQuotaError(cause)) return insufficientStorage(`the WebLLM model "${modelId}" (${record.model_id})`, undefined, undefined);
  const reason = describe(cause);
  const where = failedUrl(record, cause, reason, phase);
  const hint = isLibraryError(cause, reason) ? ` The model library must be built for web-llm's ${modelVersion} runtime.` : '';
  return new GatewayError('model_unavailable', `The WebLLM model "${modelId}" (${record.model_id}) could not be loaded from ${where}: ${reason}.${hint}`, { cause });
}

function failedUrl(record: ModelRecord, cause: unknown, reason: string, phase: LoadPhase | undefined): string {
  const named = /\bhttps?:\/\/[^\s'"<>]+/.exec(reason)?.[0].replace(/[.,;:)\]]+$/, '');
  if (named) return named;
  if (isLibraryError(cause, reason)) return `its model library ${record.model_lib}`;
  // Progress reports start only once the weight list is being fetched, after the config, the library and the tokenizer.
  if (phase !== undefined) return record.model;
  return `${record.model} (model library ${record.model_lib})`;
}

/** A library of another tvmjs ABI, or not a WebAssembly module at all. */
function isLibraryError(cause: unknown, reason: string): boolean {
  const name = cause instanceof Error ? cause.name : '';
  return name === 'LinkError' || name === 'CompileError' || /Cannot find global function|WebAssembly\./.test(reason);
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause).replace(/\.$/, '');
  const text = cause.name && cause.name !== 'Error' && !cause.message.startsWith(cause.name) ? `${cause.name}: ${cause.message}` : cause.message;
  return text.replace(/\.$/, '') || cause.name;
}
