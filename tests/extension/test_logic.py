"""The extension's own logic, run as the real ES modules in real Chromium (no Node, no bundler):
error classification, which addresses are watched, the local fallbacks, the repeat filter, the
auto-archive rule, the page capture, and the native port (request IDs, out-of-order replies, timeouts, paged
replies, a missing host, reconnecting) against a scripted fake port.
"""

from __future__ import annotations

import hashlib

import pytest

pytestmark = pytest.mark.browser


@pytest.fixture
def page(chromium, modules_url):
    page = chromium.new_page()
    page.goto(f"{modules_url}/icons/icon.svg")  # same origin as the modules
    yield page
    page.close()


def run(page, module: str, body: str, arg=None):
    """Import extension/<module> as `m` and evaluate `body` (an async function body)."""
    script = f"async (arg) => {{ const m = await import('/{module}'); {body} }}"
    return page.evaluate(script, arg)


def test_errors_that_get_our_page_and_errors_that_do_not(page):
    cases = [
        "net::ERR_NAME_NOT_RESOLVED",
        "net::ERR_CONNECTION_REFUSED",
        "net::ERR_CONNECTION_RESET",
        "net::ERR_CONNECTION_TIMED_OUT",
        "net::ERR_ADDRESS_UNREACHABLE",
        "Error code 2152398878",
        "Error code 2152398861",
        "HTTP 404",
        "HTTP 410",
        "soft_404",
        "net::ERR_ABORTED",
        "Error code 2152398850",
        "net::ERR_CERT_DATE_INVALID",
        "net::ERR_BLOCKED_BY_CLIENT",
        "HTTP 500",
        "",
    ]
    kinds = run(
        page, "lib/net-errors.js", "return arg.map((e) => m.classifyError(e)?.kind ?? null);", cases
    )
    assert kinds == [
        "dns",
        "refused",
        "reset",
        "timeout",
        "unreachable",
        "dns",
        "refused",
        "http_404",
        "http_410",
        "soft_404",
        None,
        None,
        None,
        None,
        None,
        None,
    ]
    words = run(page, "lib/net-errors.js", "return m.describe('dns', 'gooogle.com');")
    assert words["title"] == "This address does not exist"
    assert "gooogle.com" in words["detail"]


# Firefox's network nsresults: 0x804B0000 + the code of xpcom/base/ErrorList.py's NETWORK module.
FIREFOX_NETWORK_ERRORS = [
    ("NS_ERROR_UNKNOWN_HOST", 30, "dns"),
    ("NS_ERROR_UNKNOWN_PROXY_HOST", 42, "dns"),
    ("NS_ERROR_CONNECTION_REFUSED", 13, "refused"),
    ("NS_ERROR_NET_RESET", 20, "reset"),
    ("NS_ERROR_NET_INTERRUPT", 71, "reset"),
    ("NS_ERROR_NET_TIMEOUT", 14, "timeout"),
    ("NS_ERROR_NET_TIMEOUT_EXTERNAL", 85, "timeout"),
]


def test_firefox_s_error_numbers_are_read_and_shown_by_their_names(page):
    codes = [f"Error code {0x804B0000 + n}" for _name, n, _kind in FIREFOX_NETWORK_ERRORS]
    got = run(
        page,
        "lib/net-errors.js",
        """return { kinds: arg.map((e) => m.classifyError(e)?.kind ?? null), shown: arg.map(m.shownCode),
                    other: [m.shownCode('Error code 2152398850'), m.shownCode(' HTTP 404 '), m.shownCode('soft_404'),
                            m.shownCode(undefined)],
                    named: ['NS_ERROR_UNKNOWN_HOST', 'NS_ERROR_CONNECTION_REFUSED', 'NS_ERROR_NET_RESET',
                            'NS_ERROR_NET_INTERRUPT', 'NS_ERROR_NET_TIMEOUT'].map((e) => m.classifyError(e)?.kind) };""",
        codes,
    )
    assert got["kinds"] == [kind for _name, _n, kind in FIREFOX_NETWORK_ERRORS]
    assert got["shown"] == [name for name, _n, _kind in FIREFOX_NETWORK_ERRORS]
    assert got["other"] == ["Error code 2152398850", "HTTP 404", "", ""]
    assert got["named"] == ["dns", "refused", "reset", "reset", "timeout"]  # as the names come


def test_an_error_no_kind_names_is_said_in_general_words_and_a_missing_host_as_the_server(page):
    got = run(
        page,
        "lib/net-errors.js",
        "return [m.describe(undefined, 'a.example'), m.describe('dns', ''), m.classifyError(' HTTP 410 '),"
        " m.describe('refused', ''), m.describe('timeout'), m.describe(undefined, '')];",
    )
    assert got[0] == {
        "title": "This page could not be loaded",
        "detail": "The browser reported an error for a.example.",
    }
    assert got[1]["detail"].startswith("No server is known under that name.")
    assert got[2] == {"kind": "http_410", "error": "HTTP 410"}
    # no host read: the sentence names the server, capitalised where it starts one
    assert got[3]["detail"] == "The server is known, but nothing answered on that port."
    assert got[4]["detail"] == "The server did not answer in time."
    assert got[5]["detail"] == "The browser reported an error for the server."


def test_private_addresses_and_excluded_sites_are_left_alone(page):
    hosts = ["localhost", "127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.9", "wiki", "::1",
             "printer.local", "example.com", "8.8.8.8", "172.32.0.1"]  # fmt: skip
    private = run(page, "lib/addresses.js", "return arg.map(m.isPrivateHost);", hosts)
    assert private == [True] * 7 + [True, False, False, False]
    watched = run(
        page,
        "lib/addresses.js",
        """const s = {allowPrivate: false, excluded: ['bank.example']};
           return [m.isWatched('http://gooogle.com/', s), m.isWatched('http://127.0.0.1:8000/', s),
                   m.isWatched('http://127.0.0.1:8000/', {...s, allowPrivate: true}),
                   m.isWatched('https://www.bank.example/login', s), m.isWatched('ftp://x.com/', s),
                   m.isWatched('chrome-extension://abc/error.html', s)];""",
    )
    assert watched == [True, False, True, False, False, False]


PRIVATE_HOSTS = [
    "", "localhost", "LOCALHOST", "localhost.", "app.localhost", "printer.local", "wiki",
    "0.1.2.3", "10.255.0.1", "127.0.0.1", "169.254.1.1", "172.16.0.1", "172.31.255.255",
    "192.168.0.1", "100.64.0.1", "100.127.255.255", "::1", "fc00::1", "fd12::1", "fe80::1",
    "fe9a::1", "febf::1",
]  # fmt: skip
PUBLIC_HOSTS = [
    "a.local.com", "x.localhost.com", "9.255.255.255", "11.0.0.1", "126.0.0.1", "128.0.0.1",
    "1.0.0.1", "169.253.1.1", "169.255.1.1", "170.254.1.1", "172.15.255.255", "172.32.0.1",
    "173.16.0.1", "192.167.0.1", "192.169.0.1", "193.168.0.1", "100.63.255.255", "100.128.0.1",
    "101.64.0.1", "2001:db8::1", "example.com", "fe7f::1", "fec0::1", "fbff::1",
]  # fmt: skip


