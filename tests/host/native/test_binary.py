"""The PyInstaller single-file binary answers ping over native framing (built here, ~1 min).

Slow: the build takes about a minute on two shared cores. Skipped when PyInstaller
is not installed (`pip install -e '.[dist]'`, or `make dist`).
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tests.host.daemon_fixtures import ROOT, SHARED_CACHE, stop_daemon

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    pytest.importorskip("PyInstaller")
    build = tmp_path_factory.mktemp("pyinstaller")
    pyinstaller = shutil.which("pyinstaller") or str(ROOT / ".venv" / "bin" / "pyinstaller")
    done = subprocess.run(
        [
            pyinstaller,
            "--noconfirm",
            str(ROOT / "packaging" / "pagekeeper.spec"),
            "--distpath",
            str(build / "dist"),
            "--workpath",
            str(build / "work"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    path = build / "dist" / ("pagekeeper.exe" if os.name == "nt" else "pagekeeper")
    assert path.is_file() and os.access(path, os.X_OK)
    return path


def frame(obj) -> bytes:
    body = json.dumps(obj).encode()
    return struct.pack("=I", len(body)) + body


def read_reply(stream) -> dict:
    (length,) = struct.unpack("=I", stream.read(4))
    return json.loads(stream.read(length))


@pytest.mark.parametrize(
    "argv",
    [
        ["chrome-extension://iemmkbppohhfaaamfnchoaeokbamlbba/"],  # Chrome starts it so
        ["/etc/x/com.pagekeeper.host.json", "pagekeeper@pagekeeper.app"],  # Firefox so
        ["native"],
    ],
    ids=["chrome", "firefox", "native"],
)
def test_binary_answers_ping_over_native_framing(binary, tmp_path, argv):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"port": 0, "cache_dir": str(SHARED_CACHE)}))
    env = {"PAGEKEEPER_HOME": str(home), "PATH": os.environ.get("PATH", "")}
    proc = subprocess.Popen(
        [str(binary), *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    try:
        proc.stdin.write(frame({"id": "b1", "type": "ping"}) + b"\x03\x00")
        proc.stdin.flush()
        assert read_reply(proc.stdout) == {
            "id": "b1",
            "ok": True,
            "result": {"version": "0.1.0", "protocol": 1},
        }
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        state = json.loads((home / "daemon.json").read_text())
        status = subprocess.run(
            [str(binary), "status", "--json"], capture_output=True, text=True, env=env, timeout=60
        )
        assert json.loads(status.stdout)["pid"] == state["pid"]  # the binary started its daemon
    finally:
        if proc.poll() is None:
            proc.kill()
        stop_daemon(home)


def test_binary_installs_a_launcher_that_runs_itself(binary, tmp_path):
    """`pagekeeper install` from the binary: the manifest's launcher execs the binary's native host."""
    home, profile = tmp_path / "home", tmp_path / "profile"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"port": 0, "cache_dir": str(SHARED_CACHE)}))
    env = {"PATH": os.environ.get("PATH", "")}
    done = subprocess.run(
        [str(binary), "install", "--browser", "chromium", "--profile-dir", str(profile), "--json"]
        + ["--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads(
        (profile / "NativeMessagingHosts" / "com.pagekeeper.host.json").read_text()
    )
    launcher = manifest["path"]
    assert str(binary) in Path(launcher).read_text()  # frozen: the launcher runs the binary
    proc = subprocess.Popen(
        [launcher, "chrome-extension://iemmkbppohhfaaamfnchoaeokbamlbba/"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    try:
        proc.stdin.write(frame({"id": "i1", "type": "ping"}))
        proc.stdin.flush()
        assert read_reply(proc.stdout)["result"]["protocol"] == 1
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        stop_daemon(home)
