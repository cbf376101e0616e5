// PageKeeper's error page. It renders the failure at once from its query string (so it is on
// screen within the 150 ms budget), then asks the background for the host's answer to the
// `nav_error` request that started when the error happened, and fills in the suggestions.
//
//   error.html?url=http%3A%2F%2Fgooogle.com%2F&error=net%3A%3AERR_NAME_NOT_RESOLVED&key=…&t=…

import { callBackground } from '../lib/browser.js';
import { displayURL, fill, formatTimes, h, percent, show } from '../lib/dom.js';
import { localFallbacks } from '../lib/fallback.js';
import { hostOf } from '../lib/addresses.js';
import { classifyError, describe, shownCode, SOFT_404 } from '../lib/net-errors.js';
import { distinctPages, rankForPage } from '../lib/suggestions.js';

const query = new URLSearchParams(location.search);
const failure = {
  url: query.get('url') ?? '',
  error: query.get('error') ?? '',
  key: query.get('key') ?? '',
  time: Number(query.get('t')) || Date.now(),
};
let best = null;
const SLOW_HELPER = 'It may still be starting, or the computer is busy: press “Try again” in a moment.';

renderProblem();
markShown();
document.getElementById('retry').addEventListener('click', onRetry);
loadSuggestions();

function renderProblem() {
  const kind = classifyError(failure.error)?.kind;
  const text = describe(kind, hostOf(failure.url));
  document.title = `${text.title} · PageKeeper`;
  fill('title', text.title);
  fill('detail', text.detail);
  fill('failed-url', failure.url);
  fill('error-code', shownCode(failure.error));
  if (kind?.startsWith('http_') || kind === SOFT_404) fill('retry', 'Show the server’s page');
}

/** How long after the error event the page was on screen (ms), for the tests and the curious. */
function markShown() {
  requestAnimationFrame(() => {
    document.documentElement.dataset.shownMs = String(Math.round(Date.now() - failure.time));
  });
}

async function loadSuggestions() {
  const reply = await callBackground('nav_error_result', failure).catch((err) => ({ ok: false, error: { message: String(err) } }));
  show('searching', false);
  const answer = reply?.ok ? reply.result : { host: false, error: reply?.error };
  if (answer.host) renderAnswer(answer.result ?? {});
  else renderWithoutHost(answer.error ?? {});
  document.documentElement.dataset.state = answer.host ? 'answered' : (answer.error?.code ?? 'failed');
}

function renderAnswer(result) {
  const { best: top, rest } = rankForPage(result, failure.url);
  if (top) renderBest(top, 0);
  renderOthers(rest, top ? 1 : 0, top ? 'Other possibilities' : 'Possible addresses');
  renderArchived(result.archived ?? []);
  renderSimilar(distinctPages(result.similar));
  if (!top && !rest.length && !(result.archived ?? []).length && !(result.similar ?? []).length) {
    renderOthers(localFallbacks(failure.url), 0, 'Quick fixes to try');
  }
}

function renderWithoutHost(error) {
  if (error.code === 'host_missing') {
    show('missing');
    fill('missing-detail', error.message ? `The browser said: ${error.message}` : '');
  } else {
    show('trouble');
    // a timeout's own message names the request ("no answer to nav_error in 4000 ms"): say what to do
    fill('trouble-detail', error.code === 'timeout' ? SLOW_HELPER : (error.message ?? ''));
  }
  const fallbacks = localFallbacks(failure.url);
  renderOthers(fallbacks, 0, 'Quick fixes to try');
}

function renderBest(suggestion, rank) {
  best = suggestion;
  const link = h('a', { class: 'did-you-mean', href: suggestion.url, onclick: (e) => take(e, suggestion, rank) },
    h('span', {}, h('span', { class: 'label' }, 'Did you mean'), ...targetParts(suggestion.url)),
    h('span', { class: 'arrow', 'aria-hidden': 'true' }, '→'));
  fill('best', link, suggestion.reason ? h('p', { class: 'why' }, reasonText(suggestion)) : null);
  show('best');
}

function renderOthers(suggestions, offset, heading) {
  if (!suggestions.length) return;
  fill('others-title', heading);
  fill('others-list', suggestions.map((s, i) => h('li', {},
    h('a', { class: 'choice', href: s.url, onclick: (e) => take(e, s, offset + i) },
      h('span', { class: 'url' }, shownURL(s.url)),
      s.reason ? h('span', { class: 'why' }, s.reason) : null,
      typeof s.score === 'number' ? scoreMeter(s.score) : null))));
  show('others');
}

