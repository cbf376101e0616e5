"""``pagekeeper archive …``: add, versions, similar, get, open, search, crawl, schedule, dust,
profile, export and import (WARC, host/cli/commands/warc.py).

Every command, read or write, is protocol messages sent through
:func:`host.cli.backend.backend`: to the running daemon when there is one (it owns the
archive), else to the same handler run in this process on a store the command holds for
its duration (a concurrent writer gets a clear ``storage`` error).

>>> from host.cli.entry import main
>>> main(["archive", "versions", "https://example.com/", "--home", "/tmp/pk-doc", "--json"])  # doctest: +SKIP
[]
"""

from __future__ import annotations

import base64
import contextlib
import sys
from pathlib import Path

from engine.archive.model import RegisterOptions
from engine.errors import InvalidInput, PageKeeperError, TooLarge
from host.cli.backend import backend, holds_addresses, note_addresses, send
from host.cli.command import command
from host.cli.commands import bookmarks, collection, jobs
from host.cli.commands.collection import call
from host.cli.commands.warc import add_parsers as add_warc_parsers
from host.cli.files import output_path, read_input
from host.cli.shown import local_time, size
from host.daemon import client

# -- add -----------------------------------------------------------------------------------


def _read_html(path: str, cap: int) -> bytes:
    """The file's bytes; a file above the cap is refused before it is read."""
    if path == "-":
        data = sys.stdin.buffer.read(cap + 1)
    else:
        data = read_input(path, cap)
    if len(data) > cap:
        raise TooLarge(f"the page is larger than the cap of {cap} bytes")
    return data


def add_params(args) -> dict:
    """``archive_page``'s parameters: the file's bytes exactly (``html_b64``), or the URL for
    the handler to fetch (non-2xx refused, credentials used for the fetch, never stored)."""
    if args.html:
        html = _read_html(args.html, RegisterOptions().max_bytes)
        params = {
            "url": args.url,
            "html_b64": base64.b64encode(html).decode("ascii"),
            "content_type": args.content_type or "text/html",
            "source": "file",
        }
    elif args.no_fetch:
        raise InvalidInput("--no-fetch needs the page: give --html FILE (or - for stdin)")
    else:
        params = {"url": args.url}
    if args.only_if_different is not None:
        params["only_if_different"] = args.only_if_different
    return params


def _add_result(result: dict) -> dict:
    keys = ("id", "url", "key", "version_url", "registered_at", "similar")
    extra = {
        k: result[k]
        for k in ("skipped", "duplicate_of", "previous_similarity", "revisit_of")
        if k in result
    }
    return {**{k: result.get(k) for k in keys}, **extra}


def run_add(args, ctx) -> dict:
    return _add_result(send(ctx, "archive_page", add_params(args)))


def render_add(result: dict) -> str:
    if result.get("skipped"):
        return (
            f"unchanged (similarity {result.get('previous_similarity')}): {result['version_url']}"
        )
    lines = [f"registered {result['id']}", f"  {result['version_url']}"]
    if result.get("revisit_of"):
        lines[0] += f" (seen again, unchanged since {result['revisit_of']})"
    lines += [f"  similar {s['id']}  {s['similarity']:.3f}" for s in result.get("similar", [])]
    return "\n".join(lines)


# -- reads ---------------------------------------------------------------------------------


def run_versions(args, ctx) -> list:
    return send(ctx, "versions", {"url": args.url}, write=False)["versions"]


def render_versions(rows: list) -> str:
    if not rows:
        return "no versions"
    return "\n".join(
        f"{local_time(r['registered_at'])}  {r['id']}  "
        f"sim={_num(r['similarity_to_previous']):<5}  {r['version_url']}"
        + (f"  (seen again, unchanged since {r['revisit_of']})" if r.get("revisit_of") else "")
        for r in rows
    )


