"""``pagekeeper archive …`` end to end: the real CLI, a real store on disk, a real local HTTP server."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from engine.archive.model import Capture, RegisterOptions
from engine.archive.provider import refresh_similar
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from host.cli import backend
from host.cli.entry import main
from tests.engine.archive.pages import page
from tests.engine.archive.test_registry import near_identical
from tests.host.daemon_fixtures import (
    SHARED_CACHE,
    dust_stories,
    listing_pages,
    make_home,
    start_daemon,
    stop_daemon,
)
from tests.host.services.test_fetch import serve


def run(capsys, *argv) -> tuple[int, object]:
    code = main(["archive", *argv, "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1]) if out else None


@pytest.fixture
def home(tmp_path):
    """A tmp home sharing the test daemons' dictionary cache (a cold build takes seconds)."""
    path = tmp_path / "home"
    path.mkdir()
    (path / "config.json").write_text(json.dumps({"cache_dir": str(SHARED_CACHE)}))
    return path


@pytest.fixture
def saved(tmp_path):
    url, body = page("partei")
    path = tmp_path / "page.html"
    path.write_bytes(body)
    return url, body, path


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/gone"


def test_add_from_file_returns_the_contract(capsys, home, saved):
    url, _, path = saved
    code, result = run(capsys, "add", url, "--html", str(path), "--no-fetch", "--home", str(home))
    assert code == 0
    assert set(result) >= {"id", "url", "key", "version_url", "registered_at", "similar"}
    assert result["version_url"].split("?sig=")[0].endswith(f"/v/{result['id']}/{url}")
    code, again = run(capsys, "add", url, "--html", str(path), "--home", str(home))
    assert [s["id"] for s in again["similar"]] == [result["id"]]


def test_version_urls_without_a_daemon_use_the_homes_port(capsys, home, saved):
    """No daemon: version URLs name the port the home's config.json gives (a chosen one, or the
    free one a daemon took when 47477 was busy), else 47477."""
    url, _, path = saved
    code, default = run(capsys, "add", url, "--html", str(path), "--home", str(home))
    assert code == 0 and default["version_url"].startswith("http://127.0.0.1:47477/v/")
    (home / "config.json").write_text(json.dumps({"port": 47123}))
    code, listed = run(capsys, "versions", url, "--home", str(home))
    assert code == 0 and listed[0]["version_url"].startswith("http://127.0.0.1:47123/v/")


def _added(capsys, home, url: str, path) -> tuple[dict, str, str]:
    """``archive add`` through the entry point, with and without ``--json``: the result, the
    text output, and the note on stderr (the same in both)."""
    assert main(["archive", "add", url, "--html", str(path), "--home", str(home), "--json"]) == 0
    out, note = capsys.readouterr()
    assert main(["archive", "versions", url, "--home", str(home)]) == 0
    text, text_note = capsys.readouterr()
    assert note == text_note, (note, text_note)
    return json.loads(out), text, note


