"""This folder collects with ``--doctest-modules`` (as ``pytest --doctest-modules tests/``
would): the daemon's test hooks are not imported as modules (conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.slowdown import scaled

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def test_the_folder_collects_with_doctest_modules_and_no_hook_is_imported():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "--doctest-modules",
         "-p", "no:randomly", "-p", "no:cacheprovider", str(HERE)],
        cwd=ROOT, capture_output=True, text=True, timeout=scaled(60),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    assert "sitecustomize" not in done.stdout
    assert "test_collection.py::test_the_folder_collects" in done.stdout
