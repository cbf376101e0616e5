"""A test hook, loaded by every Python started with this folder on ``PYTHONPATH`` (the daemon
that ``serve --detach`` spawns in tests/host/daemon/test_start.py).

``PAGEKEEPER_TEST_INDEX`` changes how the dictionary index build goes (over the first
10,000 domains only, to keep the tests short):
``slow:S`` sleeps S seconds between two progress reports (the build still progresses),
``stuck`` stops reporting after the first reports (a build that hangs), ``die`` ends the
process in the middle of the build.
"""

import os
import time

MODE = os.environ.get("PAGEKEEPER_TEST_INDEX", "")

if MODE:
    from engine.urls.dictionary import DomainDictionary

    real = DomainDictionary.from_domains.__func__
    reports = []

    def paced(count: int, progress) -> None:
        reports.append(count)
        if MODE.startswith("slow:"):
            time.sleep(float(MODE.split(":", 1)[1]))
        elif MODE == "stuck" and len(reports) > 3:
            time.sleep(3600)
        elif MODE == "die" and len(reports) > 3:
            os._exit(7)
        if progress is not None:
            progress(count)

    def from_domains(cls, domains, progress=None):
        return real(cls, list(domains)[:10_000], lambda count: paced(count, progress))

    DomainDictionary.from_domains = classmethod(from_domains)
