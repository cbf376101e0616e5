"""The real background (extension/background/service-worker.js and everything it imports) under a
scripted browser API, in plain headless Chromium: which events open our error page and which are
left alone, what `nav_error` carries, `visited` and its switch, the badge, the liveness warning,
and "Archive this page" from the keyboard shortcut and the context menus.

The end-to-end tests (test_chromium.py) show the same paths work in the real browser; here every
case of the issue's list can be driven exactly (Chromium cannot be made to fail with
ERR_ADDRESS_UNREACHABLE or a Firefox code on demand), and every host request is seen.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# A scripted `browser` global, installed before the service worker's module graph is imported.
# Events record their listeners; the native port answers from `replies` (a value or a function of
# the params; a missing type is the host's not_found); storage.sync is a plain object.
FAKE_BROWSER = """
  const log = { updates: [], sent: [], badges: {}, titles: {}, colors: {}, scripted: [], menus: [], notes: [] };
  const event = () => { const fns = [];
    return { addListener: (f) => fns.push(f), hasListeners: () => fns.length > 0,
             fire: (...a) => fns.forEach((f) => f(...a)), count: () => fns.length }; };
  const replies = {
    ping: { version: 'test', protocol: 1 },
    nav_error: (p) => ({ url: p.url, suggestions: [], archived: [], similar: [] }),
    versions: { versions: [] },
    visited: (p) => ({ host: p.host }),
    archive_page: (p) => ({ id: 'v2', url: p.url, key: p.url, registered_at: '2026-11-21T22:00:00Z',
                            version_url: 'http://127.0.0.1:1/v/v2/' + p.url, similar: [],
                            previous_similarity: 0.9 }),
    check: { state: 'present' },
    capture_begin: (p) => { begun = p; return { capture_id: 'c1', need: [], limits: { part_bytes: 1024 } }; },
    capture_commit: () => replies.archive_page(begun),
  };
  let begun = null;
  const HOLD = Symbol('hold');
  // replied(type): resolves once the host's next answer of that type has reached the background
  // (a hang guard of 10 s: a request never sent fails the test's assertions, not its time limit)
  const waiting = {};
  const replied = (type) => Promise.race([new Promise((r) => (waiting[type] ??= []).push(r)),
                                          new Promise((r) => setTimeout(r, 10000))]);
  // posted(type): resolves once the background has sent the host its next request of that type
  const posting = {};
  const posted = (type) => Promise.race([new Promise((r) => (posting[type] ??= []).push(r)),
                                         new Promise((r) => setTimeout(r, 10000))]);
  // called(api, name, match): resolves once the background's next call of api[name] whose
  // argument `match` accepts has returned (the same hang guard)
  const called = (api, name, match) => Promise.race([new Promise((resolve) => {
    const real = api[name];
    api[name] = async (...a) => { const r = await real(...a); if (match(...a)) resolve(); return r; };
  }), new Promise((r) => setTimeout(r, 10000))]);
  const tabs = new Map();
  const frames = new Map();  // tabId → [{frameId, url}] as webNavigation.getAllFrames names them
  const sync = {};
  const session = {};
  const localArea = {};
  const slow = () => new Promise((r) => setTimeout(r, 30));  // storage is never instant
  const runtime = {
    id: 'pk-test', lastError: null,
    getURL: (p) => 'chrome-extension://pk-test/' + p,
    onInstalled: event(), onStartup: event(), onMessage: event(),
    connectNative() {
      const onMessage = event();
      return { onMessage, onDisconnect: event(),
        postMessage(m) {
          log.sent.push(m);
          (posting[m.type] ?? []).splice(0).forEach((f) => f());
          const r = replies[m.type];
          if (r === HOLD) return;  // a request the host never answers (the worker stops first)
          const reply = r === undefined
            ? { id: m.id, ok: false, error: { code: 'not_found', message: 'nothing' } }
            : r instanceof Error ? { id: m.id, ok: false, error: { code: r.code, message: r.message } }
            : { id: m.id, ok: true, result: typeof r === 'function' ? r(m.params) : r };
          setTimeout(() => { onMessage.fire(reply); (waiting[m.type] ?? []).splice(0).forEach((f) => f()); }, 5);
        } };
    },
  };
  globalThis.browser = {
    runtime,
    webNavigation: { onBeforeNavigate: event(), onCommitted: event(), onErrorOccurred: event(),
                     onCompleted: event(), async getAllFrames({ tabId }) { return frames.get(tabId) ?? []; } },
    webRequest: { onCompleted: event() },
    tabs: { onRemoved: event(),
      async get(id) { if (!tabs.has(id)) throw new Error('no tab ' + id); return { ...tabs.get(id) }; },
      async update(id, { url }) { log.updates.push({ id, url }); tabs.set(id, { ...tabs.get(id), url }); return tabs.get(id); },
      async query() { return [...tabs.values()].slice(0, 1); } },
    storage: { onChanged: event(),
      sync: { async get() { await slow(); return structuredClone(sync); },
              async set(v) { Object.assign(sync, v); } },
      session: { async get(k) { if (k === null) return structuredClone(session);
                                return k in session ? { [k]: structuredClone(session[k]) } : {}; },
                 async set(v) { Object.assign(session, structuredClone(v)); },
                 async remove(k) { [].concat(k).forEach((x) => delete session[x]); } },
      local: { async get(k) { const all = structuredClone(localArea);
                              return k === null ? all : Object.fromEntries([].concat(k).filter((x) => x in all).map((x) => [x, all[x]])); },
               async set(v) { Object.assign(localArea, structuredClone(v)); },
               async remove(k) { [].concat(k).forEach((x) => delete localArea[x]); } } },
    action: { async setBadgeText({ tabId, text }) { log.badges[tabId] = text; },
              async setBadgeBackgroundColor({ tabId, color }) { log.colors[tabId] = color; },
              async setTitle({ tabId, title }) { log.titles[tabId] = title; },
              async getBadgeText({ tabId }) { return log.badges[tabId] ?? ''; },
              async getTitle({ tabId }) { return log.titles[tabId] ?? 'PageKeeper'; } },
    notifications: { onClicked: event(), async clear() {},
                     async create(id, o) { log.notes.push({ id, ...o }); return id; } },
    scripting: { async executeScript({ target, func, files, args }) {
      log.scripted.push({ tabId: target.tabId, files: files ?? null });
      if (files) return [];
      const tab = tabs.get(target.tabId);
      globalThis.pagekeeperCapture = { release: () => true,
        run: async () => ({ url: tab.url, title: 'T', charset: 'UTF-8', html: '<html><p>hi</p></html>',
                            content_type: 'text/html', resources: [], cors: [] }) };
      return [{ frameId: 0, result: await func(...(args ?? [])) }]; } },
    contextMenus: { onClicked: event(), async removeAll() {}, create: (m) => log.menus.push(m.id) },
    commands: { onCommand: event() },
    permissions: { onAdded: event() },
  };
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  // The browser stops the worker: its timers go with it (the modules stay imported here, and
  // `restart` runs the service worker's first turn again).
  const stopWorker = () => { const last = setTimeout(() => {}, 0); for (let id = 1; id <= last; id++) clearTimeout(id); };
  let starts = 1;
  const restart = () => import(`/background/service-worker.js?restart=${++starts}`);
  const setTab = (id, url) => tabs.set(id, { id, url, title: '' });
  const setOptions = async (v) => { Object.assign(sync, v); browser.storage.onChanged.fire(v, 'sync'); };
  const fail = (tabId, url, error, extra = {}) => browser.webNavigation.onErrorOccurred.fire(
    { tabId, frameId: 0, url, error, timeStamp: 1795298400000, ...extra });
  const sentOf = (type) => log.sent.filter((m) => m.type === type).map((m) => m.params);
  const listeners = () => ({
    errors: browser.webNavigation.onErrorOccurred.count(), committed: browser.webNavigation.onCommitted.count(),
    before: browser.webNavigation.onBeforeNavigate.count(), completed: browser.webNavigation.onCompleted.count(),
    requests: browser.webRequest.onCompleted.count(), messages: runtime.onMessage.count(),
    installed: runtime.onInstalled.count(), commands: browser.commands.onCommand.count(),
    menus: browser.contextMenus.onClicked.count(), removed: browser.tabs.onRemoved.count(),
    storage: browser.storage.onChanged.count() });
  if (arg?.withoutSessionStorage) delete globalThis.browser.storage.session;  // Firefox < 115
  await import('/background/service-worker.js');
  const atImport = listeners();
