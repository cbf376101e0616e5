"""``pagekeeper extract``, ``liveness`` and ``check``: main text, keywords, and is it still there?

``extract FILE.html [--url URL]`` prints ``{"title","body","summary","keywords":[[w, weight]…]}``.
``extract --batch`` reads stdin JSONL ``{"id","path","url"?}`` (``.gz`` files accepted) and writes
one JSONL line per input line: ``{"id", …the same fields}`` or ``{"id", "error": {"code","message"},
"line"}`` for a page that cannot be read or decoded, or a malformed or blank line; the batch goes on
(host/cli/batch.py).

``liveness --stored A.html --live B.html`` prints ``{"present","state","match"}`` (``--details``
adds the matched/missing keywords and the reason); ``liveness --batch`` reads JSONL
``{"id","stored","live"}`` (paths, ``.gz`` accepted) and writes the same fields plus ``id``, one
line per input line as ``extract --batch`` does.

``check URL_OR_ID`` / ``check --all`` fetch the live URLs of archived versions (bounded
concurrency, a progress bar on stderr), judge them against the stored keywords, store each
verdict with its time in the archive's ``liveness`` table, and end with a summary
(n present, changed, gone, unreachable: a server that did not answer or answered 5xx,
never counted as gone; too_large: a live page over the fetch's size cap, not read, so not
judged either; unknown: the stored copy has no main text, so nothing to compare). Each check is the protocol's ``check`` message (thresholds
included) through the command's backend: the daemon when one runs, else the same handler in
this process (host/services/liveness.py fetches, judges and stores, one implementation).

>>> read_page("/no/such/file.html")
Traceback (most recent call last):
...
engine.errors.InvalidInput: cannot read /no/such/file.html: No such file or directory
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator

from engine.errors import BadRequest, InvalidInput, PageKeeperError
from engine.html.extract import ExtractOptions, extract
from engine.html.keywords import KeywordOptions
from engine.liveness import LivenessOptions, deciding_figure, judge, percent
from engine.urls.substitution import typed_address
from host.cli.backend import backend, send
from host.cli.batch import blank_line, error_line, is_blank, numbered
from host.cli.command import Lines, command
from host.cli.files import read_input

MAX_PAGE_BYTES = 20 * 1024 * 1024


def register(sub, common) -> None:
    """Add ``extract``, ``liveness`` and ``check``."""
    ext = command(sub, "extract", run_extract, common, "main text, summary and keywords of a page")
    ext.add_argument("file", nargs="?", metavar="FILE.html", help="the page (.gz accepted)")
    ext.add_argument("--url", default=None, help="the page's URL")
    ext.add_argument("--batch", action="store_true", help='stdin JSONL {"id","path","url"?}')
    ext.add_argument("--mode", choices=("body", "seed"), default="body", help="keyword method")
    ext.set_defaults(render=render_extraction)
    live = command(
        sub, "liveness", run_liveness, common, "is a stored page's content in a live one?"
    )
    live.add_argument("--stored", metavar="A.html", help="the stored page (.gz accepted)")
    live.add_argument("--live", metavar="B.html", help="the live page (.gz accepted)")
    live.add_argument("--batch", action="store_true", help='stdin JSONL {"id","stored","live"}')
    live.add_argument("--details", action="store_true", help="add matched/missing/reason")
    _thresholds(live)
    live.set_defaults(render=render_liveness)
    check = command(sub, "check", run_check, common, "check archived pages against the live web")
    check.add_argument("ref", nargs="?", metavar="URL_OR_ID", help="an archived URL or version id")
    check.add_argument("--all", action="store_true", help="check the newest version of every URL")
    check.add_argument("--concurrency", type=int, default=4, help="parallel fetches (default 4)")
    _thresholds(check)
    check.set_defaults(render=render_check)


def _thresholds(parser) -> None:
    defaults = LivenessOptions()
    parser.add_argument(
        "--present-at",
        type=float,
        default=defaults.present_at,
        help="present when P (the share of the stored keywords found) is at least this (default %(default)s)",
    )
    parser.add_argument(
        "--changed-at",
        type=float,
        default=defaults.changed_at,
        help="changed when P is at least this and below --present-at, else gone (default %(default)s)",
    )


def liveness_options(args) -> LivenessOptions:
    """LivenessOptions from the command's threshold flags."""
    if not 0.0 <= args.changed_at <= args.present_at <= 1.0:
        raise InvalidInput("thresholds must satisfy 0 ≤ --changed-at ≤ --present-at ≤ 1")
    return LivenessOptions(present_at=args.present_at, changed_at=args.changed_at)


# -- reading pages ---------------------------------------------------------------------------


def read_page(path: str) -> bytes:
    """A page file's bytes, gunzipped when it is gzip (host/cli/files.py: the errors every
    command answers a bad file with)."""
    return read_input(path, MAX_PAGE_BYTES, gunzip=True)


def jsonl(stream) -> Iterator[tuple[int, dict | None, PageKeeperError | None]]:
    """``(line number, object, None)`` per line of JSONL; a malformed or blank line yields its
    typed error instead of the object."""
    for number, line in numbered(stream):
        if is_blank(line):
            yield number, None, blank_line()
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            yield number, None, BadRequest(f"not JSON: {exc}")
            continue
        if not isinstance(item, dict):
            yield number, None, BadRequest("each line must be a JSON object")
        else:
            yield number, item, None


def _field(item: dict, name: str) -> str:
    value = item.get(name)
    if not isinstance(value, str) or not value:
        raise BadRequest(f"missing {name!r} (a file path)")
    return value


