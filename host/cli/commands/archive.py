"""``pagekeeper archive …``: add, versions, similar, get, open, search, crawl, schedule, dust,
profile, export and import (WARC, host/cli/commands/warc.py).

Writes go through the running daemon when there is one (it is the archive's only
writer); otherwise the command opens the store itself and holds its exclusive
lock for the duration, so a concurrent writer gets a clear ``storage`` error.
Reads open the store read-only and never block the daemon.

>>> from host.cli.entry import main
>>> main(["archive", "versions", "https://example.com/", "--home", "/tmp/pk-doc", "--json"])  # doctest: +SKIP
[]
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

from engine.archive import registry
from engine.archive.model import Capture, RegisterOptions
from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput, PageKeeperError, TooLarge
from engine.html.parse import decode_html
from host.cli.commands import warc
from host.cli.entry import command
from host.daemon.security import strip_credentials
from host.services.fetch import FetchOptions, fetch, reachable

# -- plumbing ------------------------------------------------------------------------------


def _daemon(home: Path) -> dict | None:
    """The running daemon's state, or None (also when host/daemon/client.py is unavailable)."""
    try:
        from host.daemon.client import running
    except ImportError:
        return None
    return running(home)


def base_url(home: Path) -> str:
    """The archive's base URL: the running daemon's, else the port its config names (a chosen
    one, or the free one a daemon took when the default was busy), else the default's."""
    from host.daemon.app import DEFAULT_PORT, Config

    state = _daemon(home)
    if state and state.get("port"):
        return f"http://127.0.0.1:{state['port']}"
    return f"http://127.0.0.1:{Config.load(home).port or DEFAULT_PORT}"


@contextlib.contextmanager
def reading(home: Path):
    """The store opened read-only (safe while the daemon writes)."""
    if not (Path(home) / "db").exists():
        Path(home).mkdir(parents=True, exist_ok=True)
    store = ArchiveStore.open(home, readonly=True)
    try:
        yield store
    finally:
        store.close()


@contextlib.contextmanager
def writing(home: Path):
    """The store opened as the one writer (only when no daemon runs)."""
    store = ArchiveStore.open(home)
    try:
        yield store
    finally:
        store.close()


def _via_daemon(home: Path, type: str, params: dict, timeout: float = 120.0):
    from host.daemon.client import call

    return call(home, type, params, timeout=timeout)


# -- add -----------------------------------------------------------------------------------


def _read_html(path: str, cap: int) -> bytes:
    """The file's bytes; a file above the cap is refused before it is read."""
    if path == "-":
        data = sys.stdin.buffer.read(cap + 1)
    else:
        try:
            if Path(path).stat().st_size > cap:
                raise TooLarge(f"{path} is larger than the cap of {cap} bytes")
            data = Path(path).read_bytes()
        except OSError as exc:
            raise InvalidInput(f"cannot read {path}: {exc.strerror or exc}") from exc
    if len(data) > cap:
        raise TooLarge(f"the page is larger than the cap of {cap} bytes")
    return data


def _capture(args) -> Capture:
    if args.html:
        content_type = args.content_type or "text/html"
        html = _read_html(args.html, RegisterOptions().max_bytes)
        url = strip_credentials(args.url)  # never stored (host/daemon/security.py)
        return Capture(url=url, html=html, content_type=content_type, source="file")
    if args.no_fetch:
        raise InvalidInput("--no-fetch needs the page: give --html FILE (or - for stdin)")
    return fetch(args.url, FetchOptions()).capture(args.url, "fetch")


def _daemon_params(capture: Capture, args) -> dict:
    decoded = decode_html(
        capture.html, f"text/html; charset={capture.charset}" if capture.charset else None
    )
    params = {
        "url": capture.url,
        "html": decoded.text,
        "final_url": capture.final_url,
        "content_type": capture.content_type,
        "charset": decoded.charset,
        "last_modified": capture.last_modified,
        "source": capture.source,
    }
    if args.only_if_different is not None:
        params["only_if_different"] = args.only_if_different
    return {k: v for k, v in params.items() if v is not None}


def _add_result(result: dict) -> dict:
    keys = ("id", "url", "key", "version_url", "registered_at", "similar")
    extra = {
        k: result[k] for k in ("skipped", "duplicate_of", "previous_similarity") if k in result
    }
    return {**{k: result.get(k) for k in keys}, **extra}


