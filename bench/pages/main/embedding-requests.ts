/**
 * An embeddings request as a client makes it: the body parsed, base64 vectors decoded to
 * Float32Array (what the openai client does with its default `encoding_format: base64`), each
 * vector checked to sit at its own index.
 * @module
 */
import { expectOk } from './client.ts';
import { embedBody, post } from './workload.ts';

interface EmbeddingsBody {
  data: { index: number; embedding: string | number[] }[];
  usage: { prompt_tokens: number };
}

/** The vectors of one request, and the prompt tokens it was charged. */
export interface EmbedReply {
  vectors: (Float32Array | number[])[];
  tokens: number;
}

const fromBase64 = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
/** What a client does with `encoding_format: base64`: bytes to a Float32Array. */
export function decodeBase64(text: string): Float32Array {
  const bytes = fromBase64 ? fromBase64(text) : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** The first vector of a base64 answer (the one-text requests of the latency section). */
export async function firstVector(response: Response): Promise<Float32Array> {
  return decodeBase64(((await expectOk(response, 'embeddings').json()) as EmbeddingsBody).data[0]!.embedding as string);
}

export async function embedRequest(fetcher: typeof fetch, url: string, input: string | string[], encoding: 'base64' | 'float'): Promise<EmbedReply> {
  const body = (await expectOk(await fetcher(url, post(embedBody(input, encoding))), 'embeddings').json()) as EmbeddingsBody;
  const vectors = body.data.map((d, i) => {
    if (d.index !== i) throw new Error(`embeddings: data[${i}].index is ${d.index}`);
    return typeof d.embedding === 'string' ? decodeBase64(d.embedding) : d.embedding;
  });
  return { vectors, tokens: body.usage.prompt_tokens };
}
