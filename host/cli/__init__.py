"""The ``pagekeeper`` command line: ``main`` parses arguments and runs one command.

The suggestion modules' build is chosen before the engine's first import (host/compiled.py):
the compiled copy when it is built from these sources, the pure modules otherwise.

>>> callable(main)
True
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    from host.compiled import use_compiled  # noqa: PLC0415 (nothing imported before the choice)

    use_compiled()
    from host.cli.entry import main as run  # noqa: PLC0415 (the engine only after it)

    return run(argv)


__all__ = ["main"]
