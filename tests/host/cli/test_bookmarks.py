"""``archive import-bookmarks`` end to end: the real CLI, a real local site, with and
without a real daemon; resumable, polite, folders as tags, typed errors."""

from __future__ import annotations

import json
import time

import pytest

from engine.archive.resources import manifest_of
from engine.archive.store import ArchiveStore
from host.cli.entry import main
from tests.conftest import static_site
from tests.host.daemon_fixtures import make_home

PAGES = {
    f"p{n}.html": f"<html><head><title>Page {n}</title><link rel=stylesheet href=site.css></head>"
    f"<body><p>Bookmarked page number {n}, "
    "with enough words in it to be an article of its own.</p></body></html>"
    for n in range(6)
}
STYLE = "body { font-family: serif; color: #123456 }"


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    for name, body in PAGES.items():
        (root / name).write_text(body)
    (root / "site.css").write_text(STYLE)
    with static_site(root) as url:
        yield url


def bookmark_file(tmp_path, site: str, names: list[str]) -> str:
    links = "".join(f'<DT><A HREF="{site}/{n}">{n}</A>\n' for n in names)
    text = (
        "<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>Reading</H3>\n<DL><p>\n"
        f'{links}</DL><p>\n<DT><A HREF="{site}/missing.html">gone</A>\n</DL><p>\n'
    )
    path = tmp_path / "bookmarks.html"
    path.write_text(text)
    return str(path)


def cli(capsys, home, *argv) -> tuple[int, object, str]:
    code = main(["archive", *argv, "--home", str(home), "--json"])
    out = capsys.readouterr()
    lines = out.out.strip().splitlines()
    return code, json.loads(lines[-1]) if lines else None, out.err


def _import_and_resume(capsys, home, tmp_path, site) -> None:
    first = bookmark_file(tmp_path, site, ["p0.html", "p1.html", "p2.html"])
    code, report, err = cli(capsys, home, "import-bookmarks", first, "--delay", "0")
    assert code == 0, report
    assert (report["total"], report["already"], report["archived"]) == (4, 0, 3)
    assert [f["url"] for f in report["failed"]] == [f"{site}/missing.html"]
    assert "4/4" in err  # the progress bar
    _, tagged, _ = cli(capsys, home, "search", "--tag", "reading")
    assert sorted(r["url"] for r in tagged) == [f"{site}/p{n}.html" for n in range(3)]
    more = bookmark_file(tmp_path, site, [f"p{n}.html" for n in range(6)])
    code, again, _ = cli(capsys, home, "import-bookmarks", more, "--delay", "0")
    assert (again["already"], again["archived"]) == (3, 3)  # resumed: only what is new
    assert stored_styles(home) == {f"{site}/p{n}.html": [f"{site}/site.css"] for n in range(6)}


def stored_styles(home) -> dict[str, list[str]]:
    """Each archived page's stored resources (one path, daemon or not: the page's own too)."""
    with ArchiveStore.open(home, readonly=True) as store:
        return {
            doc["url"]: [r["url"] for r in manifest_of(store, doc) if r.get("blob")]
            for doc in store.raw("versions").values()
        }


def test_import_without_a_daemon(capsys, tmp_path, site):
    _import_and_resume(capsys, make_home(tmp_path / "a"), tmp_path, site)


def test_import_through_the_daemon(capsys, home, daemon, tmp_path, site):
    _import_and_resume(capsys, home, tmp_path, site)


def test_one_site_is_asked_politely(capsys, tmp_path, site):

    path = bookmark_file(tmp_path, site, ["p0.html", "p1.html", "p2.html"])
    started = time.monotonic()
    code, report, _ = cli(
        capsys, make_home(tmp_path / "b"), "import-bookmarks", path, "--delay", "0.4"
    )
    assert code == 0 and report["archived"] == 3
    assert time.monotonic() - started >= 3 * 0.4  # four requests to one site, 0.4 s apart


def test_not_a_bookmark_file(capsys, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("just some notes, no links")
    code, error, _ = cli(capsys, make_home(tmp_path / "c"), "import-bookmarks", str(junk))
    assert code == 2 and error["error"]["code"] == "invalid_input"
    code, error, _ = cli(
        capsys, make_home(tmp_path / "c"), "import-bookmarks", str(tmp_path / "none")
    )
    assert code == 2 and error["error"]["code"] == "invalid_input"
