/**
 * What the chat pane asks of a reply, whichever flavour carries it: the settings each flavour's
 * request is built from. A file of its own, so that chat-flavours.ts (which hands Responses
 * requests to responses-flavour.ts) and responses-flavour.ts both import it, not each other.
 * @module
 */
import type { ToolChoice, ToolDef } from './chat-wire.ts';

/** The API the pane sends a chat in: one of the two chat APIs, or OpenAI's Responses. */
export type Flavour = 'openai' | 'anthropic' | 'responses';

export interface ChatSettings {
  readonly flavour: Flavour;
  readonly model: string;
  readonly system: string;
  /** Undefined: the server's default. */
  readonly temperature?: number;
  readonly maxTokens: number;
  readonly stop: readonly string[];
  /** False: the reply comes as one JSON body rather than SSE events. */
  readonly stream: boolean;
  /** A JSON schema the reply must match: response_format, text.format, or Anthropic's forced tool. */
  readonly schema?: Record<string, unknown>;
  readonly tools?: readonly ToolDef[];
  readonly toolChoice?: ToolChoice;
  /** False: at most one call per reply. */
  readonly parallelToolCalls?: boolean;
  /** The model thinks first: the Anthropic flavour asks to see its thinking (the others always show it). */
  readonly thinks?: boolean;
}