def _batch(stdin, one) -> Iterator[dict]:
    for number, item, error in jsonl(stdin):
        ident = item.get("id") if item else None
        try:
            if error:
                raise error
            yield {"id": ident, **one(item)}
        except Exception as exc:  # one bad page never stops the batch
            yield error_line(number, exc, id=ident)


# -- extract ---------------------------------------------------------------------------------


def _extract_options(args) -> ExtractOptions:
    return ExtractOptions(keywords=KeywordOptions(mode=args.mode))


def run_extract(args, ctx):
    options = _extract_options(args)
    if args.batch:
        return Lines(_batch(ctx.stdin, lambda item: _extract_item(item, options)))
    if not args.file:
        raise InvalidInput("give FILE.html, or --batch with JSONL on stdin")
    return extract(read_page(args.file), page_url(args.url), options).to_dict()


def _extract_item(item: dict, options: ExtractOptions) -> dict:
    url = item.get("url") if isinstance(item.get("url"), str) else None
    return extract(read_page(_field(item, "path")), page_url(url), options).to_dict()


def page_url(text: str | None) -> str | None:
    """The page's URL as given, held to the rule for every address a user types (the engine's
    ``typed_address``, as ``suggest`` reads its URL): a bare word is ``invalid_url``."""
    if text is not None:
        typed_address(text)
    return text


def render_extraction(result: dict) -> str:
    """Human form: title, summary, keywords, then the body."""
    words = ", ".join(f"{w} ({s:.3f})" for w, s in result["keywords"][:15])
    return "\n".join(
        (f"Title:    {result['title']}", f"Summary:  {result['summary']}", f"Keywords: {words}")
        + ("", result["body"])
    )


# -- liveness --------------------------------------------------------------------------------


def _verdict_fields(verdict, details: bool) -> dict:
    data = verdict.to_dict()
    keep = ("present", "state", "match") + (("matched", "missing", "reason") if details else ())
    return {k: data[k] for k in keep}


def compare_files(stored: str, live: str, options: LivenessOptions, details: bool) -> dict:
    """Extract the stored page, judge the live one."""
    kept = extract(read_page(stored))
    return _verdict_fields(judge(kept, read_page(live), options), details)


def render_liveness(result: dict) -> str:
    """The verdict and its share (``P``, the stored keywords found, in percent as every screen
    writes it), then with ``--details`` the reason and the keywords.

    >>> print(render_liveness({"present": True, "state": "present", "match": 0.9595}))
    present  P 96%
    """
    lines = [f"{result['state']}  P {percent(result['match'])}"]
    if result.get("reason"):
        lines.append(f"  {result['reason']}")
    for name in ("matched", "missing"):
        if result.get(name):
            lines.append(f"  {name}: {', '.join(result[name])}")
    return "\n".join(lines)


def run_liveness(args, ctx):
    options = liveness_options(args)
    if args.batch:
        return Lines(
            _batch(
                ctx.stdin,
                lambda it: compare_files(
                    _field(it, "stored"), _field(it, "live"), options, args.details
                ),
            )
        )
    if not (args.stored and args.live):
        raise InvalidInput("give --stored A.html and --live B.html, or --batch")
    return compare_files(args.stored, args.live, options, args.details)


# -- check -----------------------------------------------------------------------------------


def _targets(ctx, args) -> list[str]:
    """What to check: the URL or ID named (the handler resolves it), or the newest version of
    every document."""
    if args.all:
        return send(ctx, "latest_versions", {}, write=False)["ids"]
    if not args.ref:
        raise InvalidInput("give URL_OR_ID or --all")
    return [args.ref]


class Progress:
    """A one-line progress bar on stderr (only when it is a terminal, or forced)."""

    def __init__(self, total: int, stream, force: bool = False) -> None:
        self.total, self.done, self.stream = total, 0, stream
        self.on = force or getattr(stream, "isatty", lambda: False)()

    def step(self, label: str) -> None:
        self.done += 1
        if not self.on:
            return
        width = 30
        filled = width * self.done // max(1, self.total)
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label[:40]:<40}")
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


CHECK_STATES = ("present", "changed", "gone", "unreachable", "too_large", "unknown")


def run_check(args, ctx):
    if args.all and args.ref:
        raise InvalidInput("give URL_OR_ID or --all, not both")
    options = liveness_options(args)
    targets = _targets(ctx, args)
    progress = Progress(len(targets), ctx.stderr, force=getattr(args, "progress", False))
    thresholds = {"present_at": options.present_at, "changed_at": options.changed_at}

    def done(record: dict) -> dict:
        progress.step(record.get("url", ""))
        return record

    with backend(ctx) as b:
        params = [{"id": t, **thresholds} for t in targets]
        results = b.call_many("check", params, args.concurrency, done)
    counts = Counter(r.get("state") for r in results)
    summary = {s: counts.get(s, 0) for s in CHECK_STATES}
    return {"checked": len(results), **summary, "results": results}


def render_check(result: dict) -> str:
    """Human form: one line per page (its state, the figure that decided it, written as the
    reason and the viewer write it), then the summary."""
    lines = [
        f"{r.get('state', '?'):<11} {deciding_figure(r):<12} {r.get('url', '')}  {r.get('reason', '')}"
        for r in result["results"]
    ]
    lines.append(
        f"{result['checked']} checked: {result['present']} present, "
        f"{result['changed']} changed, {result['gone']} gone, {result['unreachable']} unreachable"
        + (f", {result['too_large']} too large to check" if result.get("too_large") else "")
        + (f", {result['unknown']} with nothing to compare" if result.get("unknown") else "")
    )
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use: pagekeeper extract|liveness|check")
