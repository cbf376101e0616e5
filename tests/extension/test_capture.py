"""Capture in real Chromium ("Archive this page" with every resource), against a stand-in host
(capture_fake_host.py) that speaks the five capture messages over real native messaging and
checks every assembled resource against its sha256.

The site: a stylesheet with an @import, a web font (WOFF2 used, a TrueType fallback not), images,
srcset with width descriptors, <picture>, a CSS background, a lazy image swapped in by script, a
video poster, an SVG <use>, a favicon, a 404 image, a cross-origin image without CORS, a canvas,
an insertRule'd <style>, an adopted stylesheet, an open shadow root, and a cross-origin iframe
with its own stylesheet and image.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import struct
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.extension.conftest import EXTENSION_ID, ROOT, build_extension, launch

pytestmark = pytest.mark.browser
CORPUS = ROOT.parent / "shared" / "data" / "capture-dev" / "corpus"
FONT_URL = "https://features.pagekeeper.test/fonts/dejavu-extralight-sub.woff2"


def png(width: int, height: int, rgb: tuple[int, int, int], noise: int = 0) -> bytes:
    """A real PNG of one colour (plus `noise` pseudo-random rows, to make it large)."""
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    if noise:
        seed = hashlib.sha256(bytes(rgb)).digest()
        row = lambda i: hashlib.shake_256(seed + i.to_bytes(4, "big")).digest(width * 3)  # noqa: E731
        rows = b"".join(b"\x00" + row(i) for i in range(noise))
        height = noise

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")  # fmt: skip


def font_bytes() -> bytes:
    index = json.loads((CORPUS / "index.json").read_text())
    body = index[FONT_URL][0]["body"]
    return (CORPUS / "bodies" / body[:2] / body).read_bytes()


MAIN = """<!doctype html><html><head><meta charset="utf-8"><title>Kept page</title>
<link rel="icon" href="/favicon.png"><link rel="stylesheet" href="/css/site.css">
<link rel="preload" href="/img/plain.png" as="image"><style id="dyn"></style>
<script src="/app.js" defer></script></head><body>
<h1 class="title">Kept page</h1><div class="hero"></div>
<img id="plain" src="/img/plain.png" width="40" height="40">
<img id="responsive" src="/img/w100.png" srcset="/img/w100.png 100w, /img/w400.png 400w" sizes="400px" width="40" height="40">
<picture><source srcset="/img/pic.png" media="(min-width: 1px)"><img id="pic" src="/img/pic-fallback.png" width="20" height="20"></picture>
<img id="lazy" data-src="/img/lazy.png" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20">
<img id="gone" src="/img/missing.png" width="10" height="10">
<img id="xorigin" src="{other}/x.png" width="10" height="10">
<video poster="/img/poster.png" width="80" height="40"></video>
<svg width="20" height="20"><use href="/img/sprite.svg#dot"></use></svg>
<canvas id="cv" width="30" height="30"></canvas><div id="host"></div>
<input id="name"><iframe id="frame" src="{other}/frame.html" width="200" height="100"></iframe>
<p id="note" onclick="alert(1)">plain text</p></body></html>"""

APP = """document.getElementById('dyn').sheet.insertRule('.title { color: rgb(10, 20, 30) }');
const adopted = new CSSStyleSheet(); adopted.replaceSync('body { border-top: 3px solid rgb(1, 2, 3) }');
document.adoptedStyleSheets = [adopted];
const root = document.getElementById('host').attachShadow({ mode: 'open' });
root.innerHTML = '<style>p { color: rgb(0, 90, 0) }</style><p id="inside">in the shadow</p>';
const shadowSheet = new CSSStyleSheet(); shadowSheet.replaceSync('p { font-weight: 700 }');
root.adoptedStyleSheets = [shadowSheet];
const ctx = document.getElementById('cv').getContext('2d'); ctx.fillStyle = 'rgb(200, 0, 0)'; ctx.fillRect(0, 0, 30, 30);
const lazy = document.getElementById('lazy'); lazy.src = lazy.dataset.src;
"""

SITE_CSS = """@import url("base.css");
@font-face { font-family: Kept; src: url(/fonts/kept.woff2) format("woff2"), url(/fonts/kept.ttf) format("truetype"); }
h1 { font-family: Kept, serif; }
.hero { width: 50px; height: 50px; background: url(../img/bg.png); }
"""
BASE_CSS = "p { margin: 2px } .never-used { background-image: url('/img/unused.png') }\n"
SPRITE = '<svg xmlns="http://www.w3.org/2000/svg"><symbol id="dot" viewBox="0 0 2 2"><circle cx="1" cy="1" r="1"/></symbol></svg>'  # fmt: skip
FRAME = """<!doctype html><html><head><link rel="stylesheet" href="/frame.css"></head>
<body><img src="/fimg.png" width="10" height="10"><div class="fbg">frame</div></body></html>"""
FRAME_CSS = ".fbg { width: 30px; height: 20px; background: url(fbg.png) }\n"


def files(other: str) -> dict[str, tuple[str, bytes]]:
    """The main site's files: {path: (content type, bytes)}."""
    image = lambda c: ("image/png", png(8, 8, c))  # noqa: E731
    return {
        "/": ("text/html; charset=utf-8", MAIN.replace("{other}", other).encode()),
        "/app.js": ("text/javascript", APP.encode()),
        "/css/site.css": ("text/css", SITE_CSS.encode()),
        "/css/base.css": ("text/css", BASE_CSS.encode()),
        "/fonts/kept.woff2": ("font/woff2", font_bytes()),
        "/fonts/kept.ttf": ("font/ttf", b"not really a font"),
        "/favicon.png": image((1, 1, 1)),
        "/img/plain.png": image((10, 200, 10)),
        "/img/w100.png": image((100, 0, 0)),
        "/img/w400.png": image((0, 0, 100)),
        "/img/pic.png": image((0, 100, 100)),
        "/img/pic-fallback.png": image((100, 100, 0)),
        "/img/lazy.png": image((50, 50, 50)),
        "/img/poster.png": image((70, 0, 70)),
        "/img/bg.png": image((0, 70, 0)),
        "/img/unused.png": image((3, 3, 3)),
        "/img/sprite.svg": ("image/svg+xml", SPRITE.encode()),
        "/img/big.png": ("image/png", png(700, 0, (9, 9, 9), noise=900)),
    }


