/**
 * Turns the token ids `generate` pushes into one text delta per generated token.
 *
 * Decoding token by token is wrong for byte-level vocabularies (a character can span tokens) and
 * for decoders that treat the first token specially, so each delta is the difference between two
 * decodes of a short window ending at the new token (the incremental-detokenisation scheme of
 * text-generation-inference). While the decoded text ends in an incomplete UTF-8 sequence (U+FFFD),
 * that token's event is held back and released, with '' text, once the character completes; at the
 * end any held text is flushed as decoded, so the concatenated deltas always equal the full decode.
 * @module
 */

import { BaseStreamer } from '@huggingface/transformers';

export interface TokenDecoder {
  decode(ids: number[], options: { skip_special_tokens: boolean }): string;
}

export interface TokenStreamerOptions {
  readonly tokenizer: TokenDecoder;
  /** Ends the output: not emitted as a token event; `sawEnd` reports it instead. */
  readonly endTokenIds: ReadonlySet<number>;
  /** Called exactly once per generated token other than an end token. */
  readonly onToken: (text: string) => void;
}

export class TokenStreamer extends BaseStreamer {
  /** True once the model produced an end token (a natural stop). */
  sawEnd = false;
  /** Generated tokens other than the end token. */
  readonly ids: number[] = [];
  private readonly options: TokenStreamerOptions;
  private promptSeen = false;
  private prefixOffset = 0;
  private readOffset = 0;
  private held = 0;

  constructor(options: TokenStreamerOptions) {
    super();
    this.options = options;
  }

  override put(value: bigint[][]): void {
    // The first call carries the prompt.
    if (!this.promptSeen) {
      this.promptSeen = true;
      return;
    }
    const token = value[0]?.[0];
    if (token === undefined) return;
    const id = Number(token);
    if (this.options.endTokenIds.has(id)) {
      this.sawEnd = true;
      return;
    }
    this.ids.push(id);
    this.held++;
    const prefix = this.decode(this.prefixOffset, this.readOffset);
    const text = this.decode(this.prefixOffset, this.ids.length);
    if (text.endsWith('\uFFFD')) return;
    // A token that adds nothing (a skipped special token) keeps the window where it is.
    const delta = text.length > prefix.length ? text.slice(prefix.length) : '';
    if (delta) {
      this.prefixOffset = this.readOffset;
      this.readOffset = this.ids.length;
    }
    this.flush(delta);
  }

  override end(): void {
    if (this.held === 0) return;
    const prefix = this.decode(this.prefixOffset, this.readOffset);
    this.flush(this.decode(this.prefixOffset, this.ids.length).slice(prefix.length));
  }

  /** Emits the held events: '' for all but the last, which carries `text`. */
  private flush(text: string): void {
    for (; this.held > 1; this.held--) this.options.onToken('');
    this.held = 0;
    this.options.onToken(text);
  }

  private decode(from: number, to: number): string {
    return from >= to ? '' : this.options.tokenizer.decode(this.ids.slice(from, to), { skip_special_tokens: true });
  }
}
