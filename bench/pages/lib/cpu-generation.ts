/**
 * One timed greedy completion on a transformers.js text-generation pipeline, the same in Node
 * (onnxruntime-node, bench/driver/cpu-paths-node.ts) and in a browser worker (onnxruntime-web,
 * workers/cpu-path-ort.ts): first token and decode rate from each token's arrival.
 * @module
 */
import { TextStreamer, type TextGenerationPipeline } from '@huggingface/transformers';

export interface TimedGeneration {
  readonly promptTokens: number;
  readonly firstTokenMs: number;
  readonly tokens: number;
  readonly decodeTokensPerSecond: number;
}

/** Decode rate from token arrival times: tokens after the first over the time since it. */
export function decodeRate(times: readonly number[]): number {
  if (times.length < 2) return 0;
  return (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000);
}

export async function timedGeneration(chat: TextGenerationPipeline, messages: { role: string; content: string }[], maxNewTokens: number, now: () => number): Promise<TimedGeneration> {
  const encoded = chat.tokenizer.apply_chat_template(messages as never, { add_generation_prompt: true, tokenize: true, return_tensor: false, return_dict: true }) as unknown as { input_ids: number[] };
  const promptTokens = encoded.input_ids.length;
  const times: number[] = [];
  const streamer = new TextStreamer(chat.tokenizer, { skip_prompt: true, callback_function: () => {}, token_callback_function: () => void times.push(now()) });
  const start = now();
  await chat(messages as never, { max_new_tokens: maxNewTokens, min_new_tokens: maxNewTokens, do_sample: false, streamer });
  return { promptTokens, firstTokenMs: times[0]! - start, tokens: times.length, decodeTokensPerSecond: decodeRate(times) };
}