OTHER_FILES = {
    "/frame.html": ("text/html", FRAME.encode()),
    "/frame.css": ("text/css", FRAME_CSS.encode()),
    "/fimg.png": ("image/png", png(8, 8, (0, 0, 200))),
    "/fbg.png": ("image/png", png(8, 8, (200, 200, 0))),
    "/x.png": ("image/png", png(8, 8, (90, 10, 10))),
}


def serve(table: dict) -> ThreadingHTTPServer:
    """A loopback server of `table` ({path: (type, bytes)}); counts requests in server.seen."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            path = self.path.split("?")[0]
            self.server.seen.append(path)
            kind, body = table.get(path, ("text/plain", b"gone"))
            self.send_response(200 if path in table else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store" if "html" in kind else "max-age=600")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def sites():
    other = serve(OTHER_FILES)
    other_origin = f"http://127.0.0.1:{other.server_address[1]}"
    table = files(other_origin)
    main = serve(table)
    yield f"http://127.0.0.1:{main.server_address[1]}", other_origin, table
    for server in (main, other):
        server.shutdown()
        server.server_close()


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


def fake_manifest(state: Path, **allowed) -> dict:
    """The native-messaging manifest of the stand-in host, its state kept in `state`."""
    launcher = state / "host.sh"
    fake = Path(__file__).with_name("capture_fake_host.py")
    launcher.write_text(f'#!/bin/sh\nPK_FAKE_STATE="{state}" exec "{sys.executable}" "{fake}"\n')
    launcher.chmod(0o755)
    return {"name": "com.pagekeeper.host", "description": "stand-in", "path": str(launcher),
            "type": "stdio", **allowed}  # fmt: skip


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


def worker(context):
    ours = f"chrome-extension://{EXTENSION_ID}/"
    return next(w for w in context.service_workers if w.url.startswith(ours))


def archive(context, url: str) -> dict:
    """Press "Archive this page" the way the popup does (a message to the background)."""
    tab = worker(context).evaluate(
        "async (u) => (await chrome.tabs.query({})).find((t) => t.url === u).id", url
    )
    ours = context.new_page()
    ours.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html?tab={tab}")
    got = ours.evaluate(
        "(id) => chrome.runtime.sendMessage({ type: 'archive_tab', params: { tabId: id } })", tab
    )
    ours.close()
    assert got["ok"], got
    return {**got, "tab": tab}


def open_page(context, url: str):
    page = context.new_page()
    page.goto(url)
    page.wait_for_load_state("load")
    page.evaluate("document.fonts.ready.then(() => 1)")
    page.fill("#name", "Ada")
    return page


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_capture(record: dict, host: FakeHost, sites) -> None:
    """The capture of MAIN as its rendering uses it, every resource byte-exact at the host."""
    main, other, table = sites
    html = record["html"]
    # DOM as rendered: script gone (and its handler attributes), its effects kept.
    assert "<script" not in html and "onclick" not in html and "insertRule" not in html
    assert "rgb(10, 20, 30)" in html  # the insertRule'd rule, serialized from the CSSOM
    assert 'data-pagekeeper="adopted">body { border-top: 3px solid rgb(1, 2, 3); }' in html
    assert (
        '<template shadowrootmode="open"><style>p { color: rgb(0, 90, 0) }</style><p id="inside">'
        in html
    )
    assert "p { font-weight: 700; }</style></template>" in html  # the shadow root's adopted sheet
    assert "background-image: url(&quot;data:image/png;base64," in html  # the canvas as drawn
    assert f'<img id="responsive" src="{main}/img/w400.png" width="40" height="40">' in html
    assert (
        f'<img id="lazy" data-src="/img/lazy.png" src="{main}/img/lazy.png"' in html
        and 'value="Ada"' in html
    )
    assert 'rel="preload"' not in html and "<source" not in html
    assert f'<picture><img id="pic" src="{main}/img/pic.png"' in html  # the <source> it chose
    assert f'<iframe id="frame" src="{other}/frame.html"' in html
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
    for path in ("/fonts/kept.ttf", "/img/w100.png", "/app.js", "/img/pic-fallback.png"):
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


def test_parts_are_bounded_and_a_host_killed_halfway_is_resumed(capture_browser, sites):
    """Part size from capture_begin's limits; after the host dies, capture_status names the
    missing parts and only those are sent again."""
    context, host = capture_browser
    main, _other, table = sites
    table["/"] = (table["/"][0], table["/"][1].replace(b'<div id="host">', b'<img src="/img/big.png"><div id="host">'))  # fmt: skip
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
    assert len({m["pid"] for m in log if m["type"] == "capture_part"}) >= 2
    page.close()


def test_caps_list_what_they_left_out_and_the_capture_goes_on(capture_browser, sites):
    context, host = capture_browser
    main, _other, table = sites
    host.configure(part_bytes=1 << 20)
    worker(context).evaluate(
        "chrome.storage.sync.set({ capture: { keepScripts: true, resourceMB: 1, pageMB: 1 } })"
    )
    page = open_page(context, main + "/")
    try:
        got = archive(context, main + "/")
    finally:
        worker(context).evaluate("chrome.storage.sync.remove('capture')")
    record = host.committed()[-1]
    assert record["options"] == {
        "keep_scripts": True,
        "resource_bytes": 1 << 20,
        "page_bytes": 1 << 20,
    }
    resources = {r["url"]: r for r in record["resources"]}
    assert resources[main + "/img/big.png"]["error"] == "over the per-resource cap"
    assert "sha256" not in resources[main + "/img/big.png"]
    assert "<script" in record["html"] and main + "/app.js" in resources  # kept when asked
    assert got["result"]["resources"]["stored"] > 10
    page.close()


@pytest.fixture(scope="module")
def firefox_capture(tmp_path_factory):
    """Firefox ESR with the add-on, whose native host is the stand-in."""
    from tests.extension.test_firefox import running_firefox

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
    from tests.extension.test_firefox import wait_for

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