"""


@pytest.fixture
def page(chromium, modules_url):
    page = chromium.new_page()  # a fresh page: a fresh module graph and fake browser per test
    page.goto(f"{modules_url}/icons/icon.svg")
    yield page
    page.close()


def background(page, body: str, arg=None):
    """Import the real service worker under FAKE_BROWSER, then run `body` (an async body)."""
    return page.evaluate(f"async (arg) => {{ {FAKE_BROWSER} {body} }}", arg)


def test_every_listener_is_registered_in_the_first_turn(page):
    """MV3: a worker woken by an event only gets it if the listener exists when the module has
    run; storage here answers after 30 ms, so a listener registered after a read would be missing."""
    got = background(page, "return atImport;")
    assert got == {"errors": 1, "committed": 1, "before": 1, "completed": 1, "requests": 2,
                   "messages": 1, "installed": 1, "commands": 1, "menus": 1, "removed": 1,
                   "storage": 1}  # fmt: skip


def test_each_network_error_kind_opens_our_page_with_the_full_nav_error(page):
    errors = [
        "net::ERR_NAME_NOT_RESOLVED",
        "net::ERR_NAME_RESOLUTION_FAILED",
        "net::ERR_CONNECTION_REFUSED",
        "net::ERR_CONNECTION_RESET",
        "net::ERR_CONNECTION_TIMED_OUT",
        "net::ERR_ADDRESS_UNREACHABLE",
        "Error code 2152398878",  # Firefox: NS_ERROR_UNKNOWN_HOST
        "Error code 2152398861",  # Firefox: refused (and unreachable, which Firefox lumps in)
        "Error code 2152398862",  # Firefox: NS_ERROR_NET_TIMEOUT
        "Error code 2152398868",  # Firefox: NS_ERROR_NET_RESET
    ]
    got = background(
        page,
        """for (const [i, error] of arg.entries()) {
             const tab = 10 + i;
             browser.webNavigation.onCommitted.fire({ tabId: tab, frameId: 0, url: 'https://start.example/from' });
             fail(tab, `http://site${i}.example/page?q=1`, error);
           }
           await wait(300);
           return { updates: log.updates, navErrors: sentOf('nav_error'), languages: navigator.languages };""",
        errors,
    )
    assert len(got["updates"]) == len(errors) == len(got["navErrors"])
    for i, error in enumerate(errors):
        update = next(u for u in got["updates"] if u["id"] == 10 + i)
        assert update["url"].startswith("chrome-extension://pk-test/error/error.html?")
        assert f"url=http%3A%2F%2Fsite{i}.example%2Fpage%3Fq%3D1" in update["url"]
        sent = next(p for p in got["navErrors"] if p["url"] == f"http://site{i}.example/page?q=1")
        assert sent["error"] == error
        assert sent["referrer"] == "https://start.example/from"  # the tab's previous page
        assert sent["time"] == "2026-11-21T22:00:00.000Z"  # the error event's timeStamp
        assert sent["languages"] == got["languages"] and sent["languages"]
    kinds = [p["kind"] for p in sorted(got["navErrors"], key=lambda p: p["url"])]
    assert kinds == ["dns", "dns", "refused", "reset", "timeout", "unreachable",
                     "dns", "refused", "timeout", "reset"]  # fmt: skip


@pytest.mark.parametrize("without_session_storage", [False, True], ids=["session", "local"])
def test_tab_state_outlives_the_background(page, without_session_storage):
    """A stopped service worker (or a suspended Firefox event page) comes back as fresh modules:
    the referrer of a failure and the page our error page shows must come back from storage.
    Each `import('…/navigation.js?N')` is such a fresh module, with empty memory of its own."""
    got = background(
        page,
        """const fresh = (n) => import(`/background/navigation.js?restart=${n}`);
           setTab(5, 'https://start.example/from');
           browser.webNavigation.onCommitted.fire({ tabId: 5, frameId: 0, url: 'https://start.example/from' });
           await wait(50);
           const second = await fresh(2);  // the worker was stopped between commit and error
           await second.onNavigationError({ tabId: 5, frameId: 0, url: 'http://gooogle.com/',
                                            error: 'net::ERR_NAME_NOT_RESOLVED', timeStamp: 1795298400000 });
           const shownOnce = log.updates.length;
           const third = await fresh(3);  // stopped again while the user reads our page; then Back
           const back = { tabId: 5, frameId: 0, url: 'http://gooogle.com/' };
           await third.onBeforeNavigate(back);
           await third.onNavigationError({ ...back, error: 'net::ERR_NAME_NOT_RESOLVED', timeStamp: 1795298405000 });
           await wait(50);
           return { referrer: sentOf('nav_error')[0]?.referrer ?? null, shownOnce, updates: log.updates.length,
                    stored: Object.keys(arg.withoutSessionStorage ? localArea : session) };""",
        {"withoutSessionStorage": without_session_storage},
    )
    assert got["referrer"] == "https://start.example/from"
    assert got["shownOnce"] == 1  # our page, once
    assert got["updates"] == 1, "Back brought our page back: the loop"
    prefix = "session:" if without_session_storage else ""
    assert f"{prefix}tab:5" in got["stored"]


def test_a_tab_s_change_is_stored_before_it_resolves(page):
    """What a change returns is already in storage.session: the worker may be stopped as soon as
    the caller moves on (here the write takes 40 ms, as storage is never instant)."""
    got = background(
        page,
        """const set = browser.storage.session.set;
           browser.storage.session.set = async (v) => { await wait(40); return set(v); };
           const { changeTab } = await import('/background/tab-state.js');
           await changeTab(8, (tab) => ({ ...tab, showing: 'http://gooogle.com/' }));
           return structuredClone(session['tab:8'] ?? null);""",
    )
    assert got == {"showing": "http://gooogle.com/"}


def test_a_closed_tab_s_record_is_removed(page):
    """storage.session is small (10 MB in Chromium) and lives as long as the browser: a closed
    tab's record goes with it."""
    got = background(
        page,
        """browser.webNavigation.onCommitted.fire({ tabId: 6, frameId: 0, url: 'https://start.example/' });
           await wait(100);
           const before = Object.keys(session);
           browser.tabs.onRemoved.fire(6, {});
           await wait(100);
           return { before, after: Object.keys(session) };""",
    )
    assert "tab:6" in got["before"]
    assert "tab:6" not in got["after"]


