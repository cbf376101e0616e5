"""Fixtures for the extension tests: Debian's real Chromium (Playwright, new headless mode), the
built extension, a real PageKeeper daemon and native host installed into the test profile, and a
local web server whose pages the tests change or take away.

Follows ../shared/docs/browser-testing.md: the binary is /usr/lib/chromium/chromium (not the
/usr/bin wrapper), a fresh --user-data-dir per browser, the native-messaging manifest written into
<profile>/NativeMessagingHosts/ by ``pagekeeper install --profile-dir``, and tests drive tabs
opened with ``ctx.new_page()``, never the start-up tab (pitfall 1).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from host.daemon.app import bundled_extension_ids
from tests.chromium import CHROMIUM as CHROMIUM_PATH
from tests.chromium import FLAGS
from tests.host.daemon_fixtures import SHARED_CACHE

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(CHROMIUM_PATH)
PAGEKEEPER = Path(sys.executable).with_name("pagekeeper")
EXTENSION_ID = bundled_extension_ids()[0]  # host/data/extension-id.txt, the one copy

sys.path.insert(0, str(ROOT / "packaging"))
import build_extension  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402


def pytest_collection_modifyitems(items):
    """Every browser test skips cleanly (with the reason) when Debian's chromium is absent."""
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is not installed (apt-get install chromium)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pk(
    home: Path, *args: str, check: bool = True, env: dict | None = None
) -> subprocess.CompletedProcess:
    """Run the real CLI against a test home (``env``: added to the environment)."""
    env = {**os.environ, "PAGEKEEPER_HOME": str(home), **(env or {})}
    done = subprocess.run(
        [str(PAGEKEEPER), "--home", str(home), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"pagekeeper {' '.join(args)} failed: {done.stderr or done.stdout}")
    return done


def assert_runs_as_readme_says(command: str) -> None:
    """A command a page tells the user to type runs as README's `make run` leaves the machine:
    typed in the PageKeeper folder, with no venv activated (`make run` installs
    `.venv/bin/pagekeeper`, which is not on PATH)."""
    program, *args = command.split()
    path = ROOT / program
    assert "/" in program and path.is_file(), (
        f"{program!r} is not a command in the PageKeeper folder"
    )
    done = subprocess.run([str(path), *args, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="session")
def extension_dir(tmp_path_factory) -> Path:
    """dist/extension-chromium/ as `make extension` builds it (into a temporary folder)."""
    built = build_extension.build(tmp_path_factory.mktemp("dist"))
    return built["chromium"]


@dataclass
class Host:
    """A running daemon with its own home and port."""

    home: Path
    port: int

    def cli(self, *args: str) -> dict | list:
        return json.loads(pk(self.home, "--json", *args).stdout)

    def version_count(self, url: str) -> int:
        """How many versions of `url` the archive holds (`pagekeeper archive versions`)."""
        listed = self.cli("archive", "versions", url)
        return len(listed if isinstance(listed, list) else listed["versions"])


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """A real `pagekeeper serve` on a free port, in a home of its own; stopped afterwards."""
    with running_host(tmp_path_factory) as started:
        yield started


@contextlib.contextmanager
def running_host(tmp_path_factory, env: dict | None = None):
    """:func:`host`, its daemon started with ``env`` added to the environment."""
    home = tmp_path_factory.mktemp("pk-home")
    port = free_port()
    config = {"port": port, "cache_dir": str(SHARED_CACHE)}
    (home / "config.json").write_text(json.dumps(config))
    try:
        pk(home, "serve", "--port", str(port), "--detach", env=env)
        yield Host(home, port)
    finally:  # also when the CLI gave up waiting: the daemon may still come up, and stay
        pk(home, "stop", check=False)


@dataclass
class Browser:
    """A persistent Chromium context with the extension loaded."""

    context: object
    profile: Path
    extension_id: str = EXTENSION_ID

    def url(self, path: str) -> str:
        return f"chrome-extension://{self.extension_id}/{path}"

    def worker(self):
        """The extension's service worker (waits for it if it has not started yet)."""
        for worker in self.context.service_workers:
            if worker.url.startswith(f"chrome-extension://{self.extension_id}/"):
                return worker
        return self.context.wait_for_event("serviceworker", timeout=10000)

    def tab_id(self, url: str) -> int:
        """The tabs API's id of the tab showing `url`."""
        return self.worker().evaluate(
            "async (url) => (await chrome.tabs.query({})).find((t) => t.url === url)?.id ?? -1",
            url,
        )

    def stop_worker(self) -> None:
        """Stop the extension's service worker, as Chromium does after 30 s idle (CDP
        ServiceWorker.stopAllWorkers); the next event starts it again with empty memory.
        Done once every worker version was seen stopped: an event already on its way (a
        popup's message, the host's reply) may start it again at once."""
        page = self.context.new_page()
        session = self.context.new_cdp_session(page)
        stopped: dict[str, bool] = {}

        def seen(event):
            for version in event["versions"]:
                if version["scriptURL"].startswith(self.url("")):
                    was = stopped.get(version["versionId"], False)
                    stopped[version["versionId"]] = was or version["runningStatus"] == "stopped"

        session.on("ServiceWorker.workerVersionUpdated", seen)
        session.send("ServiceWorker.enable")
        session.send("ServiceWorker.stopAllWorkers")
        for _ in range(100):
            if stopped and all(stopped.values()):
                break
            page.wait_for_timeout(50)
        session.detach()
        page.close()
        assert stopped and all(stopped.values()), stopped

    def badge(self, tab_id: int) -> str:
        return self.worker().evaluate("(id) => chrome.action.getBadgeText({tabId: id})", tab_id)

    def set_option(self, name: str, checked: bool = True) -> None:
        """Change a setting the way a user does: on the options page."""
        page = self.context.new_page()
        page.goto(self.url("options/options.html"))
        page.wait_for_selector("html[data-ready=true]")
        box = page.locator(f"input[name={name}]")
        if box.is_checked() != checked:
            box.click()
            page.wait_for_selector("#saved:has-text('Saved')")
        page.close()


def launch(playwright, extension_dir: Path, profile: Path, env: dict):
    args = [
        f"--disable-extensions-except={extension_dir}",
        f"--load-extension={extension_dir}",
        *FLAGS,
    ]
    context = playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(CHROMIUM),
        headless=True,
        args=args,
        env=env,
        viewport={"width": 1100, "height": 800},
    )
    # A navigation before the service worker has run would meet no listener (seen as a
    # flaky chrome-error:// page in the first test of a fresh browser): wait for it.
    # The worker's target appears before its module has run, and a fresh profile only knows the
    # listeners after that first run (seen on a cold CI machine): wait until they are registered.
    ours = f"chrome-extension://{EXTENSION_ID}/"
    worker = next((w for w in context.service_workers if w.url.startswith(ours)), None)
    worker = worker or context.wait_for_event("serviceworker", timeout=15000)
    worker.evaluate(LISTENERS_READY)
    return context


LISTENERS_READY = """async () => {
  const until = Date.now() + 15000;
  while (!chrome.webNavigation.onErrorOccurred.hasListeners()) {
    if (Date.now() > until) throw new Error('the service worker registered no listeners');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}"""


@pytest.fixture(scope="module")
def playwright_instance():

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright_instance, extension_dir, host, tmp_path_factory):
    """Chromium with the extension and the real native host installed into its fresh profile."""
    profile = tmp_path_factory.mktemp("profile")
    pk(host.home, "install", "--browser", "chromium", "--profile-dir", str(profile))
    env = {**os.environ, "PAGEKEEPER_HOME": str(host.home)}
    context = launch(playwright_instance, extension_dir, profile, env)
    try:
        yield Browser(context, profile)
    finally:
        context.close()


@pytest.fixture(scope="module")
def bare_browser(playwright_instance, extension_dir, tmp_path_factory):
    """Chromium with the extension but no native host installed."""
    profile = tmp_path_factory.mktemp("bare-profile")
    home = tmp_path_factory.mktemp("no-home")
    env = {**os.environ, "PAGEKEEPER_HOME": str(home)}
    context = launch(playwright_instance, extension_dir, profile, env)
    try:
        yield Browser(context, profile)
    finally:
        context.close()


@dataclass
class Site:
    """A local web server whose pages a test sets, changes and removes: {path: (status, html)}."""

    port: int
    pages: dict = field(default_factory=dict)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture(scope="module")
def site():
    pages: dict = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            status, html = pages.get(self.path, (404, "<!doctype html><title>Not found</title>"))
            body = html.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Site(server.server_address[1], pages)
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def modules_url():
    """extension/ served over HTTP (ES modules do not load from file://), for the tests that run
    the extension's modules and pages in a plain Chromium page with a scripted browser API."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(ROOT / "extension"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def chromium(playwright_instance):
    """Plain headless Chromium (no extension), for the modules and pages under a scripted API."""
    browser = playwright_instance.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=FLAGS
    )
    yield browser
    browser.close()
