"""The stand-in capture host (capture_fake_host.py) reads ``PK_FAKE_STATE`` where it is used:
importing it (collecting its doctests, reading its handlers) needs no environment, and a run
without it stops with a clear error instead of a KeyError. Real processes, no browser."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).with_name("capture_fake_host.py")


def environment(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PK_FAKE_STATE"}
    return {**env, **extra}


def test_importing_the_fake_host_needs_no_state_folder():
    done = subprocess.run(
        [sys.executable, "-c", "import tests.extension.capture_fake_host as f; print(len(f.HANDLERS))"],
        cwd=ROOT, env=environment(), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 5


def test_a_run_without_the_state_folder_says_so():
    done = subprocess.run(
        [sys.executable, str(FAKE)], env=environment(), input=b"", capture_output=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert b"PK_FAKE_STATE is not set" in done.stderr and b"Traceback" not in done.stderr


def test_with_the_state_folder_it_answers_and_logs_there(tmp_path):
    body = json.dumps({"id": 1, "type": "ping"}).encode()
    done = subprocess.run(
        [sys.executable, str(FAKE)], env=environment(PK_FAKE_STATE=str(tmp_path / "state")),
        input=struct.pack("<I", len(body)) + body, capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout[4:])["result"]["protocol"] == 1
    assert (tmp_path / "state" / "log.jsonl").read_text().count('"ping"') == 1
