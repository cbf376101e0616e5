"""Shared test configuration.

The product's shared data (``shared/`` beside the project root, as on CI's fresh
clone) is reached through ``SHARED_DIR``, never through an absolute path.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dictionary_cache import warm_shared_cache

ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` from the project root: seeds, WPT data, the extraction dev set."""
    if not SHARED_DIR.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DIR}")
    return SHARED_DIR


def capture_dev_body(url: str) -> bytes | None:
    """A page's recorded body in the shared capture-dev corpus (what its replay.py serves),
    None when the corpus is not there."""
    corpus = SHARED_DIR / "data" / "capture-dev" / "corpus"
    if not corpus.is_dir():
        return None
    digest = json.loads((corpus / "index.json").read_text())[url][0]["body"]
    return (corpus / "bodies" / digest[:2] / digest).read_bytes()


def run_pagekeeper(home, *args: str, stdin: bytes = b"", timeout: float = 120):
    """Run the installed ``pagekeeper`` (or ``python -m host.cli.entry``) with ``--home`` in a real process."""
    script = Path(sys.executable).parent / "pagekeeper"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "host.cli"]
    return subprocess.run(
        [*cmd, "--home", str(home), *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=timeout,
        check=False,
    )


@contextlib.contextmanager
def static_site(root: Path) -> Iterator[str]:
    """A real, quiet ``http.server`` over the files in ``root``; yields its base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session", autouse=True)
def warm_dictionary_cache() -> None:
    """Build the shared dictionary index once, before any daemon starts: a daemon reads it
    in milliseconds instead of building it for seconds (``tests/dictionary_cache.py``)."""
    warm_shared_cache()
