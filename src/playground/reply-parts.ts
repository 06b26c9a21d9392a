/**
 * What a reply holds besides its text: tool calls as cards that fill in as their arguments
 * stream, the parsed JSON of a structured reply, and a small form that answers calls with results.
 * @module
 */
import type { ToolDelta } from './stream-update.ts';
import type { ToolCall } from './chat-wire.ts';
import { h } from './dom.ts';

function parse(text: string): { value: unknown; error?: undefined } | { value?: undefined; error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Tool call cards in `parent`, one per call index, created as each call's first piece arrives. */
export function createToolCards(parent: HTMLElement) {
  const list = h('div', { class: 'tool-calls' });
  const cards = new Map<number, { id: string; name: string; args: Text; pre: HTMLElement; card: HTMLElement }>();
  return {
    get size(): number {
      return cards.size;
    },
    apply(delta: ToolDelta): void {
      let entry = cards.get(delta.index);
      if (!entry) {
        if (!list.isConnected) parent.append(list);
        const name = delta.name ?? '?';
        const args = document.createTextNode('');
        const pre = h('pre', { class: 'code small tool-args', 'data-testid': 'tool-arguments', tabindex: 0, 'aria-label': `Arguments of ${name}` }, args);
        const card = h(
          'section',
          { class: 'tool-call', 'data-testid': 'tool-call', 'aria-label': `Tool call: ${name}` },
          h('div', { class: 'tool-call-head' }, h('span', { class: 'tool-label' }, 'Tool call'), h('strong', { class: 'tool-name', 'data-testid': 'tool-name' }, name), delta.id ? h('code', { class: 'tool-id' }, delta.id) : null),
          pre,
        );
        list.append(card);
        entry = { id: delta.id ?? '', name, args, pre, card };
        cards.set(delta.index, entry);
      }
      if (delta.arguments) entry.args.appendData(delta.arguments);
    },
    /**
     * At the reply's end: each card's arguments pretty-printed, or why they do not parse (a call
     * cut short). Returns the calls that are whole, the ones a conversation can go on from.
     */
    settle(cut: boolean): ToolCall[] {
      const whole: ToolCall[] = [];
      for (const [, entry] of [...cards].sort(([a], [b]) => a - b)) {
        const text = entry.args.data || '{}';
        const parsed = parse(text);
        entry.card.dataset.valid = String(parsed.error === undefined);
        if (parsed.error === undefined) {
          entry.pre.textContent = JSON.stringify(parsed.value, null, 2);
          whole.push({ id: entry.id, name: entry.name, arguments: text });
        } else {
          entry.card.append(h('p', { class: 'field-error' }, `The arguments are not valid JSON${cut ? ' (the reply was cut short)' : ''}: ${parsed.error}`));
        }
      }
      return whole;
    },
  };
}

/** The reply's JSON, pretty-printed, or why it does not parse. */
export function parsedView(text: string, source: string, cut: boolean): HTMLElement {
  const parsed = parse(text);
  return h(
    'section',
    { class: 'parsed', 'data-testid': 'parsed-result', 'data-valid': String(parsed.error === undefined), 'aria-label': 'Parsed result' },
    h('div', { class: 'tool-call-head' }, h('strong', {}, parsed.error === undefined ? 'Parsed JSON' : 'Not valid JSON'), h('small', { class: 'muted' }, source)),
    parsed.error === undefined
      ? h('pre', { class: 'code small', 'data-testid': 'parsed-json', tabindex: 0, 'aria-label': 'Parsed JSON' }, JSON.stringify(parsed.value, null, 2))
      : h('p', { class: 'field-error' }, `${parsed.error}${cut ? ' (the reply stopped at max tokens)' : ''}`),
  );
}

export interface ToolResult {
  readonly call: ToolCall;
  readonly content: string;
}

/** One result input per call and a button that sends them all, as the next turn. */
export function resultsForm(calls: readonly ToolCall[], onSend: (results: ToolResult[]) => void): { root: HTMLFormElement; setEnabled(enabled: boolean): void } {
  const inputs = calls.map((call, i) => {
    const twin = calls.filter((c) => c.name === call.name).length > 1;
    const id = `tool-result-${call.id || i}-${Math.random().toString(36).slice(2, 7)}`;
    const input = h('input', { type: 'text', id, required: true, autocomplete: 'off', placeholder: 'What the tool returned: text or JSON' });
    return { call, input, label: h('label', { for: id }, `Result of ${call.name}${twin ? ` (${call.id})` : ''}`) };
  });
  const send = h('button', { type: 'submit', class: 'small primary' }, calls.length > 1 ? 'Send results' : 'Send result');
  const root = h('form', { class: 'tool-results', 'aria-label': 'Tool results' }, inputs.map(({ label, input }) => h('div', { class: 'field' }, label, input)), send);
  root.addEventListener('submit', (event) => {
    event.preventDefault();
    onSend(inputs.map(({ call, input }) => ({ call, content: input.value })));
  });
  return {
    root,
    setEnabled(enabled: boolean): void {
      for (const control of [...inputs.map((i) => i.input), send]) control.disabled = !enabled;
    },
  };
}
