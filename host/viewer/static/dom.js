// Small DOM and formatting helpers shared by the views. Text always goes in
// through textContent (never innerHTML): archived titles and URLs are untrusted.

/** h("a", {href: "#/x", class: "btn"}, "text", child) -> HTMLElement */
/**
 * A command to type in a terminal, as the daemon that served this page names it (index.html's
 * `data-command`: this PageKeeper for this archive, runnable in any folder; `data-start-command`:
 * the start of this very daemon, its port included when a plain start would take another).
 * `command('archive add URL')`, `command()` for the start.
 */
export function command(args) {
  const root = document.documentElement.dataset;
  return args == null ? root.startCommand : `${root.command} ${args}`;
}

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace the children of el. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Where the focus is inside `root`, to find the same control once `root` is rebuilt: by its id,
 * else as the nth control of its kind with its text. null when the focus is elsewhere.
 *   const mark = focusMark(main); fill(main, ...); restoreFocus(main, mark);
 */
export function focusMark(root) {
  const el = document.activeElement;
  if (!el || el === root || !root.contains(el)) return null;
  return { id: el.id || null, tag: el.tagName, text: el.textContent, nth: alike(root, el.tagName, el.textContent).indexOf(el) };
}

/** Focus what `mark` (focusMark) found before `root` was rebuilt; gone, `root` itself (never the body). */
export function restoreFocus(root, mark) {
  if (!mark || root.contains(document.activeElement)) return;
  const byId = mark.id ? document.getElementById(mark.id) : null;
  const same = alike(root, mark.tag, mark.text);
  const target = byId && root.contains(byId) ? byId : same[Math.min(mark.nth, same.length - 1)];
  (target ?? root).focus({ preventScroll: true });
}

function alike(root, tag, text) {
  return [...root.querySelectorAll(tag)].filter((e) => e.textContent === text);
}

const TEXT_FIELDS = 'textarea[id], input[id]:not([type]), input[id][type=text], input[id][type=search], input[id][type=url]';

/**
 * What the user has typed into the text fields inside `root` and not sent yet (a value other than
 * the one the field was built with), by field id, with the caret: a rebuild keeps it.
 *   const typed = typedText(main); fill(main, ...); retype(main, typed);
 */
export function typedText(root) {
  return [...root.querySelectorAll(TEXT_FIELDS)].filter((el) => el.value !== el.defaultValue)
    .map((el) => ({ id: el.id, value: el.value, start: el.selectionStart, end: el.selectionEnd }));
}

/** Put back into the rebuilt `root` what `typed` (typedText) kept, in each field of the same id
 * still as it was built (one the rebuild filled in itself keeps that). */