def test_a_change_made_after_an_earlier_one_ended_still_waits_for_the_one_between(page):
    """Each change of a tab waits for every change before it, also when the first has ended and the
    second has not: the third sees the second's field (a change run beside the second reads the
    record without it and writes it back without it)."""
    got = background(
        page,
        """const { get, set } = browser.storage.session;
           browser.storage.session.get = async (k) => { await wait(30); return get(k); };
           browser.storage.session.set = async (v) => { await wait(40); return set(v); };
           const { changeTab, readTab } = await import('/background/tab-state.js');
           const first = changeTab(9, (tab) => ({ ...tab, a: 1 }));
           changeTab(9, (tab) => ({ ...tab, b: 2 }));
           await first;
           await wait(1);  // the first's turn is over; the second is still reading
           await changeTab(9, (tab) => ({ ...tab, c: 3 }));
           return readTab(9);""",
    )
    assert got == {"a": 1, "b": 2, "c": 3}


def test_what_is_left_to_the_browser(page):
    """ERR_ABORTED, aborted loads in Firefox, other errors, our own pages, subframes, prerenders,
    excluded sites, and private addresses unless enabled: no page, no host request."""
    got = background(
        page,
        """await setOptions({ excluded: ['bank.example'] });
           fail(1, 'http://gooogle.com/', 'net::ERR_ABORTED');
           fail(2, 'http://gooogle.com/', 'Error code 2152398850');
           fail(3, 'https://expired.example/', 'net::ERR_CERT_DATE_INVALID');
           fail(4, 'chrome-extension://pk-test/error/error.html?url=x', 'net::ERR_NAME_NOT_RESOLVED');
           fail(5, 'http://gooogle.com/', 'net::ERR_NAME_NOT_RESOLVED', { frameId: 3 });
           fail(6, 'http://gooogle.com/', 'net::ERR_NAME_NOT_RESOLVED', { documentLifecycle: 'prerender' });
           fail(-1, 'http://gooogle.com/', 'net::ERR_NAME_NOT_RESOLVED');
           fail(7, 'https://www.bank.example/login', 'net::ERR_CONNECTION_REFUSED');
           const local = ['http://localhost:8000/', 'http://127.0.0.1:9/', 'http://192.168.1.9/',
                          'http://10.0.0.2/', 'http://wiki/', 'http://printer.local/', 'http://[::1]:8080/'];
           local.forEach((url, i) => fail(20 + i, url, 'net::ERR_CONNECTION_REFUSED'));
           await wait(300);
           const before = { updates: log.updates.length, sent: log.sent.length };
           await setOptions({ allowPrivate: true });
           local.forEach((url, i) => fail(40 + i, url, 'net::ERR_CONNECTION_REFUSED'));
           await wait(300);
           return { before, after: log.updates.map((u) => u.id) };""",
    )
    assert got["before"] == {"updates": 0, "sent": 0}
    assert sorted(got["after"]) == list(range(40, 47))  # enabled: private addresses get our page


