/**
 * The chat panel: one conversation, streamed token by token or answered whole, in any of three
 * flavours (OpenAI chat completions, Anthropic messages, OpenAI responses), with system prompt,
 * temperature, max tokens and stop sequences, a JSON schema or tools for the reply, and a Stop
 * button that aborts the fetch (the engine then stops generating).
 * @module
 */
import { ApiError, call, parseBody, type CallKind, type Exchange } from './api.ts';
import { chatRequest, readEvent, type Turn } from './chat-flavours.ts';
import type { ChatSettings, Flavour } from './chat-settings.ts';
import type { StreamUpdate } from './stream-update.ts';
import { RESPOND_TOOL } from './chat-wire.ts';
import { announce, field, h, required } from './dom.ts';
import { errorView } from './error-view.ts';
import type { Figures } from './figures.ts';
import { formatPercent } from './format.ts';
import type { LoadView } from './load-progress.ts';
import type { ApiModel } from './model-list.ts';
import { createModelPicker } from './model-picker.ts';
import { createOutputBoxes } from './output-boxes.ts';
import { createToolCards, parsedView, resultsForm, type ToolResult } from './reply-parts.ts';
import { conversationRequests } from './responses-flavour.ts';
import { readWholeReply } from './whole-replies.ts';

/** Each flavour: its radio's words, the endpoint it calls, and the kind the inspector records. */
const FLAVOURS: readonly { value: Flavour; label: string; path: string; kind: CallKind }[] = [
  { value: 'openai', label: 'OpenAI chat', path: '/v1/chat/completions', kind: 'chat' },
  { value: 'anthropic', label: 'Anthropic messages', path: '/v1/messages', kind: 'messages' },
  { value: 'responses', label: 'OpenAI responses', path: '/v1/responses', kind: 'responses' },
];

/** Where a structured reply's schema went, in each flavour's words. */
const SCHEMA_SOURCE: Record<Flavour, string> = {
  openai: 'response_format json_schema',
  anthropic: `the input of the forced tool ${RESPOND_TOOL}`,
  responses: 'text.format json_schema',
};

/** A reply cut at the token cap, by each flavour's name for it. */
const CUT = new Set(['length', 'max_tokens', 'incomplete']);

export interface ChatPanelOptions {
  readonly baseUrl: string;
  readonly models: readonly ApiModel[];
  readonly figures: Figures;
  /** Called when a reply ends, so model states (a first request loads its model) are refreshed. */
  readonly onSettled: () => void;
}

