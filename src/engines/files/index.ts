/**
 * Model files: how the engines fetch, resume, check, cache and make room for them. What the other
 * rooms of src/engines (and the playground, through src/engines/index.ts) use of this room, named
 * in one place: they import it from here, not a file of the room (scripts/check-imports.ts fails
 * one that does). The room's own files and tests import each other directly.
 * @module
 */

/** A file's size and hash as the catalog states them, and the check of its bytes against them. */
export { CHECKED_HEADER, checkFor, corruptFile, fileInFolder, isIntegrity, verifyFile, type FileCheck, type FileChecks } from './file-integrity.ts';
/** The fetch the engines read model files with: HTML pages refused, bytes checked, room checked. */
export { checkedModelFetch, refusedBeforeBody } from './model-file-fetch.ts';
/** A download that resumes where a cut connection stopped it. */
export type { ResumeOptions } from './resumable-download.ts';
/** The bytes of unfinished downloads, kept so that a reload resumes them. */
export { clearFinishedParts, createCachePartialStore } from './partial-store.ts';
/** Load progress from the files as they arrive, not from the engine. */
export { createFileProgress, type FileBytes, type FileProgress } from './file-progress.ts';
/** The engines' download caches, grouped per model as `GET /models` and the playground count them. */
export { bytesOf, deleteGroups, groupsForModel, listCachedModels, partialBytesOf, TRANSFORMERS_CACHE, WEBLLM_CACHES, type CachedGroup } from './model-cache.ts';
/** Room in the browser's storage, and what a quota error says. */
export { checkRoom, insufficientStorage, isQuotaError, quotaExceeded } from './storage.ts';