def test_a_failure_reported_three_times_opens_one_page(page):
    """chromedriver and Chromium may report one failure up to three times (pitfall 4); the same
    URL in another tab, or again after 'Try again', is a new failure."""
    got = background(
        page,
        """for (let n = 0; n < 3; n++) fail(1, 'http://gooogle.com/', 'net::ERR_NAME_NOT_RESOLVED');
           fail(2, 'http://gooogle.com/', 'net::ERR_NAME_NOT_RESOLVED');
           await wait(300);
           const counts = [log.updates.filter((u) => u.id === 1).length, log.updates.filter((u) => u.id === 2).length,
                           sentOf('nav_error').length];
           const sender = { id: 'pk-test', tab: { id: 1 } };
           const retry = await new Promise((r) => runtime.onMessage.fire(
             { type: 'retry', params: { url: 'http://gooogle.com/', error: 'net::ERR_NAME_NOT_RESOLVED' } }, sender, r));
           fail(1, 'http://gooogle.com/', 'net::ERR_NAME_NOT_RESOLVED');
           await wait(300);
           return { counts, retry, afterRetry: log.updates.filter((u) => u.id === 1).map((u) => u.url) };""",
    )
    assert got["counts"] == [1, 1, 2]
    assert got["retry"] == {"ok": True, "result": {"url": "http://gooogle.com/"}}
    # our page, the retry's own load of the URL, our page again
    assert [u.split("?")[0] for u in got["afterRetry"]] == [
        "chrome-extension://pk-test/error/error.html",
        "http://gooogle.com/",
        "chrome-extension://pk-test/error/error.html",
    ]


def test_404_and_410_open_our_page_only_when_the_host_has_something(page):
    got = background(
        page,
        """const done = (tabId, url, statusCode, method = 'GET') => {
             setTab(tabId, url);
             browser.webRequest.onCompleted.fire({ tabId, frameId: 0, url, statusCode, method, type: 'main_frame',
                                                   timeStamp: 1795298400000 }); };
           done(7, 'http://127.0.0.1:8000/kept', 404);  // private: left alone unless enabled
           await wait(100);
           await setOptions({ allowPrivate: true });
           done(1, 'http://s.example/nothing', 404);  // the host knows nothing: the server's page stays
           replies.nav_error = (p) => ({ url: p.url, suggestions: [],
             archived: p.url.includes('kept') ? [{ id: 'a', version_url: 'http://127.0.0.1:1/v/a/x' }] : [],
             similar: [] });
           done(2, 'http://s.example/kept', 404);
           done(3, 'http://s.example/kept-too', 410);
           done(4, 'http://s.example/kept-post', 404, 'POST');
           done(5, 'http://s.example/kept-500', 500);
           done(6, 'http://s.example/kept-ok', 200);
           await wait(400);
           return { updates: log.updates.map((u) => [u.id, new URL(u.url).searchParams.get('error')]),
                    asked: sentOf('nav_error').map((p) => [p.url, p.error, p.kind]) };""",
    )
    assert got["updates"] == [[2, "HTTP 404"], [3, "HTTP 410"]]
    assert sorted(got["asked"]) == [
        ["http://s.example/kept", "HTTP 404", "http_404"],
        ["http://s.example/kept-too", "HTTP 410", "http_410"],
        ["http://s.example/nothing", "HTTP 404", "http_404"],
    ]


def test_a_soft_404_page_asks_the_host_with_soft_404(page):
    """The popup opens our page for a soft 404 (no key: no lookup started at an error event);
    the page's request starts the lookup, with the engine's error kind soft_404."""
    got = background(
        page,
        """browser.webNavigation.onCommitted.fire({ tabId: 3, frameId: 0, url: 'https://s.example/' });
           browser.webNavigation.onCommitted.fire({ tabId: 3, frameId: 0, url: 'https://s.example/kept' });
           const answer = await new Promise((r) => runtime.onMessage.fire({ type: 'nav_error_result',
             params: { url: 'https://s.example/kept', error: 'soft_404', key: '', time: 1795298400000 } },
             { id: 'pk-test', tab: { id: 3 } }, r));
           return { answer, sent: sentOf('nav_error') };""",
    )
    assert got["answer"]["ok"] and got["answer"]["result"]["host"] is True
    (sent,) = got["sent"]
    assert (sent["error"], sent["kind"]) == ("soft_404", "soft_404")
    assert sent["referrer"] == "https://s.example/"


def test_a_reload_of_our_page_asks_the_host_again_after_a_failed_lookup(page):
    """The lookup started at the error failed (the helper was still starting): reloading our page
    asks the host again, not the failure kept for two minutes under the page's key."""
    got = background(
        page,
        """replies.nav_error = Object.assign(new Error('no answer to nav_error in 4000 ms'), { code: 'timeout' });
           setTab(3, 'http://gooogle.com/');
           const looked = replied('nav_error');
           fail(3, 'http://gooogle.com/', 'net::ERR_NAME_NOT_RESOLVED');
           await looked;   // the error event's lookup failed
           await wait(0);  // and the background has read its failure
           const key = new URL(log.updates[0].url).searchParams.get('key');
           const ask = () => new Promise((r) => runtime.onMessage.fire({ type: 'nav_error_result',
             params: { url: 'http://gooogle.com/', error: 'net::ERR_NAME_NOT_RESOLVED', key, time: 1795298400000 } },
             { id: 'pk-test', tab: { id: 3 } }, r));
           const first = await ask();
           replies.nav_error = (p) => ({ url: p.url, suggestions: [{ url: 'http://google.com/', score: 0.9 }] });
           const again = await ask();
           return { first: first.result, again: again.result, asked: sentOf('nav_error').length };""",
    )
    assert got["first"]["host"] is False and got["first"]["error"]["code"] == "timeout"
    assert got["again"]["host"] is True, got["again"]
    assert got["again"]["result"]["suggestions"][0]["url"] == "http://google.com/"
    # the error event's lookup, then each request of the page after it failed: asked again
    assert got["asked"] == 3


