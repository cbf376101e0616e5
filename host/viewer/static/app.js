// Boot: take the token, open the websocket, route #/… to a view.
// Routes: #/search?…, #/doc/<id>[?v=<id>&mode=rewritten|original], #/diff/<a>/<b>, #/liveness, #/stats

import { Api, takeToken } from './api.js';
import { command, fill, notice, toast } from './dom.js';
import { startLive } from './live.js';
import * as search from './views/search.js';
import * as documentView from './views/document.js';
import * as diff from './views/diff.js';
import * as liveness from './views/liveness.js';
import * as stats from './views/stats.js';

const ROUTES = [
  { tab: 'search', pattern: /^\/?(?:search)?$/, view: search },
  { tab: 'search', pattern: /^\/doc\/([^/]+)$/, view: documentView },
  { tab: 'search', pattern: /^\/diff\/([^/]+)\/([^/]+)$/, view: diff },
  { tab: 'liveness', pattern: /^\/liveness$/, view: liveness },
  { tab: 'stats', pattern: /^\/stats$/, view: stats },
];

/** "#/doc/abc?v=1" -> {path: "/doc/abc", query: URLSearchParams} */
export function parseHash(hash) {
  const raw = hash.replace(/^#/, '');
  const [path, query = ''] = raw.split('?', 2);
  return { path: path || '/search', query: new URLSearchParams(query) };
}

/** decodeURIComponent that keeps a malformed escape ("%zz") as typed instead of throwing. */
function decode(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function match(path) {
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (m) return { route, args: m.slice(1).map(decode) };
  }
  return null;
}

function markTab(tab) {
  for (const a of document.querySelectorAll('[data-tab]')) {
    if (a.dataset.tab === tab) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function showConnection(el, state) {
  const labels = { connecting: 'connecting…', online: 'live', offline: 'offline', refused: 'token refused' };
  el.textContent = labels[state] || state;
  el.dataset.state = state;
}

function start() {
  const main = document.getElementById('main');
  const api = new Api(takeToken());
  window.pagekeeper = { api };
  api.onState((s) => showConnection(document.getElementById('conn'), s));
  const ctx = { api, go: (hash) => { location.hash = hash; } };
  let cleanup = null;
  let lastPath = null;

  const render = () => {
    const { path, query } = parseHash(location.hash);
    const found = match(path);
    if (cleanup) cleanup();
    cleanup = null;
    if (!found) {
      markTab(null);
      fill(main, notice('No such page', `The viewer has no page at “#${path}”.`, 'error', 'h1'));
      return;
    }
    markTab(found.route.tab);
    const samePage = lastPath === path;
    lastPath = path;
    cleanup = found.route.view.render(main, ctx, { args: found.args, query, samePage }) || null;
    if (!samePage) main.focus({ preventScroll: true });
  };
  window.addEventListener('hashchange', render);
  // The skip link (WCAG 2.4.1) moves the focus to the view; followed as a link it would set
  // the address's # part, which is this viewer's route ("#main": no such page).
  document.querySelector('a.skip')?.addEventListener('click', (event) => {
    event.preventDefault();
    main.focus();
    main.scrollIntoView({ block: 'start' });
  });
  if (!api.token) {
    fill(main, notice('No token', `Open the viewer with \`${command('open')}\` (or from the extension's popup): it passes the daemon's token.`, 'error', 'h1'));
    return;
  }
  api.connect().catch((err) => toast(err.message));
  startLive(api);
  render();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
