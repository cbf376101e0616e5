"""Shared test configuration.

The product's shared data (``shared/`` beside the project root, as on CI's fresh
clone) is reached through ``SHARED_DIR``, never through an absolute path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` from the project root: seeds, WPT data, the extraction dev set."""
    if not SHARED_DIR.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DIR}")
    return SHARED_DIR
