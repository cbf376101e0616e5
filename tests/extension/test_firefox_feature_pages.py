"""Archiving in Firefox ESR, on every feature page of the capture-dev corpus (CSS-in-JS and
adopted stylesheets in the document and in shadow roots, a canvas, web fonts, srcset and
<picture>, lazy images, a video poster, same- and cross-origin frames): the page is served "live"
by the corpus's replay server, archived through the add-on and the real host, every site is made
to vanish, and the copy must look like the live render, ask none of the sites for anything, and
miss no resource.

Firefox has no host resolver rules: it reaches the corpus's hosts through the replay server as
its HTTP and HTTPS proxy (replay.py answers absolute-form requests and CONNECT), and accepts the
replay server's throwaway certificate authority through Marionette's session. The daemon on
127.0.0.1 is never proxied (Firefox sends no loopback request to a proxy unless
network.proxy.allow_hijacking_localhost is set).
"""

from __future__ import annotations

import base64
import contextlib
import json

import pytest

from tests.extension.capture_site import matching_share, serve
from tests.extension.test_capture_replay import FIREFOX_CALL, HIDE_BANNER, SAME
from tests.extension.test_firefox import (
    WARMUP_HOSTS,
    FirefoxOptions,
    firefox_env,
    running_firefox,
    wait_for,
)
from tests.host.capture_dev import CORPUS, start_replay

pytestmark = pytest.mark.browser

# A host that does not resolve (RFC 6761 reserves .invalid) and is not sent to the proxy: its
# failed load opens the add-on's own error page, from which the test calls the background.
NOT_PROXIED = ".invalid"
SETTLE = """const done = arguments[0];
document.fonts.ready.then(() => {
  window.scrollTo(0, document.documentElement.scrollHeight);
  setTimeout(() => { window.scrollTo(0, 0); setTimeout(() => done(1), 600); }, 300);
});"""


def feature_pages() -> list[dict]:
    if not (CORPUS / "pages.json").is_file():
        return []
    pages = json.loads((CORPUS / "pages.json").read_text("utf-8"))
    return [p for p in pages if p["source"] == "synthetic"]


@pytest.fixture(scope="module")
def replay():
    started = start_replay()
    yield started
    started.stop()


def proxied_through(replay) -> FirefoxOptions:
    """Every host but loopback, .invalid and the add-on's warm-up hosts through the replay
    server, its CA accepted."""
    port = str(replay.info["http"])
    prefs = {
        "network.proxy.type": "1",
        "network.proxy.http": '"127.0.0.1"',
        "network.proxy.http_port": port,
        "network.proxy.ssl": '"127.0.0.1"',
        "network.proxy.ssl_port": port,
        "network.proxy.no_proxies_on": f'"{", ".join([NOT_PROXIED, *WARMUP_HOSTS])}"',
    }
    return FirefoxOptions(prefs=prefs, accept_insecure_certs=True)


@pytest.fixture(scope="module")
def firefox_site(tmp_path_factory, host, replay):
    """Firefox with the add-on and the real host; yields (driver, call, site tab)."""
    env = firefox_env(tmp_path_factory, host, "ff-pages-home")
    with running_firefox(tmp_path_factory, env, proxied_through(replay)) as (driver, base):
        driver.set_window_rect(width=1100, height=800)
        site_tab = driver.current_window_handle
        driver.switch_to_window(driver.open(type="tab")["handle"])
        with contextlib.suppress(Exception):  # a failed load: the add-on shows its own page
            driver.navigate(f"http://feature-pages-typo{NOT_PROXIED}/")
        assert wait_for(lambda: driver.get_url().startswith(base)), driver.get_url()
        extension_tab = driver.current_window_handle

        def call(kind: str, **params) -> dict:
            driver.switch_to_window(extension_tab)
            reply = json.loads(driver.execute_async_script(FIREFOX_CALL, script_args=[kind, params], sandbox=None, script_timeout=60000))  # fmt: skip
            driver.switch_to_window(site_tab)
            assert reply["ok"], reply
            return reply["result"]

        yield driver, call, site_tab


def screenshot(driver) -> bytes:
    driver.execute_async_script(SETTLE)
    return base64.b64decode(driver.screenshot(full=False))


@pytest.mark.parametrize("page", feature_pages(), ids=lambda p: p["id"])
def test_firefox_copy_of_a_feature_page_keeps_every_resource_and_looks_live(
    page, firefox_site, replay, chromium
):
    driver, call, site_tab = firefox_site
    replay.control("/mode?set=live")
    driver.switch_to_window(site_tab)
    driver.navigate(page["url"])
    live = screenshot(driver)
    got = call("archive_tab", url=driver.get_url())
    resources = got["resources"]
    assert resources["missing"] == 0 and resources["stored"] >= page["recorded"], resources
    replay.control("/mode?set=gone")
    try:
        address = call("open_copy", version_url=got["version_url"])["url"]
        seq = replay.seq()
        driver.navigate(address)
        driver.execute_script(HIDE_BANNER)  # Marionette's chrome-privileged click: no page script
        shot = screenshot(driver)
        assert replay.requests_since(seq) == []
    finally:
        replay.control("/mode?set=live")
    compare = chromium.new_page()
    share = matching_share(compare, live, shot)
    compare.close()
    assert share >= SAME, share


# A page whose own script redefines the getters a capture reads (as instrumentation and polyfills
# may): what the page shows comes from the browser's CSSOM, and so must the copy.
REDEFINED = """<!doctype html><html><head><meta charset="utf-8"><title>redefined</title></head>
<body><h1>Adopted, with the getters redefined</h1><script>
const sheet = new CSSStyleSheet();
sheet.replaceSync('body { background: rgb(200, 30, 30) } h1 { color: rgb(255, 255, 255) }');
document.adoptedStyleSheets = [sheet];
Object.defineProperty(CSSStyleSheet.prototype, 'cssRules', { get() { return []; } });
Object.defineProperty(Document.prototype, 'adoptedStyleSheets', { get() { throw new Error('page'); } });
</script></body></html>"""


def test_firefox_capture_reads_adopted_sheets_the_page_script_cannot_redefine(firefox_site, chromium):  # fmt: skip
    driver, call, site_tab = firefox_site
    server = serve({"/": ("text/html", REDEFINED.encode())})
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    driver.switch_to_window(site_tab)
    driver.navigate(url)
    live = screenshot(driver)
    got = call("archive_tab", url=url)
    server.shutdown()
    server.server_close()
    driver.navigate(call("open_copy", version_url=got["version_url"])["url"])
    driver.execute_script(HIDE_BANNER)
    shot = screenshot(driver)
    compare = chromium.new_page()
    share = matching_share(compare, live, shot)
    compare.close()
    assert share >= SAME, share
