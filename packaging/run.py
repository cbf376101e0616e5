"""`make run`: start the archive daemon, build the extension, open the viewer, and say what happened.

Run by the Makefile with the project's virtual environment; it only calls the
public CLI, so it shows a newcomer exactly the commands they can use later.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PK = str(Path(sys.executable).with_name("pagekeeper"))


def pk(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PK, *args], capture_output=True, text=True, cwd=ROOT)


def step(title: str, *args: str) -> str:
    done = pk(*args)
    status = "ok" if done.returncode == 0 else f"failed ({done.returncode})"
    print(f"- {title}: {status}")
    if done.returncode != 0:
        print("  " + (done.stderr.strip() or done.stdout.strip()).replace("\n", "\n  "))
    return done.stdout


def main() -> int:
    print("PageKeeper: setting up and starting")
    step("start the archive daemon", "serve", "--detach")
    status = json.loads(step("daemon status", "status", "--json") or "{}")
    if status.get("running"):
        print(f"  daemon pid {status['pid']} on {status['url']}, data in {status['home']}")
    subprocess.run([sys.executable, str(ROOT / "packaging" / "build_extension.py")], check=False)
    step("install the native-messaging host for your browsers", "install", "--browser", "all")
    step("open the archive viewer", "open")
    browser = shutil.which("chromium") or shutil.which("google-chrome")
    ext = ROOT / "dist" / "extension-chromium"
    print(
        f"\nLoad the extension: open chrome://extensions, enable developer mode, 'Load unpacked' {ext}"
    )
    if browser:
        print(f"or start a browser with it: {browser} --load-extension={ext}")
    print(
        "Try it: pagekeeper suggest http://gooogle.com/   ·   pagekeeper archive add https://example.com/"
    )
    print("Stop the daemon with: .venv/bin/pagekeeper stop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
