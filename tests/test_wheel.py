"""An installed wheel works on its own: `pip wheel .` into a temporary folder, installed into a
clean venv, starts `pagekeeper serve`, and a websocket client with the extension ID bundled in
the package (host/data/extension-id.txt) as its Origin connects.

The new venv takes the runtime dependencies from this venv's site-packages through a .pth file
(no download; a .pth adds the folder only, so this venv's editable install of the source tree is
not loaded): everything of PageKeeper itself comes from the wheel.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.conftest import ROOT
from tests.host.daemon_fixtures import SHARED_CACHE

pytestmark = pytest.mark.slow
SOURCES = ("engine", "host", "pyproject.toml", "README.md")


def build_wheel(tmp: Path) -> Path:
    """`pip wheel .` of a copy of the sources (the build writes build/ and *.egg-info)."""
    source = tmp / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    wheels = tmp / "wheels"
    pip = [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(wheels)]
    subprocess.run(pip, check=True, capture_output=True, timeout=180)
    (wheel,) = wheels.glob("pagekeeper-*.whl")
    return wheel


def clean_venv(tmp: Path, wheel: Path) -> Path:
    """A new venv with only the wheel installed; the dependencies come from this venv."""
    env = tmp / "venv"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps"]
    subprocess.run([*install, "-q", str(wheel)], check=True, capture_output=True, timeout=120)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "project-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env


def pk(env: Path, home: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [str(env / "bin" / "pagekeeper"), "--home", str(home), *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=90)


def test_an_installed_wheel_serves_the_bundled_extension(tmp_path):
    wheel = build_wheel(tmp_path)
    env = clean_venv(tmp_path, wheel)
    where = subprocess.run(
        [str(env / "bin" / "python"), "-c", "import host, engine; print(host.__file__, engine.__file__)"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    ).stdout.split()  # fmt: skip
    assert all(path.startswith(str(env)) for path in where), where  # not the source tree
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"port": 0, "cache_dir": str(SHARED_CACHE)}))
    started = pk(env, home, "serve", "--detach", "--json", cwd=tmp_path)
    try:
        assert started.returncode == 0, started.stderr
        state = json.loads(started.stdout)
        token = (home / "token").read_text().strip()
        ids = (
            subprocess.run(
                [str(env / "bin" / "python"), "-c", "from host.daemon.app import bundled_extension_ids as b; print(*b())"],
                check=True, capture_output=True, text=True, cwd=tmp_path,
            ).stdout.split()
        )  # fmt: skip
        assert ids and len(ids[0]) == 32, ids
        url = f"ws://127.0.0.1:{state['port']}/ws?token={token}"
        with connect(url, origin=f"chrome-extension://{ids[0]}") as ws:
            ws.send(json.dumps({"id": 1, "type": "ping"}))
            assert json.loads(ws.recv(timeout=30))["ok"]
        with pytest.raises(InvalidStatus):  # the ID matters: another extension is refused
            connect(url, origin=f"chrome-extension://{'a' * 32}")
    finally:
        pk(env, home, "stop", cwd=tmp_path)
