/**
 * A transformers.js tokenizer's vocabulary as the constraint compiler reads it (grammar/): the
 * tokens by id and how they spell bytes, read from the tokenizer's own tokenizer.json. Apart from
 * the logits processor (grammar-constraint.ts) so that what only needs the vocabulary (the schema
 * runner of `npx inpage-llm schemas check`) loads none of transformers.js's generation code.
 * @module
 */
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import type { Vocabulary, VocabType } from '../grammar/vocabulary.ts';

interface TokenizerJson {
  readonly decoder?: { readonly type?: string; readonly decoders?: readonly { readonly type?: string }[] } | null;
  readonly model?: { readonly byte_fallback?: boolean };
  readonly normalizer?: { readonly type?: string; readonly prepend?: string; readonly normalizers?: readonly { readonly type?: string }[] } | null;
}

/**
 * The vocabulary of `tokenizer` for a model with `logitsSize` logits a step (padded past the
 * vocabulary, maybe; undefined: the vocabulary's own size) that stops at `stopTokenIds`.
 */
export function tokenizerVocabulary(tokenizer: PreTrainedTokenizer, logitsSize: number | undefined, stopTokenIds: Iterable<number>): Vocabulary {
  const vocab = (tokenizer as unknown as { get_vocab(): Map<string, number> | Record<string, number> }).get_vocab();
  const tokens: string[] = [];
  for (const [token, id] of vocab instanceof Map ? vocab : Object.entries(vocab)) tokens[id] = token;
  for (let id = 0; id < tokens.length; id++) tokens[id] ??= '';
  const json = (tokenizer as unknown as { _tokenizerJSON?: TokenizerJson })._tokenizerJSON ?? {};
  const decoders = [json.decoder?.type, ...(json.decoder?.decoders ?? []).map((d) => d.type)];
  const type: VocabType = decoders.includes('ByteLevel') ? 'byte_level' : decoders.includes('ByteFallback') || json.model?.byte_fallback ? 'byte_fallback' : 'raw';
  const normalizers = [json.normalizer, ...(json.normalizer?.normalizers ?? [])];
  const prependSpace = normalizers.some((n) => n?.type === 'Prepend') || decoders.includes('Metaspace');
  return {
    tokens,
    type,
    prependSpace,
    size: Math.max(logitsSize ?? 0, tokens.length),
    stopTokenIds: [...stopTokenIds],
    // Special tokens (added tokens marked `special`) are never text, whatever their spelling.
    specialTokenIds: [...tokenizer.all_special_ids],
  };
}
