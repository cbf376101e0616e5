"""Real daemons for host tests: a tmp home each, an OS-chosen port, always stopped.

Import the fixtures into a test module (``from tests.host.daemon_fixtures import daemon``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.dictionary_cache import SHARED_CACHE
from tests.engine.archive.pages import page as saved_page

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "host.cli"]


def pk(
    home: Path, *args: str, check: bool = True, timeout: float = 60
) -> subprocess.CompletedProcess:
    """Run the real CLI with --home."""
    done = subprocess.run(
        [*CLI, *args, "--home", str(home)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"pagekeeper {args} -> {done.returncode}: {done.stderr}")
    return done


def make_home(tmp_path: Path, **config) -> Path:
    """A data dir whose config picks a free port (0: the OS chooses; daemon.json tells)."""
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    config = {"port": 0, "cache_dir": str(SHARED_CACHE), **config}
    (home / "config.json").write_text(json.dumps(config))
    return home


def stop_daemon(home: Path) -> None:
    """Stop the daemon of ``home`` whatever its state (tests never leave one behind)."""
    state_file = home / "daemon.json"
    pid = json.loads(state_file.read_text())["pid"] if state_file.exists() else None
    subprocess.run([*CLI, "stop", "--home", str(home)], capture_output=True, cwd=ROOT, timeout=30)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def home(tmp_path):
    """A tmp home; any daemon started in it is stopped afterwards."""
    path = make_home(tmp_path)
    yield path
    stop_daemon(path)


def start_daemon(home: Path) -> dict:
    """Start a daemon of ``home`` as a user does (``serve --detach``): its status dict."""
    state = json.loads(pk(home, "serve", "--detach", "--json").stdout)
    assert state["running"], state
    return state


@pytest.fixture
def daemon(home):
    """A running daemon: its status dict (pid, port, url, home)."""
    return start_daemon(home)


def token_of(home: Path) -> str:
    return (home / "token").read_text().strip()


class NativeHost:
    """A real `pagekeeper native` process speaking native framing."""

    def __init__(self, home: Path, *argv: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "host.native.relay", "--home", str(home), *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj) -> None:
        body = json.dumps(obj).encode()
        self.send_raw(struct.pack("=I", len(body)) + body)

    def recv(self) -> dict:
        head = self.proc.stdout.read(4)
        assert len(head) == 4, "native host closed stdout"
        (length,) = struct.unpack("=I", head)
        return json.loads(self.proc.stdout.read(length))

    def call(self, obj) -> dict:
        self.send(obj)
        return self.recv()

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def dust_stories(folder: Path) -> list[tuple[str, Path]]:
    """Five saved stories, each under two URL forms a DUST rule joins
    (``story?id=N`` and ``story_N``): (url, saved page) pairs."""
    pairs = []
    for n in range(1, 6):
        path = folder / f"s{n}.html"
        text = f"This is the text of story {n}, long enough to be the main text, about topic {n}."
        path.write_text(f"<title>Story {n}</title><h1>Story {n}</h1><p>{text}</p>")
        for url in (
            f"https://news.example.com/story?id={n}",
            f"https://news.example.com/story_{n}",
        ):
            pairs.append((url, path))
    return pairs


def listing_pages(folder: Path) -> list[tuple[str, Path]]:
    """Three real saved pages (tests/fixtures/pages), each under ``/display/?article=N``,
    with the default sort added, and with a tracking variable: (url, saved page) pairs."""
    pairs = []
    for n, name in enumerate(["ordnung", "peptalks", "modabot"]):
        path = folder / f"{name}.html"
        path.write_bytes(saved_page(name)[1])
        url = f"https://shop.example/display/?article={n}"
        pairs += [(form, path) for form in (url, f"{url}&sort=ascending", f"{url}&fakefoo=x{n}")]
    return pairs
