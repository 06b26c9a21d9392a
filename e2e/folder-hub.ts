/**
 * Serves a folder of model folders in the Hugging Face hub's layout (`/<repo>/resolve/main/<file>`,
 * repo `test/<folder>`) on an origin of its own, with CORS and the one-byte range probes
 * transformers.js sends, as the hub answers them: a generated model is then loaded as an app's
 * model from the hub would be (`transformersRemoteHost` set to `url`).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface FolderHub {
  /** The origin with a trailing slash: a `transformersRemoteHost`. */
  readonly url: string;
  close(): Promise<void>;
}

/** The repo id under which `folder` (a sub-folder of the served directory) answers. */
export const hubRepo = (folder: string) => `test/${folder}`;

export async function serveFolderHub(dir: string): Promise<FolderHub> {
  const server = createServer(async (req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') return void res.writeHead(204, { 'access-control-allow-headers': '*', 'access-control-allow-methods': 'GET' }).end();
    const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
    const match = /^\/test\/([^/]+)\/resolve\/main\/(.+)$/.exec(path);
    const body = match && !path.includes('..') ? await readFile(join(dir, match[1]!, match[2]!)).catch(() => undefined) : undefined;
    if (!body) return void res.writeHead(404).end('Entry not found');
    const type = path.endsWith('.json') ? 'application/json' : 'application/octet-stream';
    // transformers.js probes each file's size with a one-byte range, as the hub answers it.
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range) {
      const [from, to] = [Number(range[1]), Math.min(Number(range[2]), body.byteLength - 1)];
      res.writeHead(206, { 'content-type': type, 'content-range': `bytes ${from}-${to}/${body.byteLength}`, 'access-control-expose-headers': 'content-range' });
      return void res.end(body.subarray(from, to + 1));
    }
    res.writeHead(200, { 'content-type': type, 'content-length': body.byteLength }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