def test_visited_reports_the_origin_only_and_obeys_its_switch(page):
    got = background(
        page,
        """const ok = (tabId, url) => browser.webRequest.onCompleted.fire(
             { tabId, frameId: 0, url, statusCode: 200, method: 'GET', type: 'main_frame' });
           ok(1, 'https://news.example.com/2026/story?id=7#top');
           ok(2, 'http://127.0.0.1:8000/private');
           browser.webRequest.onCompleted.fire({ tabId: 3, frameId: 0, url: 'https://x.example/', statusCode: 404 });
           await wait(200);
           const on = sentOf('visited');
           await setOptions({ historyUse: false });
           ok(4, 'https://other.example.org/page');
           await wait(200);
           return { on, off: sentOf('visited').length };""",
    )
    assert got["on"] == [{"url": "https://news.example.com/", "host": "news.example.com"}]
    assert got["off"] == 1  # switched off in the options: nothing more is reported


# The tab's page as the injected renderedPage would return it (this fake runs injected functions
# in the test page, whose address is not the tab's); every read is logged with its arguments.
TAB_PAGE = """
  const reads = [];
  let tabPage = { html: '<html><p>what the tab shows</p></html>' };
  const realRun = browser.scripting.executeScript;
  browser.scripting.executeScript = async (inj) => {
    if (inj.func?.name !== 'renderedPage') return realRun(inj);
    reads.push({ tabId: inj.target.tabId, url: inj.args[0], limit: inj.args[1] });
    return [{ frameId: 0, result: tabPage }];
  };
  replies.versions = (p) => ({ versions: p.url.includes('kept')
    ? [{ id: 'b', registered_at: '2026-11-20T10:00:00Z' }, { id: 'a', registered_at: '2026-11-01T10:00:00Z' }] : [] });
  const loaded = (tabId, url) => { setTab(tabId, url);
    browser.webNavigation.onCompleted.fire({ tabId, frameId: 0, url }); };
  const verdictOf = async (id) => (await browser.storage.session.get(`liveness:${id}`))[`liveness:${id}`];
"""
SETTLED = 1800  # ms: the background's SETTLE_MS (1500) and some room


def test_loaded_page_gets_its_version_count_and_a_liveness_warning(page):
    got = background(
        page,
        TAB_PAGE
        + """loaded(1, 'https://s.example/kept');
           loaded(2, 'https://s.example/new');
           await wait(arg);
           const badges = { ...log.badges }, checksOff = sentOf('check').length, archivedOff = sentOf('archive_page').length;
           await setOptions({ liveness: true });
           replies.check = { state: 'gone', reason: 'the archived text is no longer on the page' };
           loaded(3, 'https://s.example/kept');
           loaded(4, 'https://s.example/new');
           await wait(arg);
           return { badges, checksOff, archivedOff, warned: log.badges[3], title: log.titles[3],
                    checks: sentOf('check'), reads, verdict: await verdictOf(3) };""",
        SETTLED,
    )
    assert got["badges"] == {"1": "2", "2": ""}
    assert (
        got["checksOff"] == 0 and got["archivedOff"] == 0
    )  # liveness and auto-archive: off by default
    assert got["warned"] == "!" and "no longer on this page" in got["title"]
    # The tab's own page is judged (no fetch), and only for the archived URL (tab 4 has none).
    page_sent = "<html><p>what the tab shows</p></html>"
    assert got["checks"] == [{"url": "https://s.example/kept", "page": page_sent}]
    assert got["reads"] == [{"tabId": 3, "url": "https://s.example/kept", "limit": 2000000}]
    assert got["verdict"]["state"] == "gone" and got["verdict"]["version"] == "b"


def test_the_tab_check_waits_for_the_page_to_settle_and_is_not_repeated(page):
    """Loads in quick succession send one page (the last load's, even when each load saw a
    newer version); a reload of the same version soon after sends none; a newer version is
    checked again."""
    got = background(
        page,
        TAB_PAGE
        + """await setOptions({ liveness: true });
           let n = 0;
           replies.versions = () => ({ versions: [{ id: `v${++n}`, registered_at: '2026-11-22T10:00:00Z' }] });
           for (let i = 0; i < 3; i++) { loaded(5, 'https://s.example/kept'); await wait(100); }
           await wait(arg);
           const burst = sentOf('check').length, first = (await verdictOf(5)).version;
           replies.versions = () => ({ versions: [{ id: 'v3', registered_at: '2026-11-22T10:00:00Z' }] });
           loaded(5, 'https://s.example/kept');
           await wait(arg);
           const again = sentOf('check').length;
           replies.versions = () => ({ versions: [{ id: 'v4', registered_at: '2026-11-22T10:00:00Z' }] });
           loaded(5, 'https://s.example/kept');
           await wait(arg);
           return { burst, first, again, newer: sentOf('check').length, reads: reads.length };""",
        SETTLED,
    )
    assert (got["burst"], got["first"], got["again"]) == (1, "v3", 1)
    assert (got["newer"], got["reads"]) == (2, 2)


def test_the_same_version_is_checked_again_after_five_minutes_not_before(page):
    """docs/tuning.md: not again for the same newest version within 5 minutes. The clock is held
    still, so the check's time and the boundary are exact: 1 ms before it, no check; at it, one."""
    got = background(
        page,
        TAB_PAGE
        + """await setOptions({ liveness: true });
           let now = 1795298400000;
           Date.now = () => now;
           const counts = [];
           for (const later of [0, 5 * 60 * 1000 - 1, 5 * 60 * 1000]) {
             now = 1795298400000 + later;
             loaded(7, 'https://s.example/kept');
             await wait(arg);
             counts.push(sentOf('check').length);
           }
           return { counts, at: (await verdictOf(7)).at };""",
        SETTLED,
    )
    assert got["counts"] == [1, 1, 2]
    assert got["at"] == 1795298400000 + 5 * 60 * 1000  # the verdict of the second check kept


def test_a_tab_page_of_exactly_the_cap_is_sent_and_one_character_more_is_not(page, modules_url):
    """TAB_PAGE_CHARS is the most characters sent: a page of exactly that many is checked."""
    page.goto(f"{modules_url}/background/")
    got = page.evaluate(
        """async () => {
          const { renderedPage, LEFT_OUT } = await import('/background/liveness.js');
          const size = renderedPage(location.href, 1e9, LEFT_OUT).html.length;
          return { size, at: renderedPage(location.href, size, LEFT_OUT),
                   under: renderedPage(location.href, size - 1, LEFT_OUT) };
        }"""
    )
    assert len(got["at"]["html"]) == got["size"]  # exactly the cap: sent
    assert got["under"] == {"chars": got["size"]}  # one more than the cap: its size only