def test_private_ranges_end_where_their_rfcs_end(page):
    """RFC 1918, RFC 6598 (100.64/10), link-local, loopback, 0/8, RFC 4193 (fc00::/7), fe80::/10,
    localhost and its subdomains (RFC 6761), .local names and one-label names; a neighbour of
    each range is public."""
    got = run(
        page, "lib/addresses.js", "return arg.map(m.isPrivateHost);", PRIVATE_HOSTS + PUBLIC_HOSTS
    )
    assert got == [True] * len(PRIVATE_HOSTS) + [False] * len(PUBLIC_HOSTS), [
        h
        for h, p in zip(PRIVATE_HOSTS + PUBLIC_HOSTS, got, strict=True)
        if p != (h in PRIVATE_HOSTS)
    ]


def test_an_excluded_site_covers_itself_and_its_subdomains_only(page):
    got = run(
        page,
        "lib/addresses.js",
        """const w = (url, excluded, allowPrivate = false) => m.isWatched(url, { allowPrivate, excluded });
           return [w('https://bank.example/', ['bank.example']), w('https://a.bank.example/', ['*.bank.example']),
                   w('https://a.bank.example/', ['.bank.example']), w('https://notbank.example/', ['bank.example']),
                   w('https://bank.example/', ['']), w('https://bank.example/', ['a.bank.example']),
                   w('http://', [], true), w('http://[::1]:8080/', [], true), w('http://[::1]:8080/', [], false),
                   m.hostOf('http://[FE80::1]/'), m.hostOf('not a url')];""",
    )
    assert got == [False, False, False, True, True, True, False, True, False, "fe80::1", ""]


def test_local_fallbacks_fix_what_needs_no_dictionary(page):
    got = run(
        page,
        "lib/fallback.js",
        "return m.localFallbacks(arg).map((c) => c.url);",
        "http://gooogle.con/a?b=1",
    )
    assert got[0] == "http://gooogle.com/a?b=1"
    assert "https://gooogle.con/a?b=1" in got and "http://www.gooogle.con/a?b=1" in got
    assert "http://gooogle.con/" in got  # the home page
    assert len(got) == len(set(got)) and "http://gooogle.con/a?b=1" not in got
    www = run(
        page,
        "lib/fallback.js",
        "return m.localFallbacks(arg).map((c) => c.url);",
        "https://ww.example.org/",
    )
    assert www[0] == "https://www.example.org/"
    assert run(page, "lib/fallback.js", "return m.localFallbacks('not a url');") == []
    ported = run(
        page,
        "lib/fallback.js",
        "return m.localFallbacks(arg).map((c) => c.url);",
        "http://localhost:8080/app",
    )
    # a port that refused http refuses https too: no scheme swap on an explicit port
    assert ported and not any(u.startswith("https:") for u in ported)
    # localhost is this computer: "www.localhost" is not another site to try
    assert ported == ["http://localhost:8080/"], ported
    for local in ("http://localhost:8080/", "http://127.0.0.1:8080/", "http://app.localhost:3000/"):
        fixes = run(
            page, "lib/fallback.js", "return m.localFallbacks(arg).map((c) => c.url);", local
        )
        assert not any("www." in u for u in fixes), (local, fixes)


def test_each_local_fix_is_named_for_what_it_changes(page):
    """The reason shown beside each local fix, in their order; stray dots; "wwww." as well as
    "ww."; "without www." drops exactly "www."; a name of one label has no TLD to fix."""
    urls = [
        "http://www.example.con/a",
        "http://example..com/",
        "https://wwww.example.org/",
        "http://con/",
    ]
    got = run(
        page,
        "lib/fallback.js",
        "return arg.map((u) => m.localFallbacks(u).map((c) => [c.url, c.reason, c.step]));",
        urls,
    )
    assert got[0] == [
        ["http://www.example.com/a", 'typo in ".con"', "local"],
        ["https://www.example.con/a", "try HTTPS", "local"],
        ["http://example.con/a", 'without "www."', "local"],
        ["http://www.example.con/", "the site's home page", "local"],
    ]
    assert got[1][0] == ["http://example.com/", "stray dots", "local"]
    assert got[2][:2] == [
        ["https://www.example.org/", 'mistyped "www."', "local"],
        ["http://wwww.example.org/", "try HTTP", "local"],
    ]
    assert [url for url, _reason, _step in got[3]] == ["https://con/", "http://www.con/"]


def test_a_failure_is_said_in_the_words_of_its_code_else_its_own_message(page):
    got = run(
        page,
        "lib/messages.js",
        """return [m.failureText({ code: 'host_missing', message: 'Specified native messaging host not found.' }),
                   m.failureText({ code: 'timeout', message: 'no answer to archive in 4000 ms' }),
                   m.failureText(new Error('The tab was closed.')), m.failureText({ code: 'x', message: '' }),
                   m.failureText(undefined), m.siteAccessText('maps.example')];""",
    )
    assert got == [
        "The PageKeeper helper app is not installed.",
        "The PageKeeper helper did not answer in time (it may still be starting). Try again in a moment.",
        "The tab was closed.",
        "Something went wrong.",
        "Something went wrong.",
        "PageKeeper is not allowed to read pages on maps.example: its access to websites was"
        " declined or withdrawn in the browser's add-on settings.",
    ]


def test_the_frames_a_capture_lost_are_counted_and_named_by_their_site(page):
    got = run(
        page,
        "lib/messages.js",
        """return [m.framesLostText([]), m.framesLostText(undefined),
                   m.framesLostText([{ url: 'https://maps.example:8443/embed', reason: 'site_access' }]),
                   m.framesLostText([{ url: 'https://a.example/x', reason: 'unreadable' }, { url: 'not a url', reason: 'new' }])];""",
    )
    assert got == [
        "",
        "",
        "1 frame not kept: maps.example:8443 (PageKeeper may not read pages on that site)",
        "2 frames not kept: a.example (the browser did not let PageKeeper read it), not a url (the"
        " browser did not let PageKeeper read it)",
    ]


def test_repeats_within_the_window_are_ignored_and_retry_releases(page):
    got = run(
        page,
        "lib/rules.js",
        """const r = new m.RecentKeys(4000);
           const out = [r.claim('7 u', 0), r.claim('7 u', 100), r.claim('8 u', 100), r.claim('7 u', 3999),
                        r.claim('7 u', 4100)];
           r.release('7 u');
           out.push(r.claim('7 u', 4200));
           return out;""",
    )
    assert got == [True, False, True, False, True, True]


