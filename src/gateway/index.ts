/** The gateway's public surface. @module */
export { createGateway } from './create-gateway.ts';
export type { Gateway, GatewayOptions, RequestRuntime } from './create-gateway.ts';
export type { ApiKey } from './auth.ts';
export { GatewayError, isGatewayError } from '../core/errors.ts';
export type { GatewayErrorCode, GatewayErrorData } from '../core/errors.ts';
export type { ChatEvent, ChatMessage, ChatRequest, EmbedRequest, EmbedResult, Engine, ModelInfo, CallOptions } from '../core/engine.ts';
export { createMemoryResponseStore, DEFAULT_STORED_RESPONSES } from '../protocol/openai/responses/store.ts';
export type { ResponseStore, StoredResponse, ResponseObject } from '../protocol/openai/responses/store.ts';
export type { ConversationItem } from '../protocol/openai/responses/items.ts';
export type { ConversationStore, StoredConversation, ConversationObject } from '../protocol/openai/conversations/store.ts';
