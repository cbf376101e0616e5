"""A test hook, loaded by every Python started with this folder on ``PYTHONPATH`` (the daemon
of tests/host/daemon/test_big_pages.py and its analysis process).

While the file named by ``PAGEKEEPER_TEST_PARSE_HOLD`` exists, parsing a message bigger than
``BIG_MESSAGE_BYTES`` first writes ``<that file>.entered`` and then waits until the file is
gone, so a test can act while a big message is being decoded, on a machine of any speed.
"""

import functools
import os
import time
from pathlib import Path

HOLD = os.environ.get("PAGEKEEPER_TEST_PARSE_HOLD", "")

if HOLD:
    from host.daemon import server

    real = server.parse

    @functools.wraps(real)  # the same module and name: pickled by reference, as the real one
    def parse(message: bytes) -> object:
        hold = Path(HOLD)
        if len(message) > server.BIG_MESSAGE_BYTES and hold.exists():
            Path(f"{HOLD}.entered").write_text(str(os.getpid()))
            deadline = time.monotonic() + 120
            while hold.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return real(message)

    server.parse = parse
