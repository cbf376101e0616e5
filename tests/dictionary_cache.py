"""One bundled-dictionary index for a whole test run, built once per checkout and machine.

Building the index of the bundled top-100k takes about 5 s of CPU; reading it back takes
milliseconds. Every test daemon, CLI run and engine suggester that is not testing the cache
itself reads this one file. The first process to need it builds it under an OS lock, so
parallel test workers never build it twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path

from engine.urls.dictionary import DomainDictionary
from host.services.learning_file import bundled_cache_path, bundled_dictionary

ROOT = Path(__file__).resolve().parent.parent

# One per checkout: two checkouts of different versions would each find the other's index
# unreadable and rebuild it on every daemon start.
SHARED_CACHE = (
    Path(tempfile.gettempdir())
    / f"pagekeeper-test-cache-{os.getuid() if hasattr(os, 'getuid') else 0}"
    f"-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]}"
)


def warm_shared_cache() -> Path:
    """Build the shared index if it is missing (one process at a time) and return its path."""
    SHARED_CACHE.mkdir(parents=True, exist_ok=True)
    with open(SHARED_CACHE / "build.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # blocks until another builder is done
        path = bundled_cache_path(SHARED_CACHE, str(SHARED_CACHE))
        if not path.exists():
            bundled_dictionary(SHARED_CACHE, str(SHARED_CACHE))
        return path


@cache
def shared_bundled_dictionary() -> DomainDictionary:
    """The bundled dictionary read from the shared index: the same dictionary as
    ``DomainDictionary.bundled()``, without building it again in this process."""
    return DomainDictionary.from_bytes(warm_shared_cache().read_bytes())


def seed_home_cache(home: Path) -> Path:
    """Copy the shared index to where a fresh ``home`` looks for it by default
    (``<home>/cache/``), so the home's first suggestion reads it instead of building it."""
    source = warm_shared_cache()
    target = bundled_cache_path(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target