def test_auto_archive_rules_are_off_by_default_and_respect_age_and_sites(page):
    got = run(
        page,
        "lib/rules.js",
        """const day = 86400000, now = 100 * day;
           return [
             m.shouldAutoArchive({mode: 'off', days: 7, sites: []}, 'a.com', null, now),
             m.shouldAutoArchive({mode: 'every', days: 7, sites: []}, 'a.com', now, now),
             m.shouldAutoArchive({mode: 'older', days: 7, sites: []}, 'a.com', now - 6 * day, now),
             m.shouldAutoArchive({mode: 'older', days: 7, sites: []}, 'a.com', now - 8 * day, now),
             m.shouldAutoArchive({mode: 'older', days: 7, sites: []}, 'a.com', null, now),
             m.shouldAutoArchive({mode: 'every', days: 7, sites: ['docs.a.com']}, 'a.com', null, now),
             m.shouldAutoArchive({mode: 'every', days: 7, sites: ['a.com']}, 'docs.a.com', null, now),
             m.badgeText(0), m.badgeText(2), m.badgeText(1500),
           ];""",
    )
    assert got == [False, True, False, True, True, False, True, "", "2", "999+"]


FAKE_PORT = """
  const ports = [];
  const runtime = { lastError: null, connectNative(name) {
    const listeners = { message: [], disconnect: [] };
    const port = { name, sent: [],
      onMessage: { addListener: (f) => listeners.message.push(f) },
      onDisconnect: { addListener: (f) => listeners.disconnect.push(f) },
      postMessage(m) { this.sent.push(m); },
      reply(m) { listeners.message.forEach((f) => f(m)); },
      close(error) { runtime.lastError = error ? { message: error } : null;
                     listeners.disconnect.forEach((f) => f(port)); runtime.lastError = null; } };
    ports.push(port);
    return port; } };
  globalThis.browser = { runtime };
  const m = await import('/background/native.js');
  const settle = (p) => p.then((r) => ({ ok: r }), (e) => ({ code: e.code, message: e.message }));
"""


def native(page, body: str):
    return page.evaluate(f"async () => {{ {FAKE_PORT} {body} }}")


def test_native_port_matches_replies_by_id_in_any_order(page):
    got = native(
        page,
        """const a = settle(m.request('ping')), b = settle(m.request('versions', {url: 'u'}));
           const [p] = ports; const [ra, rb] = p.sent;
           p.reply({ id: rb.id, ok: true, result: { versions: [] } });
           p.reply({ id: 'unknown', ok: true, result: 1 });
           p.reply({ id: ra.id, ok: false, error: { code: 'not_found', message: 'no' } });
           return { a: await a, b: await b, ports: ports.length, ids: [ra.id !== rb.id, ra.type, rb.params] };""",
    )
    assert got["a"] == {"code": "not_found", "message": "no"}
    assert got["b"] == {"ok": {"versions": []}}
    assert got["ports"] == 1 and got["ids"] == [True, "ping", {"url": "u"}]


def test_native_port_times_out_joins_pages_and_reconnects(page):
    got = native(
        page,
        """const slow = await settle(m.request('check', {}, { timeoutMs: 30 }));
           const big = settle(m.request('get', {id: 'x'}));
           const sent = ports[0].sent.at(-1);
           const text = JSON.stringify({ id: sent.id, ok: true, result: { html: 'é'.repeat(50) } });
           const half = Math.ceil(text.length / 2);
           ports[0].reply({ id: sent.id, page: 1, pages: 2, chunk: text.slice(half) });
           ports[0].reply({ id: sent.id, page: 0, pages: 2, chunk: text.slice(0, half) });
           const joined = await big;
           const cut = settle(m.request('ping'));
           ports[0].close('Native host has exited.');
           const afterCut = await cut;
           const again = settle(m.request('ping'));
           ports[1].reply({ id: ports[1].sent[0].id, ok: true, result: { version: '1' } });
           return { slow, joined: joined.ok.html.length, afterCut, again: await again, ports: ports.length };""",
    )
    assert got["slow"]["code"] == "timeout"
    assert got["joined"] == 50
    assert got["afterCut"] == {"code": "host_disconnected", "message": "Native host has exited."}
    assert got["again"] == {"ok": {"version": "1"}} and got["ports"] == 2


def test_a_missing_host_fails_fast_with_host_missing(page):
    got = native(
        page,
        """const first = settle(m.request('ping'));
           ports[0].close('Specified native messaging host not found.');
           const second = await settle(m.request('ping'));  // answered without a new process
           return { first: await first, second, ports: ports.length, state: m.portState().lastFailure.code };""",
    )
    assert got["first"]["code"] == "host_missing"
    assert got["second"]["code"] == "host_missing"
    assert got["ports"] == 1 and got["state"] == "host_missing"


def test_the_big_button_goes_only_to_a_sure_repair(page):
    got = run(
        page,
        "lib/suggestions.js",
        """const s = (url, score, step = 'spe') => ({ url, score, step });
           const pick = (result) => { const r = m.rankForPage({ confident: 0.5, ...result }, 'http://gooogle.com/');
                                      return [r.best?.url ?? null, r.rest.map((x) => x.url)]; };
           return [
             pick({ suggestions: [s('http://google.com/', 0.83), s('http://google.cm/', 0.6)] }),
             pick({ suggestions: [s('http://google.com/', 0.42), s('http://google.us/', 0.01)] }),
             pick({ suggestions: [s('http://google.com/', 0.42), s('http://google.us/', 0.2)] }),
             pick({ suggestions: [s('http://google.com/', 0.2)] }),
             pick({ suggestions: [s('http://gooogle.com/', 0.9), s('http://a.com/', 0.1)] }),
             pick({ suggestions: [s('http://127.0.0.1:1/v/1/x', 0.95, 'archive'), s('http://x.com/', 0.3)],
                    archived: [{ version_url: 'http://127.0.0.1:1/v/1/x' }] }),
             pick({ suggestions: [s('http://127.0.0.1:1/v/1/x', 0.95, 'archive'), s('http://x.com/b', 0.69, 'site')],
                    archived: [{ version_url: 'http://127.0.0.1:1/v/1/x' }] }),
             pick({ suggestions: [s('http://google.com/', 0.9), s('http://127.0.0.1:1/v/1/x', 0.45, 'archive')],
                    archived: [{ version_url: 'http://127.0.0.1:1/v/1/x' }] }),
             pick({}),
             pick({ suggestions: [s('http://google.com/', 0.83)], confident: 0.9 }),
             pick({ suggestions: [s('http://google.com/', 0.83)], confident: undefined }),
           ];""",
    )
    assert got == [
        ["http://google.com/", ["http://google.cm/"]],
        [None, ["http://google.com/", "http://google.us/"]],
        [None, ["http://google.com/", "http://google.us/"]],
        [None, ["http://google.com/"]],
        [None, ["http://a.com/"]],
        [None, ["http://x.com/"]],
        [None, ["http://x.com/b"]],  # the copy ranked first: no runner-up takes the large button
        ["http://google.com/", []],
        [None, []],
        [None, ["http://google.com/"]],  # the bar is the host's (nav_error's `confident`)
        [None, ["http://google.com/"]],  # no bar in the answer: no large button
    ]


