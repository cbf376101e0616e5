"""The ``pagekeeper`` command line: one parser, one output writer, one error mapper.

Each command lives in a module of ``host/cli/commands/`` that exposes
``register(sub, common)``; it adds its parsers with :func:`command` and sets a
``run(args, ctx)`` that *returns* its result:

* ``None``: nothing to print;
* a dict or list: printed as JSON with ``--json``, else through the command's
  ``render`` (or as indented JSON when it has none);
* a :class:`Lines` iterable: streamed, one line per item (dicts as JSON lines),
  for batch commands that must not stop on a bad input line.

Errors are mapped to exit codes and to ``{"ok": false, "error": {...}}`` here
and nowhere else. Version addresses in a result are signed here (:func:`openable`).

>>> main(["normalize", "HTTP://Example.COM"])  # doctest: +SKIP
http://example.com/
0
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import __version__
from engine.errors import InvalidInput, PageKeeperError, StorageError, error_payload
from host.cli.backend import note_addresses
from host.cli.command import Lines
from host.cli.commands import archive, content, daemon, install, similarity, suggest, urls
from host.daemon.security import (
    ensure_token,
    has_version_url,
    sign_version_urls,
    strip_credentials_deep,
)
from host.home import resolve_home
from host.settings import Context

# Modules under host/cli/commands/, each owning a group of subcommands, in --help's order.
COMMAND_MODULES = (urls, suggest, archive, similarity, content, daemon, install)

# Exit codes by error code; an unknown code falls back along the class tree.
EXIT_CODES = {
    "internal": 1,
    "invalid_input": 2,
    "not_found": 3,
    "too_large": 4,
    "storage": 5,
    "unavailable": 6,
    "forbidden": 7,
}


# What each exit status means (``pagekeeper --help`` and README.md show it).
EXIT_MEANING = {
    0: "done",
    1: "a report that found a fault (doctor), or an internal error",
    2: "bad input or usage",
    3: "not in the archive",
    4: "over a size cap",
    5: "a file cannot be written or read: the home, the archive, an output file in a folder"
    " that exists (a missing folder is bad input: 2)",
    6: "a daemon or a site that cannot be reached",
    7: "refused",
    130: "interrupted (Ctrl-C)",
}


def error_classes(root: type[PageKeeperError] = PageKeeperError) -> list[type[PageKeeperError]]:
    """Every error class of the tree under ``root`` (``root`` first)."""
    found = [root]
    for sub in root.__subclasses__():
        found += error_classes(sub)
    return found


def exit_status_help() -> str:
    """``--help``'s epilog: each exit status, its meaning and the error codes that lead to it
    (from :data:`EXIT_CODES` and the error tree, so it cannot drift from what main returns)."""
    codes: dict[int, set[str]] = {}
    for cls in error_classes():
        codes.setdefault(exit_code(cls()), set()).add(cls.code)
    lines = [
        "exit status (errors print 'pagekeeper: CODE: message'; with --json also",
        '  {"ok": false, "error": {"code", "message"}} on stdout):',
    ]
    for status, meaning in EXIT_MEANING.items():
        named = f": {', '.join(sorted(codes[status]))}" if status in codes else ""
        lines += textwrap.wrap(
            f"{status:<3} {meaning}{named}", 88, initial_indent="  ", subsequent_indent="      "
        )
    return "\n".join(lines)


def _common_options(suppress: bool) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    default = argparse.SUPPRESS if suppress else None
    common.add_argument("--home", default=default, help="data directory (env PAGEKEEPER_HOME)")
    common.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="machine-readable JSON output",
    )
    return common


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are typed like every other error: ``InvalidInput``
    (exit 2, as argparse's own), so ``--json`` gets ``{"ok": false, "error"}`` on stdout too.

    >>> Parser(prog="pk").parse_args(["--bogus"])
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: pk: unrecognized arguments: --bogus
    """

    def error(self, message: str):
        self.print_usage(sys.stderr)  # this (sub)command's usage line, for people
        raise InvalidInput(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    top = _common_options(suppress=False)
    parser = Parser(
        prog="pagekeeper",
        parents=[top],
        description="Repair broken links and keep a personal, versioned archive of pages.",
        epilog=exit_status_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pagekeeper {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = _common_options(suppress=True)
    for module in COMMAND_MODULES:
        module.register(sub, common)
    return parser


def write_result(result: Any, ctx: Context, render: Callable | None) -> None:
    out = ctx.stdout
    if result is None:
        return
    if isinstance(result, Lines):
        for item in result.items:
            out.write(
                (item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)) + "\n"
            )
            out.flush()
        return
    if ctx.json or render is None:
        out.write(json.dumps(result, ensure_ascii=False, indent=None if ctx.json else 2) + "\n")
    else:
        out.write(render(result).rstrip("\n") + "\n")


def exit_code(exc: PageKeeperError) -> int:
    for cls in type(exc).__mro__:
        code = getattr(cls, "code", None)
        if code in EXIT_CODES:
            return EXIT_CODES[code]
    return 1


def report_error(exc: BaseException, ctx: Context) -> int:
    payload = strip_credentials_deep(error_payload(exc))  # never print user:password
    if ctx.json:
        ctx.stdout.write(json.dumps({"ok": False, "error": payload}) + "\n")
    ctx.stderr.write(f"pagekeeper: {payload['code']}: {payload['message']}\n")
    return exit_code(exc) if isinstance(exc, PageKeeperError) else 1


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except InvalidInput as exc:  # a usage error (Parser.error)
        wants_json = "--json" in (sys.argv[1:] if argv is None else argv)
        return report_error(exc, Context(home=Path("."), json=wants_json))
    if getattr(args, "run", None) is None:  # a group without its subcommand: the group's help
        group = getattr(args, "usage_of", parser)
        if args.json:  # a usage error like any other: typed, on stdout too
            missing = InvalidInput(f"{group.prog}: give a command (see {group.prog} --help)")
            return report_error(missing, Context(home=Path("."), json=True))
        group.print_help()
        return 2
    ctx = Context(home=resolve_home(args.home), json=args.json)
    try:
        result = openable(args.run(args, ctx), ctx.home)
        write_result(result, ctx, getattr(args, "render", None))
        note_version_addresses(result, ctx)
    except PageKeeperError as exc:
        return report_error(exc, ctx)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a read-only or full home, a vanished directory: typed, no traceback
        return report_error(StorageError(f"{exc.strerror or exc}: {exc.filename or ctx.home}"), ctx)
    return _report_status(args, result)


def openable(result: Any, home: Path) -> Any:
    """Every version address in a result signed (host/daemon/security.py ``sign_path``), so each
    address the CLI prints opens in any browser, with the daemon up or down."""
    if isinstance(result, dict | list) and has_version_url(result):
        return sign_version_urls(result, ensure_token(home))
    return result


def note_version_addresses(result: Any, ctx: Context) -> None:
    """After a result holding version addresses, when this home's daemon does not serve
    them: what the user must know to open them (backend.addresses_note), on stderr, in text
    and ``--json`` alike (stdout keeps the result and its contract: every address stays)."""
    if isinstance(result, dict | list) and has_version_url(result):
        note_addresses(ctx)


def _report_status(args, result) -> int:
    """1 when a command's report says it found problems (``set_defaults(failed=fn)``), else 0:
    a check such as ``doctor`` answers in JSON and in its exit status alike."""
    failed = getattr(args, "failed", None)
    return 1 if failed is not None and failed(result) else 0


if __name__ == "__main__":
    sys.exit(main())
