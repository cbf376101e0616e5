"""Real pages of the capture-dev corpus archived with their resources by `pagekeeper
archive add` (with and without a daemon), then viewed in real Chromium: every resource
comes back byte for byte from the daemon and no request reaches the "live" sites."""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request

import pytest
from playwright.sync_api import sync_playwright
from websockets.sync.client import connect

from engine.html.rewrite import css_urls, resource_urls
from host.daemon.security import sign_path
from tests.chromium import CHROMIUM, FLAGS
from tests.host.capture_dev import sha256, start_replay
from tests.host.daemon_fixtures import CLI, ROOT, make_home, stop_daemon, token_of

PAGES = ("http://books.toscrape.com/", "http://stringjs.com/")


@pytest.fixture(scope="module")
def replay():
    server = start_replay()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def archived(replay, tmp_path_factory):
    """books.toscrape.com added with no daemon, stringjs.com through a running daemon."""
    home = make_home(tmp_path_factory.mktemp("sealed"))

    def pk(*args):
        return run_cli(home, replay, *args, timeout=120)

    try:
        first = json.loads(pk("archive", "add", PAGES[0], "--json"))
        state = json.loads(pk("serve", "--detach", "--json"))
        second = json.loads(pk("archive", "add", PAGES[1], "--json"))
        yield {"home": home, "base": state["url"], "ids": [first["id"], second["id"]]}
    finally:
        stop_daemon(home)  # also one that came up after serve gave up waiting