def run_add(args, ctx) -> dict:
    capture = _capture(args)
    if _daemon(ctx.home):
        return _add_result(_via_daemon(ctx.home, "archive_page", _daemon_params(capture, args)))
    options = RegisterOptions(base=base_url(ctx.home), only_if_different=args.only_if_different)
    with writing(ctx.home) as store:
        return _add_result(registry.register(store, capture, options).to_dict())


def render_add(result: dict) -> str:
    if result.get("skipped"):
        return (
            f"unchanged (similarity {result.get('previous_similarity')}): {result['version_url']}"
        )
    lines = [f"registered {result['id']}", f"  {result['version_url']}"]
    lines += [f"  similar {s['id']}  {s['similarity']:.3f}" for s in result.get("similar", [])]
    return "\n".join(lines)


# -- reads ---------------------------------------------------------------------------------


def run_versions(args, ctx) -> list:
    with reading(ctx.home) as store:
        return registry.versions(store, args.url, base_url(ctx.home))


def render_versions(rows: list) -> str:
    if not rows:
        return "no versions"
    return "\n".join(
        f"{r['registered_at']}  {r['id']}  sim={_num(r['similarity_to_previous'])}  {r['version_url']}"
        for r in rows
    )


def _num(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def run_similar(args, ctx) -> dict:
    with reading(ctx.home) as store:
        return registry.similar(store, args.id, base_url(ctx.home))


def render_similar(result: dict) -> str:
    rows = result["similar"]
    head = f"similar to {result['id']} (computed {result['computed_at'] or 'not yet'}):"
    body = [
        f"  {r['similarity']:.3f} / {r['content_similarity']:.3f}  {r['id']}  {r['url']}"
        for r in rows
    ]
    return "\n".join([head, *body] if body else [head, "  none"])


def _write_output(ctx, data: bytes, path: str | None) -> None:
    if path and path != "-":
        Path(path).write_bytes(data)
        return
    buffer = getattr(ctx.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:  # a text stream (tests): decode for display
        ctx.stdout.write(data.decode("utf-8", "replace"))


def run_get(args, ctx):
    with reading(ctx.home) as store:
        content = registry.get(store, args.id, original=args.original)
    doc = content.record
    info = {
        "id": content.id,
        "url": doc["url"],
        "original": content.original,
        "content_type": content.content_type,
        "charset": content.charset,
        "size": len(content.body),
    }
    if args.output and args.output != "-":
        _write_output(ctx, content.body, args.output)
        return {**info, "file": str(Path(args.output).absolute())}
    if ctx.json:
        return {**info, "html": content.body.decode(content.charset or "utf-8", "replace")}
    _write_output(ctx, content.body, None)
    return None


def run_open(args, ctx) -> dict:
    with reading(ctx.home) as store:
        stored = registry.resolve_open(store, args.ref, False, base_url(ctx.home))
    if reachable(stored["url"]):
        return {**stored, "action": "live", "location": stored["url"], "banner": False}
    return stored


def render_open(result: dict) -> str:
    return f"{result['action']}: {result['location']}"


def run_search(args, ctx) -> list:
    with reading(ctx.home) as store:
        return registry.search(
            store, args.pattern, args.case_sensitive, args.sort, args.text, base_url(ctx.home)
        )


def render_search(rows: list) -> str:
    if not rows:
        return "no matches"
    return "\n".join(
        f"{r['registered_at']}  {r['versions']:>3}v  {r['url']}  {r['title'][:60]}" for r in rows
    )


# -- crawl, schedule, dust -----------------------------------------------------------------
# With a daemon running these go through it (it is the only writer) and answer exactly what
# the direct path answers; without one the command holds the store itself.

POLL_S = 0.2  # how often a crawl in the daemon is asked for its progress


def _progress(stream):
    def draw(done: int, limit: int, url: str) -> None:
        width = 30
        filled = int(width * done / max(limit, 1))
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{limit} {url[:60]:<60}")
        stream.flush()

    return draw


def _crawl_params(args) -> dict:
    params = {
        "url": args.url,
        "depth": args.depth,
        "max_pages": args.max_pages,
        "same_site": args.same_site,
        "delay": args.delay,
    }
    if args.only_if_different is not None:
        params["only_if_different"] = args.only_if_different
    return params


def run_crawl(args, ctx) -> dict:
    from host.services.crawl import CrawlOptions, crawl

    if _daemon(ctx.home):
        return _crawl_via_daemon(args, ctx)
    options = CrawlOptions(
        depth=args.depth,
        max_pages=args.max_pages,
        same_site=args.same_site,
        delay=args.delay,
        register=RegisterOptions(base=base_url(ctx.home), only_if_different=args.only_if_different),
    )
    with writing(ctx.home) as store:
        report = crawl(store, args.url, options, _progress(ctx.stderr))
    ctx.stderr.write("\n")
    return report.to_dict()


def _crawl_via_daemon(args, ctx) -> dict:
    """Start the crawl in the daemon and draw its progress until it ends.

    Ctrl-C cancels it (after the page in hand); a lost connection leaves it running
    in the daemon (``crawl_status`` with the job ID tells how it ended).
    """
    from host.daemon.client import connect, error_from, request

    draw, steps = _progress(ctx.stderr), -1
    with connect(ctx.home) as ws:
        job = request(ws, "crawl", _crawl_params(args))
        try:
            while True:
                if job["steps"] != steps:
                    steps = job["steps"]
                    draw(job["done"], job["limit"], job["current"] or args.url)
                if job["state"] != "running":
                    break
                time.sleep(POLL_S)
                job = request(ws, "crawl_status", {"job": job["job"]}, timeout=30)
        except KeyboardInterrupt:
            with contextlib.suppress(PageKeeperError):
                request(ws, "crawl_cancel", {"job": job["job"]}, timeout=5)
            raise
    ctx.stderr.write("\n")
    if job["state"] == "failed":
        raise error_from(job["error"] or {})
    return job["report"]


def run_schedule(args, ctx):
    action = _schedule_action(args)
    if _daemon(ctx.home):
        type, unwrap = SCHEDULE_MESSAGES[action]
        result = _via_daemon(ctx.home, type, _schedule_params(args), timeout=SCHEDULE_TIMEOUT)
        return result[unwrap] if unwrap else result
    with writing(ctx.home) as store:
        return SCHEDULE_DIRECT[action](store, args, ctx)


def _schedule_action(args) -> str:
    if args.list:
        return "list"
    if args.run_due:
        return "run_due"
    if not args.url:
        raise InvalidInput("give a URL (or --list, --run-due)")
    return "remove" if args.remove else "add"


def _schedule_params(args) -> dict:
    params = {"url": args.url, "every": args.every}
    if args.only_if_different is not None:
        params["only_if_different"] = args.only_if_different
    return {k: v for k, v in params.items() if v is not None}


def _schedule_add(store: ArchiveStore, args, ctx) -> dict:
    from host.services import schedule

    return schedule.add_schedule(store, args.url, args.every, args.only_if_different)


def _schedule_remove(store: ArchiveStore, args, ctx) -> dict:
    from host.services import schedule

    return schedule.remove_schedule(store, args.url)


def _schedule_list(store: ArchiveStore, args, ctx) -> list:
    from host.services import schedule

    return schedule.schedules(store)


def _schedule_run_due(store: ArchiveStore, args, ctx) -> list:
    from host.services import schedule

    return schedule.run_due(store, base_url(ctx.home), time.time())


# action -> (message type, result field holding the CLI's answer, or None for the whole result)
SCHEDULE_MESSAGES = {
    "add": ("schedule_add", None),
    "remove": ("schedule_remove", None),
    "list": ("schedule_list", "schedules"),
    "run_due": ("schedule_run_due", "done"),
}
SCHEDULE_DIRECT = {
    "add": _schedule_add,
    "remove": _schedule_remove,
    "list": _schedule_list,
    "run_due": _schedule_run_due,
}
SCHEDULE_TIMEOUT = 600.0  # --run-due fetches every due URL before it answers


def run_dust(args, ctx) -> dict:
    from engine.archive import dust

    if _daemon(ctx.home):
        return _via_daemon(ctx.home, "dust_learn", {}, timeout=DUST_TIMEOUT)
    with writing(ctx.home) as store:
        return dust.learn_and_store(store)


DUST_TIMEOUT = 600.0  # learning compares stored pages; a large archive takes a while


def run_profile(args, ctx) -> dict:
    """Show the archive's key profile, or set it (every version re-keyed)."""
    params = {} if args.profile is None else {"profile": args.profile}
    if _daemon(ctx.home):
        return _via_daemon(ctx.home, "key_profile", params, timeout=DUST_TIMEOUT)
    if args.profile is None:
        with reading(ctx.home) as store:
            return {"profile": registry.key_profile(store)}
    with writing(ctx.home) as store:
        return registry.set_key_profile(store, args.profile)


# -- the parser ----------------------------------------------------------------------------


def register(sub, common) -> None:
    """Add ``archive`` and its subcommands."""
    top = command(sub, "archive", None, common, "the versioned page archive")
    cmds = top.add_subparsers(dest="archive_command", metavar="SUBCOMMAND")
    _add_parsers(cmds, common)
    _read_parsers(cmds, common)
    _auto_parsers(cmds, common)
    warc.add_parsers(cmds, common)


def _threshold(parser) -> None:
    parser.add_argument(
        "--only-if-different",
        type=float,
        metavar="SIM",
        help="skip the new version when its similarity to the last one is at least SIM (0..1)",
    )


def _add_parsers(cmds, common) -> None:
    add = command(cmds, "add", run_add, common, "register a page (fetched, or from --html FILE)")
    add.add_argument("url")
    add.add_argument("--html", metavar="FILE", help="the page as saved (- for stdin)")
    add.add_argument("--no-fetch", action="store_true", help="never fetch; requires --html")
    add.add_argument("--content-type", help="content type of --html FILE (default text/html)")
    _threshold(add)
    add.set_defaults(render=render_add)


def _read_parsers(cmds, common) -> None:
    ver = command(cmds, "versions", run_versions, common, "every version of a URL, newest first")
    ver.add_argument("url", help="URL, registration ID or version URL")
    ver.set_defaults(render=render_versions)
    sim = command(cmds, "similar", run_similar, common, "pages similar to a version")
    sim.add_argument("id", help="registration ID or version URL")
    sim.set_defaults(render=render_similar)
    get = command(cmds, "get", run_get, common, "a version's rewritten (or original) copy")
    get.add_argument("id", help="registration ID or version URL")
    get.add_argument("--original", action="store_true", help="the byte-identical original")
    get.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    opn = command(cmds, "open", run_open, common, "live page if reachable, else the stored copy")
    opn.add_argument("ref", metavar="URL_OR_ID", help="registration ID or version URL")
    opn.set_defaults(render=render_open)
    find = command(cmds, "search", run_search, common, "URL wildcard (* ?) and full-text search")
    find.add_argument("pattern", nargs="?", default="*")
    find.add_argument("--case-sensitive", action="store_true")
    find.add_argument("--sort", choices=("url", "time"), default="time")
    find.add_argument("--text", metavar="QUERY", help="full-text query (all words must occur)")
    find.set_defaults(render=render_search)


def _auto_parsers(cmds, common) -> None:
    crawl = command(cmds, "crawl", run_crawl, common, "register a page and the pages it links to")
    crawl.add_argument("url")
    crawl.add_argument("--depth", type=int, default=1)
    crawl.add_argument(
        "--same-site", action="store_true", help="follow links on the same site only"
    )
    crawl.add_argument("--max-pages", type=int, default=50)
    crawl.add_argument("--delay", type=float, default=1.0, help="seconds between fetches")
    _threshold(crawl)
    sch = command(cmds, "schedule", run_schedule, common, "register a URL hourly/daily/weekly")
    sch.add_argument("url", nargs="?")
    sch.add_argument("--every", choices=("hourly", "daily", "weekly"), default="daily")
    sch.add_argument("--list", action="store_true", help="list schedules")
    sch.add_argument("--remove", action="store_true", help="remove the URL's schedule")
    sch.add_argument("--run-due", action="store_true", help="register every due URL now")
    _threshold(sch)
    command(cmds, "dust", run_dust, common, "learn DUST rules from the archive's URLs")
    prof = command(
        cmds, "profile", run_profile, common, "show or set the URL profile that keys the archive"
    )
    prof.add_argument("profile", nargs="?", choices=("safe", "archive", "aggressive"))
