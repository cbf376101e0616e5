"""How much slower than idle this machine runs a CPU-bound step now, measured, for tests whose
limits are wall-clock times (a subprocess's hang guard, a start's stall limit): such a limit
is multiplied by :func:`factor`, so that it means the same amount of work at load 20 on two
cores (each runnable process gets about a tenth of one) as idle. What the test asserts does
not change; only how long it waits before calling a slow run a hang.

The factor is the larger of two measures, each at least 1:

- a probe: a busy loop run until it has had ``PROBE_CPU_S`` of CPU time; wall time over CPU
  time is the share of a core this process gets now (it sees a ``taskset`` to one core,
  which the load average does not); measured again at most every ``PROBE_EVERY_S``;
- the 1-minute load average per core of the machine (what the probe, being short, can miss
  between two bursts of the other processes).

>>> factor() >= 1.0
True
>>> scaled(30.0) >= 30.0
True
"""

from __future__ import annotations

import os
import time

PROBE_CPU_S = 0.05  # the probe's CPU time: a few of the scheduler's time slices
PROBE_EVERY_S = 10.0  # a test module calls scaled() often: idle, each probe costs 50 ms
_last: list[tuple[float, float]] = []  # (when, ratio) of the last probe


def probe() -> float:
    """Wall time over CPU time of a short busy loop in this thread (1.0 on an idle core)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    while time.thread_time() - cpu < PROBE_CPU_S:
        sum(range(1000))
    return (time.perf_counter() - wall) / max(time.thread_time() - cpu, 1e-9)


def recent_probe() -> float:
    """:func:`probe`, or its value from less than ``PROBE_EVERY_S`` ago."""
    now = time.monotonic()
    if not _last or now - _last[0][0] > PROBE_EVERY_S:
        _last[:] = [(now, probe())]
    return _last[0][1]


def load_per_core() -> float:
    """The machine's 1-minute load average per core."""
    return os.getloadavg()[0] / (os.cpu_count() or 1)


def factor() -> float:
    """How many times longer than idle a CPU-bound step takes now (at least 1)."""
    return max(1.0, recent_probe(), load_per_core())


def scaled(seconds: float) -> float:
    """A wall-clock limit set for an idle machine, for the machine as loaded now."""
    return seconds * factor()
