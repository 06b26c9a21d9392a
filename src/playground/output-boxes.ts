/**
 * The chat panel's structured output and tools boxes: a JSON schema the reply must match, and
 * tool definitions with a tool choice. Each box is checked as it is typed in; invalid JSON is
 * said inline and keeps the message from being sent, while what JSON cannot tell (a keyword the
 * grammar cannot enforce) is left to the API's 400.
 * @module
 */
import type { Flavour } from './chat-settings.ts';
import { RESPOND_TOOL, toolsFrom, type ToolChoice, type ToolDef } from './chat-wire.ts';
import { h } from './dom.ts';

/** Bounded strings, an enum and a small integer range: short enough for any model to finish. */
const EXAMPLE_SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 24 },
    mood: { type: 'string', enum: ['happy', 'sad', 'curious'] },
    stars: { type: 'integer', minimum: 1, maximum: 5 },
  },
  required: ['title', 'mood', 'stars'],
  additionalProperties: false,
};

const EXAMPLE_TOOLS = [
  {
    name: 'get_weather',
    description: 'The current weather in a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', maxLength: 20 }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city', 'unit'],
      additionalProperties: false,
    },
  },
  {
    name: 'get_time',
    description: 'The time in a time zone.',
    parameters: {
      type: 'object',
      properties: { zone: { type: 'string', enum: ['UTC', 'CET', 'PST'] } },
      required: ['zone'],
      additionalProperties: false,
    },
  },
];

export interface OutputSettings {
  readonly schema?: Record<string, unknown>;
  readonly tools?: readonly ToolDef[];
  readonly toolChoice?: ToolChoice;
  readonly parallelToolCalls?: boolean;
}

export type OutputRead = { readonly ok: true; readonly settings: OutputSettings } | { readonly ok: false; readonly message: string; readonly focus: HTMLElement };

type Parsed<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

function parseJson(text: string): Parsed<unknown> {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** A labelled JSON textarea with a hint and an inline error, both read out with the box. */
function jsonField(id: string, label: string, value: unknown, rows: number) {
  const box = h('textarea', { id, rows, class: 'json-box', spellcheck: 'false', autocapitalize: 'off', value: JSON.stringify(value, null, 2) });
  const hint = h('small', { class: 'hint', id: `${id}-hint` });
  const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true, 'data-testid': `${id}-error` });
  box.setAttribute('aria-describedby', `${id}-hint ${id}-error`);
  const root = h('div', { class: 'field' }, h('label', { for: id }, label), box, hint, error);
  const showError = (message: string | undefined) => {
    error.hidden = message === undefined;
    error.textContent = message ?? '';
    if (message === undefined) box.removeAttribute('aria-invalid');
    else box.setAttribute('aria-invalid', 'true');
  };
  return { root, box, hint, showError };
}

function section(title: string, state: HTMLElement, ...children: HTMLElement[]): HTMLDetailsElement {
  return h('details', { class: 'settings output-box' }, h('summary', {}, title, state), h('div', { class: 'output-box-body' }, children));
}

