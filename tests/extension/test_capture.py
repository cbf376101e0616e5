"""Capture in real Chromium and Firefox ("Archive this page" with every resource), against a
stand-in host (capture_fake_host.py) that speaks the five capture messages over real native
messaging and checks every assembled resource against its sha256. The site: capture_site.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.extension.capture_site import (
    OTHER_FILES,
    archive,
    fake_manifest,
    open_page,
    start_sites,
    worker,
)
from tests.extension.conftest import EXTENSION_ID, build_extension, launch
from tests.extension.test_firefox import running_firefox, wait_for

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def sites():
    started = start_sites()
    yield started
    started.close()


class FakeHost:
    def __init__(self, state: Path):
        self.state = state

    def configure(self, **values) -> None:
        (self.state / "config.json").write_text(json.dumps(values))

    def log(self) -> list[dict]:
        path = self.state / "log.jsonl"
        return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []

    def committed(self) -> list[dict]:
        path = self.state / "committed.jsonl"
        return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []

    def blob(self, sha256: str) -> bytes:
        return (self.state / "blobs" / sha256).read_bytes()


@pytest.fixture(scope="module")
def capture_browser(playwright_instance, extension_dir, tmp_path_factory):
    """Chromium with the extension, whose native host is the stand-in."""
    state = tmp_path_factory.mktemp("fake-host")
    profile = tmp_path_factory.mktemp("capture-profile")
    manifest = fake_manifest(state, allowed_origins=[f"chrome-extension://{EXTENSION_ID}/"])
    (profile / "NativeMessagingHosts").mkdir()
    (profile / "NativeMessagingHosts" / "com.pagekeeper.host.json").write_text(json.dumps(manifest))
    context = launch(playwright_instance, extension_dir, profile, dict(os.environ))
    try:
        yield context, FakeHost(state)
    finally:
        context.close()


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_capture(record: dict, host: FakeHost, sites) -> None:
    """The capture of MAIN as its rendering uses it, every resource byte-exact at the host."""
    main, other, table = sites
    html = record["html"]
    # DOM as rendered: script gone (and its handler attributes), its effects kept.
    assert "<script" not in html and "onclick" not in html and "insertRule" not in html
    assert "rgb(10, 20, 30)" in html  # the insertRule'd rule, serialized from the CSSOM
    assert 'data-pagekeeper="adopted">h1 { border-top: 3px solid rgb(1, 2, 3); }' in html
    assert (
        '<template shadowrootmode="open"><style>p { color: rgb(0, 90, 0) }</style><p id="inside">'
        in html
    )
    assert "p { font-weight: 700; }</style></template>" in html  # the shadow root's adopted sheet
    assert '<img id="cv" width="30" height="30" src="data:image/png;base64,' in html  # as drawn
    # An external <use> points at its target, inlined (a copy's opaque origin may not fetch it).
    assert re.search(r'<use href="#(pagekeeper-use-[\w-]+)"/>', html)
    sprite = re.search(r'<symbol [^>]*id="(pagekeeper-use-[\w-]+)"[^>]*><circle', html)
    assert sprite and sprite[1] == re.search(r'<use href="#([^"]+)"', html)[1]
    assert f'<img id="responsive" src="{main}/img/w400.png" width="40" height="40">' in html
    assert (
        f'<img id="lazy" data-src="/img/lazy.png" src="{main}/img/lazy.png"' in html
        and 'value="Ada"' in html
    )
    assert 'rel="preload"' not in html and "<source" not in html
    assert f'<picture><img id="pic" src="{main}/img/pic.png"' in html  # the <source> it chose
    assert f'<iframe id="frame" src="{other}/frame.html"' in html
    # A frame with no address of its own is serialized by its parent; only the other is a frame.
    assert 'id="inline" srcdoc="<!DOCTYPE html>' not in html and "inline frame</p>" in html
    (frame,) = record["frames"]
    assert (
        frame["url"] == f"{other}/frame.html"
        and '<img src="' + other + '/fimg.png"' in frame["html"]
    )

    resources = {r["url"]: r for r in record["resources"]}
    wanted = ["/css/site.css", "/css/base.css", "/fonts/kept.woff2", "/favicon.png", "/img/plain.png",
              "/img/w400.png", "/img/pic.png", "/img/lazy.png", "/img/poster.png", "/img/bg.png",
              "/img/unused.png", "/img/sprite.svg"]  # fmt: skip
    for path in wanted:
        entry = resources[main + path]
        assert entry["sha256"] == sha(table[path][1]), path
        assert host.blob(entry["sha256"]) == table[path][1], path
        assert entry["size"] == len(table[path][1]) and entry["type"] == table[path][0]
    for path in ("/frame.css", "/fimg.png", "/fbg.png", "/x.png"):  # the frame's, and no-CORS
        assert host.blob(resources[other + path]["sha256"]) == OTHER_FILES[path][1], path
    # Not used by the rendering: the font format the browser skipped, the srcset loser, scripts.
    for path in (
        "/fonts/kept.eot",
        "/fonts/kept.ttf",
        "/img/w100.png",
        "/app.js",
        "/img/pic-fallback.png",
    ):
        assert main + path not in resources, path
    assert resources[main + "/img/missing.png"]["status"] == 404 and "sha256" not in resources[main + "/img/missing.png"]  # fmt: skip


def test_capture_records_what_the_page_renders_with_every_resource_byte_exact(
    capture_browser, sites
):
    context, host = capture_browser
    main, other, table = sites
    page = open_page(context, main + "/")
    got = archive(context, main + "/")
    (record,) = host.committed()
    check_capture(record, host, sites)
    assert got["result"]["resources"]["missing"] == [main + "/img/missing.png"]
    assert "frames_lost" not in got["result"]  # with site access, the cross-origin frame is read
    # Progress for the popup: done, every part counted.
    progress = worker(context).evaluate(
        "(k) => chrome.storage.session.get(k)", f"capture:{got['tab']}"
    )
    done = progress[f"capture:{got['tab']}"]
    assert done["phase"] == "done" and done["parts_sent"] == done["parts_total"] > 10
    page.close()


def test_a_second_capture_sends_only_what_the_host_lacks(capture_browser, sites):
    context, host = capture_browser
    main, _other, _table = sites
    page = open_page(context, main + "/")
    before = len([m for m in host.log() if m["type"] == "capture_part"])
    archive(context, main + "/")
    parts = [m for m in host.log() if m["type"] == "capture_part"]
    assert len(parts) == before  # every blob was held already: no bytes sent again
    assert len(host.committed()) >= 2
    page.close()


def with_big_image(table: dict) -> None:
    """Put the 1.9 MB image on the page (once)."""
    kind, html = table["/"]
    if b"/img/big.png" not in html:
        table["/"] = (
            kind,
            html.replace(b'<div id="host">', b'<img src="/img/big.png"><div id="host">'),
        )


def test_parts_are_bounded_and_a_host_killed_halfway_is_resumed(capture_browser, sites):
    """Part size from capture_begin's limits; after the host dies, capture_status names the
    missing parts and only those are sent again."""
    context, host = capture_browser
    main, _other, table = sites
    with_big_image(table)
    host.configure(part_bytes=16384, die_after_parts=10)
    for blob in (host.state / "blobs").glob("*"):
        blob.unlink()
    page = open_page(context, main + "/")
    archive(context, main + "/")
    log = host.log()
    record = host.committed()[-1]
    big = next(r for r in record["resources"] if r["url"] == main + "/img/big.png")
    assert host.blob(big["sha256"]) == table["/img/big.png"][1]
    parts = [m["params"] for m in log if m["type"] == "capture_part" and m["params"]["capture_id"] == record["capture_id"]]  # fmt: skip
    big_parts = [p for p in parts if p["url"] == big["url"]]
    assert {p["count"] for p in big_parts} == {-(-big["size"] // 16384)} and big["size"] > 16384 * 5
    assert any(m["type"] == "capture_status" for m in log)  # resumed after the kill
    # Only what the host lacked was sent again: every part once, plus those lost in flight.
    needed = sum(max(1, -(-r["size"] // 16384)) for r in record["resources"] if r.get("sha256"))
    assert needed <= len(parts) <= needed + 8, (needed, len(parts))
    assert len({m["pid"] for m in log if m["type"] == "capture_part"}) >= 2
    page.close()


def test_the_popup_shows_a_large_page_in_transfer_and_again_when_reopened(capture_browser, sites):
    context, host = capture_browser
    main, _other, table = sites
    host.configure(part_bytes=16384, part_delay_ms=40)
    for blob in (host.state / "blobs").glob("*"):
        blob.unlink()
    with_big_image(table)
    page = open_page(context, main + "/")
    tab = worker(context).evaluate("async (u) => (await chrome.tabs.query({})).find((t) => t.url === u).id", main + "/")  # fmt: skip
    starter = context.new_page()
    starter.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}")
    starter.evaluate("(id) => { chrome.runtime.sendMessage({ type: 'archive_tab', params: { tabId: id } }); }", tab)  # fmt: skip
    for _ in range(2):  # a popup opened while it runs, then closed and opened again
        popup = context.new_page()
        popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}")
        expect(popup.locator("#capture-text")).to_contain_text(re.compile(r"Sending \d+ files to the helper app: \d+\.\d of \d+\.\d MB"), timeout=10000)  # fmt: skip
        assert popup.locator("#archive").is_disabled()
        bar = popup.locator("#capture-bar")
        assert float(bar.get_attribute("max")) > 0 and popup.locator("#capture").is_visible()
        popup.close()
    popup = context.new_page()
    popup.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}")
    expect(popup.locator("#capture")).to_be_hidden(timeout=60000)  # done: the bar goes away
    for p in (popup, starter, page):
        p.close()
    host.configure(part_bytes=1 << 20)


def archive_with(context, url: str, capture: dict) -> dict:
    """Archive with the capture settings `capture` (as the options page stores them)."""
    worker(context).evaluate("(c) => chrome.storage.sync.set({ capture: c })", capture)
    try:
        return archive(context, url)
    finally:
        worker(context).evaluate("chrome.storage.sync.remove('capture')")


def test_caps_list_what_they_left_out_and_the_capture_goes_on(capture_browser, sites):
    context, host = capture_browser
    main, _other, table = sites
    host.configure(part_bytes=1 << 20)
    with_big_image(table)
    page = open_page(context, main + "/")
    got = archive_with(context, main + "/", {"keepScripts": True, "resourceMB": 1, "pageMB": 10})
    record = host.committed()[-1]
    assert record["options"] == {"keep_scripts": True, "resource_bytes": 1 << 20, "page_bytes": 10 << 20}  # fmt: skip
    resources = {r["url"]: r for r in record["resources"]}
    assert resources[main + "/img/big.png"]["error"] == "over the per-resource cap"
    assert "sha256" not in resources[main + "/img/big.png"]
    assert "<script" in record["html"] and main + "/app.js" in resources  # kept when asked
    assert got["result"]["resources"]["stored"] > 10
    # Under a 1 MB page cap the 1.9 MB image no longer fits: listed, not sent, the rest kept.
    archive_with(context, main + "/", {"keepScripts": False, "resourceMB": 5, "pageMB": 1})
    resources = {r["url"]: r for r in host.committed()[-1]["resources"]}
    assert resources[main + "/img/big.png"]["error"] == "over the per-page cap"
    assert "sha256" not in resources[main + "/img/big.png"] and resources[main + "/img/plain.png"]["sha256"]  # fmt: skip
    page.close()


@pytest.fixture(scope="module")
def firefox_capture(tmp_path_factory):
    """Firefox ESR with the add-on, whose native host is the stand-in."""

    state = tmp_path_factory.mktemp("fake-host-ff")
    home = tmp_path_factory.mktemp("ff-capture-home")
    manifest = fake_manifest(state, allowed_extensions=[build_extension.GECKO_ID])
    folder = home / ".mozilla" / "native-messaging-hosts"
    folder.mkdir(parents=True)
    (folder / "com.pagekeeper.host.json").write_text(json.dumps(manifest))
    with running_firefox(tmp_path_factory, {**os.environ, "HOME": str(home)}) as (driver, base):
        yield driver, base, FakeHost(state)


FIREFOX_ARCHIVE = """
const [url, done] = arguments;
const api = window.wrappedJSObject?.browser ?? window.browser;
api.tabs.query({}).then((tabs) => {
  const tab = tabs.find((t) => t.url === url);
  return api.runtime.sendMessage({ type: 'archive_tab', params: { tabId: tab.id } });
}).then((reply) => done(JSON.stringify(reply)), (err) => done(JSON.stringify({ ok: false, error: String(err) })));
"""


def test_firefox_capture_records_the_same_page_byte_exact(firefox_capture, sites):
    """The same page through Firefox: the content script, its fetches (Firefox lets a content
    script read cross-origin with the host permission) and the transfer."""

    driver, base, host = firefox_capture
    main = sites[0]
    site_tab = driver.current_window_handle
    driver.navigate(main + "/")
    driver.find_element("css selector", "#name").send_keys("Ada")
    driver.execute_async_script("document.fonts.ready.then(() => arguments[0](1))")
    driver.switch_to_window(driver.open(type="tab")["handle"])
    with contextlib.suppress(Exception):  # a failed load: the add-on shows its own page
        driver.navigate("http://capture-typo-xq.com/")
    assert wait_for(lambda: driver.get_url().startswith(base)), driver.get_url()
    reply = json.loads(driver.execute_async_script(FIREFOX_ARCHIVE, script_args=[main + "/"], sandbox=None, script_timeout=60000))  # fmt: skip
    assert reply["ok"], reply
    check_capture(host.committed()[-1], host, sites)
    driver.switch_to_window(site_tab)