def test_a_gone_page_s_badge_is_red_a_changed_one_amber_and_a_present_one_has_none(page):
    got = background(
        page,
        TAB_PAGE
        + """await setOptions({ liveness: true });
           for (const [tab, state] of [[11, 'gone'], [12, 'changed'], [13, 'present']]) {
             replies.check = { state };
             loaded(tab, 'https://s.example/kept');
             await wait(arg);
           }
           return { colors: log.colors, badges: log.badges, titles: log.titles };""",
        SETTLED,
    )
    assert (got["colors"]["11"], got["colors"]["12"]) == ("#b3261e", "#a15c00")
    assert got["colors"]["13"] not in ("#b3261e", "#a15c00")  # the count's own colour
    assert (got["badges"]["11"], got["badges"]["12"], got["badges"]["13"]) == ("!", "!", "2")
    assert "changed since you archived it" in got["titles"]["12"]
    assert got["titles"]["13"] == "PageKeeper: 2 archived versions of this page"  # the count's


def test_the_popup_s_verdict_is_the_tab_s_own_else_the_host_s_last_check_of_the_url(page):
    """The tab's own verdict for its current page first; for another page, or none, the host's
    stored check (a sweep may have found the server unreachable); no host: nothing."""
    got = background(
        page,
        """const { verdictFor } = await import('/background/liveness.js');
           await browser.storage.session.set({ 'liveness:4': { url: 'https://s.example/a', state: 'gone', at: 1 } });
           replies.last_check = (p) => ({ url: p.url, state: 'unreachable' });
           const own = await verdictFor(4, 'https://s.example/a');
           const other = await verdictFor(4, 'https://s.example/b');
           const none = await verdictFor(5, 'https://s.example/a');
           replies.last_check = new Error('gone away');
           replies.last_check.code = 'host_disconnected';
           const noHost = await verdictFor(5, 'https://s.example/c');
           return { own, other, none, noHost, asked: sentOf('last_check') };""",
    )
    assert got["own"] == {"url": "https://s.example/a", "state": "gone", "at": 1}
    assert got["other"] == {"url": "https://s.example/b", "state": "unreachable"}
    assert got["none"] == {"url": "https://s.example/a", "state": "unreachable"}
    assert got["noHost"] is None
    assert [p["url"] for p in got["asked"]] == [
        "https://s.example/b",
        "https://s.example/a",
        "https://s.example/c",
    ]


def test_a_tab_page_over_the_cap_is_not_sent_and_is_too_large_to_check(page):
    got = background(
        page,
        TAB_PAGE
        + """await setOptions({ liveness: true });
           tabPage = { chars: 2500000 };
           loaded(6, 'https://s.example/kept');
           await wait(arg);
           return { checks: sentOf('check'), verdict: await verdictOf(6), badge: log.badges[6] };""",
        SETTLED,
    )
    assert got["checks"] == []
    assert got["verdict"]["state"] == "too_large" and "not checked" in got["verdict"]["reason"]
    assert got["badge"] != "!"


def test_the_page_sent_is_the_rendered_dom_without_scripts_styles_or_form_values(page, modules_url):
    """renderedPage runs in the tab: what scripts built is in; scripts, styles, links but the
    canonical one, and form fields (a typed or prefilled value may be the user's) are out; the live page is left untouched;
    another address (the tab moved on) gives null, and a page over the limit only its size."""
    page.goto(f"{modules_url}/background/")  # an HTML page (the folder's listing)
    got = page.evaluate(
        """async () => {
          document.head.insertAdjacentHTML('beforeend', '<link rel="Canonical" href="/kept-here">'
            + '<link rel="stylesheet" href="/left-out.css">');
          document.body.innerHTML = '<main><p>Built by script</p><input name=email value=me@example.org>'
            + '<textarea>draft reply</textarea><select><option>Secret choice</option></select></main>'
            + '<script>var token = "abc123";</script><style>p{}</style>';
          const { renderedPage, LEFT_OUT } = await import('/background/liveness.js');
          const sent = renderedPage(location.href, 1e6, LEFT_OUT);
          return { sent, live: document.body.innerHTML,
                   other: renderedPage('https://elsewhere.example/', 1e6, LEFT_OUT),
                   small: renderedPage(location.href, 10, LEFT_OUT) };
        }"""
    )
    html = got["sent"]["html"]
    assert html.startswith("<!doctype html><html") and "<p>Built by script</p>" in html
    assert 'href="/kept-here"' in html and "left-out.css" not in html  # the canonical link stays
    for private in ("me@example.org", "draft reply", "Secret choice", "abc123", "p{}"):
        assert private not in html
    assert "me@example.org" in got["live"] and "abc123" in got["live"]
    assert got["other"] is None
    assert set(got["small"]) == {"chars"} and got["small"]["chars"] > 10


def test_archive_from_the_shortcut_and_both_context_menus(page):
    got = background(
        page,
        """setTab(5, 'https://docs.example/guide');
           runtime.onInstalled.fire({ reason: 'install' });
           browser.commands.onCommand.fire('archive-page', { id: 5 });
           await wait(200);
           const shortcut = { scripted: [...log.scripted], sent: sentOf('capture_begin') };
           browser.contextMenus.onClicked.fire({ menuItemId: 'pk-archive-page' }, { id: 5 });
           browser.contextMenus.onClicked.fire({ menuItemId: 'pk-archive-link', linkUrl: 'https://docs.example/other' });
           await wait(200);
           // the popup's summary: one entry per similar page, though the host lists versions
           replies.archive_page = (p) => ({ id: 'v9', url: p.url, key: 'k', similar: [{ id: 'r2' }, { id: 'r1' }] });
           replies.similar = { similar: [{ id: 'r2', key: 'river', similarity: 0.96 },
                                         { id: 'r1', key: 'river', similarity: 0.95 }] };
           const summary = await new Promise((r) => runtime.onMessage.fire(
             { type: 'archive_tab', params: { tabId: 5 } }, { id: 'pk-test' }, r));
           return { menus: log.menus, shortcut, all: sentOf('archive_page'), captured: sentOf('capture_begin').length,
                    similar: summary.result.similar.map((p) => p.id) };""",
    )
    assert got["menus"] == ["pk-archive-page", "pk-archive-link"]
    injected = got["shortcut"]["scripted"][:2]  # page.js into every frame, then its run()
    assert injected == [{"tabId": 5, "files": ["capture/sha256.js", "capture/page.js"]}, {"tabId": 5, "files": None}]  # fmt: skip
    (sent,) = got["shortcut"]["sent"]
    assert sent["url"] == "https://docs.example/guide" and sent["html"].startswith("<html>")
    assert got["captured"] == 3  # the page menu and the popup's button capture the tab too
    assert got["similar"] == ["r2"]
    (link,) = [p for p in got["all"] if p["url"] == "https://docs.example/other"]
    assert "html" not in link and link["captured_at"]  # no tab: the host fetches the link


