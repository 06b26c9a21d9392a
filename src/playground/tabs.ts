/**
 * The panel tabs, after the WAI-ARIA tabs pattern: arrow keys, Home and End move between tabs
 * (automatic activation), Tab moves into the panel. The open tab is kept in the URL hash, so a
 * reload or a shared link opens the same panel.
 * @see https://www.w3.org/WAI/ARIA/apg/patterns/tabs/
 * @module
 */
import { required } from './dom.ts';

export function createTabs(onSelect: (panel: string) => void = () => {}): { select(id: string): void } {
  const list = required('[role="tablist"]');
  const tabs = [...list.querySelectorAll<HTMLButtonElement>('[role="tab"]')];

  const select = (tab: HTMLButtonElement, focus = false) => {
    for (const other of tabs) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      required(`#${other.getAttribute('aria-controls')}`).hidden = !selected;
    }
    if (focus) tab.focus();
    const name = tab.id.replace(/^tab-/, '');
    history.replaceState(null, '', `${location.pathname}${location.search}#${name}`);
    onSelect(name);
  };

  for (const tab of tabs) {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (event) => {
      const index = tabs.indexOf(tab);
      const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
      if (next === undefined) return;
      event.preventDefault();
      select(tabs[(next + tabs.length) % tabs.length]!, true);
    });
  }
  const initial = tabs.find((t) => t.id === `tab-${location.hash.slice(1)}`);
  if (initial) select(initial);

  return {
    select(id) {
      const tab = tabs.find((t) => t.id === `tab-${id}`);
      if (tab) select(tab);
    },
  };
}
