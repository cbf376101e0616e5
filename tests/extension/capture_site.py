"""The capture test site, on two loopback origins: a stylesheet with an @import, a web font (WOFF2
used, a TrueType fallback not), images, srcset with width descriptors, <picture>, a CSS background,
a lazy image swapped in by script, a video poster, an SVG <use>, a favicon, a 404 image, a
cross-origin image without CORS, a canvas, an insertRule'd <style>, an adopted stylesheet, an open
shadow root, and a cross-origin iframe with its own stylesheet and image.

    sites = start_sites()      # sites[0]: the page's origin; sites.requests(): requests served

Also what the capture tests and tests/bench/bench_capture.py share: driving "Archive this page",
opening a copy at its version URL, hiding the copy's banner as a user does, and scoring a copy's
screenshot against the live render (``matching_share``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.extension.conftest import EXTENSION_ID, ROOT

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
<input id="name"><iframe id="inline" srcdoc="<p id=inner>inline frame</p>" width="120" height="40"></iframe><iframe id="frame" src="{other}/frame.html" width="200" height="100"></iframe>
<p id="note" onclick="alert(1)">plain text</p></body></html>"""

APP = """document.getElementById('dyn').sheet.insertRule('.title { color: rgb(10, 20, 30) }');
const adopted = new CSSStyleSheet(); adopted.replaceSync('h1 { border-top: 3px solid rgb(1, 2, 3) }');
document.adoptedStyleSheets = [adopted];
const root = document.getElementById('host').attachShadow({ mode: 'open' });
root.innerHTML = '<style>p { color: rgb(0, 90, 0) }</style><p id="inside">in the shadow</p>';
const shadowSheet = new CSSStyleSheet(); shadowSheet.replaceSync('p { font-weight: 700 }');
root.adoptedStyleSheets = [shadowSheet];
const ctx = document.getElementById('cv').getContext('2d'); ctx.fillStyle = 'rgb(200, 0, 0)'; ctx.fillRect(0, 0, 30, 30);
const lazy = document.getElementById('lazy'); lazy.src = lazy.dataset.src;
"""

SITE_CSS = """@import url("base.css");
@font-face { font-family: Kept; src: url(/fonts/kept.eot) format("embedded-opentype"), url(/fonts/kept.woff2) format("woff2"), url(/fonts/kept.ttf) format("truetype"); }
body { margin: 0 8px; }
h1 { font-family: Kept, serif; font-size: 64px; margin: 0 0 8px; }
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
        "/fonts/kept.eot": ("application/vnd.ms-fontobject", b"no browser asks for this"),
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


def serve(table: dict, before=None, no_store: tuple = ()) -> ThreadingHTTPServer:
    """A loopback server of `table` ({path: (type, bytes)}); counts requests in server.seen.
    `before(path)`, if given, runs before each answer (to delay one, say); HTML and the paths in
    `no_store` are not cached."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            path = self.path.split("?")[0]
            self.server.seen.append(path)
            if before:
                before(path)
            kind, body = table.get(path, ("text/plain", b"gone"))
            self.send_response(200 if path in table else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            cached = "html" not in kind and path not in no_store
            self.send_header("Cache-Control", "max-age=600" if cached else "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Sites(tuple):
    """(main origin, other origin, main's file table), and both servers (``seen``: requests)."""

    servers: tuple

    def requests(self) -> int:
        return sum(len(server.seen) for server in self.servers)

    def close(self) -> None:
        for server in self.servers:
            server.shutdown()
            server.server_close()


def start_sites() -> Sites:
    """Both loopback origins of the capture site."""
    other = serve(OTHER_FILES)
    other_origin = f"http://127.0.0.1:{other.server_address[1]}"
    table = files(other_origin)
    main = serve(table)
    started = Sites((f"http://127.0.0.1:{main.server_address[1]}", other_origin, table))
    started.servers = (main, other)
    return started


# ---- driving the extension in Chromium -------------------------------------------------------


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
    page.evaluate("document.activeElement.blur()")  # no focus ring: a copy shows none either
    return page


def fake_manifest(state: Path, **allowed) -> dict:
    """The native-messaging manifest of the stand-in host (capture_fake_host.py), its state
    kept in `state`."""
    launcher = state / "host.sh"
    fake = Path(__file__).with_name("capture_fake_host.py")
    launcher.write_text(f'#!/bin/sh\nPK_FAKE_STATE="{state}" exec "{sys.executable}" "{fake}"\n')
    launcher.chmod(0o755)
    return {"name": "com.pagekeeper.host", "description": "stand-in", "path": str(launcher),
            "type": "stdio", **allowed}  # fmt: skip


def open_copy(context, version_url: str) -> str:
    """The address that opens a copy with the viewer's session (the popup's open_copy)."""
    page = context.new_page()
    page.goto(f"chrome-extension://{EXTENSION_ID}/popup/popup.html")
    reply = page.evaluate(
        "(u) => chrome.runtime.sendMessage({ type: 'open_copy', params: { version_url: u } })",
        version_url,
    )
    page.close()
    assert reply["ok"], reply
    return reply["result"]["url"]


def hide_banner(page) -> None:
    """Press the copy's banner's "Hide", as a user does (it works without script), and take the
    pointer off the page so that no :hover style stays on what lay under the button."""
    page.locator("#pagekeeper-banner label").click()
    page.locator("#pagekeeper-banner .bar").wait_for(state="hidden")
    page.mouse.move(-1, -1)


# The share of pixels of two same-sized screenshots within a colour distance of 24 (of 255, per
# channel), row for row: anti-aliasing may differ by a few pixels, a lost font, image or
# stylesheet costs far more, and so does anything shifted or covered.
COMPARE = """async ([a, b, top]) => {
  const load = (src) => new Promise((ok, bad) => { const i = new Image(); i.onload = () => ok(i); i.onerror = bad; i.src = src; });
  const [x, y] = await Promise.all([load(a), load(b)]);
  if (x.width !== y.width || x.height !== y.height) return 0;
  const pixels = (img) => { const c = new OffscreenCanvas(img.width, img.height); const g = c.getContext('2d');
    g.drawImage(img, 0, 0); return g.getImageData(0, 0, img.width, img.height).data; };
  const p = pixels(x), q = pixels(y);
  let same = 0;
  for (let i = top * x.width * 4; i < p.length; i += 4) {
    if (Math.max(Math.abs(p[i] - q[i]), Math.abs(p[i + 1] - q[i + 1]), Math.abs(p[i + 2] - q[i + 2])) <= 24) same++;
  }
  return same / (p.length / 4 - top * x.width);
}"""


def matching_share(page, live: bytes, copy: bytes, top: int = 0) -> float:
    """The share of pixels two PNG screenshots have alike from row `top` down (0 when their
    sizes differ), on `page`: any page that may run script (a sealed copy may not)."""
    urls = [f"data:image/png;base64,{base64.b64encode(x).decode()}" for x in (live, copy)]
    return page.evaluate(COMPARE, [*urls, top])
