"""``pagekeeper extract | liveness | check`` as a user runs them: a real process, real files,
and for ``check`` a real HTTP server on 127.0.0.1 and a real archive store."""

from __future__ import annotations

import gzip
import io
import json
import re
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from host.cli.entry import main
from tests.engine.test_liveness import (
    FEED,
    as_paragraphs,
    body_lines,
    boxed_copy,
    dagbladet,
    in_template,
    side_story_gone,
    site_box,
)

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "extract"
ARTICLE = FIXTURES / "76e5d18c072b364b.html.gz"
OTHER = FIXTURES / "b48cdf12c871c85a.html.gz"
CHINESE = FIXTURES / "996936aefb678cd9.html.gz"


def pk(*args: str, stdin: str = "", home: Path | None = None) -> subprocess.CompletedProcess:
    cmd = [str(Path(sys.executable).parent / "pagekeeper"), *args]
    if home is not None:
        cmd += ["--home", str(home)]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)


def plain(tmp_path: Path, source: Path) -> Path:
    out = tmp_path / source.name.removesuffix(".gz")
    out.write_bytes(gzip.decompress(source.read_bytes()))
    return out


def test_extract_json_has_the_contract_fields(tmp_path):
    run = pk("extract", str(plain(tmp_path, ARTICLE)), "--url", "https://www.bmjv.de/", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert list(data) == ["title", "body", "summary", "keywords"]
    assert "Auch hier gilt der Grundsatz," in data["body"]
    assert all(isinstance(w, str) and isinstance(s, float) for w, s in data["keywords"])


def test_extract_reads_gzip_and_cjk(tmp_path):
    data = json.loads(pk("extract", str(CHINESE), "--json").stdout)
    assert "益阳" in data["title"] and "发现社会" in data["body"]


def test_extract_human_output_shows_title_and_keywords(tmp_path):
    run = pk("extract", str(ARTICLE))
    assert run.stdout.startswith("Title:") and "Keywords:" in run.stdout


def test_extract_binary_file_is_a_typed_error(tmp_path):
    png = tmp_path / "x.html"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(500))
    run = pk("extract", str(png), "--json")
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"]["code"] == "decode_error"


