/**
 * A model picker: a `<select>` grouped by model line (model-groups.ts), each option saying whether
 * this device can run it, and a line under it with what the chosen model needs and, where it
 * cannot run here, why.
 * @module
 */
import { h } from './dom.ts';
import { describeChoice, groupModels, needsOf, optionLabel } from './model-groups.ts';
import { DEFAULT_MODELS, defaultModel, type ApiModel } from './model-list.ts';

export function createModelPicker(id: string, models: readonly ApiModel[], kind: ApiModel['kind']) {
  const mine = models.filter((m) => m.kind === kind);
  const firsts = [kind === 'chat' ? DEFAULT_MODELS.chat : DEFAULT_MODELS.embedding];
  const select = h(
    'select',
    { id },
    groupModels(mine, firsts).map((group) =>
      h(
        'optgroup',
        { label: group.label },
        group.models.map((m) => h('option', { value: m.id, title: needsOf(m), 'data-runnable': m.local ? String(m.local.runnable) : 'unknown' }, optionLabel(m))),
      ),
    ),
  );
  select.value = defaultModel(models, kind) ?? '';
  const hint = h('small', { class: 'hint model-needs', id: `${id}-needs`, 'data-testid': `${id}-needs` });
  select.setAttribute('aria-describedby', hint.id);
  const sync = () => {
    const model = mine.find((m) => m.id === select.value);
    hint.textContent = model ? describeChoice(model) : '';
  };
  select.addEventListener('change', sync);
  sync();
  return { select, hint, models: mine };
}
