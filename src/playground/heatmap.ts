/**
 * The similarity matrix as a heat map. A real table (row and column headers, each value written
 * in its cell), so it reads with a screen reader and zooms crisply; colour only adds the picture.
 * The scale is fixed at -1..1: colours compare across runs and models.
 * @module
 */
import { h } from './dom.ts';

export function heatmap(texts: readonly string[], matrix: readonly (readonly number[])[]): HTMLElement {
  const short = (text: string) => (text.length > 28 ? `${text.slice(0, 27)}…` : text);
  const head = h('tr', {}, h('td', { class: 'corner' }), texts.map((text, i) => h('th', { scope: 'col', title: text }, `#${i + 1}`)));
  const rows = matrix.map((row, i) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row', title: texts[i] }, h('span', { class: 'index' }, `#${i + 1}`), ' ', short(texts[i] ?? '')),
      row.map((value, j) => {
        const cell = h('td', { title: `#${i + 1} vs #${j + 1}: ${value.toFixed(4)}`, 'data-value': value.toFixed(4) }, value.toFixed(2));
        const strength = Math.min(1, Math.abs(value));
        // The CSS mixes the theme's own colours by these amounts (see .heatmap td in styles.css).
        cell.style.setProperty('--heat', `${Math.round(strength * 100)}%`);
        cell.dataset.sign = value < 0 ? 'neg' : 'pos';
        if (strength > 0.55) cell.dataset.strong = '';
        return cell;
      }),
    ),
  );
  return h(
    'div',
    { class: 'heatmap-wrap' },
    h(
      'table',
      { class: 'heatmap', 'data-testid': 'heatmap' },
      h('caption', {}, 'Cosine similarity of every pair of texts'),
      h('thead', {}, head),
      h('tbody', {}, rows),
    ),
    h(
      'div',
      { class: 'legend', 'aria-hidden': 'true' },
      h('span', {}, '−1'),
      h('span', { class: 'legend-bar' }),
      h('span', {}, '0'),
      h('span', { class: 'legend-bar legend-pos' }),
      h('span', {}, '1'),
    ),
  );
}