def test_a_copy_offered_as_a_suggestion_is_left_to_its_own_button(page):
    """A copy is dropped from the addresses whether the host marks it (step "archive") or the
    page knows it as an archived or similar page's version; the rest keep their order."""
    got = run(
        page,
        "lib/suggestions.js",
        """const s = (url, score, step = 'spe') => ({ url, score, step });
           const r = m.rankForPage({ confident: 0.5, suggestions: [
               s('http://google.com/', 0.9), s('http://127.0.0.1:1/v/9/y', 0.8, 'archive'),
               s('http://127.0.0.1:1/v/2/b', 0.7, 'site'), s('http://google.org/', 0.3)],
             similar: [{ version_url: 'http://127.0.0.1:1/v/2/b' }] }, 'http://gooogle.com/');
           return [r.best.url, r.rest.map((x) => x.url)];""",
    )
    assert got == ["http://google.com/", ["http://google.org/"]]


def test_a_score_at_the_host_s_bar_takes_the_big_button(page):
    got = run(
        page,
        "lib/suggestions.js",
        """return [0.5, 0.4999].map((score) => m.rankForPage({ confident: 0.5,
                   suggestions: [{ url: 'http://google.com/', score, step: 'spe' }] }, 'http://gooogle.com/').best?.url ?? null);""",
    )
    assert got == ["http://google.com/", None]


def test_a_page_archived_twice_is_one_similar_page_its_most_similar_version(page):
    """The host lists similar pages by version, most similar first: one entry a page (its key,
    else its URL), the first of each kept, the others in their order."""
    got = run(
        page,
        "lib/suggestions.js",
        """return [m.distinctPages([{ key: 'a', id: 1 }, { key: 'b', id: 2 }, { key: 'a', id: 3 },
                                   { url: 'u', id: 4 }, { url: 'u', id: 5 }, { key: 'c', url: 'u', id: 6 }]).map((p) => p.id),
                   m.distinctPages(undefined)];""",
    )
    assert got == [[1, 2, 4, 6], []]


def test_capture_is_the_page_as_the_user_sees_it(page, modules_url):
    """capture/page.js (injected with scripting.executeScript): the live DOM with what the user
    typed, never a password, plus URL, title and charset."""
    # Served by the route below, on the modules' origin so the page can import them.
    form = f"{modules_url}/capture-test.html"
    html = """<!doctype html><html><head><meta charset="utf-8"><title>Sign-up form</title></head>
        <body><input id="name"><input id="secret" type="password"><textarea id="note"></textarea>
        <select id="size"><option>S</option><option>M</option></select><input id="ok" type="checkbox">
        </body></html>"""
    page.route(
        form, lambda route: route.fulfill(body=html, content_type="text/html; charset=utf-8")
    )
    page.goto(form)
    page.fill("#name", "Ada")
    page.fill("#secret", "hunter2")
    page.fill("#note", "typed <b>text</b>")
    page.select_option("#size", "M")
    page.check("#ok")
    page.evaluate(
        "document.body.append(Object.assign(document.createElement('p'), {id: 'late', textContent: 'added by script'}))"
    )
    page.add_script_tag(url=f"{modules_url}/capture/sha256.js")
    page.add_script_tag(url=f"{modules_url}/capture/page.js")
    got = page.evaluate("pagekeeperCapture.run({ key: 't' })")
    html = got["html"]
    assert html.startswith("<!DOCTYPE html>\n<html")
    assert 'value="Ada"' in html and "hunter2" not in html
    assert "typed &lt;b&gt;text&lt;/b&gt;</textarea>" in html
    assert '<option selected="">M</option>' in html and 'id="ok" type="checkbox" checked=""' in html
    assert '<p id="late">added by script</p>' in html  # the DOM as it is now, not as served
    assert got["title"] == "Sign-up form" and got["charset"] == "UTF-8"
    assert got["url"] == page.url and got["content_type"] == "text/html"


def test_a_picture_left_to_a_lazy_loader_is_captured_as_the_one_it_would_load(page, modules_url):
    """An image showing nothing or a data: placeholder takes its data-src, else the widest
    candidate of its data-srcset (the first of equals; no descriptor is 1x); an image showing a
    picture keeps it; a data: data-src is nothing to fetch."""
    lazy = f"{modules_url}/lazy-test.html"
    gif = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
    html = f"""<!doctype html><html><head><meta charset="utf-8"><title>Lazy</title></head><body>
        <img id="a" data-src="/img/a.png" src="{gif}" loading="lazy">
        <img id="b" data-srcset="/img/n.png 100w, /img/w.png 800w, /img/m.png 400w" srcset="{gif} 1w" sizes="60px">
        <img id="c" data-src="/img/not-now.png" src="/img/shown.png">
        <img id="d" data-srcset="/img/one.png, /img/two.png 2x" src="{gif}">
        <img id="e" data-src="{gif}" data-srcset="/img/e.png 10w" src="{gif}">
        <img id="f" data-srcset="/img/p.png 300w, /img/q.png 300w">
        <img id="g" src="{gif}">
        <img id="h" data-srcset="/img/h1.png 1.5x, /img/h2.png wide"></body></html>"""
    page.route(
        lazy, lambda route: route.fulfill(body=html, content_type="text/html; charset=utf-8")
    )
    page.goto(lazy)
    page.add_script_tag(url=f"{modules_url}/capture/sha256.js")
    page.add_script_tag(url=f"{modules_url}/capture/page.js")
    got = page.evaluate(
        """async () => {
          const { html, resources } = await pagekeeperCapture.run({ key: 'lazy' });
          const copy = new DOMParser().parseFromString(html, 'text/html');
          const kept = (i) => ['srcset', 'sizes', 'loading'].filter((a) => i.hasAttribute(a));
          return { srcs: [...copy.images].map((i) => [i.id, i.getAttribute('src'), kept(i)]),
                   fetched: resources.map((r) => r.url).sort() };
        }"""
    )
    img = f"{modules_url}/img"
    assert got["srcs"] == [
        ["a", f"{img}/a.png", []],  # a copy loads every picture at once
        ["b", f"{img}/w.png", []],  # the placeholder's srcset would win over src
        ["c", f"{img}/shown.png", []],
        ["d", f"{img}/two.png", []],
        ["e", f"{img}/e.png", []],
        ["f", f"{img}/p.png", []],
        ["g", gif, []],
        ["h", f"{img}/h1.png", []],  # a descriptor that is no number counts as 1x
    ]
    assert got["fetched"] == sorted(
        f"{img}/{name}.png" for name in ("a", "w", "shown", "two", "e", "p", "h1")
    )