def test_extract_batch_goes_on_after_bad_lines(tmp_path):
    png = tmp_path / "x.png"
    png.write_bytes(b"\x89PNG" + bytes(500))
    lines = [
        {"id": "a", "path": str(ARTICLE), "url": "https://www.bmjv.de/"},
        {"id": "b", "path": str(png)},
        "not json",
        {"id": "c", "path": str(tmp_path / "missing.html")},
        {"id": "d", "path": str(CHINESE)},
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    run = pk("extract", "--batch", stdin=stdin)
    assert run.returncode == 0, run.stderr
    out = [json.loads(line) for line in run.stdout.splitlines()]
    assert [o.get("id") for o in out] == ["a", "b", None, "c", "d"]
    assert "Auch hier gilt" in out[0]["body"] and "益阳" in out[4]["title"]
    assert out[1]["error"]["code"] == "decode_error"
    assert out[2]["error"]["code"] == "bad_request"
    assert out[3]["error"]["code"] == "invalid_input"


def test_extract_holds_its_url_to_the_rule_of_every_typed_address(tmp_path):
    """``--url notaurl`` (no scheme, no dot, no port) is no address: ``invalid_url``, exit 2,
    in the very words ``suggest notaurl`` uses (one rule, the engine's), alone and as a batch
    line; an address without its scheme, or a network name written as one, is a URL."""
    page = str(plain(tmp_path, ARTICLE))
    run = pk("extract", page, "--url", "notaurl", "--json")
    error = json.loads(run.stdout)["error"]
    assert run.returncode == 2 and error["code"] == "invalid_url", run.stdout
    suggest = pk("suggest", "notaurl", "--json", home=tmp_path / "home")
    assert suggest.returncode == 2 and json.loads(suggest.stdout)["error"] == error
    run = pk("extract", page, "--url", "notaurl")
    assert run.returncode == 2 and run.stdout == "", run.stdout
    assert run.stderr.startswith("pagekeeper: invalid_url: 'notaurl' is no web address")
    lines = [
        {"id": "a", "path": page, "url": "notaurl"},
        {"id": "b", "path": page, "url": "bmjv.de/x"},
    ]
    run = pk("extract", "--batch", stdin="".join(json.dumps(x) + "\n" for x in lines))
    out = [json.loads(line) for line in run.stdout.splitlines()]
    assert out[0]["error"] == {**error} and out[0]["line"] == 1
    assert "Auch hier gilt" in out[1]["body"]
    for url in ("bmjv.de/x", "http://intranet/", "localhost"):
        assert pk("extract", page, "--url", url, "--json").returncode == 0, url


def test_liveness_json_present_and_gone(tmp_path):
    same = json.loads(
        pk("liveness", "--stored", str(ARTICLE), "--live", str(ARTICLE), "--json").stdout
    )
    assert same == {"present": True, "state": "present", "match": 1.0}
    other = json.loads(
        pk("liveness", "--stored", str(ARTICLE), "--live", str(OTHER), "--json").stdout
    )
    assert other["state"] == "gone" and other["present"] is False and other["match"] < 0.5


def test_liveness_details_and_thresholds(tmp_path):
    run = pk("liveness", "--stored", str(ARTICLE), "--live", str(ARTICLE), "--details", "--json",
             "--present-at", "1.0", "--changed-at", "0.9")  # fmt: skip
    data = json.loads(run.stdout)
    assert data["state"] == "present" and data["matched"] and data["missing"] == []
    bad = pk("liveness", "--stored", str(ARTICLE), "--live", str(ARTICLE), "--json",
             "--present-at", "0.2", "--changed-at", "0.9")  # fmt: skip
    assert bad.returncode == 2


def test_liveness_batch(tmp_path):
    lines = [
        {"id": 1, "stored": str(ARTICLE), "live": str(plain(tmp_path, ARTICLE))},
        {"id": 2, "stored": str(ARTICLE), "live": str(OTHER)},
        {"id": 3, "stored": str(ARTICLE)},
    ]
    run = pk("liveness", "--batch", stdin="\n".join(map(json.dumps, lines)))
    out = [json.loads(line) for line in run.stdout.splitlines()]
    assert out[0] == {"id": 1, "present": True, "state": "present", "match": 1.0}
    assert out[1]["id"] == 2 and out[1]["state"] == "gone"
    assert out[2]["error"]["code"] == "bad_request"


class Site:
    """A tiny live web server whose answers the test can change."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[int, bytes]] = {}
        self.headers: dict[str, dict[str, str]] = {}  # more headers of a path's answer
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server API)
                status, body, *declared = site.pages.get(self.path, (404, b"<h1>Not Found</h1>"))
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                # A third item declares another length (a page over the fetch cap, unsent).
                self.send_header("Content-Length", str(declared[0] if declared else len(body)))
                for name, value in site.headers.get(self.path, {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site():
    server = Site()
    yield server
    server.close()


def test_check_fetches_judges_and_stores(tmp_path, site):
    home = tmp_path / "home"
    article = plain(tmp_path, ARTICLE)
    site.pages["/a"] = (200, article.read_bytes())
    site.pages["/b"] = (200, article.read_bytes())
    for path in ("/a", "/b"):
        add = pk(
            "archive",
            "add",
            site.base + path,
            "--html",
            str(article),
            "--no-fetch",
            "--json",
            home=home,
        )
        assert add.returncode == 0, add.stderr
    one = json.loads(pk("check", site.base + "/a", "--json", home=home).stdout)
    assert (one["checked"], one["present"], one["gone"]) == (1, 1, 0)
    assert one["results"][0]["match"] == 1.0 and one["results"][0]["checked_at"] > 0

    site.pages["/a"] = (200, gzip.decompress(OTHER.read_bytes()))  # another article, still 200
    site.pages.pop("/b")  # now a 404
    run = pk("check", "--all", "--json", home=home)
    summary = json.loads(run.stdout)
    assert (summary["checked"], summary["present"], summary["gone"]) == (2, 0, 2)
    reasons = {r["url"].rsplit("/", 1)[1]: r["reason"] for r in summary["results"]}
    assert reasons["b"].startswith("decided by the status: the server answered HTTP 404")
    assert "keywords found" in reasons["a"]

    human = pk("check", "--all", home=home).stdout
    assert human.rstrip().endswith("2 checked: 0 present, 0 changed, 2 gone, 0 unreachable")


def test_a_missing_page_lists_no_keyword_as_missing(tmp_path, site):
    """A 404 and a 410 read no page: each verdict names the status as what decided it, lists no
    keyword (the JSON keeps the field, empty), and the text line shows no figure."""
    home = tmp_path / "home"
    article = plain(tmp_path, ARTICLE)
    site.pages["/410"] = (410, b"<h1>Gone</h1>")  # /404: the server's own 404
    for path in ("/404", "/410"):
        add = pk(
            "archive", "add", site.base + path, "--html", str(article), "--no-fetch", home=home
        )
        assert add.returncode == 0, add.stderr
    summary = json.loads(pk("check", "--all", "--json", home=home).stdout)
    assert (summary["checked"], summary["gone"]) == (2, 2)
    for r in summary["results"]:
        status = r["url"].rsplit("/", 1)[1]
        assert (r["decided_by"], r["figure"], r["match"]) == ("status", None, 0.0)
        assert r["missing"] == [] and r["matched"] == []
        assert r["reason"].startswith(f"decided by the status: the server answered HTTP {status}")
    lines = pk("check", "--all", home=home).stdout.splitlines()[:-1]
    assert len(lines) == 2 and all(re.match(r"gone +– +http", line) for line in lines)


def archive_the_live_article(tmp_path: Path, site, home: Path) -> str:
    """Serve the article at ``/a`` and archive it as served; its URL."""
    article = plain(tmp_path, ARTICLE)
    site.pages["/a"] = (200, article.read_bytes())
    url = site.base + "/a"
    added = pk("archive", "add", url, "--html", str(article), "--no-fetch", home=home)
    assert added.returncode == 0, added.stderr
    return url


def test_the_check_line_writes_the_deciding_share_as_its_reason_does(tmp_path, site):
    """The text line shows the figure that decided each verdict the way its reason and the
    viewer write it ("P 100%" beside "P=100%"), never "P=1.00"; none for a status."""
    home = tmp_path / "home"
    url = archive_the_live_article(tmp_path, site, home)
    run = pk("check", url, home=home)
    line = run.stdout.splitlines()[0]
    assert re.match(rf"present +P 100% +{re.escape(url)}  decided by the keywords: ", line), line
    assert "P=100%" in line and "P=1.00" not in line and "1.00" not in line
    (verdict,) = json.loads(pk("check", url, "--json", home=home).stdout)["results"]
    assert (verdict["decided_by"], verdict["figure"], verdict["match"]) == ("keywords", 1.0, 1.0)


def test_an_address_that_cannot_be_fetched_is_unreachable_not_gone(tmp_path, site):
    """The live URL redirects to an ftp:// address, which no fetch can follow: no server gave
    an answer about the page, so the check is unreachable (not judged, no decider, no figure,
    no keyword list), counted apart, and the last judged state is kept for alerts."""
    home = tmp_path / "home"
    url = archive_the_live_article(tmp_path, site, home)
    assert json.loads(pk("check", url, "--json", home=home).stdout)["present"] == 1
    site.pages["/a"] = (301, b"")
    site.headers["/a"] = {"Location": "ftp://127.0.0.1/a"}
    summary = json.loads(pk("check", url, "--json", home=home).stdout)
    (verdict,) = summary["results"]
    assert (summary["gone"], summary["unreachable"]) == (0, 1)
    assert (verdict["state"], verdict["present"], verdict["judged"]) == (
        "unreachable",
        False,
        "present",
    )
    assert (verdict["decided_by"], verdict["figure"]) == ("", None)
    assert verdict["missing"] == [] and verdict["matched"] == [] and verdict["match"] == 0.0
    assert verdict["reason"] == (
        "the address cannot be fetched (only a well-formed http or https address can be), "
        "so the live page was not checked"
    )
    line = pk("check", url, home=home).stdout.splitlines()[0]
    assert re.match(r"unreachable +– +http", line) and "ftp" not in line


def test_checking_a_page_seen_again_checks_its_version(tmp_path, site):
    """A revisit shares its version's content: a check by its ID is stored as the version's."""
    home = tmp_path / "home"
    article = plain(tmp_path, ARTICLE)
    site.pages["/a"] = (200, article.read_bytes())
    adds = [
        json.loads(
            pk("archive", "add", site.base + "/a", "--html", str(article), "--no-fetch", "--json",
               home=home).stdout
        )
        for _ in range(2)
    ]  # fmt: skip
    assert adds[1]["revisit_of"] == adds[0]["id"]
    one = json.loads(pk("check", adds[1]["id"], "--json", home=home).stdout)
    assert one["present"] == 1 and one["results"][0]["id"] == adds[0]["id"]


def test_check_a_site_that_is_down_is_unreachable_not_gone(tmp_path, site):
    """A port that refuses and a server answering 503: both unreachable, counted apart,
    no keyword list, and a reason in plain words (no exception text)."""
    home = tmp_path / "home"
    article = plain(tmp_path, ARTICLE)
    closed = socket.socket()  # bound, never listening: connections to it are refused
    closed.bind(("127.0.0.1", 0))
    down = f"http://127.0.0.1:{closed.getsockname()[1]}/a"
    site.pages["/busy"] = (503, b"<h1>Service Unavailable</h1>")
    try:
        for url in (down, site.base + "/busy"):
            add = pk("archive", "add", url, "--html", str(article), "--no-fetch", home=home)
            assert add.returncode == 0, add.stderr
        summary = json.loads(pk("check", "--all", "--json", home=home).stdout)
        human = pk("check", "--all", home=home).stdout
    finally:
        closed.close()
    assert (summary["checked"], summary["gone"], summary["unreachable"]) == (2, 0, 2)
    by_path = {r["url"].rsplit("/", 1)[1]: r for r in summary["results"]}
    assert {r["state"] for r in by_path.values()} == {"unreachable"}
    assert all(r["missing"] == [] and r["present"] is False for r in by_path.values())
    assert by_path["a"]["reason"].startswith("the server refused the connection")
    assert by_path["busy"]["reason"].startswith("the server answered HTTP 503")
    assert "ConnectError" not in human and "Errno" not in human
    assert human.rstrip().endswith("2 checked: 0 present, 0 changed, 0 gone, 2 unreachable")


def test_a_live_page_over_the_size_cap_is_too_large_to_check_not_gone(tmp_path, site):
    """The server declares 60 MB (over the 50 MB fetch cap): the page is not read, so it is
    not judged: "too_large", counted apart, the last judged state kept for alerts."""
    home = tmp_path / "home"
    article = plain(tmp_path, ARTICLE)
    site.pages["/huge"] = (200, article.read_bytes())
    url = site.base + "/huge"
    assert (
        pk("archive", "add", url, "--html", str(article), "--no-fetch", home=home).returncode == 0
    )
    first = json.loads(pk("check", url, "--json", home=home).stdout)
    assert first["results"][0]["state"] == "present"
    site.pages["/huge"] = (200, b"", 60 * 2**20)
    summary = json.loads(pk("check", url, "--json", home=home).stdout)
    (verdict,) = summary["results"]
    assert (summary["gone"], summary["too_large"], summary["present"]) == (0, 1, 0)
    assert verdict["state"] == "too_large" and verdict["present"] is False
    assert verdict["missing"] == [] and verdict["judged"] == "present"
    assert verdict["reason"] == "the live page is larger than the 50 MB cap, so it was not checked"
    human = pk("check", url, home=home).stdout
    assert human.rstrip().endswith("0 gone, 0 unreachable, 1 too large to check")


def test_a_stored_copy_without_main_text_has_nothing_to_compare(tmp_path, site):
    """A copy whose text a script wrote in (the real page's head over an empty root): no words
    to look for, so "unknown" whatever the live page shows, counted apart, never gone."""
    home = tmp_path / "home"
    page = gzip.decompress(ARTICLE.read_bytes()).decode("utf-8", "replace")
    shell = tmp_path / "shell.html"
    shell.write_text(page[: page.lower().index("<body")] + "<body><div id='root'></div></body>")
    site.pages["/app"] = (200, gzip.decompress(ARTICLE.read_bytes()))
    url = site.base + "/app"
    assert pk("archive", "add", url, "--html", str(shell), "--no-fetch", home=home).returncode == 0
    summary = json.loads(pk("check", url, "--json", home=home).stdout)
    (verdict,) = summary["results"]
    assert (summary["unknown"], summary["gone"], summary["present"]) == (1, 0, 0)
    assert (verdict["state"], verdict["present"], verdict["missing"]) == ("unknown", False, [])
    assert (
        verdict["judged"] is None
    )  # nothing judged on content yet: alerts have nothing to compare
    assert (
        verdict["reason"]
        == "the stored copy has no main text to compare with, so it was not judged"
    )
    human = pk("check", url, home=home).stdout
    assert human.rstrip().endswith("0 gone, 0 unreachable, 1 with nothing to compare")


def test_check_unknown_url_is_not_found(tmp_path):
    run = pk("check", "https://nowhere.invalid/x", "--json", home=tmp_path / "home")
    assert run.returncode == 3
    assert json.loads(run.stdout)["error"]["code"] == "not_found"


class Terminal(io.StringIO):
    """stderr as a terminal: the progress bar draws."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("with_daemon", [False, True], ids=["no-daemon", "daemon"])
def test_check_all_progress_bar_names_the_pages(home, tmp_path, monkeypatch, with_daemon):
    page = tmp_path / "page.html"
    page.write_text("<title>t</title><p>the river rose two metres overnight</p>")
    urls = ["http://127.0.0.1:9/first-page", "http://127.0.0.1:9/second-page"]  # refused at once
    for url in urls:
        assert (
            pk("archive", "add", url, "--html", str(page), "--no-fetch", home=home).returncode == 0
        )
    if with_daemon:
        assert pk("serve", "--detach", home=home).returncode == 0
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["check", "--all", "--json", "--home", str(home)]) == 0
    drawn = terminal.getvalue()
    assert all(url in drawn for url in urls), drawn
    ids = re.findall(r"\b\d{20}\b", drawn)
    assert ids == [], f"version IDs in the progress bar: {ids}"


def test_check_reads_the_site_template_from_the_other_archived_pages(tmp_path, site):
    """The stored main text holds a box the site shows on every page. With another page of
    the site archived, the box is template: another article beside it is gone."""
    home = tmp_path / "home"
    _, stored_page = boxed_copy()
    other = in_template(as_paragraphs(body_lines(FEED[0]) + site_box()))
    live = in_template(as_paragraphs(body_lines(FEED[2]) + site_box())).encode()

    def add(path: str, page: str) -> None:
        (tmp_path / "p.html").write_text(page, "utf-8")
        run = pk("archive", "add", site.base + path, "--html", str(tmp_path / "p.html"),
                 "--no-fetch", "--json", home=home)  # fmt: skip
        assert run.returncode == 0, run.stderr

    add("/a", stored_page)
    site.pages["/a"] = (200, live)
    alone = json.loads(pk("check", site.base + "/a", "--json", home=home).stdout)
    assert alone["results"][0]["state"] == "changed"  # the box passes for the text
    add("/b", other)
    known = json.loads(pk("check", site.base + "/a", "--json", home=home).stdout)
    assert known["results"][0]["state"] == "gone", known


def test_check_reads_the_stored_page_s_visible_text(tmp_path, site):
    """The stored extraction took a side story; the live page dropped it and keeps the article
    the stored page showed (another archived page of the site tells its template apart):
    changed (present), not gone."""
    home = tmp_path / "home"
    _, page, live = side_story_gone()
    for path, html_text in (("/n", page), ("/m", dagbladet("V1"))):
        (tmp_path / "p.html").write_text(html_text, "utf-8")
        run = pk("archive", "add", site.base + path, "--html", str(tmp_path / "p.html"),
                 "--no-fetch", "--json", home=home)  # fmt: skip
        assert run.returncode == 0, run.stderr
    site.pages["/n"] = (200, live.encode())
    checked = json.loads(pk("check", site.base + "/n", "--json", home=home).stdout)["results"][0]
    assert checked["state"] == "changed", checked
