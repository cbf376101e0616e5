"""``pagekeeper suggest``: repaired URLs for a failed one (engine/urls/suggest/).

    pagekeeper suggest URL [--referrer URL] [--error dns] [--limit N] [--json]
    pagekeeper suggest --batch [--timings]   # JSONL in, JSONL out, same order
    --dictionary FILE                         # rank,domain CSV instead of the bundled top-100k

A batch line is ``{"url", "referrer"?, "error"?, "languages"?}``; the answer
``{"url", "suggestions": [{"url", "score", "step", "reason"}, ...]}`` or, for a
bad or blank line, ``{"url", "error": {"code", "message"}, "line"}`` — the batch goes on, one
output line per input line (host/cli/batch.py).
``--timings`` adds ``elapsed_ms``, the engine time for that line.
"""

from __future__ import annotations

import csv
import io
import json
import time

from engine.errors import InvalidInput, InvalidURL, PageKeeperError, error_payload
from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import ERRORS, Suggester, SuggestOptions, SuggestRequest
from host.cli.batch import blank_line, error_line, is_blank, numbered, with_line
from host.cli.command import Lines, command
from host.daemon.app import Config
from host.services import learning_file
from host.services.navigation import MAX_SUGGESTIONS


def register(sub, common) -> None:
    """Add ``suggest`` to the parser."""
    parser = command(sub, "suggest", run, common, "repaired URLs for a URL that failed to load")
    parser.add_argument("url", nargs="?", help="the URL that failed")
    parser.add_argument("--referrer", help="the page the failed link was on")
    parser.add_argument("--error", default="dns", choices=ERRORS, help="how the load failed")
    parser.add_argument("--limit", type=int, default=5, help="at most N suggestions (default 5)")
    parser.add_argument(
        "--language", action="append", default=[], help="browser language, e.g. de-DE"
    )
    parser.add_argument("--batch", action="store_true", help="JSONL on stdin, JSONL on stdout")
    parser.add_argument("--timings", action="store_true", help="add elapsed_ms to batch lines")
    parser.add_argument(
        "--dictionary", metavar="FILE", help="rank,domain CSV replacing the bundled one"
    )
    parser.set_defaults(render=render)


def run(args, ctx):
    if not 1 <= args.limit <= MAX_SUGGESTIONS:
        raise InvalidInput(f"--limit must be between 1 and {MAX_SUGGESTIONS}")
    if args.batch == bool(args.url):
        raise InvalidInput("give either a URL or --batch")
    suggester = build_suggester(ctx.home, args.dictionary)
    if args.batch:
        return Lines(batch(suggester, ctx.stdin, args))
    request = SuggestRequest(args.url, args.error, args.referrer, time.time(), tuple(args.language))
    found = suggester.suggest(request)[: args.limit]
    return {"url": args.url, "suggestions": [s.to_dict() for s in found]}


def build_suggester(home, dictionary_file: str | None) -> Suggester:
    """The dictionary (from the warm cache the daemon shares, ``cache_dir`` of the home's
    config) + the saved learning; ranked as deep as the largest ``--limit``."""
    cache_dir = Config.load(home).cache_dir
    if dictionary_file:
        source = learning_file.read_dictionary_file(dictionary_file)
        dictionary = learning_file.cached_dictionary(
            home, source, lambda: DomainDictionary.from_rows(parse_rows(source)), cache_dir
        )
    else:
        dictionary = learning_file.bundled_dictionary(home, cache_dir)
    options = SuggestOptions(limit=MAX_SUGGESTIONS)
    return Suggester(dictionary, learning_file.load_learning(home), options).warm()


def parse_rows(source: bytes):
    """(rank, domain) rows of a CSV; a header line is skipped.

    >>> list(parse_rows(b"rank,domain\\n1,a.com\\n2,b.org\\n"))
    [('1', 'a.com'), ('2', 'b.org')]
    """
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"dictionary is not UTF-8: {exc}") from None
    for number, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row or not "".join(row).strip():
            continue
        if len(row) < 2:
            raise InvalidInput(f"dictionary line {number}: expected rank,domain")
        if number == 1 and not row[0].strip().isdigit():
            continue
        yield row[0].strip(), row[1].strip()


def batch(suggester: Suggester, stdin, args):
    """One output line per input line, in order; errors stay per line, with its number."""
    for number, line in numbered(stdin):
        if is_blank(line):
            yield error_line(number, blank_line(), url=None)
        else:
            yield with_line(batch_line(suggester, line, args), number)


def batch_line(suggester: Suggester, line: str, args) -> dict:
    url = None
    try:
        item = json.loads(line)
        if not isinstance(item, dict):
            raise InvalidInput("each line must be a JSON object")
        url = item.get("url")
        if isinstance(url, str) and _unicode(url) != url:
            url = _unicode(url)  # echoed as the output can carry it, then refused
            raise InvalidURL("the URL holds a lone surrogate (\\ud800-\\udfff): not text")
        request = _request(item, args.error)
        started = time.perf_counter()
        found = suggester.suggest(request)[: args.limit]
        elapsed = (time.perf_counter() - started) * 1000
    except ValueError as exc:
        return {"url": url, "error": error_payload(InvalidInput(f"not JSON: {exc}"))}
    except PageKeeperError as exc:
        return {"url": url, "error": error_payload(exc)}
    out = {"url": url, "suggestions": [s.to_dict() for s in found]}
    if args.timings:
        out["elapsed_ms"] = round(elapsed, 3)
    return out


def _unicode(text: str) -> str:
    """``text`` with lone surrogates (JSON allows ``"\\ud800"``; UTF-8 output does not)
    replaced by U+FFFD.

    >>> _unicode("a\\ud800b") == "a\\ufffdb", _unicode("gögle")
    (True, 'gögle')
    """
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _request(item: dict, default_error: str) -> SuggestRequest:
    url, referrer, error = item.get("url"), item.get("referrer"), item.get("error")
    error = default_error if error is None else error  # "error": null is no error kind given
    languages = item.get("languages") or []
    if not isinstance(url, str):
        raise InvalidInput("'url' must be a string")
    if referrer is not None and not isinstance(referrer, str):
        raise InvalidInput("'referrer' must be a string")
    if not isinstance(error, str):
        raise InvalidInput("'error' must be a string")
    if not isinstance(languages, list) or not all(isinstance(x, str) for x in languages):
        raise InvalidInput("'languages' must be a list of strings")
    return SuggestRequest(url, error, referrer, time.time(), tuple(languages))


def render(result: dict) -> str:
    """Human output: one suggestion a line, best first."""
    lines = [
        f"{s['score']:.2f}  {s['url']}  [{s['step']}] {s['reason']}" for s in result["suggestions"]
    ]
    return "\n".join(lines) or "no suggestion"