def test_the_portable_sha256_agrees_with_hashlib_at_every_padding_boundary(page, modules_url):
    """Content scripts on http:// pages have no crypto.subtle: capture/sha256.js hashes there."""

    page.goto(f"{modules_url}/capture/")  # a directory listing: an HTML page to add scripts to
    page.add_script_tag(url=f"{modules_url}/capture/sha256.js")
    sizes = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 1000, 1 << 20]
    got = page.evaluate(
        """(sizes) => sizes.map((n) => {
             const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 31 + 7) & 255);
             return pagekeeperSha256.portable(bytes);
           })""",
        sizes,
    )
    wanted = [
        hashlib.sha256(bytes((i * 31 + 7) & 255 for i in range(n))).hexdigest() for n in sizes
    ]
    assert got == wanted


SCRIPTED_TRANSFER = """
  const reads = [], sent = [], held = [];
  let answered = 0, due = 0;  // answers given; answers on their way
  const reply = (port, m) => port.listeners.message.forEach((f) => f({ id: m.id, ok: true, result: {} }));
  const runtime = { lastError: null, connectNative(name) {
    const port = { listeners: { message: [], disconnect: [] } };
    port.onMessage = { addListener: (f) => port.listeners.message.push(f) };
    port.onDisconnect = { addListener: (f) => port.listeners.disconnect.push(f) };
    port.postMessage = (m) => {
      sent.push([m.params.url, answered]);
      if (m.params.url === arg.slow) held.push(() => reply(port, m));  // answered at the end
      else { due++; setTimeout(() => { due--; answered++; reply(port, m); }, 5); }
    };
    return port; } };
  const scripting = { async executeScript({ args: [key, ranges] }) {
    reads.push([ranges.map((r) => r.url), ranges.reduce((n, r) => n + r.length, 0), answered]);
    return [{ frameId: 0, result: ranges.map(() => 'QUJD') }];
  } };
  globalThis.browser = { runtime, scripting };
  const { sendParts } = await import('/capture/transfer.js');
  const page = { resources: new Map(), holders: new Map() };
  arg.urls.forEach((u) => { page.resources.set(u, { url: u, size: arg.size }); page.holders.set(u, { frameId: 0 }); });
  const report = { state: {}, update: async () => {}, sent: async () => {} };
  const done = sendParts({ tabId: 1, key: 'k', captureId: 'c', need: arg.urls, limits: { part_bytes: 8 << 20 }, page, report });
  // Until the transfer can go no further without the held answer: no answer on its way and
  // nothing sent in a whole turn (each answer is a task; what it sets off has run by the next).
  for (let last = -1; due || sent.length !== last; ) {
    last = sent.length;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  const before = sent.length;
  held.forEach((answer) => answer());
  await done;
  return { reads, sent, before };
"""


def test_parts_stream_in_small_read_batches_without_waiting_for_a_slow_part(page):
    """The page is read in batches of at most 1 MiB, the next one read before any part of the
    first was answered (read ahead: all 8 lanes are busy then), and a part the host is slow to
    answer holds no other part back (no barrier at the end of a batch)."""
    urls = [f"https://a.example/{i}.png" for i in range(40)]
    got = page.evaluate(
        f"async (arg) => {{ {SCRIPTED_TRANSFER} }}",
        {"urls": urls, "size": 64 * 1024, "slow": urls[0]},
    )
    batches = [urls for urls, _bytes, _answered in got["reads"]]
    assert batches == [urls[0:16], urls[16:32], urls[32:40]]
    assert all(size <= 2**20 for _urls, size, _answered in got["reads"])
    assert got["reads"][1][2] == 0  # the second batch read before any part was answered
    assert got["reads"][2][2] > 0  # the third not: one batch read ahead at most (memory)
    assert got["before"] == 40  # every part sent while the first was still unanswered
    assert [url for url, _ in got["sent"]] == urls


def test_the_capture_summary_reads_as_a_person_would_say_it(page):
    cases = [
        {"stored": 0, "missing": 0, "bytes_new": 1500},
        {"stored": 1, "missing": 0, "bytes_new": 512},
        {"stored": [1, 2, 3], "missing": [4], "bytes_new": 3 * 2**20 + 2**19},
        {"stored": 12, "missing": 0, "bytes_new": 0},
        {"stored": 2, "missing": 1},
        {"stored": 0, "missing": 2, "bytes_new": 2048},
    ]
    lines = run(
        page, "lib/capture-summary.js", "return arg.map((r) => m.resourcesSummary(r));", cases
    )
    assert lines == [
        "No other files on this page",
        "1 file kept with the page · 512 bytes new",
        "3 files kept with the page, 1 missing · 3.5 MB new",
        "12 files kept with the page · all stored before",
        "2 files kept with the page, 1 missing",
        "0 files kept with the page, 2 missing · 2.0 KB new",
    ]
    sizes = run(
        page,
        "lib/capture-summary.js",
        "return arg.map((n) => m.byteSize(n));",
        [1, 1023, 1024, 2**20 - 1, 2**20],
    )
    assert sizes == ["1 byte", "1023 bytes", "1.0 KB", "1.0 MB", "1.0 MB"]


# capture/progress.js over a scripted storage.session (what outlives a stopped service worker),
# with the clock held still so the write interval is exact.
SCRIPTED_PROGRESS = """
  const session = {};
  globalThis.browser = { storage: { session: {
    async get(k) { return k === null ? structuredClone(session) : (k in session ? { [k]: structuredClone(session[k]) } : {}); },
    async set(v) { Object.assign(session, structuredClone(v)); },
    async remove(k) { [].concat(k).forEach((x) => delete session[x]); } } } };
  let now = 1795298400000;
  Date.now = () => now;
  const m = await import('/capture/progress.js');
"""


def progress(page, body: str, arg=None):
    return page.evaluate(f"async (arg) => {{ {SCRIPTED_PROGRESS} {body} }}", arg)


def test_capture_progress_is_stored_by_phase_and_at_most_every_200_ms_but_the_last_part(page):
    """The popup reads the progress from storage.session: each phase change is written at once,
    with how long the phase before took; a sent part is written when 200 ms have passed since the
    last write (not 1 ms sooner), and the last part always, so the popup never stays short."""
    got = progress(
        page,
        """const p = m.progress(7, 'https://a.example/');
           const fresh = structuredClone(p.state);
           now += 120;
           await p.update({ phase: 'sending', parts_total: 4, bytes_total: 40 });
           const sending = await m.readProgress(7);
           now += 199;
           await p.sent(10);
           const early = await m.readProgress(7);
           now += 1;
           await p.sent(10);
           const due = await m.readProgress(7);
           await p.sent(10);
           const held = await m.readProgress(7);
           await p.sent(10);
           const last = await m.readProgress(7);
           return { fresh, sending, early, due, held, last, key: m.progressKey(7), stored: Object.keys(session) };""",
    )
    assert got["fresh"] == {
        "url": "https://a.example/",
        "phase": "collecting",
        "started_at": 1795298400000,
        "bytes_sent": 0,
        "bytes_total": 0,
        "parts_sent": 0,
        "parts_total": 0,
        "timings": {},
    }
    assert got["sending"]["phase"] == "sending" and got["sending"]["timings"] == {"collecting": 120}
    assert got["sending"]["updated_at"] == 1795298400120
    assert (got["early"]["parts_sent"], got["early"]["bytes_sent"]) == (0, 0)  # 199 ms: not yet
    assert (got["due"]["parts_sent"], got["due"]["bytes_sent"]) == (2, 20)  # 200 ms: written
    assert got["held"]["parts_sent"] == 2  # 0 ms since: held
    assert (got["last"]["parts_sent"], got["last"]["bytes_sent"]) == (4, 40)  # the last: at once
    assert got["key"] == "capture:7" and got["stored"] == ["capture:7"]


