/**
 * What e2e/gguf-llama-cpp.spec.ts drives: llama.cpp compiled to WebAssembly (@wllama/wllama, the
 * CPU-path benchmark's candidate) loading a GGUF this project wrote (src/tiny-models/gguf.ts), and
 * one greedy completion. The test calls `window.llamaCpp.complete` through `page.evaluate`.
 */
import { Wllama } from '@wllama/wllama/esm/index.js';
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';

const quiet = { debug: () => {}, log: () => {}, warn: console.warn.bind(console), error: console.error.bind(console) };

async function complete(ggufUrl: string, prompt: string, tokens: number): Promise<{ text: string; promptTokens: number; completionTokens: number }> {
  const wllama = new Wllama({ default: wasmUrl }, { suppressNativeLog: true, logger: quiet });
  const blob = await (await fetch(ggufUrl)).blob();
  await wllama.loadModel([blob], { n_threads: 1, n_ctx: 512, n_gpu_layers: 0, n_parallel: 1 });
  try {
    const out = await wllama.createCompletion({ prompt, max_tokens: tokens, temperature: 0, stream: false });
    return { text: out.choices[0]!.text, promptTokens: out.usage.prompt_tokens, completionTokens: out.usage.completion_tokens };
  } finally {
    await wllama.exit();
  }
}

declare global {
  interface Window {
    llamaCpp: { complete: typeof complete };
  }
}
window.llamaCpp = { complete };
document.body.dataset.ready = 'true';
