// DOM helpers for the demo: element construction (createElement/textContent
// only, so the page's strict CSP needs no inline style or HTML parsing) and
// the small formatters every panel shares.

export const $ = (id) => document.getElementById(id);

/** `h('td', { class: 'x' }, 'text', node, [more])`: an element with children. */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const code = (text) => h('code', null, text);
export const chip = (text, kind) => h('span', { class: ['chip', kind && `chip-${kind}`] }, text);
export const chips = (items, kind) =>
  items.length ? h('span', { class: 'chips' }, items.map((item) => chip(item, kind))) : h('span', { class: 'muted' }, 'none');
export const table = (head, rows, cls) =>
  h('table', { class: cls }, h('thead', null, h('tr', null, head.map((c) => h('th', { scope: 'col' }, c)))), h('tbody', null, rows));
export const formatMs = (ms) => `${ms.toFixed(1)} ms`;
export const formatNumber = (n) => n.toLocaleString('en-US');