def test_a_phase_written_again_keeps_its_timing_and_a_carried_on_capture_keeps_its_state(page):
    got = progress(
        page,
        """const p = m.progress(3, 'https://a.example/');
           now += 50;
           await p.update({ phase: 'sending' });
           now += 70;
           await p.update({ phase: 'sending', resumed: 1 });  // the same phase: no new timing
           const stored = await m.readProgress(3);
           const from = structuredClone(stored);
           const q = m.progress(3, 'ignored', from);
           q.state.bytes_sent = 5;
           return { stored, carried: q.state.url, copied: from.bytes_sent, none: await m.readProgress(4) };""",
    )
    assert got["stored"]["timings"] == {"collecting": 50} and got["stored"]["resumed"] == 1
    assert got["carried"] == "https://a.example/" and got["copied"] == 0  # a copy, not the record
    assert got["none"] is None


def test_only_captures_left_running_are_carried_on_after_a_restart(page):
    """At the worker's start: a capture collecting, sending or saving was cut short by the stop;
    done and failed ones, and records of other kinds, are left alone."""
    got = progress(
        page,
        """Object.assign(session, {
             'capture:7': { phase: 'sending' }, 'capture:8': { phase: 'done' },
             'capture:9': { phase: 'failed' }, 'capture:10': { phase: 'collecting' },
             'capture:11': { phase: 'saving' }, 'tab:12': { phase: 'sending' }, 'liveness:13': {} });
           return (await m.interruptedCaptures()).map(({ tabId, state }) => [tabId, state.phase]);""",
    )
    assert sorted(got) == [[7, "sending"], [10, "collecting"], [11, "saving"]]


def test_the_popup_s_capture_line_names_the_phase_the_files_and_the_megabytes(page):
    lines = run(
        page,
        "capture/progress.js",
        "return arg.map((p) => m.captureText(p));",
        [
            {"phase": "collecting"},
            {"phase": "saving"},
            {
                "phase": "sending",
                "bytes_sent": 3 * 2**20,
                "bytes_total": 12 * 2**20,
                "resources_needed": 40,
            },  # fmt: skip
            {"phase": "sending", "bytes_sent": 2**19, "bytes_total": 2**20, "resources_needed": 1},
            {"phase": "sending", "bytes_sent": 0, "bytes_total": 0},
        ],
    )
    assert lines == [
        "Reading the page and the files it uses…",
        "Saving the copy…",
        "Sending 40 files to the helper app: 3.0 of 12.0 MB",
        "Sending 1 file to the helper app: 0.5 of 1.0 MB",
        "Sending 0 files to the helper app: 0.0 of 0.0 MB",
    ]


# lib/browser.js over a scripted `browser` global shaped as Firefox's (moz-extension://), with no
# storage.session (Firefox before 115): what every module reaches the browser through.
SCRIPTED_BROWSER = """
  const local = { 'session:tab:1': { a: 1 }, 'session:capture:2': { phase: 'sending' }, kept: 'sync-like' };
  const asked = [];
  let access = arg?.access;
  globalThis.browser = {
    runtime: { getURL: (p) => 'moz-extension://uuid-1/' + p, getManifest: () => ({ host_permissions: ['<all_urls>'] }),
               sendMessage: async (m) => ({ ok: true, result: m }) },
    storage: { local: {
      async get(k) { const all = structuredClone(local); if (k === null) return all;
                     return Object.fromEntries([].concat(k).filter((x) => x in all).map((x) => [x, all[x]])); },
      async set(v) { Object.assign(local, structuredClone(v)); },
      async remove(k) { [].concat(k).forEach((x) => delete local[x]); } } },
    permissions: {
      async contains(q) { asked.push(['contains', q]); if (access instanceof Error) throw access; return access; },
      async request(q) { asked.push(['request', q]); if (access instanceof Error) throw access; return access; } },
    webNavigation: { async getAllFrames({ tabId }) { if (tabId < 0) throw new Error('no tab'); return tabId === 0 ? null : [{ frameId: 0, url: 'https://a.example/' }]; } },
    scripting: { async executeScript({ target, func, args }) {
      asked.push(['script', target]);
      return [{ frameId: 0, result: func ? func(...args) : null }, { frameId: 3, error: 'no access' }, null]; } },
  };
  const m = await import('/lib/browser.js');
"""


def wrapper(page, body: str, arg=None):
    return page.evaluate(f"async (arg) => {{ {SCRIPTED_BROWSER} {body} }}", arg)


def test_the_browser_wrapper_reads_firefox_and_its_session_fallback(page):
    """Firefox without storage.session: the session area lives in storage.local under
    `session:`, and a new browser session empties only those keys."""
    got = wrapper(
        page,
        """const one = await m.sessionStore.get('tab:1');
           const list = await m.sessionStore.get(['tab:1', 'tab:9']);
           const all = await m.sessionStore.get(null);
           await m.sessionStore.set({ 'tab:3': { b: 2 } });
           await m.sessionStore.remove('tab:1');
           const after = structuredClone(local);
           await m.clearSessionFallback();
           return { own: m.isOwnPage('moz-extension://uuid-1/error/error.html'),
                    notOwn: [m.isOwnPage('https://a.example/'), m.isOwnPage(undefined)],
                    url: m.pageURL('popup/popup.html'), one, list, all, after, cleared: structuredClone(local) };""",
    )
    assert got["own"] is True and got["notOwn"] == [False, False]
    assert got["url"] == "moz-extension://uuid-1/popup/popup.html"
    assert got["one"] == {"tab:1": {"a": 1}} and got["list"] == {"tab:1": {"a": 1}}
    assert got["all"] == {"tab:1": {"a": 1}, "capture:2": {"phase": "sending"}}
    assert got["after"] == {
        "session:capture:2": {"phase": "sending"},
        "session:tab:3": {"b": 2},
        "kept": "sync-like",
    }
    assert got["cleared"] == {"kept": "sync-like"}


def test_clearing_the_session_fallback_leaves_storage_alone_where_session_storage_exists(page):
    """Chromium has storage.session: storage.local holds no session, and a `session:` key there
    is the user's, never removed."""
    got = page.evaluate(
        """async () => {
          const local = { 'session:x': 1 };
          const area = { async get() { return { ...local }; }, async set() {}, async remove(k) { [].concat(k).forEach((x) => delete local[x]); } };
          globalThis.chrome = { runtime: { getURL: (p) => 'chrome-extension://id/' + p },
                                storage: { local: area, session: { async get() { return {}; } } } };
          const m = await import('/lib/browser.js');
          await m.clearSessionFallback();
          return { local };
        }"""
    )
    assert got == {"local": {"session:x": 1}}