function renderArchived(copies) {
  if (!copies.length) return;
  const shown = copies.slice(0, 6);
  const [when, ...olderWhen] = formatTimes(shown.map((v) => v.registered_at ?? v.time));
  const [newest, ...older] = shown;
  fill('archived-body',
    h('div', { class: 'archived-row' },
      h('a', { class: 'button primary', id: 'open-archived', href: newest.version_url ?? '#', onclick: (e) => openCopy(e, newest) },
        `Open my archived copy (${when})`),
      h('span', { class: 'muted small' }, copies.length === 1 ? 'the only version you saved' : `newest of ${copies.length} versions`)),
    older.length ? h('div', { class: 'archived-more' }, 'Older: ',
      older.map((v, i) => [i ? ' · ' : '', h('a', { href: v.version_url ?? '#', onclick: (e) => openCopy(e, v) }, olderWhen[i])])) : null);
  show('archived');
}

function renderSimilar(pages) {
  if (!pages.length) return;
  fill('similar-list', pages.slice(0, 6).map((p) => h('li', {},
    h('a', { class: 'choice', href: p.version_url ?? p.url, onclick: (e) => openCopy(e, p) },
      h('span', { class: 'url' }, displayURL(p.url), p.title ? h('span', { class: 'title' }, p.title) : null),
      typeof p.similarity === 'number' ? h('span', { class: 'why' }, `${percent(p.similarity)} alike`) : null))));
  show('similar');
}

/** The big button's text: the host large, a path (if any) on its own smaller line. */
function targetParts(url) {
  const shown = shownURL(url);
  const cut = shown.indexOf('/', shown.indexOf('://') >= 0 ? shown.indexOf('://') + 3 : 0);
  if (cut < 0) return [h('span', { class: 'target' }, breakableHost(shown))];
  return [h('span', { class: 'target' }, breakableHost(shown.slice(0, cut))), h('span', { class: 'target-path' }, shown.slice(cut))];
}

/**
 * A host name that may wrap after each dot (a narrow window: "books.toscrape." / "com"), not
 * inside a name as `word-break: break-all` did ("books.toscrape.c" / "om"); the CSS breaks
 * inside a name only when one name alone is wider than the button.
 */
function breakableHost(text) {
  return text.split(/(?<=\.)/).flatMap((part, i) => (i ? [h('wbr'), part] : [part]));
}

/** A URL as shown in a list: without its scheme, unless the scheme is what changed. */
function shownURL(url) {
  const sameScheme = url.split(':')[0] === failure.url.split(':')[0];
  return sameScheme ? displayURL(url) : url.replace(/^([a-z]+:\/\/[^/]*)\/$/i, '$1');
}

function scoreMeter(score) {
  const width = Math.max(4, Math.min(100, Math.round(score * 100)));
  return h('span', { class: 'meter', title: `score ${score.toFixed(2)}`, 'aria-label': `score ${score.toFixed(2)}` },
    h('span', { style: `width:${width}%` }));
}

function reasonText(s) {
  const score = typeof s.score === 'number' ? ` · confidence ${percent(s.score)}` : '';
  return `${s.reason}${score}`;
}

/** The user picked a suggestion: tell the host (it learns from it), then go there. */
async function take(event, suggestion, rank) {
  event.preventDefault();
  await report(suggestion, rank, true);
  location.assign(suggestion.url);
}

/**
 * Open an archived copy through the daemon (the background adds the token it needs). Nothing is
 * reported about the best suggestion: a user who reads their copy (or a similar page's) has not
 * said the suggestion was wrong, so it is no evidence for the host's learning either way.
 */
async function openCopy(event, copy) {
  event.preventDefault();
  // The user asked for the copy (the live page just failed): straight to it, not via `open`.
  const reply = await callBackground('open_copy', { version_url: copy.version_url }).catch(() => null);
  location.assign(reply?.ok ? reply.result.url : copy.version_url);
}

// "Try again" passes over the best suggestion, but the site may only have been down: the host
// counts it as a retry, weak evidence against the suggestion, never as a rejection.
async function onRetry() {
  if (best) report(best, 0, false, true);
  await callBackground('retry', { url: failure.url, error: failure.error });
}

function report(suggestion, rank, taken, retried = false) {
  const params = { url: failure.url, suggestion: suggestion.url, step: suggestion.step, score: suggestion.score, rank, taken, retried };
  // Never block the user on the report: give it a moment, then move on.
  return Promise.race([callBackground('suggestion_taken', params).catch(() => null), new Promise((r) => setTimeout(r, 300))]);
}
