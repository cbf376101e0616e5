"""Two native hosts and the CLI writing at once: one daemon starts, nothing is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from tests.host.daemon_fixtures import ROOT, NativeHost, pk

PER_WRITER = 15


def page(writer: str, n: int) -> str:
    return (
        f"<title>{writer} {n}</title><h1>Page {n} by {writer}</h1><p>{'lorem ipsum ' * (n + 5)}</p>"
    )


def native_writer(home: Path, name: str, results: dict) -> None:
    host = NativeHost(home, "chrome-extension://iemmkbppohhfaaamfnchoaeokbamlbba/")
    for n in range(PER_WRITER):  # pipelined: all requests first, then the replies
        url = f"https://{name}.example/p/{n}"
        host.send(
            {
                "id": f"{name}-{n}",
                "type": "archive_page",
                "params": {"url": url, "html": page(name, n)},
            }
        )
    replies = [host.recv() for _ in range(PER_WRITER)]
    results[name] = replies
    host.close()


def cli_writer(home: Path, tmp: Path, results: dict) -> None:
    replies = []
    for n in range(PER_WRITER // 3):
        path = tmp / f"cli-{n}.html"
        path.write_text(page("cli", n))
        done = pk(
            home,
            "archive",
            "add",
            f"https://cli.example/p/{n}",
            "--html",
            str(path),
            "--json",
            check=False,
        )
        replies.append((done.returncode, done.stdout, done.stderr))
    results["cli"] = replies


def daemon_processes(home: Path) -> list[int]:
    """Live daemon processes (`serve`, or `-m host.daemon` as spawned) for this home (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (b"serve" in argv or b"host.daemon" in argv) and str(home).encode() in argv:
            found.append(int(entry.name))
    return found


def test_two_native_hosts_and_the_cli_at_once(home, tmp_path):
    results: dict = {}
    threads = [
        threading.Thread(target=native_writer, args=(home, "alpha", results)),
        threading.Thread(target=native_writer, args=(home, "beta", results)),
        threading.Thread(target=cli_writer, args=(home, tmp_path, results)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)
    for name in ("alpha", "beta"):
        assert len(results[name]) == PER_WRITER
        assert all(r["ok"] for r in results[name]), [r for r in results[name] if not r["ok"]][:2]
    cli_ids = []
    for code, out, err in results["cli"]:
        assert code == 0, err
        cli_ids.append(json.loads(out)["id"])
    if sys.platform.startswith("linux"):
        assert len(daemon_processes(home)) == 1
    acked = {r["result"]["id"] for name in ("alpha", "beta") for r in results[name]} | set(cli_ids)
    assert len(acked) == 2 * PER_WRITER + PER_WRITER // 3
    # restart: every acknowledged registration survived and is one version of its own URL
    pk(home, "stop")
    env = {**os.environ, "PAGEKEEPER_HOME": str(home)}
    code = (
        "import json, sys\n"
        "from engine.archive.store import ArchiveStore\n"
        "s = ArchiveStore.open(sys.argv[1], readonly=True)\n"
        "print(json.dumps([i for i in sys.argv[2:] if s.has_version(i)]))\n"
        "s.close()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(home), *sorted(acked)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)) == acked
