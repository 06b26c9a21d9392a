import { describe, expect, it } from 'vitest';
import { explainMissingPeer } from './missing-peer.ts';

/** An error as Node's ESM loader makes it for a package that is not installed. */
const notFound = (name: string) => Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/inpage-llm/dist/node.js`), { code: 'ERR_MODULE_NOT_FOUND' });

describe('the Node entry without transformers.js', () => {
  it('names the package and the command that installs it', () => {
    const cause = notFound('@huggingface/transformers');
    const error = explainMissingPeer(cause) as Error;
    expect(error.message).toMatch(/@huggingface\/transformers is missing.*npm install @huggingface\/transformers@4\.3\.1$/);
    expect(error.cause).toBe(cause);
  });

  it('names what transformers.js brings when that is what is missing', () => {
    expect((explainMissingPeer(notFound('onnxruntime-node')) as Error).message).toMatch(/onnxruntime-node \(a dependency of @huggingface\/transformers\) is missing.*npm install @huggingface\/transformers/);
  });

  it('leaves any other error as it is', () => {
    const other = notFound('left-pad');
    expect(explainMissingPeer(other)).toBe(other);
    const syntax = new SyntaxError("Unexpected token '@huggingface/transformers'");
    expect(explainMissingPeer(syntax)).toBe(syntax);
  });
});

describe('the entry the package builds', () => {
  it('exports every value src/node/index.ts does', async () => {
    const [entry, index] = await Promise.all([import('./entry.ts'), import('./index.ts')]);
    expect(Object.keys(entry).sort()).toEqual(Object.keys(index).sort());
    expect(entry.createNodeEngine).toBe(index.createNodeEngine);
  });
});
