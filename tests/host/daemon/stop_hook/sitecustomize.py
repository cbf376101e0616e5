"""A test hook, loaded by every Python started with this folder on ``PYTHONPATH`` (the daemon
that ``serve --detach`` spawns in tests/host/daemon/test_stop.py).

``PAGEKEEPER_TEST_STOP`` makes the last step of a daemon's stop, closing the archive on the
store thread (``App._close``), slow on purpose, in 10 parts, each told as progress the way
the real step tells of its parts: ``slow:S`` sleeps S seconds before each part (the stop
still progresses), ``stuck`` stops after the third part (a close that hangs).
"""

import os
import time

MODE = os.environ.get("PAGEKEEPER_TEST_STOP", "")
PARTS = 10

if MODE:
    from host.daemon.app import App

    real = App._close

    def _close(self, step) -> None:
        for part in range(PARTS):
            if MODE == "stuck" and part == 3:
                time.sleep(3600)
            if MODE.startswith("slow:"):
                time.sleep(float(MODE.split(":", 1)[1]))
            step("closing the archive", 1)
        real(self, step)

    App._close = _close
