/** The page side of workers/raw-engine.ts (transformers.js called directly, no product code). @module */

export interface RawEngine {
  ping(): Promise<void>;
  load(device: 'wasm' | 'webgpu', models: { chat?: string; embedding?: string }): Promise<Record<string, number>>;
  /** One pipeline call for all texts (or one per `batch` texts); vectors as views on the transferred buffer. */
  embed(texts: readonly string[], batch?: number): Promise<Float32Array[]>;
  /** `tokenizer.encode` of each text alone; resolves to the token counts. */
  tokenize(texts: readonly string[]): Promise<number[]>;
  /** Greedy generation; `onToken` (if given) is called as each token's message arrives. Resolves to the token count. */
  generate(messages: readonly { role: string; content: string }[], maxNewTokens: number, onToken?: () => void): Promise<number>;
  terminate(): void;
}

type Reply = { id: number; counts?: number[]; error?: string; done?: boolean; token?: boolean; tokens?: number; data?: Float32Array; width?: number; ms?: Record<string, number> };

export function spawnRawEngine(): RawEngine {
  const worker = new Worker(new URL('../workers/raw-engine.ts', import.meta.url), { type: 'module', name: 'bench-raw-engine' });
  let nextId = 0;
  const handlers = new Map<number, (reply: Reply) => void>();
  worker.onmessage = (event: MessageEvent<Reply>) => handlers.get(event.data.id)?.(event.data);

  const call = (message: Record<string, unknown>, onToken?: () => void): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      handlers.set(id, (reply) => {
        if (reply.token) return onToken?.();
        handlers.delete(id);
        if (reply.error) reject(new Error(`raw engine: ${reply.error}`));
        else resolve(reply);
      });
      worker.postMessage({ id, ...message });
    });

  return {
    async ping() {
      await call({ op: 'ping' });
    },
    async load(device, models) {
      return (await call({ op: 'load', device, ...models })).ms!;
    },
    async tokenize(texts) {
      return (await call({ op: 'tokenize', texts })).counts!;
    },
    async embed(texts, batch) {
      const { data, width } = await call({ op: 'embed', texts, batch });
      const rows: Float32Array[] = [];
      for (let offset = 0; offset < data!.length; offset += width!) rows.push(data!.subarray(offset, offset + width!));
      return rows;
    },
    async generate(messages, maxNewTokens, onToken) {
      return (await call({ op: 'generate', messages, maxNewTokens, stream: onToken !== undefined }, onToken)).tokens!;
    },
    terminate: () => worker.terminate(),
  };
}