def test_the_session_fallback_is_empty_when_clearing_it_resolves(page):
    """The background reads the session area after a new browser session started: what clearing
    returns has been removed, even from a storage that takes 40 ms to remove."""
    got = wrapper(
        page,
        """const remove = browser.storage.local.remove;
           browser.storage.local.remove = async (k) => { await new Promise((r) => setTimeout(r, 40)); return remove(k); };
           await m.clearSessionFallback();
           return structuredClone(local);""",
    )
    assert got == {"kept": "sync-like"}


@pytest.mark.parametrize(
    ("access", "has", "granted"),
    [(True, True, True), (False, False, False), ("throws", True, False)],
)
def test_site_access_is_asked_for_the_site_and_an_api_that_cannot_answer_counts_as_access(
    page, access, has, granted
):
    got = wrapper(
        page,
        """if (arg.access === 'throws') access = new Error('unsupported');
           return { has: await m.hasSiteAccess('http://127.0.0.1:8080/a?b'), granted: await m.requestSiteAccess(), asked };""",
        {"access": access},
    )
    assert got["has"] is has and got["granted"] is granted
    assert got["asked"] == [
        ["contains", {"origins": ["http://127.0.0.1/*"]}],
        ["request", {"origins": ["<all_urls>"]}],
    ]


def test_frames_and_scripts_answer_what_the_browser_could_run(page):
    """framesOf is [] when the browser cannot say; runInTab returns the top frame's result;
    runInFrames leaves out a frame that failed and targets the frames asked for, else all."""
    got = wrapper(
        page,
        """return { frames: await m.framesOf(5), none: await m.framesOf(0), failed: await m.framesOf(-1),
                    tab: await m.runInTab(5, (a, b) => a + b, [2, 3]),
                    some: await m.runInFrames(5, { func: (k) => k, args: ['x'], frameIds: [0] }),
                    every: await m.runInFrames(6, { func: () => 1 }),
                    sent: await m.callBackground('ping', { a: 1 }), asked };""",
    )
    assert got["frames"] == [{"frameId": 0, "url": "https://a.example/"}]
    assert got["none"] == [] and got["failed"] == []
    assert got["tab"] == 5
    assert got["some"] == [{"frameId": 0, "result": "x"}]
    assert got["every"] == [{"frameId": 0, "result": 1}]
    assert got["sent"] == {"ok": True, "result": {"type": "ping", "params": {"a": 1}}}
    targets = [q for kind, q in got["asked"] if kind == "script"]
    assert targets == [{"tabId": 5}, {"tabId": 5, "frameIds": [0]}, {"tabId": 6, "allFrames": True}]


# capture/transfer.js against a scripted host: `host(m)` answers each request (a result, or an
# {error: code}); waits of 500 ms and more (the resume's back-off) are recorded and not waited.
SCRIPTED_HOST = """
  const sent = [], reads = [], updates = [], waits = [], reported = [];
  let inFlight = 0, mostInFlight = 0;
  const realTimeout = globalThis.setTimeout;
  // arg.clock: a clock that moves only as the page reads (7 ms a batch) and the host answers (5 ms a part)
  let now = 0;
  if (arg.clock) Date.now = () => now;
  let waited = 0;  // back-offs whose (shortened) time has passed
  globalThis.setTimeout = (f, ms, ...a) => {
    if (ms >= 500 && ms < 60000) { waits.push(ms); return realTimeout(() => { waited++; f(...a); }, 0); }
    return realTimeout(f, ms, ...a);
  };
  const runtime = { lastError: null, connectNative() {
    const listeners = [];
    const port = { onMessage: { addListener: (f) => listeners.push(f) }, onDisconnect: { addListener() {} } };
    port.postMessage = (m) => {
      sent.push({ type: m.type, ...m.params, data: undefined, waited });
      inFlight++; mostInFlight = Math.max(mostInFlight, inFlight);
      realTimeout(() => {
        inFlight--;
        now += 5;
        const r = host(m);
        listeners.forEach((f) => f(r?.error ? { id: m.id, ok: false, error: { code: r.error, message: r.error } }
                                             : { id: m.id, ok: true, result: r ?? {} }));
      }, 5);
    };
    return port; } };
  const scripting = { async executeScript({ args: [key, ranges] }) {
    reads.push(ranges.map((r) => [r.url, r.offset, r.length]));
    await new Promise((resolve) => realTimeout(resolve, 1));
    now += 7;
    return [{ frameId: 0, result: arg.unreadable ? null : ranges.map(() => 'QUJD') }];
  } };
  globalThis.browser = { runtime, scripting };
  const { sendParts, planParts } = await import('/capture/transfer.js');
  const page = { resources: new Map(), holders: new Map() };
  for (const [u, size] of Object.entries(arg.sizes ?? {})) { page.resources.set(u, { url: u, size }); page.holders.set(u, { frameId: 0 }); }
  const report = { state: {}, update: async (f) => { updates.push(f); }, sent: async (n) => { reported.push(n); } };
  const send = (need, limits = {}) => sendParts({ tabId: 1, key: 'k', captureId: 'c', need, limits, page, report });
  const parts = () => sent.filter((m) => m.type === 'capture_part').map((m) => [m.url, m.index, m.count]);
  const outcome = (p) => p.then(() => 'sent', (e) => e.code);
"""


def transfer(page, body: str, arg: dict):
    return page.evaluate(f"async (arg) => {{ {SCRIPTED_HOST} {body} }}", arg)


def test_a_part_is_at_most_32_mib_and_4_mib_when_the_host_names_no_size(page):
    """A native message to the host is capped at 64 MiB, and base64 makes 4 bytes of 3."""
    mib = 2**20
    got = transfer(
        page,
        """const host = () => ({});
           await send(['a'], { part_bytes: 2 ** 30 });
           const big = reads.splice(0);
           await send(['a']);
           const plain = reads.splice(0).map((r) => r[0][2]);
           await send(['b'], { part_bytes: 1 });
           return { big, plain, bytes: reads[0] };""",
        {"sizes": {"a": 40 * mib, "b": 3}},
    )
    assert got["big"] == [[["a", 0, 32 * mib]], [["a", 32 * mib, 8 * mib]]]
    assert got["plain"] == [4 * mib] * 10
    assert got["bytes"] == [["b", 0, 1], ["b", 1, 1], ["b", 2, 1]]  # down to the host's 1 byte


