"""What a command module under host/cli/commands/ declares itself with (no import of the
entry point, which imports every command module).

Each command module exposes ``register(sub, common)``; it adds its parsers with
:func:`command` and sets a ``run(args, ctx)`` that returns its result (a :class:`Lines`
iterable streams one line per item).

>>> import argparse
>>> sub = argparse.ArgumentParser(prog="pk").add_subparsers()
>>> command(sub, "ping", lambda a, c: {}, argparse.ArgumentParser(add_help=False), "answer").prog
'pk ping'
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any


class Lines:
    """A stream of output lines for batch commands (str as-is, dicts as JSON)."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = items


def command(
    sub, name: str, run: Callable | None, common, help: str, **kw
) -> argparse.ArgumentParser:
    """Add a subcommand that accepts the global options too, and bind its ``run``."""
    parser = sub.add_parser(name, help=help, description=help, parents=[common], **kw)
    if run is not None:
        parser.set_defaults(run=run)
    return parser
