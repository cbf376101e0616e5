"""A test hook, loaded by every Python started with this folder on ``PYTHONPATH`` (the daemon
of tests/host/daemon/test_big_pages.py and its analysis process).

While the file named by ``PAGEKEEPER_TEST_PARSE_HOLD`` exists, parsing a message bigger than
``BIG_MESSAGE_BYTES`` first writes ``<that file>.entered`` and then waits until the file is
gone, so a test can act while a big message is being decoded, on a machine of any speed.
``PAGEKEEPER_TEST_ANALYSE_HOLD`` does the same for a capture's analysis
(``registry.analyse``, on the analysis thread or in the analysis process): a test acts while
a page is in analysis, not after a sleep that a loaded machine may not have filled.
"""

import functools
import os
import time
from pathlib import Path

HOLD = os.environ.get("PAGEKEEPER_TEST_PARSE_HOLD", "")
ANALYSE_HOLD = os.environ.get("PAGEKEEPER_TEST_ANALYSE_HOLD", "")


def held(name: str) -> None:
    """If the file ``name`` exists: say so in ``<name>.entered`` (this process's pid), and
    wait until it is gone (at most 120 s)."""
    hold = Path(name)
    if not hold.exists():
        return
    Path(f"{name}.entered").write_text(str(os.getpid()))
    deadline = time.monotonic() + 120
    while hold.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


if HOLD:
    from host.daemon import server

    real = server.parse

    @functools.wraps(real)  # the same module and name: pickled by reference, as the real one
    def parse(message: bytes) -> object:
        if len(message) > server.BIG_MESSAGE_BYTES:
            held(HOLD)
        return real(message)

    server.parse = parse

if ANALYSE_HOLD:
    from engine.archive import registry

    real_analyse = registry.analyse

    @functools.wraps(real_analyse)  # pickled by reference, as the real one
    def analyse(*args, **kwargs):
        held(ANALYSE_HOLD)
        return real_analyse(*args, **kwargs)

    registry.analyse = analyse
