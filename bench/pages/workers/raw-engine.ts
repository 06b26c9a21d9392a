/**
 * The engine's own use, with no product code: transformers.js called directly in a plain worker,
 * as an app would without inpage-llm. Same model files (/inpage-llm/models/), same onnxruntime wasm, same
 * device and the same pipeline options as the product's adapter (mean pooling, normalised; greedy
 * decoding). A minimal postMessage protocol: `{id, op, ...}` in, `{id, ...}` out.
 * @module
 */
import { env, pipeline, TextStreamer, type FeatureExtractionPipeline, type TextGenerationPipeline } from '@huggingface/transformers';

declare const self: DedicatedWorkerGlobalScope;

env.localModelPath = '/inpage-llm/models/';
env.allowLocalModels = true;
env.allowRemoteModels = false;
const wasm = env.backends.onnx?.wasm;
if (wasm) wasm.wasmPaths = { wasm: new URL('/inpage-llm/ort-wasm-simd-threaded.asyncify.wasm', self.location.href).href };

type Message =
  | { id: number; op: 'ping' }
  | { id: number; op: 'load'; device: 'wasm' | 'webgpu'; chat?: string; embedding?: string }
  | { id: number; op: 'embed'; texts: string[]; batch?: number }
  | { id: number; op: 'tokenize'; texts: string[] }
  | { id: number; op: 'generate'; messages: { role: string; content: string }[]; maxNewTokens: number; stream: boolean };

let chat: TextGenerationPipeline | undefined;
let embedder: FeatureExtractionPipeline | undefined;

async function handle(message: Message): Promise<void> {
  const { id } = message;
  switch (message.op) {
    case 'ping':
      self.postMessage({ id });
      return;
    case 'load': {
      const ms: Record<string, number> = {};
      if (message.chat) {
        const t0 = performance.now();
        chat = (await pipeline('text-generation', message.chat, { device: message.device, local_files_only: true })) as TextGenerationPipeline;
        ms[message.chat] = performance.now() - t0;
      }
      if (message.embedding) {
        const t0 = performance.now();
        embedder = (await pipeline('feature-extraction', message.embedding, { device: message.device, local_files_only: true })) as FeatureExtractionPipeline;
        ms[message.embedding] = performance.now() - t0;
      }
      self.postMessage({ id, ms });
      return;
    }
    case 'embed': {
      const { texts } = message;
      const batch = message.batch ?? texts.length;
      const parts: Float32Array[] = [];
      let width = 0;
      for (let start = 0; start < texts.length; start += batch) {
        const output = await embedder!(texts.slice(start, start + batch), { pooling: 'mean', normalize: true });
        parts.push(output.data as Float32Array);
        width = output.dims.at(-1) ?? 0;
      }
      const data = parts.length === 1 ? parts[0]!.slice() : new Float32Array(parts.reduce((n, p) => n + p.length, 0));
      if (parts.length > 1) parts.reduce((offset, p) => (data.set(p, offset), offset + p.length), 0);
      self.postMessage({ id, data, width }, [data.buffer]);
      return;
    }
    case 'tokenize': {
      const counts = message.texts.map((text) => embedder!.tokenizer.encode(text).length);
      self.postMessage({ id, counts });
      return;
    }
    case 'generate': {
      let tokens = 0;
      const streamer = new TextStreamer(chat!.tokenizer, {
        skip_prompt: true,
        callback_function: () => {},
        token_callback_function: () => {
          tokens++;
          if (message.stream) self.postMessage({ id, token: true });
        },
      });
      await chat!(message.messages as never, { max_new_tokens: message.maxNewTokens, do_sample: false, streamer });
      self.postMessage({ id, done: true, tokens });
      return;
    }
  }
}

self.onmessage = (event: MessageEvent<Message>) => {
  handle(event.data).catch((error: unknown) => self.postMessage({ id: event.data.id, error: String((error as Error)?.stack ?? error) }));
};
