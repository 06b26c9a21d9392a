/**
 * A tiny element builder, so panels read as structure rather than as createElement chains.
 * No framework: the playground doubles as an example of the API used from plain DOM code.
 * @module
 */

type Child = Node | string | number | false | null | undefined;
type Props = Record<string, string | number | boolean | EventListener | undefined | null>;

/** `h('button', { class: 'primary', onclick }, 'Send')`. `false`/`null` props and children are skipped. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    // Live state (value, checked, disabled, min…) goes through properties; the rest are attributes.
    // (`value` always: a textarea has no value attribute.)
    else if (key === 'value' || (key in element && typeof value !== 'string' && key !== 'list')) (element as unknown as Record<string, unknown>)[key] = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** An element the page must have (index.html); a missing one is a build mistake, not a user state. */
export function required<T extends HTMLElement = HTMLElement>(selector: string, root: ParentNode = document): T {
  const element = root.querySelector<T>(selector);
  if (!element) throw new Error(`The playground page lacks ${selector}.`);
  return element;
}

/** A labelled form field: label, control and an optional hint, tied together for screen readers. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || (control.id = `f-${Math.random().toString(36).slice(2, 9)}`);
  const hintEl = hint ? h('small', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

let live: HTMLElement | undefined;
/** Says something to screen readers without moving focus (one shared polite live region). */
export function announce(message: string): void {
  live ??= document.body.appendChild(h('div', { class: 'sr-only', 'aria-live': 'polite', role: 'status' }));
  live.textContent = '';
  // A fresh text node after a clear makes repeated identical messages be read again.
  requestAnimationFrame(() => (live!.textContent = message));
}