def _num(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def run_similar(args, ctx) -> dict:
    return send(ctx, "similar", {"id": args.id}, write=False)


def render_similar(result: dict) -> str:
    rows = result["similar"]
    head = f"similar to {result['id']} (computed {local_time(result['computed_at'], 'not yet')}):"
    if not result.get("complete", True):
        head += "\n  (incomplete: the daemon is still comparing this site's pages; ask again later)"
    body = [
        f"  {r['similarity']:.3f} / {r['content_similarity']:.3f}  {r['id']}  {r['url']}"
        for r in rows
    ]
    return "\n".join([head, *body] if body else [head, "  none"])


def _write_output(ctx, data: bytes, path: Path | None) -> None:
    if path is not None:
        path.write_bytes(data)
        return
    buffer = getattr(ctx.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:  # a text stream (tests): decode for display
        ctx.stdout.write(data.decode("utf-8", "replace"))


def run_get(args, ctx):
    target = output_path(args.output) if args.output and args.output != "-" else None
    params = {"id": args.id, "original": args.original, "single_file": args.single_file}
    got = send(ctx, "get", {**params, "bytes": True}, write=False)
    body = base64.b64decode(got["body_b64"])
    info = {k: got[k] for k in ("id", "url", "original", "content_type", "charset")}
    info["size"] = len(body)
    if target is not None:
        _write_output(ctx, body, target)
        result = {**info, "file": str(target)}
    elif ctx.json:
        result = {**info, "html": body.decode(info["charset"] or "utf-8", "replace")}
    else:
        _write_output(ctx, body, None)
        result = None
    seen = client.glance(ctx.home)  # one look at the daemon, for the question and the note
    if holds_addresses(body, ctx.home, seen):  # its links open only where this home's daemon runs
        note_addresses(ctx, seen)
    return result


def run_open(args, ctx) -> dict:
    return send(ctx, "open", {"url": args.ref}, write=False)


def render_open(result: dict) -> str:
    return f"{result['action']}: {result['location']}"


def run_search(args, ctx) -> list:
    if args.text is not None:  # ranked full text: the protocol's search, daemon up or not
        params = {"pattern": args.pattern, "case_sensitive": args.case_sensitive}
        params |= {"text": args.text, "tag": args.tag, "limit": 1000}
        if args.sort:
            params["sort"] = args.sort
        return call(ctx, "search", params, write=False)["results"]
    if args.sort == "relevance":
        raise InvalidInput("--sort relevance needs --text")
    params = {"pattern": args.pattern, "case_sensitive": args.case_sensitive}
    params |= {"sort": args.sort or "time", "tag": args.tag}
    with backend(ctx, write=False) as b:
        return every_page(b, "search", params)


SEARCH_PAGE = 1000  # the protocol's largest page


def every_page(b, type: str, params: dict) -> list:
    """All the results of a paged message (``offset``/``limit``; ``total``), page by page."""
    page = b.call(type, {**params, "offset": 0, "limit": SEARCH_PAGE})
    found, total = list(page["results"]), page["total"]
    while len(found) < total and page["results"]:
        page = b.call(type, {**params, "offset": len(found), "limit": SEARCH_PAGE})
        found += page["results"]
    return found


def render_search(rows: list) -> str:
    if not rows:
        return "no matches"
    lines = []
    for r in rows:
        lines.append(
            f"{local_time(r['registered_at'])}  {r['versions']:>3}v  {r['url']}  {r['title'][:60]}"
        )
        if r.get("snippet_text"):
            lines.append(f"    {_marked_text(r['snippet_text'], r['snippet_marks'])}")
    return "\n".join(lines)


def _marked_text(text: str, marks: list) -> str:
    """A snippet for a terminal: matched words between [ and ]."""
    for start, end in reversed(marks):
        text = f"{text[:start]}[{text[start:end]}]{text[end:]}"
    return text


# -- crawl, schedule, dust, profile -------------------------------------------------------

POLL_S = 0.2  # how often a crawl is asked for its progress
JOB_TIMEOUT = 600.0  # --run-due fetches every due URL, dust compares stored pages


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
    """Start the crawl and draw its progress until it ends.

    Ctrl-C cancels it (after the page in hand); with a daemon, a lost connection leaves it
    running there (``crawl_status`` with the job ID tells how it ended).
    """
    with backend(ctx) as b:
        job = b.call("crawl", _crawl_params(args))
        try:
            job = _follow(b, job, _progress(ctx.stderr), args.url)
        except KeyboardInterrupt:
            with contextlib.suppress(PageKeeperError):
                b.call("crawl_cancel", {"job": job["job"]}, timeout=5)
            raise
    ctx.stderr.write("\n")
    if job["state"] == "failed":
        raise client.error_from(job["error"] or {})
    return job["report"]


def _follow(b, job: dict, draw, url: str) -> dict:
    steps = -1
    while True:
        if job["steps"] != steps:
            steps = job["steps"]
            draw(job["done"], job["limit"], job["current"] or url)
        if job["state"] != "running":
            return job
        b.pause(POLL_S)
        job = b.call("crawl_status", {"job": job["job"]}, timeout=30)


def run_schedule(args, ctx):
    type, unwrap, args.render = SCHEDULE_MESSAGES[_schedule_action(args)]
    result = send(ctx, type, _schedule_params(args), timeout=JOB_TIMEOUT)
    return result[unwrap] if unwrap else result


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


# action -> (message type, result field holding the CLI's answer, or None for the whole result,
# and how a person reads that answer)
SCHEDULE_MESSAGES = {
    "add": ("schedule_add", None, jobs.render_schedule_add),
    "remove": ("schedule_remove", None, jobs.render_schedule_remove),
    "list": ("schedule_list", "schedules", jobs.render_schedule_list),
    "run_due": ("schedule_run_due", "done", jobs.render_schedule_run),
}


def run_dust(args, ctx) -> dict:
    return send(ctx, "dust_learn", {}, timeout=JOB_TIMEOUT)


def render_get(result: dict) -> str:
    """``get -o FILE`` (the copy itself goes to the file): which version went where.

    >>> print(render_get({"id": "20261126000000000001", "url": "http://a.test/",
    ...     "original": False, "size": 5800, "file": "/tmp/a.html"}))
    wrote 20261126000000000001 (http://a.test/, links rewritten), 5.7 KB, to /tmp/a.html
    """
    copy = "the original" if result.get("original") else "links rewritten"
    return (
        f"wrote {result['id']} ({result['url']}, {copy}), {size(result['size'])}, "
        f"to {result['file']}"
    )


def render_profile(result: dict) -> str:
    """The profile that keys the archive, the others, and what setting one re-keyed.

    >>> print(render_profile({"profile": "archive", "profiles": ["safe", "archive"]}))
    archive (profiles: safe, archive)
    >>> print(render_profile({"profile": "safe", "rekeyed": 2, "documents": 5,
    ...     "profiles": ["safe", "archive"]}))
    safe (profiles: safe, archive); re-keyed 2 versions, 5 documents now
    """
    line = f"{result['profile']} (profiles: {', '.join(result['profiles'])})"
    if "rekeyed" in result:
        line += f"; re-keyed {result['rekeyed']} versions, {result['documents']} documents now"
    return line


def run_profile(args, ctx) -> dict:
    """Show the archive's key profile, or set it (every version re-keyed)."""
    if args.profile is None:
        return send(ctx, "key_profile", {}, write=False)
    return send(ctx, "key_profile", {"profile": args.profile}, timeout=JOB_TIMEOUT)


# -- the parser ----------------------------------------------------------------------------


def register(sub, common) -> None:
    """Add ``archive`` and its subcommands."""
    top = command(sub, "archive", None, common, "the versioned page archive")
    top.set_defaults(usage_of=top)  # `pagekeeper archive` alone lists its subcommands
    cmds = top.add_subparsers(dest="archive_command", metavar="SUBCOMMAND")
    _add_parsers(cmds, common)
    _read_parsers(cmds, common)
    _auto_parsers(cmds, common)
    collection.add_parsers(cmds, common)
    bookmarks.add_parsers(cmds, common)
    add_warc_parsers(cmds, common)


def _threshold(parser) -> None:
    parser.add_argument(
        "--only-if-different",
        type=float,
        metavar="SIM",
        help="skip the new version when its similarity to the last one is at least SIM (0..1)",
    )


def _add_parsers(cmds, common) -> None:
    add = command(cmds, "add", run_add, common, "register a page (fetched, or from --html FILE)")
    add.add_argument("url", help="the page's http(s) URL")
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
    get.set_defaults(render=render_get)
    get.add_argument("id", help="registration ID or version URL")
    get.add_argument("--original", action="store_true", help="the byte-identical original")
    get.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    get.add_argument(
        "--single-file",
        action="store_true",
        help="one self-contained HTML file: every stored resource inlined as data: URIs",
    )
    opn = command(cmds, "open", run_open, common, "live page if reachable, else the stored copy")
    opn.add_argument(
        "ref",
        metavar="URL_OR_ID",
        help="an archived URL (its newest version), registration ID or version URL",
    )
    opn.set_defaults(render=render_open)
    find = command(cmds, "search", run_search, common, "URL wildcard (* ?) and full-text search")
    find.add_argument("pattern", nargs="?", default="*", help="URL wildcard (* ?); default *")
    find.add_argument(
        "--case-sensitive", action="store_true", help="the pattern's letters as typed"
    )
    find.add_argument(
        "--sort",
        choices=("relevance", "url", "time"),
        help="order (default: relevance with --text, else newest first)",
    )
    find.add_argument(
        "--text",
        metavar="QUERY",
        help='full-text query, best match first: words, "exact words", prefix*, -excluded',
    )
    find.add_argument("--tag", metavar="TAG", help="only documents carrying this tag")
    find.set_defaults(render=render_search)


def _auto_parsers(cmds, common) -> None:
    crawl = command(cmds, "crawl", run_crawl, common, "register a page and the pages it links to")
    crawl.add_argument("url", help="the http(s) URL the crawl starts at")
    crawl.add_argument(
        "--depth",
        type=int,
        default=1,
        help="links followed from the start page, 0 to 10 (default 1)",
    )
    crawl.add_argument(
        "--same-site", action="store_true", help="follow links on the same site only"
    )
    crawl.add_argument(
        "--max-pages", type=int, default=50, help="stop after this many pages (default 50)"
    )
    crawl.add_argument("--delay", type=float, default=1.0, help="seconds between fetches")
    _threshold(crawl)
    crawl.set_defaults(render=jobs.render_crawl)
    sch = command(cmds, "schedule", run_schedule, common, "register a URL hourly/daily/weekly")
    sch.add_argument("url", nargs="?", help="the http(s) URL to register on schedule")
    sch.add_argument(
        "--every",
        choices=("hourly", "daily", "weekly"),
        default="daily",
        help="how often (default daily)",
    )
    sch.add_argument("--list", action="store_true", help="list schedules")
    sch.add_argument("--remove", action="store_true", help="remove the URL's schedule")
    sch.add_argument("--run-due", action="store_true", help="register every due URL now")
    _threshold(sch)
    dust = command(cmds, "dust", run_dust, common, "learn DUST rules from the archive's URLs")
    dust.set_defaults(render=jobs.render_dust)
    prof = command(
        cmds, "profile", run_profile, common, "show or set the URL profile that keys the archive"
    )
    prof.add_argument(
        "profile",
        nargs="?",
        choices=("safe", "archive", "aggressive"),
        help="the profile to set (re-keys every version); none: show the current one",
    )
    prof.set_defaults(render=render_profile)
