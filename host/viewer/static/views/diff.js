// Side-by-side diff of two versions' visible text, headlines and links included (computed by the daemon:
// rows of equal / replace / delete / insert / skip, with changed words marked).

import { count, fill, h, notice, placeEl, safeUrl, sameMinute, timeEl } from '../dom.js';

// The host's codes for a ref that names no stored version: an ID not stored (not_found), a ref
// that is no ID or URL (invalid_url), a page's URL where a version is asked (invalid_input).
const NO_VERSION = new Set(['not_found', 'invalid_url', 'invalid_input']);

const SIGN = { delete: '−', insert: '+', replace: '~', equal: '' };

/** [[text, changed], ...] or a plain string -> inline nodes with <mark>/<del>/<ins>. */
function parts(value, tag) {
  if (value == null) return '';
  if (!Array.isArray(value)) return value;
  return value.map(([text, changed]) => (changed ? h(tag, {}, text) : text));
}

function cell(no, value, side, op) {
  const changed = op !== 'equal' && value != null;
  const tag = side === 'left' ? 'del' : 'ins';
  return [
    h('td', { class: 'ln', 'aria-hidden': 'true' }, no ?? ''),
    h('td', { class: `code ${changed ? `ch-${side}` : ''}${value == null ? ' empty' : ''}` },
      changed ? h('span', { class: 'sr-only' }, side === 'left' ? 'removed: ' : 'added: ') : null,
      parts(value, tag)),
  ];
}

function row(r) {
  if (r.op === 'skip') {
    return h('tr', { class: 'skip' }, h('td', { colspan: 4 }, `⋯ ${count(r.count)} unchanged lines`));
  }
  return h('tr', { class: `op-${r.op}`, title: SIGN[r.op] ? r.op : null },
    cell(r.left_no, r.left, 'left', r.op), cell(r.right_no, r.right, 'right', r.op));
}

function side(v, label, seconds) {
  return h('th', { colspan: 2, scope: 'col' },
    h('span', { class: 'diff-side-label' }, label), ' ', timeEl(v.registered_at, seconds || v.same_second), placeEl(v),
    h('span', { class: 'muted diff-side-url', title: safeUrl(v.url) }, safeUrl(v.url)));
}

function summary(stats) {
  return h('p', { class: 'diff-stats', role: 'status' },
    h('span', { class: 'stat-del' }, `−${count(stats.removed)} removed`),
    h('span', { class: 'stat-ins' }, `+${count(stats.added)} added`),
    h('span', { class: 'stat-chg' }, `~${count(stats.changed)} changed`),
    h('span', { class: 'muted' }, `${count(stats.equal)} unchanged lines`));
}

export function render(main, ctx, route) {
  const [a, b] = route.args;
  fill(main, h('p', { class: 'loading', role: 'status' }, 'Computing the diff…'));
  ctx.api.call('diff', { a, b }).then((res) => {
    const back = h('a', { class: 'back', href: `#/doc/${encodeURIComponent(res.b.id)}` }, '← Document');
    const close = sameMinute([res.a.registered_at, res.b.registered_at])(res.a.registered_at); // same minute: seconds
    const table = res.rows.length
      ? h('table', { class: 'diff', id: 'diff-table' },
        h('caption', { class: 'sr-only' }, 'Visible text of the two versions, side by side'),
        h('colgroup', {}, h('col', { class: 'col-ln' }), h('col'), h('col', { class: 'col-ln' }), h('col')),
        h('thead', {}, h('tr', {}, side(res.a, 'A', close), side(res.b, 'B', close))),
        h('tbody', {}, res.rows.map(row)))
      : notice('No text', 'Neither version has visible text to compare.');
    fill(main,
      h('div', { class: 'doc-head' }, back,
        h('h1', {}, 'Changes between two versions'),
        h('p', { class: 'doc-url' }, res.b.title || safeUrl(res.b.url)),
        res.same_document === false ? notice('Different documents', 'These versions belong to different URLs; the diff compares their texts anyway.') : null),
      res.identical ? notice('Identical text', 'The visible text of the two versions (headlines and links included) is the same.') : summary(res.stats),
      h('div', { class: 'card diff-card' }, table));
  }).catch((err) => {
    fill(main, h('a', { class: 'back', href: '#/search' }, '← Search'),
      notice(NO_VERSION.has(err.code) ? 'No such version' : 'Could not compute the diff', err.message, 'error', 'h1'));
  });
}
