"""Benchmark: ``archive import-bookmarks`` time per URL against a local server.

Run: ``.venv/bin/python tests/bench/bench_bookmarks.py [--pages N]``.

Ten local ``http.server`` sites (127.0.0.1 to 127.0.0.10: politeness is per host) serve N
real saved pages (tests/fixtures/pages, each made distinct); a Netscape bookmark file lists them in 5 folders. The
import runs through the real CLI without a daemon, with the default politeness (4 at
once, one request per site per second) and with none (delay 0), beside the baseline
doing the same work one page after another (concurrency 1, delay 0), in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import http.server
import io
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


from host.cli.entry import main  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "pages"


def site_files(root: Path, count: int) -> list[str]:
    bodies = [gzip.decompress(p.read_bytes()) for p in sorted(FIXTURES.glob("*.html.gz"))]
    names = []
    for n in range(count):
        folder = root / f"site{n % 10}"
        folder.mkdir(exist_ok=True)
        body = bodies[n % len(bodies)].replace(b"</body>", b"<p>copy %d</p></body>" % n, 1)
        (folder / f"page{n}.html").write_bytes(body)
        names.append(f"site{n % 10}/page{n}.html")
    return names


@contextlib.contextmanager
def sites(root: Path):
    """One quiet server per loopback address 127.0.0.1 .. 127.0.0.10, each over ``root``."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(root))
    servers = [http.server.ThreadingHTTPServer((f"127.0.0.{n}", 0), handler) for n in range(1, 11)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield [f"http://{s.server_address[0]}:{s.server_address[1]}" for s in servers]
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def bookmarks(path: Path, bases: list[str], names: list[str]) -> None:
    def link(name: str) -> str:
        base = bases[int(name.split("/")[0][4:])]  # site<k>/... is served by the k-th address
        return f'<DT><A HREF="{base}/{name}">{name}</A>\n'

    rows = [
        f"<DT><H3>Folder {f}</H3>\n<DL><p>\n" + "".join(link(n) for n in names[f::5]) + "</DL><p>\n"
        for f in range(5)
    ]
    path.write_text("<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n" + "".join(rows) + "</DL><p>\n")


def run(tmp: Path, name: str, file: Path, *options: str) -> float:
    home = tmp / name
    started = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        code = main(["archive", "import-bookmarks", str(file), "--home", str(home), *options])
    assert code == 0
    return time.perf_counter() - started


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "site").mkdir()
        names = site_files(tmp / "site", args.pages)
        with sites(tmp / "site") as bases:
            file = tmp / "bookmarks.html"
            bookmarks(file, bases, names)
            baseline = run(tmp, "one-by-one", file, "--concurrency", "1", "--delay", "0")
            fast = run(tmp, "fast", file, "--concurrency", "4", "--delay", "0")
            polite = run(tmp, "polite", file)
            again = run(tmp, "polite", file)
        n = args.pages
        print(f"{n} bookmarks on 10 local sites (real saved pages)")
        print(f"one by one (baseline):      {baseline / n * 1000:7.1f} ms per URL")
        print(
            f"4 at once, no delay:        {fast / n * 1000:7.1f} ms per URL ({baseline / fast:.2f}x baseline)"
        )
        print(
            f"default (4 at once, 1 s/site): {polite / n * 1000:7.1f} ms per URL (bound by politeness)"
        )
        print(f"re-run (all archived):      {again / n * 1000:7.1f} ms per URL")


if __name__ == "__main__":
    main_()