def test_the_shortcut_and_the_menus_tell_how_the_archive_ended(page):
    """They have no window: the tab's badge shows ✓ or ! for a while, its title the sentence, and
    a notification tells a failure and the linked page's result, in the popup's words
    (lib/messages.js). Then the tab's own badge (its version count) comes back. Each step waits
    for what the background does (the result's badge stored with its time, the notification
    made, the tab's own title set back), not for a time."""
    got = background(
        page,
        """const { feedbackOptions } = await import('/background/feedback.js');
           const { failureText, MESSAGES } = await import('/lib/messages.js');
           feedbackOptions.showMs = 400;
           setTab(5, 'https://docs.example/guide');
           const own = 'PageKeeper: 2 archived versions of this page';
           log.badges[5] = '2'; log.titles[5] = own;
           const seen = (tabId) => ({ badge: log.badges[tabId], title: log.titles[tabId], color: log.colors[tabId] });
           // the ✓ or ! is on (badge, colour and title set, then its time stored); a notification made;
           // the tab's own title set back (the last step of giving the tab its own badge back)
           const shown = (tabId) => called(browser.storage.session, 'set', (v) => `feedback:${tabId}` in v);
           const noted = () => called(browser.notifications, 'create', () => true);
           const back = (tabId) => called(browser.action, 'setTitle', (o) => o.tabId === tabId && o.title === own);
           replies.versions = { versions: [{ id: 'v2' }, { id: 'v1' }] };
           let told = shown(5);
           browser.commands.onCommand.fire('archive-page', { id: 5 });
           await told;
           const done = seen(5);
           await back(5);
           const after = { ...seen(5), notes: log.notes.length };
           const full = Object.assign(new Error('The archive is full: 2.0 GB of 2.0 GB used.'), { code: 'storage' });
           replies.capture_begin = full;
           told = noted();
           const failedBack = back(5);  // no count is shown on a failure: the next own title is the restore's
           browser.contextMenus.onClicked.fire({ menuItemId: 'pk-archive-page' }, { id: 5 });
           await told;
           const failed = { ...seen(5), note: log.notes.at(-1), popup: failureText({ code: 'storage', message: full.message }) };
           await failedBack;
           const failedAfter = seen(5);
           setTab(6, 'https://docs.example/list');
           told = noted();
           browser.contextMenus.onClicked.fire({ menuItemId: 'pk-archive-link', linkUrl: 'https://docs.example/other' }, { id: 6 });
           await told;
           const link = { ...seen(6), note: log.notes.at(-1) };
           told = noted();
           browser.contextMenus.onClicked.fire({ menuItemId: 'pk-archive-link', linkUrl: 'ftp://docs.example/file' }, { id: 6 });
           await told;
           const badLink = { ...seen(6), note: log.notes.at(-1) };
           return { done, after, failed, failedAfter, link, badLink, MESSAGES };""",
    )
    done, failed = got["done"], got["failed"]
    assert done["badge"] == "✓"  # the page on screen: the badge says it, with no notification
    assert done["title"] == "PageKeeper: This page is archived as version 2."
    assert got["after"] == {"badge": "2", "title": "PageKeeper: 2 archived versions of this page",
                            "color": "#1f6f5c", "notes": 0}  # fmt: skip
    assert failed["badge"] == "!" and failed["color"] == "#b3261e"
    assert failed["popup"] in failed["title"] and failed["note"]["message"] == failed["popup"]
    assert failed["note"]["title"] == "This page was not archived"
    assert got["failedAfter"]["badge"] == "2"
    link = got["link"]
    assert link["badge"] == "✓" and "https://docs.example/other" in link["title"]
    assert link["note"]["title"] == "Linked page archived"
    assert "https://docs.example/other" in link["note"]["message"]
    bad = got["badLink"]
    assert bad["badge"] == "!" and bad["note"]["title"] == "The linked page was not archived"
    assert bad["note"]["message"] == got["MESSAGES"]["link_not_archivable"]


def test_a_badge_shown_when_the_worker_stopped_goes_at_its_next_start(page):
    """The ✓ is shown for a while; the browser stops the worker before its timer fires. The
    badge's time is in storage.session, so the next start gives the tab its own badge back.
    Each step waits for what the background does (the ✓'s time stored, the badge set back),
    not for a time: the clock the badge's time is read on moves only when the test says."""
    got = background(
        page,
        """const { feedbackOptions } = await import('/background/feedback.js');
           feedbackOptions.showMs = 400;
           let now = 1795298400000;
           Date.now = () => now;
           setTab(5, 'https://docs.example/guide');
           log.badges[5] = '2'; log.titles[5] = 'PageKeeper: 2 archived versions of this page';
           replies.versions = { versions: [{ id: 'v2' }, { id: 'v1' }] };
           const { set } = browser.storage.session;
           const stored = new Promise((resolve) => {
             browser.storage.session.set = async (v) => { await set(v); if ('feedback:5' in v) resolve(); };
           });
           browser.commands.onCommand.fire('archive-page', { id: 5 });
           await stored;   // the ✓ is on and its time kept
           await wait(0);  // its timer is set (in the turn that stored it)
           const shown = log.badges[5];
           stopWorker();
           now += 500;     // the ✓'s time passes while the worker is stopped
           await wait(450);  // its timer, had it stayed, would have fired by now
           const stopped = log.badges[5];
           const realBadge = browser.action.setBadgeText;
           const back = new Promise((resolve) => {
             browser.action.setBadgeText = async (o) => { await realBadge(o); if (o.tabId === 5 && o.text === '2') resolve(); };
           });
           await restart();
           await Promise.race([back, wait(10000)]);  // a hang guard: the badge comes back at once
           return { shown, stopped, after: log.badges[5], title: log.titles[5],
                    kept: Object.keys(session).filter((k) => k.startsWith('feedback:')) };""",
    )
    assert got["shown"] == "✓" and got["stopped"] == "✓"  # the timer went with the worker
    assert got["after"] == "2" and got["title"] == "PageKeeper: 2 archived versions of this page"
    assert got["kept"] == []


