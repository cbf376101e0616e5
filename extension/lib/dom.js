// Building page content without innerHTML: every URL and title shown on our pages comes from the
// web or the archive, so it is always inserted as text (no markup injection).
//
//   h('a', { href: url, class: 'link' }, 'Open ', h('strong', {}, host))

/**
 * Create an element with attributes (on* keys become listeners) and children (strings → text).
 * Children may be nested lists, at any depth (a list of [separator, link] pairs): a list left
 * unflattened would be shown as its text, commas and addresses.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children.flat(Infinity).filter((c) => c != null && c !== false).map((c) => (c instanceof Node ? c : String(c))));
  return el;
}

/** Replace the children of the element with id `id`; returns it. */
export function fill(id, ...children) {
  const el = document.getElementById(id);
  el.replaceChildren(...children.flat().filter(Boolean));
  return el;
}

/** Show or hide the element with id `id`. */
export function show(id, visible = true) {
  document.getElementById(id).hidden = !visible;
}

/**
 * A date and time in the user's language, e.g. "21 Nov 2026, 14:03" (with `seconds`,
 * "21 Nov 2026, 14:03:20": for times that the minute alone would not tell apart).
 */
export function formatTime(value, seconds = false) {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value ?? '');
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' });
}

/** formatTime of each value, with seconds for all when two of them share a minute. */
export function formatTimes(values) {
  const short = values.map((v) => formatTime(v));
  const clash = new Set(short).size < short.length;
  return clash ? values.map((v) => formatTime(v, true)) : short;
}

/** A share in [0, 1] as a percentage, e.g. "93%"; '' when unknown. */
export function percent(value) {
  return typeof value === 'number' && Number.isFinite(value) ? `${Math.round(value * 100)}%` : '';
}

/** A URL without the scheme and a lone trailing slash, for display: "google.com/maps". */
export function displayURL(url) {
  return String(url ?? '').replace(/^https?:\/\//i, '').replace(/^([^/]*)\/$/, '$1');
}
