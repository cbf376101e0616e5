"""``pagekeeper normalize`` and ``pagekeeper parse``: the URL commands.

``normalize [--profile P] [--rules +x,-y] [URL ...]`` reads URLs from the
arguments, or one per line from stdin, and writes one line per input line,
in order (host/cli/batch.py). An invalid URL never stops the batch: with ``--json`` each line is
``{"input", "url"}`` or ``{"input", "url": null, "error": {"code", "message"}, "line"}``
(exit 0); without it the line is left empty, the error goes to stderr, and
the exit code is 2 once the batch is done. A blank line is ``invalid_input``.
``--list-rules`` prints the profile's ``{rule: on?}`` as JSON.

``parse URL [--base B]`` prints the WHATWG components; ``parse --batch`` reads
JSONL ``{"input", "base"}`` and writes the components or ``{"failure": true}``
per line (the format of the WPT URL tests), plus ``error`` and ``line`` when the
line itself is malformed or blank.

>>> from engine.urls.normalize import NormalizeOptions
>>> next(json_lines(normalize_all(["HTTP://Example.com"], NormalizeOptions.from_profile("safe"))))
'{"input": "HTTP://Example.com", "url": "http://example.com/"}'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from engine.errors import BadRequest, InvalidInput, PageKeeperError, error_payload
from engine.urls.normalize import NormalizeOptions, normalize
from engine.urls.parse import parse_url
from engine.urls.rules import PROFILES
from host.cli.batch import blank_line, error_line, is_blank, numbered, read_lines, with_line
from host.cli.command import Lines, command


def register(sub, common) -> None:
    """Add ``normalize`` and ``parse``."""
    norm = command(sub, "normalize", run_normalize, common, "normalize URLs (args or stdin lines)")
    norm.add_argument("urls", nargs="*", metavar="URL", help="URLs (default: one per stdin line)")
    norm.add_argument("--profile", choices=list(PROFILES), default="archive", help="rule profile")
    norm.add_argument(
        "--rules",
        default="",
        metavar="+x,-y",
        help="switch rules on (+) or off (-); --rules=-x always works",
    )
    accept_dash_led_values(norm)
    norm.add_argument("--list-rules", action="store_true", help="print {rule: on?} as JSON")
    parse = command(sub, "parse", run_parse, common, "WHATWG URL components (ada-url)")
    parse.add_argument("url", nargs="?", help="the URL to parse")
    parse.add_argument("--base", default=None, help="base URL for a relative reference")
    parse.add_argument("--batch", action="store_true", help='stdin JSONL {"input","base"}')


# A rule list such as "-www,+fragment" (never an option: options here are --long or -h).
DASH_LED_RULES = r"^-[a-z_]+(?:,[+-]?[a-z_]*)*$"


def accept_dash_led_values(parser) -> None:
    """Let ``--rules -www`` pass "-www" as the value. argparse takes any
    dash-led word for an option (https://bugs.python.org/issue9334) except what
    its negative-number pattern matches, so rule lists join that pattern. A
    list starting with ``-h`` still reads as ``-h``: write ``--rules=-host_case``.
    """
    default = getattr(parser, "_negative_number_matcher", None)
    if default is not None:
        parser._negative_number_matcher = re.compile(f"{DASH_LED_RULES}|{default.pattern}")


def run_normalize(args, ctx):
    options = NormalizeOptions.from_profile(args.profile, args.rules)
    if args.list_rules:
        return options.to_dict()
    results = normalize_all(args.urls or read_lines(ctx.stdin), options)
    return Lines(json_lines(results) if ctx.json else plain_lines(results, ctx.stderr))


def normalize_all(inputs: Iterable[str], options: NormalizeOptions) -> Iterator[tuple]:
    """``(input, url or None, error payload or None)`` per input, never stopping; a blank
    input is ``invalid_input`` (not a URL to be judged)."""
    for text in inputs:
        try:
            if is_blank(text):
                raise blank_line()
            yield text, normalize(text, options), None
        except PageKeeperError as exc:
            yield text, None, error_payload(exc)


def json_lines(results: Iterable[tuple]) -> Iterator[str]:
    """``{"input", "url"}`` per result, plus ``error`` and ``line`` for an invalid one.

    >>> list(json_lines([("x", None, {"code": "invalid_url", "message": "no scheme"})]))
    ['{"input": "x", "url": null, "error": {"code": "invalid_url", "message": "no scheme"}, "line": 1}']
    """
    for number, (text, url, error) in enumerate(results, 1):
        record = {"input": text, "url": url}
        if error is not None:
            record.update(error=error, line=number)
        yield json_line(record)


def plain_lines(results: Iterable[tuple], stderr) -> Iterator[str]:
    """The URL per line (empty for an invalid one, reported on stderr); after the
    batch, InvalidInput (exit code 2) if any input was invalid."""
    failed = 0
    for number, (_text, url, error) in enumerate(results, 1):
        if error is not None:
            failed += 1
            stderr.write(f"pagekeeper: line {number}: {error['code']}: {error['message']}\n")
        yield url if url is not None else ""
    if failed:
        raise InvalidInput(f"{failed} invalid URL(s) in the batch; their output lines are empty")


def run_parse(args, ctx):
    if args.batch:
        return Lines(json_line(parse_line(number, line)) for number, line in numbered(ctx.stdin))
    if args.url is None:
        raise InvalidInput("give a URL, or --batch to read JSONL from stdin")
    return parse_url(args.url, args.base).to_dict()


def parse_line(number: int, line: str) -> dict:
    """``parse --batch``'s answer to line ``number``: :func:`parse_record`, ``line`` added to
    an error line; a blank line is ``invalid_input``.

    >>> parse_line(4, " ")["error"]["code"], parse_line(4, " ")["line"]
    ('invalid_input', 4)
    """
    if is_blank(line):
        return error_line(number, blank_line(), failure=True)
    return with_line(parse_record(line), number)


def parse_record(line: str) -> dict:
    """One ``parse --batch`` line: components, ``{"failure": true}`` for a string
    that is not a URL, plus ``error`` when the line itself is malformed.

    >>> parse_record('{"input": "a", "base": null}')
    {'failure': True}
    """
    try:
        record = json.loads(line)
        text, base = record["input"], record.get("base")
        if not isinstance(text, str) or not (base is None or isinstance(base, str)):
            raise TypeError("input and base must be strings (base may be null)")
    except (ValueError, KeyError, TypeError) as exc:
        return {"failure": True, "error": error_payload(BadRequest(f"bad line: {exc}"))}
    try:
        # The URL constructor takes USVStrings: WebIDL turns lone surrogates into U+FFFD.
        return parse_url(usv(text), None if base is None else usv(base)).to_dict()
    except PageKeeperError:
        return {"failure": True}


def usv(text: str) -> str:
    """Replace lone surrogates with U+FFFD, as WebIDL's USVString conversion does.

    >>> usv("a\\ud800b")
    'a\\ufffdb'
    """
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def json_line(record: dict) -> str:
    """One JSON line; ASCII-escaped if it holds a lone surrogate (not encodable).

    >>> json_line({"input": "\\udcff"})
    '{"input": "\\\\udcff"}'
    """
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:
        return json.dumps(record)
    return text
