"""A real daemon over a seeded archive, and a local "live" site to check against.

The archive is seeded with real saved pages (``pages/``, from the extraction
development set, see PROVENANCE.json) before the daemon starts (the store has
one writer): two versions of an article served by the local site, a second
article with the same template (a similar page), and two pages of another site.
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from websockets.sync.client import connect

from engine.archive import registry
from engine.archive.model import Capture, RegisterOptions, make_id
from engine.archive.store import ArchiveStore
from host.daemon import client
from tests.chromium import CHROMIUM, FLAGS
from tests.host.daemon_fixtures import SHARED_CACHE
from tests.slowdown import scaled

PAGES = Path(__file__).parent / "pages"
ROOT = Path(__file__).resolve().parents[3]
ARTICLE = "b18b2a048ce0dd08"
CHIP = ("4779762459127ce0", "f158ac51f8c9d889")
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def page_bytes(name: str) -> bytes:
    return gzip.decompress((PAGES / f"{name}.html.gz").read_bytes())


def provenance() -> dict:
    return json.loads((PAGES / "PROVENANCE.json").read_text("utf-8"))


def edited_article() -> bytes:
    """The article a month later: one sentence reworded, one paragraph added."""
    html = page_bytes(ARTICLE).decode("utf-8")
    html = html.replace(
        "Die GEMA dreht völlig am Zeiger!", "Die GEMA dreht nun endgültig am Zeiger!"
    )
    return html.replace(
        "unterschreibt bitte alle diese Petition:</p>",
        "unterschreibt bitte alle diese Petition:</p><p>Nachtrag: Die Petition "
        "hat inzwischen über zehntausend Unterschriften gesammelt.</p>",
        1,
    ).encode("utf-8")


def sibling_article() -> bytes:
    """Another article under the same site template (structurally similar)."""
    html = page_bytes(ARTICLE).decode("utf-8")
    start = html.index("<p>Die GEMA dreht")
    end = html.index("</p>", start) + 4
    other = (
        "<p>Der Stadtrat hat beschlossen, die Sperrstunde in der Altstadt aufzuheben. "
        "Die Clubs dürfen ab Juli wieder bis in den Morgen öffnen, sagt der Kulturausschuss.</p>"
    )
    return (html[:start] + other + html[end:]).encode("utf-8")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveSite:
    """A local web server standing in for the live web; ``stop()`` takes it down,
    ``start()`` brings it back on the same port; ``delay_s`` slows every answer; ``declared``
    maps a path to the Content-Length its answer claims (a page over the fetch cap)."""

    def __init__(self) -> None:
        self.pages: dict[str, bytes] = {}
        self.declared: dict[str, int] = {}
        self.delay_s = 0.0
        self.port = 0
        self.running = False
        self.start()

    def start(self) -> None:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                time.sleep(site.delay_s)
                body = site.pages.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                if self.path in site.declared:
                    self.send_header("Content-Length", str(site.declared[self.path]))
                self.end_headers()
                self.wfile.write(body if body is not None else b"<h1>Not Found</h1>")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.running = True

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        if self.running:
            self.server.shutdown()
            self.server.server_close()
            self.running = False


@dataclass
class Seeded:
    """What the seeded archive holds (IDs by role), for the tests to look for."""

    home: Path
    article_url: str
    sibling_url: str
    article_ids: list[str] = field(default_factory=list)  # oldest first
    sibling_id: str = ""
    chip_ids: list[str] = field(default_factory=list)


def seed(home: Path, site: LiveSite, base: str) -> Seeded:

    info = provenance()
    seeded = Seeded(home, site.url("/ministerium.html"), site.url("/ministerium-2.html"))
    store = ArchiveStore.open(home)
    try:

        def add(url, html, when):
            return registry.register(
                store,
                Capture(url, html),
                RegisterOptions(base=base, now=when, similar_budget_s=2.0),
            ).id

        for i, name in enumerate(CHIP):
            seeded.chip_ids.append(add(info[name]["url"], page_bytes(name), T0 + timedelta(days=i)))
        seeded.article_ids.append(
            add(seeded.article_url, page_bytes(ARTICLE), T0 + timedelta(days=3))
        )
        seeded.sibling_id = add(seeded.sibling_url, sibling_article(), T0 + timedelta(days=4))
        seeded.article_ids.append(
            add(seeded.article_url, edited_article(), T0 + timedelta(days=33))
        )
    finally:
        store.close()
    site.pages["/ministerium.html"] = edited_article()
    site.pages["/ministerium-2.html"] = sibling_article()
    return seeded


def synthetic_archive(home: Path, documents: int) -> None:
    """``documents`` one-version documents on 100 hosts, each the real article's bytes
    (one blob), written through the store's own API as tests/bench/bench_viewer.py does:
    a result set too large for one page or one WARC download."""

    store = ArchiveStore.open(home, fsync=False)
    try:
        body = page_bytes(ARTICLE)
        orig = store.put_blob(body)
        text = store.put_blob(b"Das Ministerium\nDie GEMA dreht am Zeiger")
        with store.transaction():
            for n in range(documents):
                host = f"site{n % 100}.example"
                url = f"https://{host}/news/article-{n}"
                when = T0.timestamp() + n * 60
                reg_id = make_id(when, store.ids[-1] if store.ids else None)
                store.add_version(reg_id, {
                    "url": url, "final_url": url, "key": url, "host": host, "ts": when,
                    "content_type": "text/html", "charset": "utf-8", "last_modified": None,
                    "title": f"Article {n} on {host}", "orig": orig, "rewritten": orig,
                    "size": len(body), "source": "extension", "prev": None,
                    "prev_similarity": None,
                })  # fmt: skip
                store.update(
                    "extracts", reg_id, {"title": "", "summary": "", "keywords": [], "text": text}
                )
    finally:
        store.close()


@dataclass
class Daemon:
    """A running ``pagekeeper serve`` for one home."""

    proc: subprocess.Popen
    port: int
    home: Path
    token: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def viewer(self, hash_: str = "") -> str:
        return f"{self.base}/viewer/?token={self.token}{hash_}"

    def call(self, kind: str, params: dict | None = None, timeout: float = 30):
        """One request over /ws; returns the whole reply dict."""

        with connect(f"ws://127.0.0.1:{self.port}/ws?token={self.token}", max_size=None) as ws:
            ws.send(json.dumps({"id": "t1", "type": kind, "params": params or {}}))
            return json.loads(ws.recv(timeout=timeout))

    def result(self, kind: str, params: dict | None = None):
        reply = self.call(kind, params)
        assert reply["ok"], reply
        return reply["result"]


def wait_ready(home: Path, port: int, proc: subprocess.Popen) -> None:
    """Until the daemon answers on ``port``: as long as its start progresses (the progress
    it publishes in daemon.json, host/daemon/client.py ``wait_ready``, which fails typed
    when it dies or stops progressing), not for a fixed time (20 s was too short at load
    20 on two cores); once it says it is ready, its viewer answers."""
    state = client.wait_ready(home, proc)
    assert state["port"] == port, state
    url = f"http://127.0.0.1:{port}/viewer/"
    with urllib.request.urlopen(url, timeout=scaled(10)) as resp:
        assert resp.status == 200


def start_daemon(home: Path, port: int, env: dict | None = None) -> Daemon:
    """A daemon on ``port``; ``env`` replaces the inherited environment (e.g. a proxy)."""
    share_dictionary_cache(home)
    env = {**(env or os.environ), "PAGEKEEPER_HOME": str(home)}
    log = open(home / "serve.out", "wb")  # noqa: SIM115 (kept open for the process)
    proc = subprocess.Popen(
        [sys.executable, "-m", "host.cli", "serve", "--home", str(home), "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_ready(home, port, proc)
    except Exception:
        stop_daemon(proc)
        raise
    return Daemon(proc, port, home, (home / "token").read_text("ascii").strip())


def share_dictionary_cache(home: Path) -> None:
    """Point the home's config at the test daemons' dictionary cache: a cold build of the
    index takes seconds (tens on a loaded machine), longer than the daemon may take to start."""
    path = home / "config.json"
    config = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**config, "cache_dir": str(SHARED_CACHE)}))


def stop_daemon(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.fixture(scope="module")
def live_site():
    site = LiveSite()
    yield site
    site.stop()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory, live_site) -> Seeded:
    home = tmp_path_factory.mktemp("viewer-home")
    port = free_port()
    result = seed(home, live_site, f"http://127.0.0.1:{port}")
    result.port = port
    return result


@pytest.fixture(scope="module")
def daemon(seeded) -> Daemon:
    running = start_daemon(seeded.home, seeded.port)
    yield running
    stop_daemon(running.proc)


# -- browser (Playwright + Debian's chromium) ---------------------------------------------


@pytest.fixture(scope="module")
def browser():

    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, daemon):
    """A fresh 1280x800 tab; any uncaught script error in it fails the test."""
    context = browser.new_context(
        viewport={"width": 1280, "height": 800}, locale="en-US", accept_downloads=True
    )
    context.set_default_timeout(10_000)
    tab = context.new_page()
    errors = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert not errors, errors