def test_a_capture_resumed_after_a_restart_tells_its_end_as_one_that_did_not_restart(page):
    """From the shortcut, a tab with a frame the capture could not read: once straight through,
    once with the worker stopped while the host commits. The resumed one still names the lost
    frame (in its result, which the popup shows, and on the badge) and still shows the ✓. Each
    step waits for what the background does (the ✓ stored with its time, the tab's own title
    set back, the commit sent), not for a time."""
    got = background(
        page,
        """const { feedbackOptions } = await import('/background/feedback.js');
           feedbackOptions.showMs = 300;
           setTab(5, 'https://docs.example/guide');
           frames.set(5, [{ frameId: 0, url: 'https://docs.example/guide' },
                          { frameId: 3, url: 'https://maps.example/embed' }]);
           log.badges[5] = '2';
           replies.versions = { versions: [{ id: 'v2' }, { id: 'v1' }] };
           const ended = () => ({ badge: log.badges[5], title: log.titles[5], notes: log.notes.length,
                                  lost: session.lastArchive?.frames_lost ?? null });
           // the ✓ is on (badge and title set, then its time stored); the tab's own title set back
           const shown = () => called(browser.storage.session, 'set', (v) => 'feedback:5' in v);
           const back = () => called(browser.action, 'setTitle',
                                     (o) => o.tabId === 5 && o.title === 'PageKeeper: 2 archived versions of this page');
           let told = shown();
           browser.commands.onCommand.fire('archive-page', { id: 5 });
           await told;
           const straight = ended();
           await back();  // the ✓ gone before the second capture
           delete session.lastArchive;
           log.badges[5] = '2';
           const commit = replies.capture_commit;
           replies.capture_commit = HOLD;
           const committing = posted('capture_commit');
           browser.commands.onCommand.fire('archive-page', { id: 5 });
           await committing;
           const held = session['capture:5'].phase;
           stopWorker();
           replies.capture_commit = commit;
           told = shown();
           await restart();
           await told;
           return { straight, held, resumed: ended(), restarts: session['capture:5'].restarts };""",
    )
    straight, resumed = got["straight"], got["resumed"]
    assert got["held"] == "saving" and got["restarts"] == 1
    assert straight["lost"] == [{"url": "https://maps.example/embed", "reason": "unreadable"}]
    assert "1 frame not kept: maps.example" in straight["title"] and straight["badge"] == "✓"
    assert resumed == straight


def test_a_missing_helper_is_named_as_the_popup_names_it(page):
    """The browser's own words for a missing native host ("Specified native messaging host not
    found.") are not what the user reads: the badge and the notification say what the popup says."""
    got = background(
        page,
        """const { MESSAGES } = await import('/lib/messages.js');
           runtime.connectNative = () => {
             const onDisconnect = event();
             const port = { onMessage: event(), onDisconnect, postMessage() {
               runtime.lastError = { message: 'Specified native messaging host not found.' };
               setTimeout(() => { onDisconnect.fire(port); runtime.lastError = null; }, 5); } };
             return port; };
           setTab(5, 'https://docs.example/guide');
           browser.commands.onCommand.fire('archive-page', { id: 5 });
           await wait(300);
           return { note: log.notes.at(-1), title: log.titles[5], badge: log.badges[5], MESSAGES };""",
    )
    assert got["badge"] == "!"
    assert got["note"]["message"] == got["MESSAGES"]["host_missing"]
    assert got["title"].endswith(got["MESSAGES"]["host_missing"])


def test_every_tab_waiting_for_site_access_is_archived_once_when_it_is_granted(page):
    """Two popups asked for site access (two tabs waiting, Firefox): the grant archives both,
    each once, though the grant's event comes twice and one popup asks for its own tab at the
    same time; a tab whose user declined is not archived, and a later grant archives nothing."""
    got = background(
        page,
        """const ask = (type, params) => new Promise((r) => runtime.onMessage.fire({ type, params }, { id: 'pk-test' }, r));
           setTab(5, 'https://a.example/one'); setTab(6, 'https://b.example/two'); setTab(7, 'https://c.example/three');
           for (const tabId of [5, 6, 7]) await ask('archive_on_access', { tabId });
           await ask('archive_on_access', { tabId: 7, waiting: false });  // declined in tab 7
           const granted = { origins: ['http://*/*', 'https://*/*'] };
           browser.permissions.onAdded.fire(granted);
           const popup = ask('archive_after_access', { tabId: 5 });
           browser.permissions.onAdded.fire(granted);
           const reply = await popup;
           await wait(300);
           const first = sentOf('capture_begin').map((p) => p.url).sort();
           browser.permissions.onAdded.fire(granted);
           await wait(300);
           return { first, later: sentOf('capture_begin').length, reply,
                    notes: Object.keys(session).filter((k) => k.startsWith('accessPending')) };""",
    )
    assert got["first"] == ["https://a.example/one", "https://b.example/two"]
    assert got["later"] == 2  # nothing waits any more
    assert got["reply"]["ok"] and got["reply"]["result"]["version_url"]  # the popup's own summary
    assert got["notes"] == []