def get(url: str) -> tuple[int, dict, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def signed(archived, reg_id: str, url: str, query: str = "") -> str:
    sig = sign_path(token_of(archived["home"]), f"/v/{reg_id}/")
    return f"{archived['base']}/v/{reg_id}/{url}?sig={sig}{query}"


RESOURCE = re.compile(r"/v/(\d{20})/r/(\d+)\?sig=[0-9a-f]+")


@pytest.mark.parametrize("which", [0, 1])
def test_every_resource_comes_back_byte_for_byte(archived, replay, which):
    reg_id = archived["ids"][which]
    status, headers, body = get(signed(archived, reg_id, PAGES[which]))
    assert status == 200 and "default-src 'none'" in headers["Content-Security-Policy"]
    html = body.decode("utf-8")
    used = resource_urls(html, archived["base"] + "/")
    assert used and all(u.startswith(archived["base"] + f"/v/{reg_id}/r/") for u in used)
    manifest = archived_manifest(archived, reg_id)
    checked = 0
    for match in sorted(set(RESOURCE.findall(html))):
        entry = manifest[int(match[1])]
        status, headers, data = get(
            f"{archived['base']}/v/{match[0]}/r/{match[1]}?sig="
            + sign_path(token_of(archived["home"]), f"/v/{reg_id}/")
        )
        if entry["status"] != "stored":
            assert status == 404
            continue
        assert status == 200 and headers["X-Content-Type-Options"] == "nosniff"
        if entry["type"] == "text/css":
            daemon = archived["base"] + f"/v/{reg_id}/r/"
            refs = css_urls(data.decode("utf-8", "replace"), archived["base"] + "/")
            assert all(r.startswith(daemon) for r in refs), refs[:3]
        else:
            assert sha256(data) == replay.recorded_sha256(entry["url"]), entry["url"]
            checked += 1
    assert checked >= (20 if which == 0 else 1)


def archived_manifest(archived, reg_id: str) -> list[dict]:
    port = archived["base"].rsplit(":", 1)[1]
    token = token_of(archived["home"])
    with connect(
        f"ws://127.0.0.1:{port}/ws", additional_headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        ws.send(
            json.dumps(
                {"id": 1, "type": "version_resources", "params": {"id": reg_id, "limit": 1000}}
            )
        )
        reply = json.loads(ws.recv(timeout=30))
    return reply["result"]["resources"]


def test_viewing_copies_sends_nothing_to_the_live_sites(archived, replay):
    rules = replay.info["rules"]
    args = [
        *FLAGS,
        f"--host-resolver-rules={rules}",
        "--ignore-certificate-errors",
        "--disable-features=HttpsUpgrades",
    ]
    before = replay.seq()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        loaded = []
        for reg_id, url in zip(archived["ids"], PAGES, strict=True):
            for query in ("", "&original=1"):
                page.goto(signed(archived, reg_id, url, query), wait_until="load")
                page.wait_for_timeout(500)
            page.goto(signed(archived, reg_id, url), wait_until="load")
            loaded.append(
                page.evaluate(
                    "[...document.images].filter(i => i.complete && i.naturalWidth > 0).length"
                )
            )
        browser.close()
    leaked = replay.requests_since(before)
    assert leaked == [], [r["url"] for r in leaked][:5]
    assert loaded[0] >= 20  # the product images render from the daemon


def test_single_file_export_renders_with_no_request(archived, replay, tmp_path):
    out = tmp_path / "books.html"
    done = subprocess.run(
        [
            *CLI,
            "archive",
            "get",
            archived["ids"][0],
            "--single-file",
            "-o",
            str(out),
            "--home",
            str(archived["home"]),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    html = out.read_text("utf-8")
    assert "/v/" not in html and "/gc?url=" not in html
    requests = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page()
        page.on("request", lambda r: requests.append(r.url))
        page.goto(out.as_uri(), wait_until="load")
        shown = page.evaluate(
            "[...document.images].filter(i => i.complete && i.naturalWidth > 0).length"
        )
        styled = page.evaluate("document.styleSheets.length")
        browser.close()
    outside = [u for u in requests if not u.startswith(("file:", "data:", "about:"))]
    assert outside == [], outside[:5]
    assert shown >= 20 and styled >= 1


def _stored_resources(archived, url: str) -> list[int]:
    """For each version of ``url`` (newest first), how many resources it stored."""
    port = archived["base"].rsplit(":", 1)[1]
    token = token_of(archived["home"])
    headers = {"Authorization": f"Bearer {token}"}
    with connect(f"ws://127.0.0.1:{port}/ws", additional_headers=headers) as ws:
        ws.send(json.dumps({"id": 1, "type": "versions", "params": {"url": url}}))
        ids = [v["id"] for v in json.loads(ws.recv(timeout=30))["result"]["versions"]]
        counts = []
        for reg_id in ids:
            params = {"id": reg_id, "limit": 1}
            ws.send(json.dumps({"id": 2, "type": "version_resources", "params": params}))
            counts.append(json.loads(ws.recv(timeout=30))["result"]["stored"])
    return counts


def run_cli(home, replay, *args, timeout: int = 180) -> str:
    """``pagekeeper ARGS`` on ``home``, fetching through the replay; what it printed."""
    done = subprocess.run(
        [*CLI, *args, "--home", str(home)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=replay.env(),
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def cli_json(archived, replay, *args):
    """``pagekeeper ARGS --json`` on the archived home, fetching through the replay; its JSON."""
    return json.loads(run_cli(archived["home"], replay, *args, "--json"))


def test_crawl_and_schedule_fetch_resources_too(archived, replay):
    def pk(*args):
        return cli_json(archived, replay, *args)

    # the daemon fetches (it inherited the replay proxy when the fixture started it)
    pk("archive", "crawl", PAGES[1], "--depth", "0", "--delay", "0")
    pk("archive", "schedule", PAGES[1], "--every", "daily")
    pk("archive", "schedule", "--run-due")
    counts = _stored_resources(archived, PAGES[1])
    assert len(counts) >= 3 and all(c >= 3 for c in counts[:3]), counts


def call(archived, kind: str, params: dict) -> dict:
    port = archived["base"].rsplit(":", 1)[1]
    token = token_of(archived["home"])
    with connect(
        f"ws://127.0.0.1:{port}/ws", additional_headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        ws.send(json.dumps({"id": 1, "type": kind, "params": params}))
        reply = json.loads(ws.recv(timeout=60))
    assert reply["ok"], reply
    return reply["result"]


# A page that moved: its <meta http-equiv=refresh> names a site outside the daemon.
MOVED_URL = "http://books.toscrape.com/moved.html"
MOVED = (
    b'<!doctype html><html><head><meta http-equiv="refresh" '
    b'content="0; url=http://stringjs.com/?from=refresh"><title>Moved</title></head>'
    b"<body><h1>This page has moved</h1></body></html>"
)


def test_a_meta_refresh_in_a_copy_neither_navigates_nor_requests(archived, replay):
    reg_id = call(archived, "archive_page", {"url": MOVED_URL, "html": MOVED.decode()})["id"]
    original = signed(archived, reg_id, MOVED_URL, "&original=1")
    status, _, body = get(original)
    assert status == 200 and body == MOVED  # the original stays byte for byte
    args = [*FLAGS, f"--host-resolver-rules={replay.info['rules']}", "--ignore-certificate-errors"]
    before = replay.seq()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args, headless=True)
        page = browser.new_page()
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        for address in (original, signed(archived, reg_id, MOVED_URL)):
            page.goto(address, wait_until="load")
            page.wait_for_timeout(1500)  # a refresh of 0 s would have fired by now
            assert page.url == address
        browser.close()
    assert [u for u in asked if not u.startswith(archived["base"])] == []
    assert replay.requests_since(before) == []


def test_an_unchanged_page_added_again_is_seen_again_at_its_own_signed_address(archived, replay):
    """`archive add` of the unchanged page: `versions --json` lists it as a revisit with its
    time, and its printed version_url opens without the token, serving the version's bytes."""

    def pk(*args):
        return cli_json(archived, replay, *args)

    added = pk("archive", "add", PAGES[1])
    listed = pk("archive", "versions", PAGES[1])
    newest = listed[0]
    assert newest["id"] == added["id"] and newest["revisit_of"] == added["revisit_of"]
    held = next(v for v in listed if v["id"] == newest["revisit_of"])
    assert held["revisit_of"] is None and newest["registered_at"] >= held["registered_at"]
    assert "?sig=" in newest["version_url"]  # printed signed: opens in any browser
    status, headers, copy = get(newest["version_url"])
    assert status == 200 and "default-src 'none'" in headers["Content-Security-Policy"]
    status, _, original = get(newest["version_url"] + "&original=1")
    assert status == 200
    assert original == get(held["version_url"] + "&original=1")[2]
    assert sha256(original) == replay.recorded_sha256(PAGES[1])
    found = sorted(set(RESOURCE.findall(copy.decode("utf-8"))))
    assert found and {m[0] for m in found} == {newest["id"]}  # its own address
    sig = sign_path(token_of(archived["home"]), f"/v/{newest['id']}/")
    for _, number in found:
        mine = get(f"{archived['base']}/v/{newest['id']}/r/{number}?sig={sig}&original=1")
        assert mine[0] == 200 and mine[2] == resource_of(archived, held["id"], number)


def resource_of(archived, reg_id: str, number: str) -> bytes:
    sig = sign_path(token_of(archived["home"]), f"/v/{reg_id}/")
    status, _, body = get(f"{archived['base']}/v/{reg_id}/r/{number}?sig={sig}&original=1")
    assert status == 200
    return body