def _status(address: str) -> int:
    try:
        with urllib.request.urlopen(address, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code
    except urllib.error.URLError:  # nothing listens
        return 0


def test_addresses_printed_with_no_daemon_of_the_home_say_what_opens_them(
    capsys, tmp_path, saved, monkeypatch
):
    """A home whose daemon is not running prints its version addresses (the JSON contract)
    and says, in text and JSON alike, why they do not open and what makes them open: the
    command it names, run as printed, starts the daemon and the address then opens. On a
    port another home's daemon holds, the address would reach that daemon (403: another
    token): the note says so, and names no start that cannot work on a chosen port."""
    url, _, path = saved
    other = make_home(tmp_path / "other")
    try:
        port = start_daemon(other)["port"]
        chosen = make_home(tmp_path / "chosen", port=port)
        added, text, note = _added(capsys, chosen, url, path)
        assert added["version_url"].startswith(f"http://127.0.0.1:{port}/v/")
        assert added["version_url"] in text and _status(added["version_url"]) == 403
        assert f"port {port} is another program's" in note and "cannot start" in note, note
        assert "serve --detach" not in note
        default = make_home(tmp_path / "default")
        (default / "config.json").write_text(json.dumps({"cache_dir": str(SHARED_CACHE)}))
        monkeypatch.setattr(backend, "configured_port", lambda home: port)  # the default, taken
        added, _, note = _added(capsys, default, url, path)
        assert added["version_url"].startswith(f"http://127.0.0.1:{port}/v/")
        assert "serve --detach` starts this home's daemon on a free port" in note, note
        monkeypatch.undo()
    finally:
        stop_daemon(other)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free = sock.getsockname()[1]
    home = make_home(tmp_path / "free", port=free)
    added, text, note = _added(capsys, home, url, path)
    assert added["version_url"] in text and _status(added["version_url"]) == 0  # not yet
    start = re.search(r"`(.+ serve --detach)` starts it on port (\d+), then they open", note)
    assert start and int(start.group(2)) == free, note
    env = {**os.environ, "HOME": str(tmp_path / "user")}
    try:
        done = subprocess.run(start.group(1), shell=True, env=env, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert _status(added["version_url"]) == 200
        assert main(["archive", "versions", url, "--home", str(home)]) == 0
        assert capsys.readouterr().err == ""  # its daemon serves them: nothing to add
    finally:
        stop_daemon(home)


def test_versions_similar_get_original_and_rewritten(capsys, home, saved, tmp_path):
    url, body, path = saved
    first = run(capsys, "add", url, "--html", str(path), "--home", str(home))[1]
    path.write_bytes(body.replace(b"Zeiger", b"Uhrzeiger"))
    second = run(capsys, "add", url, "--html", str(path), "--home", str(home))[1]
    code, rows = run(capsys, "versions", url, "--home", str(home))
    assert [r["id"] for r in rows] == [second["id"], first["id"]]
    assert 0.9 < rows[0]["similarity_to_previous"] < 1.0
    _, sim = run(capsys, "similar", second["id"], "--home", str(home))
    assert sim["similar"] == []  # the first is a version of the same page, listed by versions
    assert main(["archive", "similar", second["id"], "--home", str(home)]) == 0
    assert first["id"] not in capsys.readouterr().out
    out = tmp_path / "orig.html"
    code, info = run(capsys, "get", first["id"], "--original", "-o", str(out), "--home", str(home))
    assert code == 0 and out.read_bytes() == body
    _, copy = run(capsys, "get", first["version_url"], "--home", str(home))
    assert "/gc?url=" in copy["html"] and copy["original"] is False


def test_open_stored_when_unreachable_and_live_when_reachable(capsys, home, saved):
    _, body, path = saved
    dead = _closed_port_url()
    reg = run(capsys, "add", dead, "--html", str(path), "--home", str(home))[1]
    code, result = run(capsys, "open", reg["id"], "--home", str(home))
    assert (code, result["action"], result["location"]) == (0, "stored", reg["version_url"])
    with serve({"/live": (200, {"Content-Type": "text/html"}, body)}) as base:
        reg = run(capsys, "add", f"{base}/live", "--home", str(home))[1]
        code, result = run(capsys, "open", reg["version_url"], "--home", str(home))
    assert (result["action"], result["location"]) == ("live", f"{base}/live")


def test_add_fetches_follows_redirects_and_records_final_url(capsys, home):
    with serve() as base:
        code, result = run(capsys, "add", f"{base}/redirect/2", "--home", str(home))
    assert code == 0
    with ArchiveStore.open(home, readonly=True) as store:
        doc = store.version(result["id"])
    assert doc["final_url"] == f"{base}/latin" and doc["charset"] == "iso8859-1"


def test_search_wildcards_case_sort_and_text(capsys, home, tmp_path):
    for name in ("partei", "latin1", "ordnung"):
        url, body = page(name)
        (tmp_path / name).write_bytes(body)
        run(capsys, "add", url, "--html", str(tmp_path / name), "--home", str(home))
    _, rows = run(capsys, "search", "https://*.net/*", "--home", str(home))
    assert [r["url"].split("/")[2] for r in rows] == ["die-partei.net"]
    _, rows = run(capsys, "search", "HTTP*", "--sort", "url", "--home", str(home))
    assert [r["url"] for r in rows] == sorted(r["url"] for r in rows) and len(rows) == 3
    _, rows = run(capsys, "search", "HTTP*", "--case-sensitive", "--home", str(home))
    assert rows == []
    _, rows = run(capsys, "search", "http?://*", "--home", str(home))
    assert len(rows) == 2  # https only
    _, rows = run(capsys, "search", "*", "--text", "gema zeiger", "--home", str(home))
    assert [r["url"].split("/")[2] for r in rows] == ["die-partei.net"]


def test_bad_input_gets_typed_errors_and_exit_codes(capsys, home, tmp_path):
    code, result = run(capsys, "get", "20990101000000000000", "--home", str(home))
    assert (code, result["error"]["code"]) == (3, "not_found")
    huge = tmp_path / "huge.html"
    with open(huge, "wb") as handle:  # 200 MB, sparse: nothing is allocated
        handle.truncate(200 * 1024 * 1024)
    code, result = run(capsys, "add", "https://e.com/", "--html", str(huge), "--home", str(home))
    assert (code, result["error"]["code"]) == (4, "too_large")
    png = {"/img": (200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n")}
    with serve(png) as base:
        code, result = run(capsys, "add", f"{base}/img", "--home", str(home))
        assert result["error"]["code"] == "invalid_input"
        code, result = run(capsys, "add", f"{base}/declared-big", "--home", str(home))
        assert result["error"]["code"] == "too_large"
    code, result = run(capsys, "add", "https://e.com/", "--no-fetch", "--home", str(home))
    assert result["error"]["code"] == "invalid_input"


def test_a_second_writer_gets_a_storage_error(capsys, home, saved):
    url, _, path = saved
    with ArchiveStore.open(home):
        code, result = run(capsys, "add", url, "--html", str(path), "--home", str(home))
    assert (code, result["error"]["code"]) == (5, "storage")
    assert "another writer" in result["error"]["message"]


def _site(count: int) -> dict:
    pages = {}
    for n in range(count):
        links = "".join(f'<a href="/p{(n * 3 + k) % count}">next {k}</a>' for k in range(1, 3))
        html = f"<html><head><title>Page {n}</title></head><body><h1>Page {n}</h1>{links}"
        html += '<a href="https://elsewhere.example/">off-site</a></body></html>'
        pages[f"/p{n}"] = (200, {"Content-Type": "text/html"}, html.encode())
    return pages


def test_crawl_same_site_with_depth_and_page_limits(capsys, home):
    with serve(_site(12)) as base:
        code = main(
            ["archive", "crawl", f"{base}/p0", "--depth", "2", "--same-site", "--max-pages", "5"]
            + ["--delay", "0", "--home", str(home), "--json"]
        )
        captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0 and report["count"] == 5
    urls = [r["url"] for r in report["registered"]]
    assert urls[:3] == [f"{base}/p0", f"{base}/p1", f"{base}/p2"]  # breadth-first
    assert all(u.startswith(base) for u in urls)
    assert "5/5" in captured.err  # the progress bar


def test_crawl_depth_zero_registers_only_the_start(capsys, home):
    with serve(_site(4)) as base:
        main(
            ["archive", "crawl", f"{base}/p0", "--depth", "0", "--delay", "0"]
            + ["--home", str(home), "--json"]
        )
    assert json.loads(capsys.readouterr().out)["count"] == 1


def test_schedule_stores_and_runs_due_with_only_if_different(capsys, home):
    with serve(_site(2)) as base:
        url = f"{base}/p0"
        code, row = run(
            capsys,
            "schedule",
            url,
            "--every",
            "daily",
            "--only-if-different",
            "0.99",
            "--home",
            str(home),
        )
        assert (code, row["every"]) == (0, "daily")
        _, done = run(capsys, "schedule", url, "--run-due", "--home", str(home))
        assert len(done) == 1 and not done[0]["skipped"]
        _, again = run(capsys, "schedule", url, "--run-due", "--home", str(home))
        assert again == []  # next run is a day away
    _, rows = run(capsys, "schedule", "--list", "--home", str(home))
    assert rows[0]["next_run"] - rows[0]["last_run"] == 86400
    # argparse refuses an unknown period: a typed usage error, exit 2
    assert main(["archive", "schedule", url, "--every", "monthly", "--home", str(home)]) == 2


def test_dust_learns_rules_and_applies_them_to_new_keys(capsys, home, tmp_path):
    for url, path in dust_stories(tmp_path):
        run(capsys, "add", url, "--html", str(path), "--home", str(home))
    before = run(
        capsys,
        "add",
        "https://news.example.com/story?id=9",
        "--html",
        str(path),
        "--home",
        str(home),
    )[1]
    code, learned = run(capsys, "dust", "--home", str(home))
    assert code == 0 and learned["rules"][0]["find"] == "story?id="
    after = run(
        capsys,
        "add",
        "https://news.example.com/story?id=9",
        "--html",
        str(path),
        "--home",
        str(home),
    )[1]
    assert before["key"] != after["key"] == "https://news.example.com/story_9/"
    # Learning re-keyed the earlier captures: the page's history is one document.
    assert learned["rekeyed"] == 6 and learned["documents"] == 6
    _, history = run(capsys, "versions", "https://news.example.com/story_9", "--home", str(home))
    assert {v["id"] for v in history} == {before["id"], after["id"]}
    _, one = run(capsys, "versions", "https://news.example.com/story?id=1", "--home", str(home))
    assert {v["url"] for v in one} == {
        "https://news.example.com/story?id=1",
        "https://news.example.com/story_1",
    }


def test_dust_learns_parameters_that_change_nothing_from_real_pages(capsys, home, tmp_path):
    ids = []
    for url, path in listing_pages(tmp_path):
        ids.append(run(capsys, "add", url, "--html", str(path), "--home", str(home))[1]["id"])
    code, learned = run(capsys, "dust", "--home", str(home))
    assert code == 0 and learned["rules"] == []
    assert [(p["name"], p["value"], p["path"]) for p in learned["params"]] == [
        ("fakefoo", None, "/display/"),
        ("sort", "ascending", "/display/"),
    ]
    assert learned["rekeyed"] == 6 and learned["documents"] == 3
    url = "https://shop.example/display/?article=2&fakefoo=new&sort=ascending"
    _, history = run(capsys, "versions", url, "--home", str(home))
    assert {v["id"] for v in history} == set(ids[6:9])  # every capture of the page, one document
    assert main(["archive", "dust", "--home", str(home)]) == 0  # the plain-text output
    out = capsys.readouterr().out
    assert "shop.example: drop sort=ascending under /display/  (3 pairs)" in out
    assert "drop fakefoo (any value) under /display/" in out and '"params"' not in out


def test_similar_says_when_its_list_is_still_being_finished(capsys, home):
    rushed = RegisterOptions(similar_budget_s=0.0)  # the first candidate only
    with ArchiveStore.open(home) as store:
        ids = [register(store, Capture(u, b), rushed).id for u, b in near_identical(3)]
    code, found = run(capsys, "similar", ids[-1], "--home", str(home))
    assert code == 0 and found["complete"] is False and len(found["similar"]) == 1
    assert main(["archive", "similar", ids[-1], "--home", str(home)]) == 0
    assert "incomplete: the daemon is still comparing" in capsys.readouterr().out
    with ArchiveStore.open(home) as store:
        refresh_similar(store, ids[-1])
    _, done = run(capsys, "similar", ids[-1], "--home", str(home))
    assert done["complete"] is True and len(done["similar"]) == 2
    assert main(["archive", "similar", ids[-1], "--home", str(home)]) == 0
    assert "incomplete" not in capsys.readouterr().out


def test_writes_go_through_a_running_daemon(capsys, home, saved):
    url, _, path = saved
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert main(["serve", "--detach", "--port", str(port), "--home", str(home), "--json"]) == 0
    capsys.readouterr()
    try:
        code, reg = run(capsys, "add", url, "--html", str(path), "--home", str(home))
        assert code == 0 and reg["version_url"].startswith(f"http://127.0.0.1:{port}/v/")
        with pytest.raises(Exception, match="another writer"):
            ArchiveStore.open(home)  # the daemon holds the writer's lock
        code, rows = run(capsys, "versions", url, "--home", str(home))  # a reader meanwhile
        assert [r["id"] for r in rows] == [reg["id"]]
    finally:
        main(["stop", "--home", str(home), "--json"])
        capsys.readouterr()


@pytest.mark.parametrize("argv", [("versions",), ("open",), ("delete",), ("note", "-", "x")])
def test_a_ref_that_is_neither_id_nor_url_says_what_was_expected(capsys, home, argv):
    """A cut-off ID is no URL either: the error (still ``invalid_url``, exit 2) says that an ID,
    a version URL or a URL was expected, not only how URL parsing failed."""
    name, *rest = argv
    args = [name, "2026112602", *[a for a in rest if a != "-"]]
    code, answer = run(capsys, *args, "--home", str(home))
    assert code == 2 and answer["error"]["code"] == "invalid_url", answer
    assert "'2026112602' is neither a registration ID (20 digits)" in answer["error"]["message"]


def test_archive_alone_lists_its_own_subcommands(capsys, home):
    """`pagekeeper archive` with no subcommand prints archive's help (its subcommands), exit 2,
    not the top-level list of commands."""
    code = main(["archive", "--home", str(home)])
    out = capsys.readouterr().out
    assert code == 2
    assert out.startswith("usage: pagekeeper archive") and "import-bookmarks" in out, out


def test_a_copy_written_by_get_with_no_daemon_gets_the_addresses_note(capsys, tmp_path, saved):
    """A rewritten copy (``-o``, ``--json``'s ``html``, stdout) links to this home's daemon:
    with none running, the same note as printed version addresses, whose command run as
    printed makes the copy's links open; an original holds no such address and gets none."""
    url, _, path = saved
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free = sock.getsockname()[1]
    home = make_home(tmp_path / "free", port=free)
    added, _, _ = _added(capsys, home, url, path)
    out = tmp_path / "copy.html"
    get = ["archive", "get", added["id"], "--home", str(home)]
    assert main([*get, "-o", str(out)]) == 0
    note = capsys.readouterr().err
    assert f"http://127.0.0.1:{free}/gc?url=" in out.read_text("utf-8", "replace")
    start = re.search(r"`(.+ serve --detach)` starts it on port (\d+), then they open", note)
    assert start and int(start.group(2)) == free, note
    assert main([*get, "--json"]) == 0
    assert capsys.readouterr().err == note
    assert main(get) == 0
    assert capsys.readouterr().err == note
    assert main([*get, "--original", "-o", str(tmp_path / "orig.html")]) == 0
    assert capsys.readouterr().err == ""
    env = {**os.environ, "HOME": str(tmp_path / "user")}
    try:
        done = subprocess.run(start.group(1), shell=True, env=env, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        link = re.search(rf'http://127\.0\.0\.1:{free}/gc\?url=[^"\s]+', out.read_text("utf-8"))
        assert link and _status(link.group(0).replace("&amp;", "&")) != 0  # the daemon answers
        assert main([*get, "-o", str(out)]) == 0
        assert capsys.readouterr().err == ""  # its daemon serves them: nothing to add
    finally:
        stop_daemon(home)


def test_get_to_a_text_stdout_shows_the_page_decoded(tmp_path, monkeypatch):
    """A stdout with no byte buffer (a text stream, as an embedding program gives) gets the
    page as text: UTF-8, a byte that is not UTF-8 shown as U+FFFD, never an error."""
    home = make_home(tmp_path)
    body = "<title>Café</title><p>Grüße aus Köln, eine Seite zum Aufheben.</p>".encode("latin-1")
    page_file = tmp_path / "page.html"
    page_file.write_bytes(body)
    add = ["archive", "add", "http://a.example/", "--html", str(page_file), "--home", str(home)]
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert main([*add, "--json"]) == 0
    version = json.loads(sys.stdout.getvalue())["id"]
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert main(["archive", "get", version, "--original", "--home", str(home)]) == 0
    assert sys.stdout.getvalue() == body.decode("utf-8", "replace")


def test_get_to_stdout_writes_the_stored_bytes_exactly(capsysbinary, tmp_path, monkeypatch):
    """``get --original`` with no ``-o``, or with ``-o -``, writes the page's own bytes to
    stdout (a page in another encoding included), and writes no file named ``-``."""
    monkeypatch.chdir(tmp_path)  # where a file named "-" would be written
    home = make_home(tmp_path)
    body = "<title>Café</title><p>Grüße aus Köln, eine Seite zum Aufheben.</p>".encode("latin-1")
    page_file = tmp_path / "page.html"
    page_file.write_bytes(body)
    add = ["archive", "add", "http://a.example/", "--html", str(page_file), "--home", str(home)]
    assert main([*add, "--json"]) == 0
    version = json.loads(capsysbinary.readouterr().out)["id"]
    for more in ([], ["-o", "-"]):
        get = ["archive", "get", version, "--original", *more, "--home", str(home)]
        assert main(get) == 0
        assert capsysbinary.readouterr().out == body
    assert not (tmp_path / "-").exists()


def _added_page(home, tmp_path, url: str, body: bytes) -> str:
    page_file = tmp_path / f"{len(list(tmp_path.iterdir()))}.html"
    page_file.write_bytes(body)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["archive", "add", url, "--html", str(page_file), "--no-fetch", "--json",
                     "--home", str(home)]) == 0  # fmt: skip
    return json.loads(out.getvalue())["id"]


def _get_json(capsys, home, *argv) -> tuple[dict, str]:
    capsys.readouterr()  # what the commands before it said
    assert main(["archive", "get", *argv, "--json", "--home", str(home)]) == 0
    said = capsys.readouterr()
    return json.loads(said.out), said.err


def test_get_json_decodes_the_page_by_its_own_charset_and_shows_a_bad_byte_as_u_fffd(
    capsys, tmp_path
):
    """``--json``'s ``html`` is the page as text: decoded by the charset it was stored with
    (a Windows-1252 page reads right), and a byte its charset cannot read is U+FFFD, never
    an error."""
    home = make_home(tmp_path / "home")
    latin = "<title>Café</title><p>Grüße aus Köln, eine Seite zum Aufheben.</p>"
    page_id = _added_page(home, tmp_path, "http://a.example/", latin.encode("cp1252"))
    got, _ = _get_json(capsys, home, page_id, "--original")
    assert got["charset"] == "cp1252" and got["html"] == latin
    broken = '<meta charset="utf-8"><title>Caf\xe9</title><p>Bad byte.</p>'.encode("latin-1")
    page_id = _added_page(home, tmp_path, "http://b.example/", broken)
    got, _ = _get_json(capsys, home, page_id, "--original")
    assert got["charset"] == "utf-8"
    assert got["html"] == broken.decode("utf-8", "replace") and "Caf\ufffd<" in got["html"]


def test_get_single_file_inlines_the_copy_and_names_no_daemon_address(capsys, tmp_path):
    """``--single-file``: one file that needs nothing else (every resource inlined, one
    never stored made inert), so it holds no address of the daemon and gets no note; the
    rewritten copy of the same version does."""
    home = make_home(tmp_path / "home", port=0)
    body = b'<title>A</title><p>A page with a picture that was never stored.</p><img src="p.png">'
    page_id = _added_page(home, tmp_path, "http://a.example/", body)
    single, note = _get_json(capsys, home, page_id, "--single-file")
    assert '<img src="about:invalid">' in single["html"] and "127.0.0.1" not in single["html"]
    assert note == ""
    rewritten, note = _get_json(capsys, home, page_id)
    assert "127.0.0.1" in rewritten["html"] and "serve --detach" in note


def test_get_reads_beside_a_writer_that_holds_the_archive(capsysbinary, tmp_path):
    """``get`` only reads: with no daemon it opens the archive for reading, so it works while
    another program holds the archive as its writer (a second writer is refused)."""
    home = make_home(tmp_path / "home")
    body = b"<title>A</title><p>A page read while another program writes the archive.</p>"
    page_id = _added_page(home, tmp_path, "http://a.example/", body)
    capsysbinary.readouterr()
    with ArchiveStore.open(home):  # the writer, as a running `archive add` holds it
        code = main(["archive", "get", page_id, "--original", "--home", str(home)])
        assert (code, capsysbinary.readouterr().out) == (0, body)
