import { describe, expect, it } from 'vitest';
import { createFileProgress, type FileBytes } from './file-progress.ts';

describe('file progress', () => {
  it("tells a load the bytes of its own model's files only, by their path in its folder, in the local and the hub layouts", () => {
    const progress = createFileProgress();
    const embed: FileBytes[] = [];
    const hub: FileBytes[] = [];
    progress.watch('minilm', { onBytes: (bytes) => embed.push(bytes) });
    progress.watch('Xenova/all-MiniLM-L6-v2', { onBytes: (bytes) => hub.push(bytes) });
    progress.report('https://app.test/inpage-llm/models/minilm/onnx/model.onnx', 10, 100, false);
    progress.report('https://app.test/inpage-llm/models/qwen/onnx/model_q4.onnx', 5, 50, false);
    progress.report('https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/tokenizer.json', 7, 7, true);
    expect(embed).toEqual([{ file: 'onnx/model.onnx', loaded: 10, total: 100, cached: false }]);
    expect(hub).toEqual([{ file: 'tokenizer.json', loaded: 7, total: 7, cached: true }]);
  });

  it('stops telling a load once it stops watching, and a throwing listener does not stop the others', () => {
    const progress = createFileProgress();
    const seen: number[] = [];
    const stop = progress.watch('m', {
      onBytes: () => {
        throw new Error('broken listener');
      },
    });
    progress.watch('m', { onBytes: (bytes) => seen.push(bytes.loaded) });
    expect(() => progress.report('/models/m/config.json', 1, 2, false)).not.toThrow();
    stop();
    progress.report('/models/m/config.json', 2, 2, false);
    expect(seen).toEqual([1, 2]);
  });

  it("tells a load of its files' failures, naming the file", () => {
    const progress = createFileProgress();
    const failures: [string, unknown][] = [];
    progress.watch('m', { onBytes: () => {}, onFailure: (file, error) => failures.push([file, error]) });
    const error = new Error('cut off');
    progress.fail('/models/m/onnx/model.onnx', error);
    progress.fail('/models/other/onnx/model.onnx', new Error('not ours'));
    expect(failures).toEqual([['onnx/model.onnx', error]]);
  });
});
