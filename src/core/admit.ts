/**
 * Admission: what one model is given of a request that was parsed for every model alike. A wire
 * format's parse reads the caller's body into the neutral request without knowing which model
 * will serve it, noting as it reads what the request asks of that model (`Ask`: a capability, a
 * grammar for a schema, room for a cap), each with the caller's name for the field and the
 * refusal in its API's words. Admission answers those for each model tried (the one asked for,
 * then its fallbacks: the body is not parsed again), then fills in what depends on the model: the
 * cap the caller left out, the thinking budget an effort stands for, the grammar's form of the
 * schema. The chat path admits (src/gateway/chat-path.ts); see docs/guides/architecture.md.
 * @module
 */
import type { ChatRequest, ModelInfo, NeutralRequest, OutputConstraint } from './engine.ts';
import { GatewayError } from './errors.ts';
import { invalid } from './fields.ts';
import { checkEnforceable, checkMatchable, toGrammarSchema } from './json-schema-support.ts';
import { thinkingBudgetFor } from './reasoning.ts';

/** A refusal in the caller's words; in `message`, `{model}` stands for the model's id and `{limit}` for its output cap. */
export interface Refusal {
  readonly param: string;
  readonly message: string;
}

/** One thing a request asks of the model that serves it. */
export type Ask =
  /**
   * A model that calls tools, answers in JSON, or thinks (its ModelInfo's `toolCalling`,
   * `structuredOutput`, `reasoning`). `local`: asked of a model on this device only (a remote
   * model's server knows what it does).
   */
  | { readonly need: 'toolCalling' | 'structuredOutput' | 'reasoning'; readonly refusal: Refusal; readonly local?: true }
  /** An engine that biases token choice (`logitBias`); a remote model's server has token ids of its own, and takes or refuses them itself. */
  | { readonly need: 'logitBias'; readonly refusal: Refusal }
  /**
   * A grammar that enforces `schema` exactly (json-schema-support.ts), its refusal naming `param`
   * (default: `response_format.json_schema.schema`); a remote model's server enforces it itself.
   */
  | { readonly need: 'grammar'; readonly schema: unknown; readonly param?: string; readonly where?: string; readonly tool?: true }
  /** Room for a cap of `tokens` (the model's `maxOutputTokens`, else its window); a remote model's server holds it to its own limit. */
  | { readonly need: 'room'; readonly tokens: number; readonly refusal: Refusal }
  /**
   * What no model here does (`n` > 1, logprobs); or, `local`, what only a remote model's server is
   * sent (an image) or judges by its own rules (Anthropic's thinking settings), so a model on this
   * device refuses it.
   */
  | { readonly need: 'nothing'; readonly refusal: Refusal; readonly local?: true };

/** How a parsed request speaks of itself in the caller's terms. */
export interface CallerNames {
  /** What the request asks of its model, in the order its parse read them. */
  readonly asks: readonly Ask[];
  /**
   * The caller's names for the fields that engines and remote servers' clients name in their own
   * refusals (chat completions' names: `messages`, `response_format`); one not here they name as
   * the caller does.
   */
  readonly params?: Readonly<Record<string, string>>;
}

/**
 * A parse that stopped at a fault of the request's own (a 400): what it asked of a model before
 * the fault, and the fault. A model that refuses one of those asks reports that instead, so a
 * request with several faults gets the first in reading order, whichever kind it is.
 */
export interface Unread {
  readonly names: CallerNames;
  readonly fault: GatewayError;
}

/** Runs a parse that notes its asks as it reads: its result with its names, or where a fault stopped it. */
export function reading<P extends object>(read: (asks: Ask[]) => P, params?: CallerNames['params']): (P & { readonly names: CallerNames }) | Unread {
  const asks: Ask[] = [];
  const names: CallerNames = params ? { asks, params } : { asks };
  try {
    return { ...read(asks), names };
  } catch (error) {
    if (error instanceof GatewayError) return { names, fault: error };
    throw error;
  }
}

