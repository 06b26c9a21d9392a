/**
 * What a model file must be, when the catalog knows: its size in bytes, and a content hash in
 * Subresource Integrity form (`sha256-<base64>`, the form web-llm's `integrity` takes too). A file
 * that does not match is refused before any cache keeps it, naming the URL, what was expected and
 * what came.
 * @module
 */
import { GatewayError } from '../../core/errors.ts';

export interface FileCheck {
  /** The file's size in bytes, as served (uncompressed). */
  readonly bytes?: number;
  /** `sha256-…`, `sha384-…` or `sha512-…` (base64 digest), as in an HTML `integrity` attribute. */
  readonly integrity?: string;
}

/** A model's files by path in its folder (`onnx/model.onnx`), each with what it must be. */
export type FileChecks = Readonly<Record<string, FileCheck>>;

const ALGORITHMS = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' } as const;
const SRI = /^(sha256|sha384|sha512)-([A-Za-z0-9+/]+={0,2})$/;

export function isIntegrity(value: unknown): value is string {
  return typeof value === 'string' && SRI.test(value);
}

/** The SRI string of `data` with the algorithm `like` names (default sha256). */
export async function integrityOf(data: BufferSource, like = 'sha256-'): Promise<string> {
  const algorithm = (SRI.exec(like)?.[1] ?? like.split('-')[0] ?? 'sha256') as keyof typeof ALGORITHMS;
  const digest = new Uint8Array(await crypto.subtle.digest(ALGORITHMS[algorithm] ?? 'SHA-256', data));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return `${algorithm in ALGORITHMS ? algorithm : 'sha256'}-${btoa(binary)}`;
}

/** Throws `model_unavailable` naming the URL when `data` is not the file `check` describes. */
export async function verifyFile(url: string, data: Uint8Array | ArrayBuffer, check: FileCheck): Promise<void> {
  checkSize(url, data.byteLength, check);
  if (check.integrity !== undefined) {
    const actual = await integrityOf(data as BufferSource, check.integrity);
    if (actual !== check.integrity) throw corruptFile(url, `its hash is ${actual}, the catalog says ${check.integrity}`);
  }
}

/** Throws `model_unavailable` naming the URL when `size` is not the catalog's. */
export function checkSize(url: string, size: number, check: FileCheck): void {
  if (check.bytes !== undefined && size !== check.bytes) throw corruptFile(url, `it is ${size} bytes, the catalog says ${check.bytes}`);
}

export function corruptFile(url: string, why: string): GatewayError {
  return new GatewayError(
    'model_unavailable',
    `The model file ${url} is not the file the catalog names: ${why}. It was not kept; a corrupted or partly uploaded copy on the server, or a proxy that altered it, does this.`,
  );
}

/** The check for `url`, when it is one of the files of a model whose folder path is a prefix of it. */
export function checkFor(url: string, folders: ReadonlyMap<string, FileChecks>): FileCheck | undefined {
  for (const [folder, files] of folders) {
    const file = fileInFolder(url, folder);
    if (file !== undefined && Object.hasOwn(files, file)) return files[file];
  }
  return undefined;
}

/**
 * The path of `url` inside the model folder `folder` (`onnx/model.onnx`), in the local layout
 * (`…/<folder>/<file>`) or the hub's (`…/<folder>/resolve/<revision>/<file>`); undefined when the
 * URL is not under that folder.
 */
export function fileInFolder(url: string, folder: string): string | undefined {
  const path = pathOf(url);
  const marker = `/${folder.replace(/^\/+|\/+$/g, '')}/`;
  const at = path.indexOf(marker);
  return at === -1 ? undefined : path.slice(at + marker.length).replace(/^resolve\/[^/]+\//, '');
}

function pathOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url, 'http://relative.invalid').pathname);
  } catch {
    return url;
  }
}

/**
 * The header a checked file carries into the engine's cache: the hash it was checked against. A
 * cached copy with this header and the catalog's size was checked on its way in and is trusted
 * without hashing it again (about 5 s for a 0.9 GB model on a laptop CPU, at every load); one
 * without it (stored by something else, or by an older version) is hashed before it is used.
 */
export const CHECKED_HEADER = 'x-inpage-llm-checked';