export function retype(root, typed) {
  for (const { id, value, start, end } of typed) {
    const el = document.getElementById(id);
    if (!el || !root.contains(el) || !el.matches(TEXT_FIELDS) || el.value !== el.defaultValue) continue;
    el.value = value;
    if (start != null) el.setSelectionRange(start, end);
  }
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** 1536 -> "1.5 KB" */
export function bytes(n) {
  if (n == null || Number.isNaN(n)) return '–';
  let i = 0;
  let v = Number(n);
  while (v >= 1024 && i < BYTE_UNITS.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v >= 10 || i === 0 ? Math.round(v) : v.toFixed(1)} ${BYTE_UNITS[i]}`;
}

/** Accepts ISO strings or epoch seconds. */
export function toDate(value) {
  if (value == null || value === '') return null;
  if (typeof value === 'number') return new Date(value < 1e12 ? value * 1000 : value);
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

const DATE_FMT = new Intl.DateTimeFormat(undefined, {
  year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit',
});

const DATE_FMT_SECONDS = new Intl.DateTimeFormat(undefined, {
  year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit',
});

/** A date and time for people; with `seconds` (two versions in one minute) to the second. */
export function when(value, seconds = false) {
  const d = toDate(value);
  return d ? (seconds ? DATE_FMT_SECONDS : DATE_FMT).format(d) : '–';
}

/** "2026-10-31 10:00" (or "10:00:07" with `seconds`) in local time: compact, sortable (select options). */
export function shortWhen(value, seconds = false) {
  const d = toDate(value);
  if (!d) return '–';
  const p = (n) => String(n).padStart(2, '0');
  const minute = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
  return seconds ? `${minute}:${p(d.getSeconds())}` : minute;
}

export function timeEl(value, seconds = false) {
  const d = toDate(value);
  return d ? h('time', { datetime: d.toISOString() }, when(d, seconds)) : h('span', {}, '–');
}

/** "#3 of 5": a version's place among its page's versions (1 = the oldest), given by the daemon
 * when another version shares its time to the second (`same_second`), so its time alone cannot
 * tell them apart; "" otherwise (the common case stays as it was). */
export function placeText(v) {
  return v?.same_second ? `#${v.number} of ${v.of}` : '';
}

/** A version's place beside its time (`placeText`), or null. */
export function placeEl(v) {
  const text = placeText(v);
  return text ? h('span', { class: 'version-place' }, text) : null;
}

/** A version named in words (labels, titles): its time, and its place when it takes one. */
export function versionName(v, seconds = false) {
  const place = placeText(v);
  return place ? `${when(v.registered_at, seconds)} · ${place}` : when(v.registered_at, seconds);
}

/** Which of `values` (dates) share their minute with another: those are shown to the second. */
export function sameMinute(values) {
  const counts = new Map();
  for (const v of values) counts.set(shortWhen(v), (counts.get(shortWhen(v)) || 0) + 1);
  return (value) => counts.get(shortWhen(value)) > 1;
}

/** 0.4321 -> "43%" */
export function pct(x) {
  return x == null || Number.isNaN(x) ? '–' : `${Math.round(Number(x) * 100)}%`;
}

export function count(n) {
  return n == null ? '–' : Number(n).toLocaleString();
}

/** A labelled meter: the similarity (0..1) as a bar with its value. */
export function bar(value, label) {
  const known = value != null && !Number.isNaN(value);
  const v = known ? Math.max(0, Math.min(1, Number(value))) : 0;
  const band = !known ? 'none' : v >= 0.9 ? 'high' : v >= 0.5 ? 'mid' : 'low';
  return h('span', { class: `bar bar-${band}` },
    h('span', {
      class: 'bar-track', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': 100,
      'aria-valuenow': known ? Math.round(v * 100) : null,
      'aria-label': label, 'aria-valuetext': known ? pct(v) : 'not known',
    }, h('span', { class: 'bar-fill', style: `width:${(v * 100).toFixed(1)}%` })),
    h('span', { class: 'bar-value' }, known ? pct(v) : '–'));
}

const STATE_LABELS = { too_large: 'too large to check', unknown: 'nothing to compare' };

/** A liveness state as a coloured badge with text (never colour alone). */
export function stateBadge(state) {
  const s = state || 'unchecked';
  return h('span', { class: `badge state-${s}` }, STATE_LABELS[s] ?? s);
}

/** Show a message that disappears by itself (errors stay until dismissed). */
export function toast(message, kind = 'error', ms = 4000) {
  const host = document.getElementById('toasts');
  const close = h('button', { class: 'toast-close', type: 'button', 'aria-label': 'Dismiss' }, '×');
  const el = h('div', { class: `toast toast-${kind}` }, h('span', {}, message), close);
  close.addEventListener('click', () => el.remove());
  host.append(el);
  if (kind !== 'error') setTimeout(() => el.remove(), ms);
  return el;
}

/** A panel with a clear message for bad input, not found, offline; a page-level one
 * (`heading` = "h1") titles the page, which then has no other heading. */
export function notice(title, detail, kind = 'info', heading = 'strong') {
  return h('div', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    h(heading, { class: 'notice-title' }, title), detail ? h('p', {}, detail) : null);
}

/** The site (host) of a URL, or the text itself if it is not one. */
export function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** A URL shown without credentials (user:pass@ is never echoed into the viewer). */
export function safeUrl(url) {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return String(url ?? '');
  }
}

/** Trigger a download of bytes given as base64. */
export function downloadBase64(b64, filename, type = 'application/warc') {
  const raw = atob(b64);
  const buf = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) buf[i] = raw.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([buf], { type }));
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Read a File as base64 (for import_warc). */
export function fileToBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',', 2)[1] || '');
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}