/** What `model` is given of `request`; throws the first of its asks the model does not meet. */
export function admit(request: NeutralRequest, names: CallerNames, model: ModelInfo): ChatRequest {
  const refused = refusalOf(names.asks, model);
  if (refused) throw refused;
  const { maxTokens, ...rest } = request;
  const budget = request.thinkingBudget ?? (request.reasoningEffort && model.reasoning ? thinkingBudgetFor(model.reasoning, request.reasoningEffort) : undefined);
  return {
    ...rest,
    model: model.id,
    maxTokens: maxTokens ?? capOf(model),
    ...(maxTokens !== undefined ? { maxTokensSet: true } : {}),
    ...(budget !== undefined ? { thinkingBudget: budget } : {}),
    ...(model.upstream === undefined && request.output ? { enforcedOutput: grammarForm(request.output) } : {}),
  };
}

/** A parse's result admitted for `model`: the request it is given, or the caller's first problem with the body, thrown. */
export function admitFor<P extends { readonly chat: NeutralRequest; readonly names: CallerNames }>(parsed: P | Unread, model: ModelInfo): { readonly parsed: P; readonly chat: ChatRequest } {
  if ('fault' in parsed) throw faultFor(parsed, model);
  return { parsed, chat: admit(parsed.chat, parsed.names, model) };
}

/** What the caller is told of an unread request for `model`: the first ask it does not meet, else the fault. */
export function faultFor(unread: Unread, model: ModelInfo | undefined): GatewayError {
  return refusalOf(unread.names.asks, model) ?? unread.fault;
}

/**
 * The first of `asks` that `model` does not meet, as the caller's refusal; undefined when it
 * meets them all. `model` undefined (the model named is not known here) has no capability, and
 * no room.
 */
export function refusalOf(asks: readonly Ask[], model: ModelInfo | undefined): GatewayError | undefined {
  const local = model?.upstream === undefined;
  for (const ask of asks) {
    const refused = refusalFor(ask, model, local);
    if (refused) return refused;
  }
  return undefined;
}

function refusalFor(ask: Ask, model: ModelInfo | undefined, local: boolean): GatewayError | undefined {
  switch (ask.need) {
    case 'toolCalling':
    case 'structuredOutput':
    case 'reasoning':
      if (ask.local && !local) return undefined;
      return model?.[ask.need] ? undefined : refuse(ask.refusal, model);
    case 'logitBias':
      return !local || model?.logitBias ? undefined : refuse(ask.refusal, model);
    case 'grammar':
      if (!local) return undefined;
      try {
        if (model?.schemaMatcher && !ask.tool) checkMatchable(ask.schema, ask.param, ask.where);
        else checkEnforceable(ask.schema, '#', ask.param, ask.where);
        return undefined;
      } catch (error) {
        return GatewayError.from(error);
      }
    case 'room':
      return !local || (model !== undefined && ask.tokens <= capOf(model)) ? undefined : refuse(ask.refusal, model);
    case 'nothing':
      return ask.local && !local ? undefined : refuse(ask.refusal, model);
  }
}

function refuse({ param, message }: Refusal, model: ModelInfo | undefined): GatewayError {
  const words = message.replaceAll('{model}', model?.id ?? '').replaceAll('{limit}', model ? String(capOf(model)) : '');
  return invalid(param, words);
}

/** The largest cap the model takes, and its cap where the caller set none. */
const capOf = (model: ModelInfo): number => model.maxOutputTokens ?? model.contextWindow;

/** What a local engine enforces of the output asked for: the grammar's form of its schema. */
function grammarForm(output: OutputConstraint): OutputConstraint {
  return output.kind === 'json_object' ? output : { kind: 'json_schema', schema: toGrammarSchema(output.schema) as Record<string, unknown>, strict: output.strict };
}

/**
 * A refusal from below admission (an engine, a remote server's client side), which names fields
 * as the neutral request's own (chat completions') names, in the caller's: its `param` looked up
 * in `names.params`. A remote server's own answer is passed on as it came.
 */
export function inCallerTerms(error: GatewayError, names: CallerNames): GatewayError {
  const params = names.params;
  // Own keys only: a field may be named 'constructor'.
  const param = error.param === undefined || error.upstream || !params || !Object.hasOwn(params, error.param) ? undefined : params[error.param];
  if (param === undefined) return error;
  return new GatewayError(error.code, error.message, { param, ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}) });
}
