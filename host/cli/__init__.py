"""The ``pagekeeper`` command line: ``main`` parses arguments and runs one command.

>>> callable(main)
True
"""

from host.cli.entry import main

__all__ = ["main"]
