"""``pagekeeper archive import-bookmarks FILE``: archive every bookmark of a Netscape bookmark
file or a Pocket export (engine/archive/bookmarks.py), its folders as tags.

Politely: at most ``--concurrency`` fetches at once and one request per site every
``--delay`` seconds. Resumable: what is archived already is skipped, so running it again
after Ctrl-C or a failure finishes the rest. A progress bar goes to stderr. With a daemon
running each page goes through it, else through the same handlers in this process
(``archive_page`` fetching the URL and its resources, then ``archive_tag``).

>>> Polite(0).wait("a.example")  # no delay: never waits
0.0
"""

from __future__ import annotations

import sys
import threading
import time
from urllib.parse import urlsplit

from engine.archive.bookmarks import Bookmark, parse_bookmarks
from engine.errors import PageKeeperError, error_payload
from host.cli.backend import backend, send
from host.cli.command import command
from host.cli.files import read_input

MAX_FILE = 64 * 1024 * 1024


class Polite:
    """One request per site every ``delay`` seconds, across threads."""

    def __init__(self, delay: float) -> None:
        self.delay, self.lock = delay, threading.Lock()
        self.next_at: dict[str, float] = {}

    def wait(self, site: str) -> float:
        """Block until ``site`` may be asked again; the seconds waited."""
        with self.lock:
            now = time.monotonic()
            at = max(now, self.next_at.get(site, now))
            self.next_at[site] = at + self.delay
        pause = at - now
        if pause > 0:
            time.sleep(pause)
        return pause


def _read(path: str) -> list[Bookmark]:
    return parse_bookmarks(read_input(path, MAX_FILE))


def _todo(ctx, marks: list[Bookmark]) -> list[Bookmark]:
    """The bookmarks not archived yet."""
    urls = [m.url for m in marks]
    done = set(send(ctx, "archived", {"urls": urls}, write=False)["archived"])
    return [m for m in marks if m.url not in done]


def _bar(stream, total: int):
    def draw(done: int, url: str) -> None:
        width = 30
        filled = width * done // max(total, 1)
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {url[:60]:<60}")
        stream.flush()
        if done == total:
            stream.write("\n")

    return draw


def run_import_bookmarks(args, ctx) -> dict:

    marks = _read(args.file)
    todo = _todo(ctx, marks)
    report = {"total": len(marks), "already": len(marks) - len(todo), "archived": 0, "failed": []}
    if not todo:
        return report
    todo = interleaved(todo)
    draw = _bar(sys.stderr, len(todo))
    _archive(ctx, todo, args, Polite(args.delay), draw, report)
    return report


def _site(url: str) -> str:
    return urlsplit(url).hostname or url


def interleaved(marks: list[Bookmark]) -> list[Bookmark]:
    """Round-robin over sites, so the workers ask different sites while one must wait.

    >>> [m.url for m in interleaved([Bookmark("http://a/1", ""), Bookmark("http://a/2", ""), Bookmark("http://b/1", "")])]
    ['http://a/1', 'http://b/1', 'http://a/2']
    """
    seen: dict[str, int] = {}
    ranked = []
    for order, mark in enumerate(marks):
        turn = seen[_site(mark.url)] = seen.get(_site(mark.url), -1) + 1
        ranked.append((turn, order, mark))
    return [mark for _turn, _order, mark in sorted(ranked, key=lambda r: r[:2])]


def _archive(ctx, todo: list[Bookmark], args, polite: Polite, draw, report: dict) -> None:
    """Archive each bookmark through the command's backend (the daemon, or the same handlers
    in this process): ``archive_page`` fetches the page and its resources, then its
    folders become tags; ``--concurrency`` at a time, each site asked politely."""

    def job(mark: Bookmark):
        def run(call) -> None:
            polite.wait(_site(mark.url))
            done = call("archive_page", {"url": mark.url, "title": mark.title or None})
            if mark.tags and not args.no_tags:
                call("archive_tag", {"ref": done["id"], "add": list(mark.tags)})

        return run

    finished = 0

    def ended(i: int, error: PageKeeperError | None) -> None:
        nonlocal finished
        finished += 1
        if error is None:
            report["archived"] += 1
        else:
            report["failed"].append({"url": todo[i].url, "error": error_payload(error)})
        draw(finished, todo[i].url)

    with backend(ctx) as b:
        b.each([job(mark) for mark in todo], args.concurrency, ended)


def render(report: dict) -> str:
    failed = report["failed"]
    lines = [
        f"{report['archived']} archived, {report['already']} already in the archive, "
        f"{len(failed)} failed, of {report['total']} bookmarks"
    ]
    lines += [f"  failed {f['url']}: {f['error']['code']}: {f['error']['message']}" for f in failed]
    return "\n".join(lines)


def add_parsers(cmds, common) -> None:
    """Add ``import-bookmarks`` under ``archive``."""
    imp = command(
        cmds,
        "import-bookmarks",
        run_import_bookmarks,
        common,
        "archive every bookmark of a browser's bookmark file or a Pocket export",
    )
    imp.add_argument(
        "file", metavar="FILE", help="bookmarks.html (Netscape format) or Pocket's export"
    )
    imp.add_argument("--concurrency", type=int, default=4, help="pages fetched at once (default 4)")
    imp.add_argument(
        "--delay",
        type=float,
        default=1.0,
        help="seconds between two requests to one site (default 1)",
    )
    imp.add_argument("--no-tags", action="store_true", help="do not turn folders into tags")
    imp.set_defaults(render=render)