export function createChatPanel(options: ChatPanelOptions) {
  const panel = required('#panel-chat');
  const chatModels = options.models.filter((m) => m.kind === 'chat');

  const flavourInputs = FLAVOURS.map(({ value }) => h('input', { type: 'radio', name: 'flavour', value, id: `flavour-${value}`, checked: value === 'openai' }));
  const flavour = h(
    'fieldset',
    { class: 'flavour' },
    h('legend', {}, 'API flavour'),
    FLAVOURS.map(({ value, label, path }, i) => h('label', { for: `flavour-${value}`, class: 'choice' }, flavourInputs[i]!, h('span', {}, label), h('code', {}, path))),
  );
  const picker = createModelPicker('chat-model', options.models, 'chat');
  const model = picker.select;
  const system = h('textarea', { id: 'chat-system', rows: 1, placeholder: 'e.g. Be concise.' });
  const temperature = h('input', { id: 'chat-temperature', type: 'number', min: 0, max: 2, step: 0.1, placeholder: 'default', inputmode: 'decimal' });
  const maxTokens = h('input', { id: 'chat-max-tokens', type: 'number', min: 1, step: 1, value: '64', inputmode: 'numeric' });
  const stops = h('textarea', { id: 'chat-stop', rows: 1, placeholder: 'e.g. ###' });
  const stream = h('input', { type: 'checkbox', id: 'chat-stream', checked: true });
  const keep = h('input', { type: 'checkbox', id: 'chat-keep' });
  const prompt = h('textarea', { id: 'chat-prompt', rows: 2, placeholder: 'Write a message… (Enter sends, Shift+Enter adds a line)' });
  const send = h('button', { type: 'submit', class: 'primary' }, 'Send');
  const stop = h('button', { type: 'button', class: 'danger', disabled: true, 'aria-keyshortcuts': 'Escape' }, 'Stop');
  const clear = h('button', { type: 'button', class: 'ghost' }, 'Clear conversation');
  const log = h('div', { class: 'chat-log', role: 'log', 'aria-label': 'Conversation', tabindex: 0, 'data-testid': 'chat-log' });
  const status = h('p', { class: 'panel-status', role: 'status', 'data-testid': 'chat-status' });
  const boxes = createOutputBoxes();

  log.append(h('p', { class: 'empty' }, 'The reply streams in as the model writes it, entirely inside this page.'));
  const form = h(
    'form',
    { class: 'composer' },
    field('Message', prompt),
    h('div', { class: 'actions' }, send, stop, clear),
  );
  panel.append(
    h('h2', { class: 'sr-only' }, 'Chat'),
    h('div', { class: 'row' }, flavour, h('div', { class: 'picker' }, field('Model', model, chatModels.length ? undefined : 'No chat model is offered.'), picker.hint)),
    h(
      'details',
      { class: 'settings', open: true },
      h('summary', {}, 'Settings'),
      h(
        'div',
        { class: 'settings-grid' },
        field('System prompt', system),
        field('Temperature', temperature, 'Blank: default. 0–2 (Anthropic 0–1).'),
        field('Max tokens', maxTokens, 'Responses: 16 at least.'),
        field('Stop sequences', stops, 'One per line, up to 4.'),
      ),
      h('label', { class: 'toggle', for: 'chat-stream' }, stream, ' Stream the reply as SSE events (unticked: one JSON body when it is done)'),
      h('label', { class: 'toggle', for: 'chat-keep' }, keep, ' Responses: keep the conversation on the server (a conversation; each turn sends only what is new)'),
    ),
    ...boxes.elements,
    log,
    status,
    form,
  );

  let turns: Turn[] = [];
  /** Bumped by Clear: a reply still in flight then belongs to a conversation that is gone. */
  let conversation = 0;
  /** The Responses flavour's conversation on the server, and how many of `turns` it holds. */
  let kept: { id: string; turns: number } | undefined;
  /** The results form of the last reply's tool calls, while they can still be answered. */
  let awaiting: ReturnType<typeof resultsForm> | undefined;
  let controller: AbortController | undefined;
  let waitingFor: string | undefined;

  const currentFlavour = (): Flavour => FLAVOURS[flavourInputs.findIndex((input) => input.checked)]?.value ?? 'openai';
  const syncFlavour = () => {
    temperature.max = currentFlavour() === 'anthropic' ? '1' : '2';
    maxTokens.min = currentFlavour() === 'responses' ? '16' : '1';
    keep.disabled = currentFlavour() !== 'responses';
    panel.dataset.flavour = currentFlavour();
    boxes.setFlavour(currentFlavour());
  };
  flavourInputs.forEach((input) => input.addEventListener('change', syncFlavour));
  syncFlavour();
  const syncModel = () => {
    const info = chatModels.find((m) => m.id === model.value);
    if (info?.maxOutputTokens) maxTokens.max = String(info.maxOutputTokens);
  };
  model.addEventListener('change', syncModel);
  syncModel();

  /** The settings, or undefined (and why, in the status line) when a JSON box does not parse. */
  function settings(): ChatSettings | undefined {
    const output = boxes.read();
    if (!output.ok) {
      status.textContent = output.message;
      announce(output.message);
      output.focus.focus();
      return undefined;
    }
    const temp = temperature.value.trim() === '' ? undefined : Number(temperature.value);
    return {
      flavour: currentFlavour(),
      model: model.value,
      system: system.value,
      temperature: temp,
      maxTokens: Number(maxTokens.value) || 64,
      stop: stops.value.split('\n').filter((s) => s.length > 0),
      stream: stream.checked,
      ...(chatModels.find((m) => m.id === model.value)?.thinks ? { thinks: true } : {}),
      ...output.settings,
    };
  }

  function bubble(role: 'user' | 'assistant' | 'tool', text = '', label?: string): { root: HTMLElement; text: Text; content: HTMLElement; extras: HTMLElement; meta: HTMLElement } {
    log.querySelector('.empty')?.remove();
    const words = document.createTextNode(text);
    const content = h('div', { class: 'content' }, words);
    const extras = h('div', { class: 'extras' });
    const meta = h('span', { class: 'meta' });
    const who = label ?? (role === 'user' ? 'You' : 'Model');
    const root = h('article', { class: `bubble bubble-${role}`, 'data-role': role }, h('span', { class: 'who' }, who), content, extras, meta);
    log.append(root);
    log.scrollTop = log.scrollHeight;
    return { root, text: words, content, extras, meta };
  }

  async function submit(): Promise<void> {
    const text = prompt.value.trim();
    if (!text || controller) return;
    const chosen = settings();
    if (!chosen) return;
    prompt.value = '';
    const userBubble = bubble('user', text);
    await ask(chosen, [{ role: 'user', content: text }], [userBubble.root]);
  }

  function sendResults(results: ToolResult[], form: ReturnType<typeof resultsForm>): void {
    if (controller || form !== awaiting) return;
    const chosen = settings();
    if (!chosen) return;
    const bubbles = results.map((r) => bubble('tool', r.content, `Result of ${r.call.name}`).root);
    void ask(chosen, results.map((r) => ({ role: 'tool', toolCallId: r.call.id, content: r.content })), bubbles);
  }

  /** Sends the conversation with `sent` (the new turns, shown as `sentBubbles`) and streams the reply. */
  async function ask(chosen: ChatSettings, sent: Turn[], sentBubbles: HTMLElement[]): Promise<void> {
    const mine = conversation;
    const keeping = chosen.flavour === 'responses' && keep.checked;
    const earlier = turns.slice();
    // Calls left unanswered stay so once the conversation moves on; a failed turn restores them.
    const previous = awaiting;
    awaiting = undefined;
    previous?.setEnabled(false);
    const restore = () => {
      previous?.setEnabled(true);
      awaiting = previous;
    };
    turns.push(...sent);
    const reply = bubble('assistant');
    // No response_format in the Anthropic flavour: the schema's forced tool call is the JSON reply.
    const respondMode = chosen.flavour === 'anthropic' && chosen.schema !== undefined;
    const cards = createToolCards(reply.extras);
    reply.root.setAttribute('aria-busy', 'true');
    reply.root.dataset.state = 'streaming';
    controller = new AbortController();
    waitingFor = chosen.model;
    setBusy(true, `Waiting for ${chosen.model}…`);

    let firstAt: number | undefined;
    let lastAt: number | undefined;
    let chunks = 0;
    let outputTokens: number | undefined;
    let promptTokens: number | undefined;
    let cachedTokens: number | undefined;
    let finish: string | undefined;
    let inBandError: unknown;
    let exchange: Exchange | undefined;
    /** One SSE event's worth, or the whole reply at once when it was not streamed. */
    /** The model's thinking, shown apart from (and above) its answer: never part of the turn sent back. */
    let thinking: Text | undefined;
    const apply = (update: StreamUpdate) => {
      if (update.thinking) {
        if (!thinking) {
          thinking = document.createTextNode('');
          reply.content.before(h('details', { class: 'thinking', open: true, 'data-testid': 'thinking' }, h('summary', {}, 'Thinking'), h('div', { class: 'thinking-text' }, thinking)));
        }
        thinking.appendData(update.thinking);
      }
      if (update.text) reply.text.appendData(update.text);
      for (const delta of update.tools ?? []) {
        if (!respondMode) cards.apply(delta);
        else if (delta.arguments) reply.text.appendData(delta.arguments);
      }
      if (update.text || update.tools || update.thinking) {
        const now = performance.now();
        firstAt ??= now;
        lastAt = now;
        chunks++;
        if (chunks === 1 && chosen.stream) setBusy(true, `Streaming from ${chosen.model}…`);
        log.scrollTop = log.scrollHeight;
      }
      if (update.finish) finish = update.finish;
      if (update.outputTokens !== undefined) outputTokens = update.outputTokens;
      if (update.promptTokens !== undefined) promptTokens = update.promptTokens;
      if (update.cachedTokens !== undefined) cachedTokens = update.cachedTokens;
      if (update.error !== undefined) inBandError = update.error;
    };
    const kind = FLAVOURS.find((f) => f.value === chosen.flavour)!.kind;
    try {
      // A conversation the server keeps holds what came before: started anew (with the earlier
      // turns) when there is none, or when turns were added without it (another flavour).
      if (keeping && kept?.turns !== earlier.length) {
        const start = conversationRequests(options.baseUrl, earlier);
        const made = await call('conversations', start.create, { signal: controller.signal });
        const id = (parseBody(made.raw) as { id: string }).id;
        for (const more of start.more(id)) await call('conversations', more, { signal: controller.signal });
        kept = { id, turns: earlier.length };
      }
      exchange = await call(kind, chatRequest(options.baseUrl, chosen, turns, keeping ? { id: kept!.id, sent } : undefined), {
        signal: controller.signal,
        onEvent: (event) => apply(readEvent(chosen.flavour, event)),
      });
      if (exchange.outcome === 'ok' && exchange.events.length === 0) apply(readWholeReply(chosen.flavour, parseBody(exchange.raw)));
    } catch (error) {
      if (mine !== conversation) return finishUp();
      reply.root.remove();
      turns.splice(-sent.length);
      for (const b of sentBubbles) b.dataset.state = 'failed';
      restore();
      showError(error);
      finishUp();
      return;
    }
    if (mine !== conversation) return finishUp();
    const aborted = exchange.outcome === 'aborted';
    const content = reply.text.data;
    const cut = finish !== undefined && CUT.has(finish);
    reply.root.removeAttribute('aria-busy');
    reply.root.dataset.state = aborted ? 'stopped' : inBandError ? 'failed' : 'done';
    const calls = cards.settle(cut || aborted);
    if (chosen.schema && !aborted && inBandError === undefined && (content || cards.size === 0)) {
      reply.extras.append(parsedView(content, SCHEMA_SOURCE[chosen.flavour], cut));
    }
    if (content || calls.length) {
      turns.push(calls.length ? { role: 'assistant', content, toolCalls: calls } : { role: 'assistant', content });
      previous?.root.remove();
      // The server added this turn's input and output to its conversation, as the panel did.
      if (keeping && kept && !aborted && inBandError === undefined) kept = { id: kept.id, turns: turns.length };
    } else if (!aborted) {
      turns.splice(-sent.length);
      restore();
    }
    if (calls.length && !aborted && inBandError === undefined) {
      const results = resultsForm(calls, (answers) => sendResults(answers, results));
      reply.extras.append(results.root);
      awaiting = results;
    }
    log.scrollTop = log.scrollHeight;
    const tokens = outputTokens ?? chunks;
    reply.meta.textContent = aborted ? `stopped by you · ${tokens} tokens` : `${finish ?? 'done'} · ${tokens} tokens`;
    if (inBandError !== undefined) showError(new ApiError(exchange.status ?? 200, inBandError, exchange), 'The stream failed after it began');
    const startedAt = exchange.startedAt;
    options.figures.reply({
      model: chosen.model,
      ttftMs: firstAt === undefined ? undefined : firstAt - startedAt,
      tokens,
      decodeMs: firstAt !== undefined && lastAt !== undefined ? lastAt - firstAt : undefined,
      ...(promptTokens !== undefined ? { promptTokens } : {}),
      ...(cachedTokens !== undefined ? { cachedTokens } : {}),
    });
    const called = calls.length ? `: ${calls.length} tool call${calls.length === 1 ? '' : 's'}, answer below or write a message` : '';
    finishUp(aborted ? 'Stopped.' : `Reply complete${called}.`);
  }

  function finishUp(message = ''): void {
    controller = undefined;
    waitingFor = undefined;
    setBusy(false, message);
    if (message) announce(message);
    options.onSettled();
  }

  function setBusy(busy: boolean, message: string): void {
    send.disabled = busy;
    stop.disabled = !busy;
    status.textContent = message;
    panel.dataset.busy = String(busy);
  }

  function showError(error: unknown, title?: string): void {
    const view = errorView(error, title);
    log.append(h('article', { class: 'bubble bubble-error', 'data-role': 'error' }, view));
    log.scrollTop = log.scrollHeight;
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  prompt.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void submit();
    } else if (event.key === 'Escape' && controller) {
      controller.abort();
    }
  });
  stop.addEventListener('click', () => {
    controller?.abort();
    prompt.focus();
  });
  clear.addEventListener('click', () => {
    controller?.abort();
    conversation++;
    turns = [];
    kept = undefined;
    awaiting = undefined;
    log.replaceChildren(h('p', { class: 'empty' }, 'Conversation cleared.'));
    prompt.focus();
  });

  return {
    /** Model load progress: tells the user why the first token is slow. */
    onLoad(view: LoadView): void {
      if (!waitingFor || view.model !== waitingFor || !controller) return;
      if (view.phase === 'loading') status.textContent = `Loading ${view.model}${view.fraction === null ? '…' : ` (${formatPercent(view.fraction)})`} before the first token…`;
      if (view.phase === 'ready') status.textContent = `Loaded ${view.model}; waiting for the first token…`;
    },
  };
}
