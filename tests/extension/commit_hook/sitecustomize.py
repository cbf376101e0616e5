"""A test hook, loaded by every Python started with this folder on ``PYTHONPATH`` (the daemon
of tests/extension/test_capture_replay.py): while ``<home>/test-commit-delay`` (or
``test-part-delay``) exists, the host's ``capture_commit`` (or each ``capture_part``) first
waits that many seconds, so a test can act while the host is committing or receiving parts
(stop the extension's service worker) on a machine of any speed; ``test-versions-delay``
slows each ``versions`` the same way (the extension's summary of a capture asks for it).
"""

import time
from pathlib import Path

from host.handlers import archive, capture


def held(module, name: str, marker: str):
    real = module.HANDLERS[name]

    def slowed(params: dict, app) -> dict:
        delay = Path(app.home, marker)
        if delay.exists():
            time.sleep(float(delay.read_text()))
        return real(params, app)

    module.HANDLERS[name] = slowed


held(capture, "capture_commit", "test-commit-delay")
held(capture, "capture_part", "test-part-delay")
held(archive, "versions", "test-versions-delay")
