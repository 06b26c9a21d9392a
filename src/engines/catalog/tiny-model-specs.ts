/**
 * Specs for the generated test models (scripts/tiny-models), so tests and the demo serve them
 * with the facts the generator fixed.
 * @module
 */

import type { TransformersModelSpec } from './transformers-model-spec.ts';

export const tinyModelSpecs: readonly TransformersModelSpec[] = [
  {
    info: {
      id: 'tiny-chat', kind: 'chat', engine: 'transformers', displayName: 'Tiny Chat (test model)',
      contextWindow: 2048, maxOutputTokens: 256,
    },
    source: 'tiny-chat',
    bundled: true,
  },
  {
    // Declared Matryoshka-capable so the `dimensions` path runs on real inference too.
    info: { id: 'tiny-embed', kind: 'embedding', engine: 'transformers', displayName: 'Tiny Embed (test model)', contextWindow: 128, dimensions: 32, supportsDimensions: true },
    source: 'tiny-embed',
    bundled: true,
    pooling: 'mean',
    normalize: true,
  },
];
