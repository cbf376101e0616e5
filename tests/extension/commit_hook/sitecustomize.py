"""A test hook, loaded by every Python started with this folder on ``PYTHONPATH`` (the daemon
of tests/extension/test_capture_replay.py): while ``<home>/test-commit-delay`` exists, the
host's ``capture_commit`` first waits that many seconds, so a test can act while the host is
committing (stop the extension's service worker) on a machine of any speed.
"""

import time
from pathlib import Path

from host.handlers import capture

real = capture.HANDLERS["capture_commit"]


def slowed(params: dict, app) -> dict:
    delay = Path(app.home, "test-commit-delay")
    if delay.exists():
        time.sleep(float(delay.read_text()))
    return real(params, app)


capture.HANDLERS["capture_commit"] = slowed