def test_parts_are_planned_whole_and_only_for_what_the_page_holds(page):
    got = transfer(
        page,
        """const host = () => ({});
           page.resources.set('unheld', { url: 'unheld', size: 9 });  // fetched, not kept in a frame
           return planParts(['a', 'empty', 'unheld', 'unknown'], page, 4)
             .map(({ url, index, count, offset, length }) => [url, index, count, offset, length]);""",
        {"sizes": {"a": 10, "empty": 0}},
    )
    assert got == [
        ["a", 0, 3, 0, 4],
        ["a", 1, 3, 4, 4],
        ["a", 2, 3, 8, 2],
        ["empty", 0, 1, 0, 0],  # an empty file is one empty part: the host can assemble it
    ]


def test_at_most_8_parts_are_in_flight(page):
    got = transfer(
        page,
        """const host = () => ({});
           await send(Object.keys(arg.sizes), { part_bytes: 1024 });
           return { most: mostInFlight, parts: parts().length, reported };""",
        {"sizes": {f"u{i}": 1000 for i in range(30)}},
    )
    assert got == {"most": 8, "parts": 30, "reported": [1000] * 30}  # each part told to the popup


def test_a_lost_host_is_resumed_five_times_waiting_longer_each_time_then_fails(page):
    got = transfer(
        page,
        """const host = (m) => m.type === 'capture_status' ? { missing: { a: [0] } } : { error: 'host_disconnected' };
           const lost = await outcome(send(['a'], { part_bytes: 1024 }));
           const statuses = sent.filter((m) => m.type === 'capture_status');
           return { lost, statuses: statuses.length, after: statuses.map((m) => m.waited), waits,
                    resumed: updates.map((u) => u.resumed).filter(Boolean) };""",
        {"sizes": {"a": 10}},
    )
    assert got["lost"] == "host_disconnected"
    assert got["statuses"] == 5 and got["resumed"] == [1, 2, 3, 4, 5]
    assert got["waits"] == [500, 1000, 1500, 2000, 2500]
    assert got["after"] == [1, 2, 3, 4, 5]  # each back-off waited out before the host is asked


def test_an_error_that_is_not_a_lost_host_fails_at_once(page):
    got = transfer(
        page,
        """const host = () => ({ error: 'invalid_params' });
           const failed = await outcome(send(['a'], { part_bytes: 1024 }));
           return { failed, statuses: sent.filter((m) => m.type === 'capture_status').length };""",
        {"sizes": {"a": 10}},
    )
    assert got == {"failed": "invalid_params", "statuses": 0}


def test_after_a_lost_host_only_the_parts_it_lacks_are_sent_again(page):
    """The first try loses a's part 1 (the host went away); capture_status names it, and only it
    is sent again, not a's other parts or b."""
    got = transfer(
        page,
        """let lost = false;
           const host = (m) => {
             if (m.type === 'capture_status') return { missing: { a: [1] } };
             if (m.params.url === 'a' && m.params.index === 1 && !lost) { lost = true; return { error: 'timeout' }; }
             return {};
           };
           const done = await outcome(send(['a', 'b'], { part_bytes: 4 }));
           return { done, parts: parts(), updates };""",
        {"sizes": {"a": 10, "b": 3}},
    )
    assert got["done"] == "sent"
    assert got["parts"] == [["a", 0, 3], ["a", 1, 3], ["a", 2, 3], ["b", 0, 1], ["a", 1, 3]]
    assert got["updates"] == [
        {"phase": "sending", "parts_total": 4, "bytes_total": 13, "resources_needed": 2},
        {"resumed": 1},
    ]


def test_a_capture_carried_on_after_a_restart_sends_what_the_host_lacks_at_once(page):
    """`need` null (the worker restarted): the host's capture_status decides, with no wait."""
    got = transfer(
        page,
        """const host = (m) => (m.type === 'capture_status' ? { missing: { b: [0] } } : {});
           const done = await outcome(send(null, { part_bytes: 4 }));
           return { done, first: sent[0].type, parts: parts(), waits, updates };""",
        {"sizes": {"a": 10, "b": 3}},
    )
    assert got["done"] == "sent" and got["first"] == "capture_status"
    assert got["parts"] == [["b", 0, 1]] and got["waits"] == []
    assert got["updates"] == [{"phase": "sending"}]


def test_a_page_closed_before_its_parts_were_read_fails_the_capture(page):
    got = transfer(
        page,
        """const host = () => ({});
           return outcome(send(['a'], { part_bytes: 4 }));""",
        {"sizes": {"a": 10}, "unreadable": True},
    )
    assert got == "capture_failed"


def test_bytes_held_by_the_background_are_sent_as_the_same_base64_without_toBase64(page):
    """Cross-origin bytes the background fetched (a Blob): base64 in 32 KiB slices when the
    browser has no Uint8Array.toBase64 (Chromium before 140, Firefox before 133)."""
    got = transfer(
        page,
        """const bytes = new Uint8Array(70000).map((_, i) => (i * 31 + 7) & 255);
           const datas = [];
           const host = (m) => { if (m.type === 'capture_part') datas.push(m.params.data); return {}; };
           page.resources.set('blob', { url: 'blob', size: bytes.length });
           page.holders.set('blob', { blob: new Blob([bytes]) });
           const own = Uint8Array.prototype.toBase64;
           delete Uint8Array.prototype.toBase64;
           await send(['blob'], { part_bytes: 2 ** 20 });
           if (own) Uint8Array.prototype.toBase64 = own;
           let text = '';
           for (const b of bytes) text += String.fromCharCode(b);
           return { same: datas.length === 1 && datas[0] === btoa(text), reads: reads.length };""",
        {"sizes": {}},
    )
    assert got == {"same": True, "reads": 0}  # read from the blob, never from the page


def test_the_time_sending_stood_still_is_split_into_the_page_s_reads_and_the_host(page):
    """report.state.waits, the figures of docs/tuning.md's capture timings: the time the lanes
    waited for the page's read (7 ms here) and the rest (the host: 3 parts of 5 ms), added up
    over the tries of one capture."""
    got = transfer(
        page,
        """const host = () => ({});
           await send(['a'], { part_bytes: 4 });
           const once = { ...report.state.waits };
           await send(['a'], { part_bytes: 4 });
           return { once, twice: report.state.waits };""",
        {"sizes": {"a": 10}, "clock": True},
    )
    assert got["once"] == {"page_ms": 7, "host_ms": 15}
    assert got["twice"] == {"page_ms": 14, "host_ms": 30}


def test_a_batch_read_while_the_one_before_was_sent_adds_nothing_to_the_page_s_time(page):
    """Ten parts fill the first batch (1 MiB at most), the eleventh starts a second one, read
    ahead while the first is sent: only the first read held sending back (7 ms), the second was
    ready when a lane reached it."""
    sizes = {f"a{i}": 100_000 for i in range(11)}
    got = transfer(
        page,
        """const host = () => ({});
           await send(Object.keys(arg.sizes), { part_bytes: 2 ** 20 });
           return { reads: reads.map((r) => r.length), waits: report.state.waits };""",
        {"sizes": sizes, "clock": True},
    )
    assert got["reads"] == [10, 1]
    assert got["waits"] == {"page_ms": 7, "host_ms": 14 - 7 + 11 * 5}