export function createOutputBoxes() {
  const schemaOn = h('input', { type: 'checkbox', id: 'chat-schema-on' });
  const schema = jsonField('chat-schema', 'JSON schema', EXAMPLE_SCHEMA, 8);
  const schemaState = h('span', { class: 'summary-state' });
  const schemaSection = section('Structured output', schemaState, h('label', { class: 'toggle', for: 'chat-schema-on' }, schemaOn, ' Constrain the reply to this schema'), schema.root);

  const toolsOn = h('input', { type: 'checkbox', id: 'chat-tools-on' });
  const tools = jsonField('chat-tools', 'Tool definitions (JSON array)', EXAMPLE_TOOLS, 8);
  tools.hint.textContent = 'Each {name, description, parameters}; the OpenAI {type: "function", function: {…}} and Anthropic {…, input_schema} shapes work too.';
  const choice = h('select', { id: 'chat-tool-choice' });
  const parallel = h('input', { type: 'checkbox', id: 'chat-parallel', checked: true });
  const toolsNote = h('p', { class: 'output-note', hidden: true }, 'Not sent while Structured output is on: in this flavour the schema is itself the one forced tool.');
  const toolsState = h('span', { class: 'summary-state' });
  const toolsSection = section(
    'Tools',
    toolsState,
    h('label', { class: 'toggle', for: 'chat-tools-on' }, toolsOn, ' Offer these tools to the model'),
    tools.root,
    h(
      'div',
      { class: 'row' },
      h('div', { class: 'field' }, h('label', { for: 'chat-tool-choice' }, 'Tool choice'), choice),
      h('label', { class: 'toggle', for: 'chat-parallel' }, parallel, ' Allow several calls in one reply'),
    ),
    toolsNote,
  );

  let flavour: Flavour = 'openai';
  let parsedSchema: Parsed<Record<string, unknown>> = { error: '' };
  let parsedTools: Parsed<ToolDef[]> = { error: '' };

  function readSchema(): void {
    const json = parseJson(schema.box.value);
    parsedSchema =
      json.error !== undefined
        ? { error: json.error }
        : typeof json.value === 'object' && json.value !== null && !Array.isArray(json.value)
          ? { value: json.value as Record<string, unknown> }
          : { error: 'The schema must be a JSON object, such as {"type": "object", …}.' };
    schema.showError(parsedSchema.error);
    sync();
  }

  function readTools(): void {
    const json = parseJson(tools.box.value);
    if (json.error !== undefined) parsedTools = { error: json.error };
    else {
      try {
        parsedTools = { value: toolsFrom(json.value) };
      } catch (error) {
        parsedTools = { error: error instanceof Error ? error.message : String(error) };
      }
    }
    tools.showError(parsedTools.error);
    // The forced-tool options follow the names in the box; the choice stays when its tool does.
    const kept = choice.value;
    const names = parsedTools.value?.map((t) => t.name) ?? [];
    choice.replaceChildren(
      h('option', { value: 'auto' }, 'auto: text or calls'),
      h('option', { value: 'required' }, 'required: at least one call'),
      h('option', { value: 'none' }, 'none: text only'),
      ...names.map((name) => h('option', { value: `tool:${name}` }, `${name} (forced)`)),
    );
    choice.value = [...choice.options].some((o) => o.value === kept) ? kept : 'auto';
    sync();
  }

  function sync(): void {
    const anthropic = flavour === 'anthropic';
    schema.hint.textContent = anthropic
      ? `Anthropic messages have no response_format: the schema goes as a forced tool, ${RESPOND_TOOL}, whose input is the parsed result.`
      : `Sent as ${flavour === 'responses' ? 'text.format' : 'response_format'} json_schema (strict): the reply is JSON that matches it.`;
    schemaState.textContent = schemaOn.checked ? (parsedSchema.error === undefined ? ' · on' : ' · invalid JSON') : ' · off';
    const count = parsedTools.value?.length ?? 0;
    toolsState.textContent = toolsOn.checked ? (parsedTools.error === undefined ? ` · ${count} tool${count === 1 ? '' : 's'}, ${choice.value.replace(/^tool:/, '')}` : ' · invalid JSON') : ' · off';
    toolsNote.hidden = !(anthropic && schemaOn.checked && toolsOn.checked);
    for (const control of [choice, parallel]) control.disabled = !toolsOn.checked;
  }

  schema.box.addEventListener('input', readSchema);
  tools.box.addEventListener('input', readTools);
  for (const control of [schemaOn, toolsOn, choice]) control.addEventListener('change', sync);
  readSchema();
  readTools();

  return {
    elements: [schemaSection, toolsSection],
    setFlavour(next: Flavour): void {
      flavour = next;
      sync();
    },
    /** The boxes' settings, or why the message cannot go (the box is opened to show it). */
    read(): OutputRead {
      if (schemaOn.checked && parsedSchema.error !== undefined) {
        schemaSection.open = true;
        return { ok: false, message: `Fix the JSON schema before sending. ${parsedSchema.error}`, focus: schema.box };
      }
      if (toolsOn.checked && parsedTools.error !== undefined) {
        toolsSection.open = true;
        return { ok: false, message: `Fix the tool definitions before sending. ${parsedTools.error}`, focus: tools.box };
      }
      const picked = choice.value;
      const toolChoice: ToolChoice = picked.startsWith('tool:') ? { name: picked.slice(5) } : (picked as 'auto' | 'required' | 'none');
      return {
        ok: true,
        settings: {
          ...(schemaOn.checked ? { schema: parsedSchema.value } : {}),
          ...(toolsOn.checked && parsedTools.value?.length ? { tools: parsedTools.value, toolChoice, parallelToolCalls: parallel.checked } : {}),
        },
      };
    },
  };
}
