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
    if (child === undefined || child === null || child === false || child === '') continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const code = (text) => h('code', null, text);
export const chip = (text, kind) => h('span', { class: ['chip', kind && `chip-${kind}`] }, text);
export const chips = (items, kind) =>
  items.length ? h('span', { class: 'chips' }, items.map((item) => chip(item, kind))) : h('span', { class: 'muted' }, 'none');

/**
 * A table with the column names `head` over `body`: rows, or row groups
 * (tbody elements). Each body cell but a row header carries its column's name
 * as `data-label`, which narrow screens show beside it when every row becomes
 * a card (style.css); cells spanning rows are taken into account, and a cell
 * spanning columns gets none.
 */
export function table(head, body, cls) {
  const groups = body.length && body[0].tagName === 'TBODY' ? body : [h('tbody', null, body)];
  for (const group of groups) {
    const taken = [];
    [...group.rows].forEach((row, r) => {
      let column = 0;
      for (const cell of row.cells) {
        while (taken[r]?.[column]) column += 1;
        for (let i = 0; i < cell.rowSpan; i += 1) {
          for (let j = 0; j < cell.colSpan; j += 1) (taken[r + i] ??= [])[column + j] = true;
        }
        const rowHeader = cell.tagName === 'TH' && ['row', 'rowgroup'].includes(cell.getAttribute('scope'));
        // (A cell spanning columns, such as an op's message, has no one name.)
        if (!rowHeader && cell.colSpan === 1 && head[column] !== undefined) cell.dataset.label = head[column];
        column += cell.colSpan;
      }
    });
  }
  return h('table', { class: cls }, h('thead', null, h('tr', null, head.map((c) => h('th', { scope: 'col' }, c)))), groups);
}

/**
 * `value` as one line of compact JSON that a narrow screen may wrap only
 * after a comma, never inside a key, a string or a number.
 */
export function jsonInline(value) {
  // Split after each comma outside a string; each piece is unbreakable.
  const text = JSON.stringify(value);
  const pieces = [];
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === ',') {
      pieces.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  pieces.push(text.slice(start));
  return h('code', { class: 'json-inline' },
    pieces.map((piece, i) => [i > 0 && h('wbr'), h('span', { class: 'unbroken' }, piece)]));
}

/**
 * A run of text without spaces, unbroken; but one longer than a phone's line
 * may hold (a WebGPU feature such as `chromium-experimental-timestamp-query-
 * inside-passes`, a limit such as `maxDynamicStorageBuffersPerPipelineLayout`)
 * may also wrap between its words: after a hyphen, or before a capital.
 */
function unbroken(word) {
  const pieces = word.length > 24 ? word.split(/(?<=-)|(?<=[a-z0-9])(?=[A-Z])/) : [word];
  return pieces.map((piece, i) => [i > 0 && h('wbr'), h('span', { class: 'unbroken' }, piece)]);
}

/**
 * `value` as pretty-printed JSON (two-space indentation), for a `pre.json`:
 * its text is exactly JSON.stringify(value, null, 2), one block per line; a
 * line too long for the box wraps at a space (or inside a long name, between
 * its words: see unbroken), never inside a word, and goes on indented under
 * its start.
 */
export function jsonLines(value) {
  return JSON.stringify(value, null, 2).split('\n').map((line, i, lines) => {
    const indent = line.length - line.trimStart().length;
    const words = line.slice(indent).split(/( +)/).map((part) => part.startsWith(' ') ? part : unbroken(part));
    return h('span', { class: ['json-line', `json-indent-${Math.min(indent, 12)}`] },
      ' '.repeat(indent), words, i < lines.length - 1 ? '\n' : '');
  });
}

export const formatMs = (ms) => `${ms.toFixed(1)} ms`;
export const formatNumber = (n) => n.toLocaleString('en-US');
