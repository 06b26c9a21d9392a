/**
 * Consecutive turns of one role as one turn: the one rule every place here follows where it
 * joins turns. Anthropic's Messages API takes consecutive turns of one role as one (its parse
 * joins them, its client side sends them joined); a Responses function call is part of the
 * assistant turn before it; a chat template that wants roles to alternate, and the browser's
 * Prompt API, get them joined. What a turn can hold depends on its form: `join` says whether two
 * fit in one, and makes it.
 * @module
 */
import type { ChatMessage } from './engine.ts';

/** Joins `next` to the last of `turns` where both have one role and `join` can hold both; else appends it. */
export function appendTurn<T extends { readonly role: string }>(turns: T[], next: T, join: (last: T, next: T) => T | undefined): void {
  const last = turns.at(-1);
  const joined = last !== undefined && last.role === next.role ? join(last, next) : undefined;
  if (joined) turns[turns.length - 1] = joined;
  else turns.push(next);
}

/** `turns` with each joined to the one before it where both have one role and `join` can hold both. */
export function joinTurns<T extends { readonly role: string }>(turns: readonly T[], join: (last: T, next: T) => T | undefined): T[] {
  const joined: T[] = [];
  for (const turn of turns) appendTurn(joined, turn, join);
  return joined;
}

/**
 * Two neutral messages of one role as one, where one message holds both in order: a user's or
 * the assistant's text joins text, a blank line apart; calls alone join the assistant turn
 * before them, after its text and calls. A tool result answers its own call and a system message
 * is placed by the template, so each stays apart; so do images, kept in the parts they came in,
 * and text after calls, which end a turn.
 */
export function joinMessages(last: ChatMessage, next: ChatMessage): ChatMessage | undefined {
  if ((last.role !== 'user' && last.role !== 'assistant') || last.parts || next.parts) return undefined;
  if (last.role === 'assistant' && next.content === '' && next.toolCalls?.length) return { role: 'assistant', content: last.content, toolCalls: [...(last.toolCalls ?? []), ...next.toolCalls] };
  if (last.toolCalls?.length || next.toolCalls?.length) return undefined;
  return { role: last.role, content: `${last.content}\n\n${next.content}` };
}
