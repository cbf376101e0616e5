"""Every CLI command, write or read, runs the same protocol handler whether a daemon runs or not.

Each command runs through the real CLI (in-process ``main``) in two homes served by
the same local site: one with a running daemon (the command goes through it) and one
without (the handler runs in the command's process). The answers must be equal once what
differs by home is masked (registration IDs, the archive's port, times). With a daemon
running, a read never opens the store in the command's own process.
"""

from __future__ import annotations

import io
import json
import os
import re
import socket
import time
import urllib.request
from contextlib import redirect_stdout
from types import SimpleNamespace

import pytest

from engine.archive.store import ArchiveStore
from host.cli import backend
from host.cli.entry import main, note_version_addresses
from host.daemon import client
from host.daemon.app import DEFAULT_PORT
from host.daemon.main import Startup
from host.home import Home
from tests.conftest import static_site
from tests.host.daemon_fixtures import SHARED_CACHE, make_home, pk, stop_daemon

PAGES = {
    "index.html": '<a href="a.html">A</a> <a href="b.html">B</a>',
    "a.html": '<a href="index.html">home</a>',
    "b.html": "<p>the last page</p>",
}


def _html(name: str, body: str) -> bytes:
    text = f"Page {name} of the test site carries enough words to have a main text of its own."
    return (
        f"<html><head><title>{name}</title></head><body><p>{text}</p>{body}</body></html>".encode()
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    for name, body in PAGES.items():
        (root / name).write_bytes(_html(name, body))
    drifted = "<p>the last page</p><p>Zebras juggle quantum marmalade beside violet orchestras.</p>"
    (root / "drifted.html").write_bytes(_html("b.html", drifted))
    with static_site(root) as url:
        yield url, root


def served_and_direct(base):
    """(home with a running daemon, home without one); the daemon stopped after."""
    served, direct = make_home(base / "served"), make_home(base / "direct")
    state = json.loads(pk(served, "serve", "--detach", "--json").stdout)
    assert state["running"], state
    try:
        yield served, direct
    finally:
        stop_daemon(served)
    assert client.running(direct, wait=False) is None  # the direct home never had one


@pytest.fixture(scope="module")
def homes(tmp_path_factory):
    """(home with a running daemon, home without one), for the tests that store what they
    read themselves."""
    yield from served_and_direct(tmp_path_factory.mktemp("homes"))


ID = re.compile(r"\b\d{20}\b")
# the archive's own addresses (a stored copy's links name the port of the home's archive)
PORT = re.compile(r"http://127\.0\.0\.1:\d+/(v/|viewer/|gc\?)")
SIG = re.compile(r"sig=[0-9a-f]+")  # version URLs are signed with each home's own secret
TIMES = {
    "registered_at",
    "checked_at",
    "computed_at",
    "next_run",
    "created",
    "last_run",
    "learned_at",
    "job",
    "same_second",  # whether two captures fell in one second: each home captured at its own times
}


def masked(value, site: str):
    """The answer with what differs by home replaced (IDs, archive port, times, and the
    signatures of version addresses: each home has its own token)."""
    if isinstance(value, dict):
        return {k: "T" if k in TIMES else masked(v, site) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [masked(v, site) for v in value]
    if isinstance(value, str):
        return SIG.sub("sig=S", PORT.sub(r"ARCHIVE/\1", ID.sub("ID", value))).replace(site, "SITE")
    return value


def cli(capsys, home, *argv):
    code = main([*argv, "--home", str(home), "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1]) if out else None


def cli_here(home, *argv):
    """:func:`cli` where no ``capsys`` is (a module's fixture): the answer read off stdout."""
    out = io.StringIO()
    with redirect_stdout(out):
        code = main([*argv, "--home", str(home), "--json"])
    lines = out.getvalue().strip().splitlines()
    return code, json.loads(lines[-1]) if lines else None


def both_ways(capsys, homes, site, *argv):
    served, direct = homes
    through = cli(capsys, served, *argv)
    alone = cli(capsys, direct, *argv)
    assert through[0] == alone[0], (argv, through, alone)
    assert masked(through[1], site) == masked(alone[1], site), argv
    return through


# (argv after the site URL is known); run in order: later ones use what earlier ones stored
WRITES = [
    ("archive", "add", "{site}/index.html"),
    ("archive", "add", "{site}/a.html", "--html", "{root}/a.html", "--no-fetch"),
    ("archive", "add", "{site}/a.html", "--html", "{root}/a.html", "--only-if-different", "0.9"),
    ("archive", "add", "{site}/missing.html"),
    ("archive", "crawl", "{site}/index.html", "--depth", "1", "--delay", "0", "--same-site"),
    ("archive", "schedule", "{site}/b.html", "--every", "weekly"),
    ("archive", "schedule", "--list"),
    ("archive", "schedule", "{site}/b.html", "--remove"),
    ("archive", "schedule", "--run-due"),
    ("archive", "dust"),
    ("archive", "profile", "aggressive"),
    ("archive", "profile"),
    ("check", "{site}/index.html"),
    ("check", "{site}/index.html", "--present-at", "1.0", "--changed-at", "1.0"),
    ("check", "--all", "--present-at", "0.0", "--changed-at", "0.0"),
]


@pytest.fixture(scope="module")
def written(tmp_path_factory, site):
    """A pair of homes of their own after every write of WRITES, in its order, each made in
    both, with the answers (one per write: the daemon's, then the command's own). The write
    tests judge the answers and the reads read what the writes stored, so each test stands
    alone, in any order (the tests below store into ``homes`` and make them differ)."""
    url, root = site
    for served, direct in served_and_direct(tmp_path_factory.mktemp("written")):
        answers = []
        for argv in WRITES:
            args = [a.format(site=url, root=root) for a in argv]
            answers.append((args, cli_here(served, *args), cli_here(direct, *args)))
        yield SimpleNamespace(homes=(served, direct), answers=answers)


@pytest.mark.parametrize("step", range(len(WRITES)), ids=lambda i: " ".join(WRITES[i][:3]))
def test_each_write_answers_the_same_with_and_without_a_daemon(written, site, step):
    url, _ = site
    args, through, alone = written.answers[step]
    assert through[0] == alone[0], (args, through, alone)
    assert masked(through[1], url) == masked(alone[1], url), args
    if args[-1] != f"{url}/missing.html":
        assert through[0] == 0, through[1]


# Reads of what the writes above stored (``written``'s homes): "{id}" is the home's own newest
# version of the site's index page (IDs differ by home; they are masked in the comparison).
READS = [
    ("archive", "versions", "{site}/index.html"),
    ("archive", "versions", "{site}/never-archived.html"),
    ("archive", "similar", "{id}"),
    ("archive", "get", "{id}"),
    ("archive", "get", "{id}", "--original"),
    ("archive", "get", "{id}", "--single-file"),
    ("archive", "get", "{site}/never-archived.html"),
    ("archive", "open", "{site}/index.html"),
    ("archive", "open", "{id}"),
    ("archive", "open", "{site}/never-archived.html"),
    ("archive", "search"),
    ("archive", "search", "*a.html*", "--sort", "url"),
    ("archive", "search", "--text", "page"),
    ("archive", "profile"),
    ("check", "{site}/never-archived.html"),
]


def newest_id(capsys, home, site: str) -> str:
    code, rows = cli(capsys, home, "archive", "versions", f"{site}/index.html")
    assert code == 0 and rows, rows
    return rows[0]["id"]


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a[:4]))
def test_each_read_answers_the_same_with_and_without_a_daemon(capsys, written, site, argv):
    url, _ = site
    answers = []
    for home in written.homes:
        ref = newest_id(capsys, home, url)
        args = [a.format(site=url, id=ref) for a in argv]
        answers.append(cli(capsys, home, *args))
    (code, through), (alone_code, alone) = answers
    assert code == alone_code, answers
    if argv[1] == "similar":  # pages equally similar come in either order (IDs differ by home)
        for answer in (through, alone):
            answer["similar"].sort(key=lambda r: (r["url"], r["similarity"]))
    assert masked(through, url) == masked(alone, url), argv
    if "never-archived" not in " ".join(argv):
        assert code == 0, through


def test_reads_through_a_daemon_never_open_the_store_here(capsys, written, site, monkeypatch):
    """With a daemon running, the daemon answers: the command's process opens no store."""
    url, _ = site
    served, _ = written.homes
    ref = newest_id(capsys, served, url)

    def refuse(*args, **kwargs):
        raise AssertionError("a read opened the store in the CLI's process")

    monkeypatch.setattr(ArchiveStore, "open", classmethod(refuse))
    for argv in READS:
        args = [a.format(site=url, id=ref) for a in argv]
        code, answer = cli(capsys, served, *args)
        # a page's URL given to get is no version: invalid_input (engine/archive/provider.py)
        expected = (
            ("not_found", "invalid_input") if argv[:2] == ("archive", "get") else ("not_found",)
        )
        assert answer is not None and (code == 0 or answer["error"]["code"] in expected), args


def test_the_version_addresses_a_read_prints_open(capsys, homes, site):
    """Printed /v/ addresses are signed: each one opens outside the viewer's browser."""
    url, _ = site
    served, _ = homes
    assert cli(capsys, served, "archive", "add", f"{url}/index.html")[0] == 0  # stands alone
    _, rows = cli(capsys, served, "archive", "versions", f"{url}/index.html")
    _, found = cli(capsys, served, "archive", "search", "*index*")
    addresses = [r["version_url"] for r in rows + found]
    assert addresses and all("?sig=" in a for a in addresses)
    for address in addresses:
        with urllib.request.urlopen(address, timeout=10) as answer:
            assert answer.status == 200


def test_import_answers_the_same_with_and_without_a_daemon(capsys, homes, site, tmp_path):
    """Stands alone: it archives the pages it exports (run in the module's order, they are
    there already, and a capture of the same page adds a revisit, as an import would)."""
    url, _ = site
    served, _ = homes
    for name in PAGES:
        assert cli(capsys, served, "archive", "add", f"{url}/{name}")[0] == 0, name
    warc = tmp_path / "export.warc.gz"
    assert cli(capsys, served, "archive", "export", "-o", str(warc))[0] == 0
    code, answer = both_ways(capsys, homes, url, "archive", "import", str(warc))
    assert code == 0 and answer["imported"] >= 3


def test_check_thresholds_reach_the_daemon(capsys, homes, site):
    """--present-at/--changed-at change the verdict through the daemon (they were dropped)."""
    url, root = site
    served, _ = homes
    page = f"{url}/b.html"  # stored with a paragraph the live page lost: half its words found
    add = cli(
        capsys, served, "archive", "add", page, "--html", str(root / "drifted.html"), "--no-fetch"
    )
    assert add[0] == 0, add
    default = cli(capsys, served, "check", page)[1]["results"][0]
    loose = cli(capsys, served, "check", page, "--present-at", "0", "--changed-at", "0")
    assert default["state"] != "present" and loose[1]["results"][0]["state"] == "present"


@pytest.mark.parametrize(
    "depth, reached", [("0", ["index.html"]), ("1", ["index.html", "a.html", "b.html"])]
)
def test_the_crawl_depth_given_reaches_the_crawl_with_and_without_a_daemon(
    capsys, homes, site, depth, reached
):
    """The depth the user gives is the crawl's, whichever way the command goes (the write
    comparisons above crawl at the default depth: a depth dropped on one way passes them)."""
    url, _ = site
    for home in homes:
        argv = ("archive", "crawl", f"{url}/index.html", "--depth", depth, "--delay", "0")
        code, report = cli(capsys, home, *argv)
        assert code == 0, report
        assert [r["url"] for r in report["registered"]] == [f"{url}/{n}" for n in reached], home


DAEMON_ADDRESS = re.compile(r"""http://127\.0\.0\.1:\d+/(?:v/|gc\?)[^"'\s<>)]*""")
DOT_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415478da63f8cfc00000030101009c3d5e2c0000000049454e44ae426082"
)


XHTML = (
    '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
    "<head><title>xhtml</title></head><body><p>{text}</p>"
    '<img src="dot.png" alt="dot"/><a href="a.html">A</a></body></html>'
)


def test_an_xhtml_copy_has_its_links_signed_served_and_from_get(capsys, homes, site):
    """A page served as application/xhtml+xml is rewritten like any HTML page, so its copy's
    gc links are signed as an HTML copy's are: in the copy the daemon serves (a sandboxed
    frame sends no cookie) and in the one ``archive get`` hands out; each address opens."""
    url, root = site
    served, _ = homes
    (root / "dot.png").write_bytes(DOT_PNG)
    text = "An XHTML page with one picture and one link, enough words for a main text of its own."
    (root / "page.xhtml").write_bytes(XHTML.format(text=text).encode())
    code, added = cli(capsys, served, "archive", "add", f"{url}/page.xhtml")
    assert code == 0, added
    code, copy = cli(capsys, served, "archive", "get", added["id"])
    assert code == 0 and copy["content_type"].startswith("application/xhtml+xml"), copy
    with urllib.request.urlopen(added["version_url"], timeout=10) as answer:
        served_copy = answer.read().decode()
    for html in (copy["html"], served_copy):
        links = [a.replace("&amp;", "&") for a in DAEMON_ADDRESS.findall(html) if "/gc?" in a]
        assert links and all("&sig=" in a for a in links), links
        for address in links:
            with urllib.request.urlopen(address, timeout=10) as answer:
                assert answer.status == 200, address


def test_a_copy_written_by_get_opens_its_links_and_resources_from_a_file(capsys, homes, site):
    """``archive get ID -o page.html``: the file is opened with no cookie and no daemon origin,
    so every daemon address in it is absolute and signed, and each one opens."""
    url, root = site
    served, _ = homes
    (root / "dot.png").write_bytes(DOT_PNG)
    text = "A page with one picture, kept with its image so its copy needs no network at all."
    (root / "pic.html").write_bytes(
        f'<title>pic</title><p>{text}</p><img src="dot.png"><a href="a.html">A</a>'.encode()
    )
    code, added = cli(capsys, served, "archive", "add", f"{url}/pic.html")
    assert code == 0, added
    code, copy = cli(capsys, served, "archive", "get", added["id"])
    assert code == 0, copy
    addresses = [a.replace("&amp;", "&") for a in DAEMON_ADDRESS.findall(copy["html"])]
    assert any("/r/" in a for a in addresses) and any("/gc?" in a for a in addresses), addresses
    assert f'"/v/{added["id"]}/' not in copy["html"]  # no path that a file:// page misreads
    for address in addresses:
        with urllib.request.urlopen(address, timeout=10) as answer:
            assert answer.status == 200, address


# -- the note beside version addresses no daemon of the home serves (in process) -----------


@pytest.fixture
def listener():
    """A port something else accepts connections on (another program's)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


NONE = client.Glance(False, None, 0.0)  # no daemon holds the lock


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_home_whose_daemon_serves_its_addresses_needs_no_note(tmp_path):
    home = make_home(tmp_path, port=_free_port())
    ready = {"pid": os.getpid(), "port": 1, "url": "x", "ready": True}
    assert backend.addresses_note(home, client.Glance(True, ready, 0.0)) is None


def test_a_home_on_a_new_port_at_each_start_names_no_port_its_addresses_could_open_on(tmp_path):
    home = make_home(tmp_path, port=0)
    note = backend.addresses_note(home)
    assert note == (
        "this home's daemon is not running, and it takes a new free port at each start"
        " (config.json's port is 0), so these addresses name no port it serves: "
        f"`{client.own_command(home)} serve --detach` starts it; then run this command again"
        " for addresses that open"
    )


def test_a_free_port_names_the_start_and_the_port(tmp_path):
    port = _free_port()
    home = make_home(tmp_path, port=port)
    assert backend.configured_port(home) == port
    assert backend.addresses_note(home) == (
        "this home's daemon is not running, so nothing answers these addresses yet: "
        f"`{client.own_command(home)} serve --detach` starts it on port {port}, then they open"
    )


def test_a_port_another_program_holds_is_named_and_no_start_that_cannot_work(tmp_path, listener):
    """config.json chose the port: the daemon cannot start elsewhere, so no start is named."""
    home = make_home(tmp_path, port=listener)
    note = backend.addresses_note(home)
    assert note.startswith(f"port {listener} is another program's (another PageKeeper home's")
    assert note.endswith("cannot start on it (config.json's port) until that program ends or the"
                         " port setting names another")  # fmt: skip
    assert "serve --detach" not in note


def test_the_default_port_taken_names_the_start_that_finds_a_free_one(
    tmp_path, listener, monkeypatch
):
    home = make_home(tmp_path)
    (home / "config.json").write_text(
        json.dumps({"cache_dir": str(SHARED_CACHE)})
    )  # no port chosen
    assert backend.configured_port(home) == DEFAULT_PORT
    monkeypatch.setattr(backend, "configured_port", lambda h: listener)  # the default, taken
    note = backend.addresses_note(home)
    assert note == (
        f"port {listener} is another program's (another PageKeeper home's daemon?), so these"
        " addresses reach it, not this archive: "
        f"`{client.own_command(home)} serve --detach` starts this home's daemon on a free port"
        " (kept in its config.json); then run this command again for addresses that open"
    )


def test_only_a_port_something_accepts_on_is_listening(listener):
    assert backend._listening(listener) is True
    assert backend._listening(_free_port()) is False


def test_the_note_goes_to_stderr_on_its_own_line_and_only_when_there_is_one(tmp_path, monkeypatch):
    ctx = SimpleNamespace(home=make_home(tmp_path, port=0), stderr=io.StringIO())
    backend.note_addresses(ctx)
    said = ctx.stderr.getvalue()
    assert said == f"pagekeeper: note: {backend.addresses_note(ctx.home)}\n"
    monkeypatch.setattr(backend, "addresses_note", lambda home, seen=None: None)
    ctx.stderr = io.StringIO()
    backend.note_addresses(ctx)
    assert ctx.stderr.getvalue() == ""


def test_a_copy_holds_this_homes_addresses_only_under_its_own_port(tmp_path):
    """A copy names the daemon's base URL then a path; a longer port that starts with the
    same digits is another address."""
    home = make_home(tmp_path, port=8123)
    assert backend.holds_addresses(b'<img src="http://127.0.0.1:8123/r/abc">', home, NONE)
    assert not backend.holds_addresses(b'<img src="http://127.0.0.1:81234/r/abc">', home, NONE)
    assert not backend.holds_addresses(b'<img src="http://127.0.0.1:8124/r/abc">', home, NONE)
    assert not backend.holds_addresses(b"<p>http://127.0.0.1:8123</p>", home, NONE)


def test_the_archives_addresses_name_the_running_daemons_port_first(tmp_path):
    """A running daemon may listen elsewhere than config.json says (it took a free port): the
    addresses it serves name its own port, and a copy holding them holds this home's."""
    home = make_home(tmp_path, port=8123)
    assert backend.base_url(home, None) == "http://127.0.0.1:8123"
    ready = {"pid": os.getpid(), "port": 9345, "url": "x", "ready": True}
    assert backend.base_url(home, ready) == "http://127.0.0.1:9345"
    seen = client.Glance(True, ready, 0.0)
    assert backend.holds_addresses(b'<img src="http://127.0.0.1:9345/r/abc">', home, seen)
    assert backend.base_url(home, {"url": "x"}) == "http://127.0.0.1:8123"  # no port said


@pytest.fixture
def starting_home(tmp_path):
    """A home whose daemon lock is held (by this process, as a daemon holds it) and whose
    daemon.json says what a warming daemon publishes (host/daemon/main.py: Startup)."""
    home = make_home(tmp_path, port=_free_port())
    lock = Home(home).lock()
    assert lock.acquire()
    Startup(home).step("building the dictionary index", 2000)
    yield home
    lock.release()


def test_addresses_printed_while_the_daemon_starts_name_it_starting_and_no_start(
    capsys, starting_home
):
    """A daemon that started while the command ran (the browser's helper started it) holds
    the lock and is warming: the note says so, and names no ``serve --detach`` (a second
    daemon cannot start; a user told "nothing answers" would try)."""
    home, ctx = starting_home, SimpleNamespace(stderr=io.StringIO())
    ctx.home = home
    note_version_addresses({"version_url": "http://127.0.0.1:1/v/1/"}, ctx)
    assert ctx.stderr.getvalue() == (
        "pagekeeper: note: this home's daemon is still starting (building the dictionary"
        " index): these addresses open once it is ready; nothing more to start\n"
    )
    assert "serve --detach" not in ctx.stderr.getvalue()


def test_a_start_is_starting_only_while_it_progresses_and_is_not_stopping(starting_home):
    seen = client.glance(starting_home)
    assert seen.starting and seen.serving is None
    old = time.time() - client.STALL_S - 5  # no note of progress for longer than a client waits
    os.utime(client.state_path(starting_home), (old, old))
    assert not client.glance(starting_home).starting
    stopping = {"pid": os.getpid(), "ready": False, "stopping": True, "phase": "closing"}
    client.state_path(starting_home).write_text(json.dumps(stopping))
    assert not client.glance(starting_home).starting
    assert not client.Glance(False, None, 0.0).starting  # no lock held: nothing starts


def test_a_get_with_no_daemon_looks_at_the_daemon_once_for_its_note(capsys, tmp_path, monkeypatch):
    """``archive get -o``: one look chooses the backend, one look answers both whether the
    copy holds this home's addresses and what the note says (probes counted, not timed)."""
    home = make_home(tmp_path / "home", port=_free_port())
    page = tmp_path / "a.html"
    page.write_bytes(_html("a.html", '<img src="pic.png">'))
    argv = ["--home", str(home), "--json"]
    assert main(["archive", "add", "http://example.com/a", "--html", str(page), "--no-fetch", *argv]) == 0  # fmt: skip
    vid = json.loads(capsys.readouterr().out)["id"]
    probes = []
    looked = client.lock_held
    monkeypatch.setattr(client, "lock_held", lambda h: probes.append(h) or looked(h))
    assert main(["archive", "get", vid, "-o", str(tmp_path / "copy.html"), *argv]) == 0
    assert len(probes) == 2, probes
    assert "serve --detach" in capsys.readouterr().err  # the note was given, from that one look


def test_a_daemon_starting_with_no_phase_yet_is_named_starting_without_one(tmp_path):
    """A daemon that holds the lock but has written no daemon.json yet (still importing):
    named as starting, with no phase in brackets and no start command."""
    home = make_home(tmp_path, port=_free_port())
    assert backend.addresses_note(home, client.Glance(True, None, 0.0)) == (
        "this home's daemon is still starting: these addresses open once it is ready;"
        " nothing more to start"
    )
