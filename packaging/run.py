"""`make run`: start the archive daemon, build the extension, open a browser with it, and say what happened.

Run by the Makefile with the project's virtual environment. It only calls the
public CLI, so it shows a newcomer exactly the commands they can use later.
With a display and Debian's Chromium, it starts Chromium with the extension
loaded, the native host installed into that profile, and the viewer open.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PK = str(Path(sys.executable).with_name("pagekeeper"))
EXTENSION = ROOT / "dist" / "extension-chromium"
FIREFOX_EXTENSION = ROOT / "dist" / "extension-firefox"
CHROMIUM_CANDIDATES = (
    "/usr/lib/chromium/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome",
)
CHROMIUM_FLAGS = ("--no-first-run", "--disable-background-networking", "--disable-sync")
STARTUP_CHECK_S = (
    3.0  # a browser that cannot start (no display, root without --no-sandbox) dies sooner
)
LOG_LINES = 8
# The command as a newcomer types it after `make run` (the venv is not on PATH yet), and the
# commands the closing lines suggest (tests/packaging/test_run.py parses each one).
COMMAND = ".venv/bin/pagekeeper"
NEXT_STEPS = (
    ("Try:", ("suggest", "http://gooogle.com/")),
    ("", ("archive", "add", "https://example.com/")),
    ("Stop:", ("stop",)),
)


def command_here() -> str:
    """The command as the closing lines print it: with ``--home`` when ``make run`` was given a
    home of its own (``$PAGEKEEPER_HOME``), which a new shell does not have, so each line acts
    on the archive ``make run`` started."""
    home = os.environ.get("PAGEKEEPER_HOME")
    return f"{COMMAND} --home {shlex.quote(home)}" if home else COMMAND


def pk(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PK, *args], capture_output=True, text=True, cwd=ROOT)


def step(title: str, *args: str) -> str:
    done = pk(*args)
    print(f"- {title}: " + ("ok" if done.returncode == 0 else f"failed ({done.returncode})"))
    if done.returncode != 0:
        print("  " + (done.stderr.strip() or done.stdout.strip()).replace("\n", "\n  "))
    return done.stdout if done.returncode == 0 else ""


def find_chromium() -> str | None:
    for name in CHROMIUM_CANDIDATES:
        found = name if os.access(name, os.X_OK) else shutil.which(name)
        if found:
            return found
    return None


def chromium_args(chromium: str, profile: Path, viewer: str) -> list[str]:
    """The command line: as root Chromium refuses to start without ``--no-sandbox``
    ("Running as root without --no-sandbox is not supported", crbug.com/638180)."""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    return [
        chromium,
        f"--user-data-dir={profile}",
        f"--load-extension={EXTENSION}",
        *CHROMIUM_FLAGS,
        *(["--no-sandbox"] if root else []),
        viewer,
    ]


def launch(args: list[str], log: Path, settle_s: float = STARTUP_CHECK_S, env=None):
    """Start the browser with its output in ``log``; ``(process, None)`` if it still runs after
    ``settle_s`` seconds, else ``(None, why)`` with the exit status and its last lines."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        process = subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env
        )
    try:
        status = process.wait(timeout=settle_s)
    except subprocess.TimeoutExpired:
        return process, None
    said = log.read_text("utf-8", "replace").strip().splitlines()[-LOG_LINES:]
    return None, f"it exited at once (status {status})" + "".join(f"\n  {line}" for line in said)


def start_browser(home: Path, viewer: str) -> bool:
    """Start Chromium with its own profile, the extension and our native host; True only if it
    is still running a moment later (else say why, with Chromium's own words)."""
    chromium = find_chromium()
    if not chromium or not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    profile = home / "chromium-profile"
    step(
        "install the native host into that profile",
        "install",
        "--browser",
        "chromium",
        "--profile-dir",
        str(profile),
    )
    log = home / "logs" / "chromium.log"
    process, why = launch(chromium_args(chromium, profile, viewer), log)
    if process is None:
        print(f"- starting {chromium} failed: {why}\n  (all of its output: {log})")
        return False
    print(f"- started {chromium} with the extension (profile {profile}, output in {log})")
    return True


def open_viewer() -> bool:
    """`pagekeeper open`: "ok" only when a browser was started (``opened`` in its answer);
    with none, the user is told to open the address printed below."""
    done = pk("open", "--json")
    answer = json.loads(done.stdout or "{}") if done.returncode == 0 else {}
    if answer.get("opened"):
        print("- open the archive viewer in your browser: ok")
        return True
    why = "no browser could be started" if done.returncode == 0 else done.stderr.strip()
    print(f"- open the archive viewer in your browser: {why}; open the Viewer address below")
    return False


def load_extension() -> str:
    """How to load the built extension by hand, in each browser ``install`` registers the
    helper with (Firefox loads an unsigned add-on only as a temporary one, from its manifest)."""
    return (
        "Load the extension:\n"
        f"  Chromium: chrome://extensions → developer mode → 'Load unpacked' → {EXTENSION}\n"
        "  Firefox:  about:debugging#/runtime/this-firefox → 'Load Temporary Add-on…' → "
        f"{FIREFOX_EXTENSION / 'manifest.json'}"
    )


def main() -> int:
    print("PageKeeper: setting up and starting")
    step("start the archive daemon", "serve", "--detach")
    status = json.loads(step("daemon status", "status", "--json") or "{}")
    if status.get("running"):
        print(f"  daemon pid {status['pid']} on {status['url']}, data in {status['home']}")
    subprocess.run([sys.executable, str(ROOT / "packaging" / "build_extension.py")], check=False)
    installed = step(
        "install the native-messaging host for your browsers", "install", "--browser", "all"
    )
    print("".join(f"  {line}\n" for line in installed.splitlines()), end="")  # what it wrote
    viewer = json.loads(step("viewer address", "open", "--no-browser", "--json") or "{}").get(
        "url", ""
    )
    home = Path(status.get("home") or ".")
    if not start_browser(home, viewer):
        open_viewer()
        print("\n" + load_extension())
    print(f"\nViewer: {viewer}")
    for label, argv in NEXT_STEPS:
        print(f"{label:<8}{command_here()} {' '.join(argv)}")
    print(
        f"On PATH: . {Path(COMMAND).parent}/activate  (then plain `pagekeeper …`, as in README.md)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
