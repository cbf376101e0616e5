"""Install the native-messaging host manifest for every browser × OS from ONE data table.

Where browsers look (Chrome: developer.chrome.com/docs/extensions/develop/concepts/native-messaging
#native-messaging-host-location; Firefox: MDN "Native manifests"; Edge and Brave
follow Chrome's scheme under their own directories and registry keys):

* Linux/macOS: a JSON file ``<dir>/com.pagekeeper.host.json``;
* Windows: the file lives in our home, and a registry key's default value
  (``HKCU\\…\\NativeMessagingHosts\\com.pagekeeper.host``, HKLM with ``--system``)
  points at it;
* ``--profile-dir DIR``: ``DIR/NativeMessagingHosts/`` for a Chromium started with
  ``--user-data-dir=DIR`` (it reads no other per-user location then).

The manifest's ``path`` is a launcher written into the home (``bin/``) that sets
``PAGEKEEPER_HOME`` and execs ``python -m host.native.relay`` of this environment
(exactly ``pagekeeper native``, without loading the whole CLI), or the
single-file binary when running frozen. With ``--system`` the launcher (and the
Windows manifests) go beside the program instead (:func:`shared_dir`) and set no
home: every user's browser then reaches that user's own data dir and daemon.

>>> sorted(BROWSERS)
['brave', 'chrome', 'chromium', 'edge', 'firefox']
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import InvalidInput
from host.daemon import client
from host.daemon.app import Config
from host.daemon.pause import paused
from host.daemon.security import read_token
from host.home import HOME_ENV, Home, atomic_write, default_home

if sys.platform == "win32":  # pragma: no cover - the browsers find their hosts in the registry
    import winreg

HOST_NAME = "com.pagekeeper.host"
DESCRIPTION = "PageKeeper native host: relays the extension to the local archive daemon"

# browser -> OS -> (user location, system location); "~" is the user's home.
# On Windows the locations are registry keys (HKCU for user, HKLM for system).
BROWSERS: dict[str, dict[str, tuple[str, str]]] = {
    "chrome": {
        "linux": (
            "~/.config/google-chrome/NativeMessagingHosts",
            "/etc/opt/chrome/native-messaging-hosts",
        ),
        "darwin": (
            "~/Library/Application Support/Google/Chrome/NativeMessagingHosts",
            "/Library/Google/Chrome/NativeMessagingHosts",
        ),
        "win32": ("Software\\Google\\Chrome\\NativeMessagingHosts",) * 2,
    },
    "chromium": {
        "linux": (
            "~/.config/chromium/NativeMessagingHosts",
            "/etc/chromium/native-messaging-hosts",
        ),
        "darwin": (
            "~/Library/Application Support/Chromium/NativeMessagingHosts",
            "/Library/Application Support/Chromium/NativeMessagingHosts",
        ),
        "win32": ("Software\\Chromium\\NativeMessagingHosts",) * 2,
    },
    "brave": {
        "linux": (
            "~/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            "/etc/opt/chrome/native-messaging-hosts",
        ),
        "darwin": (
            "~/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            "/Library/Google/Chrome/NativeMessagingHosts",
        ),
        "win32": ("Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts",) * 2,
    },
    "edge": {
        "linux": (
            "~/.config/microsoft-edge/NativeMessagingHosts",
            "/etc/opt/edge/native-messaging-hosts",
        ),
        "darwin": (
            "~/Library/Application Support/Microsoft Edge/NativeMessagingHosts",
            "/Library/Microsoft/Edge/NativeMessagingHosts",
        ),
        "win32": ("Software\\Microsoft\\Edge\\NativeMessagingHosts",) * 2,
    },
    "firefox": {
        "linux": ("~/.mozilla/native-messaging-hosts", "/usr/lib/mozilla/native-messaging-hosts"),
        "darwin": (
            "~/Library/Application Support/Mozilla/NativeMessagingHosts",
            "/Library/Application Support/Mozilla/NativeMessagingHosts",
        ),
        "win32": ("Software\\Mozilla\\NativeMessagingHosts",) * 2,
    },
}
FIREFOX = {"firefox"}
# browser -> OS -> signs that it is installed: a program name looked up on PATH, or a path
# ("~" and %VARS% expanded) of its program or of a file only the browser itself writes in its
# user data folder ("Local State", profiles.ini): the folder alone may hold nothing but a
# manifest an earlier `install` wrote.
SIGNS: dict[str, dict[str, tuple[str, ...]]] = {
    "chrome": {
        "linux": ("google-chrome", "google-chrome-stable", "/opt/google/chrome/chrome", "~/.config/google-chrome/Local State"),
        "darwin": ("/Applications/Google Chrome.app", "~/Applications/Google Chrome.app"),
        "win32": ("%LOCALAPPDATA%\\Google\\Chrome\\User Data\\Local State", "%PROGRAMFILES%\\Google\\Chrome\\Application\\chrome.exe"),
    },
    "chromium": {
        "linux": ("chromium", "chromium-browser", "/usr/lib/chromium/chromium", "/snap/bin/chromium", "~/.config/chromium/Local State"),
        "darwin": ("/Applications/Chromium.app", "~/Applications/Chromium.app"),
        "win32": ("%LOCALAPPDATA%\\Chromium\\User Data\\Local State",),
    },
    "brave": {
        "linux": ("brave-browser", "brave", "/opt/brave.com/brave/brave", "~/.config/BraveSoftware/Brave-Browser/Local State"),
        "darwin": ("/Applications/Brave Browser.app", "~/Applications/Brave Browser.app"),
        "win32": ("%LOCALAPPDATA%\\BraveSoftware\\Brave-Browser\\User Data\\Local State",),
    },
    "edge": {
        "linux": ("microsoft-edge", "microsoft-edge-stable", "/opt/microsoft/msedge/msedge", "~/.config/microsoft-edge/Local State"),
        "darwin": ("/Applications/Microsoft Edge.app", "~/Applications/Microsoft Edge.app"),
        "win32": ("%LOCALAPPDATA%\\Microsoft\\Edge\\User Data\\Local State",),
    },
    "firefox": {
        "linux": ("firefox", "firefox-esr", "/usr/lib/firefox/firefox", "/usr/lib/firefox-esr/firefox-esr", "/snap/bin/firefox", "~/.mozilla/firefox/profiles.ini"),
        "darwin": ("/Applications/Firefox.app", "~/Applications/Firefox.app"),
        "win32": ("%APPDATA%\\Mozilla\\Firefox\\profiles.ini", "%PROGRAMFILES%\\Mozilla Firefox\\firefox.exe"),
    },
}  # fmt: skip


@dataclass(frozen=True)
class InstallOptions:
    """What to install: browsers, user or system scope, or a browser profile dir."""

    browsers: tuple[str, ...] = tuple(BROWSERS)
    system: bool = False
    profile_dir: Path | None = None
    present_only: bool = False  # `--browser all`: only the browsers found on this machine


def browser_present(browser: str, platform: str | None = None) -> bool:
    """Whether ``browser`` is installed here: one of its :data:`SIGNS` is found."""
    for sign in SIGNS[browser].get(platform_key(platform), ()):
        if "/" in sign or "\\" in sign:
            if Path(os.path.expandvars(os.path.expanduser(sign))).exists():
                return True
        elif shutil.which(sign):
            return True
    return False


def present_and_missing(options: InstallOptions, platform=None) -> tuple[tuple[str, ...], list]:
    """The browsers to install or check, and those left out because they are not installed."""
    if not options.present_only or options.profile_dir is not None:
        return options.browsers, []
    present = tuple(b for b in options.browsers if browser_present(b, platform))
    return present, [b for b in options.browsers if b not in present]


def platform_key(platform: str | None = None) -> str:
    platform = platform or sys.platform
    return "linux" if platform.startswith("linux") else platform


def choose_browsers(name: str, profile_dir: Path | None = None) -> tuple[str, ...]:
    """``all`` or one browser; a profile dir is a Chromium-family idea (Firefox skipped)."""
    if name == "all":
        chosen = tuple(BROWSERS)
    elif name in BROWSERS:
        chosen = (name,)
    else:
        raise InvalidInput(f"unknown browser {name!r}; choose all or {', '.join(BROWSERS)}")
    return tuple(b for b in chosen if not (profile_dir and b in FIREFOX)) or chosen


def manifest_dir(browser: str, options: InstallOptions, platform: str | None = None) -> str:
    """The directory (or, on Windows, the registry key) for one browser."""
    if options.profile_dir is not None:
        return str(Path(options.profile_dir).expanduser().absolute() / "NativeMessagingHosts")
    user, system = BROWSERS[browser][platform_key(platform)]
    return os.path.expanduser(system if options.system else user)


def manifest(browser: str, launcher: Path, chrome_ids: list[str], firefox_ids: list[str]) -> dict:
    """Chrome's ``allowed_origins`` need the trailing slash; Firefox lists add-on IDs."""
    data: dict[str, str | list[str]] = {
        "name": HOST_NAME,
        "description": DESCRIPTION,
        "path": str(launcher),
        "type": "stdio",
    }
    if browser in FIREFOX:
        data["allowed_extensions"] = list(firefox_ids)
    else:
        data["allowed_origins"] = [f"chrome-extension://{ext}/" for ext in chrome_ids]
    return data


# Every launcher says whose it is (a --system one names no home and, from the single-file
# binary, no module either): how doctor tells our launcher from another program's.
LAUNCHER_MARK = "PageKeeper native-messaging host launcher, written by `pagekeeper install`."
# The binary's cmd launcher written before it carried the mark: ``"…\pagekeeper.exe" native %*``.
_BINARY_CMD = re.compile(r'^"[^"]*pagekeeper[^"\\/]*" native %\*\s*$', re.M | re.I)


def launcher_text(home: Path | None, platform: str | None = None) -> str:
    """The launcher script: our home (``None``: each user's default), then this environment's
    native host."""
    frozen = getattr(sys, "frozen", False)
    if platform_key(platform) == "win32":
        target = (
            f'"{sys.executable}" native' if frozen else f'"{sys.executable}" -m host.native.relay'
        )
        env = f'set "PAGEKEEPER_HOME={home}"\r\n' if home is not None else ""
        return f"@echo off\r\nrem {LAUNCHER_MARK}\r\n{env}{target} %*\r\n"
    argv = [sys.executable, "native"] if frozen else [sys.executable, "-m", "host.native.relay"]
    env = (
        f"PAGEKEEPER_HOME={shlex.quote(str(home))}\nexport PAGEKEEPER_HOME\n"
        if home is not None
        else ""
    )
    return (
        f'#!/bin/sh\n# {LAUNCHER_MARK}\n{env}exec {" ".join(shlex.quote(a) for a in argv)} "$@"\n'
    )


def shared_dir() -> Path:
    """Where ``--system`` puts the launcher (and, on Windows, the manifests): beside this
    program (the environment's ``bin/``, or the binary's folder), which every user can read.
    That launcher sets no ``PAGEKEEPER_HOME``, so each user's host keeps its own data dir.
    """
    return Path(sys.executable).parent


def _shared(options: InstallOptions) -> bool:
    return options.system and options.profile_dir is None


def write_launcher(home: Path, platform: str | None = None, shared: bool = False) -> Path:
    """``<home>/bin/pagekeeper-native`` (``.cmd`` on Windows), executable; with ``shared``
    (``--system``) ``<shared_dir>/pagekeeper-native``, for every user."""
    suffix = ".cmd" if platform_key(platform) == "win32" else ""
    folder = shared_dir() if shared else Home(Path(home)).launchers
    path = folder / f"pagekeeper-native{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, launcher_text(None if shared else home, platform).encode("utf-8"))
    path.chmod(0o755)
    return path


def _registry(scope_system: bool) -> tuple[Any, Any]:
    """``(winreg, HKLM or HKCU)``; tests swap in a recording stand-in for ``winreg``."""
    if sys.platform == "win32":  # pragma: no cover
        return winreg, winreg.HKEY_LOCAL_MACHINE if scope_system else winreg.HKEY_CURRENT_USER
    raise InvalidInput("the Windows registry exists only on Windows")


def _uses_registry(options: InstallOptions, platform: str | None) -> bool:
    return platform_key(platform) == "win32" and options.profile_dir is None


def registered_manifest(browser: str, options: InstallOptions, platform=None) -> str | None:
    """The manifest path the browser's registry key names (Windows), or ``None`` if no key."""
    winreg, root = _registry(options.system)
    try:
        with winreg.OpenKey(
            root, f"{manifest_dir(browser, options, platform)}\\{HOST_NAME}"
        ) as key:
            return winreg.QueryValueEx(key, "")[0]
    except OSError:
        return None


def _install_one(browser, options, home, launcher, ids, platform) -> dict:
    where = manifest_dir(browser, options, platform)
    body = json.dumps(manifest(browser, launcher, *ids), indent=2).encode("utf-8")
    if _uses_registry(options, platform):
        path = manifest_path(browser, options, home, platform)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, body)
        winreg, root = _registry(options.system)
        with winreg.CreateKey(root, f"{where}\\{HOST_NAME}") as key:
            winreg.SetValueEx(key, "", 0, winreg.REG_SZ, str(path))
        return {"browser": browser, "manifest": str(path), "registry": where}
    path = Path(where) / f"{HOST_NAME}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, body)
    return {"browser": browser, "manifest": str(path)}


def check_profile_dir(profile_dir: Path | None) -> None:
    """A profile dir to install into is a folder, or a new one inside a folder that exists
    (Chromium makes its ``--user-data-dir`` at its first start, which may come after the
    install); a missing parent is a mistyped path: InvalidInput, nothing written.

    >>> check_profile_dir(Path("/nonexistent-pagekeeper/x"))
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: no profile dir /nonexistent-pagekeeper/x: its folder /nonexistent-pagekeeper does not exist (is the path typed right?)
    """
    if profile_dir is None:
        return
    where = Path(profile_dir).expanduser().absolute()
    if where.exists() and not where.is_dir():
        raise InvalidInput(f"profile dir {where} is a file, not a folder")
    if not where.exists() and not where.parent.is_dir():
        raise InvalidInput(
            f"no profile dir {where}: its folder {where.parent} does not exist"
            " (is the path typed right?)"
        )


def install(home: Path, options: InstallOptions, config=None, platform: str | None = None) -> dict:
    """Write the launcher and one manifest per browser; report what was written."""

    check_profile_dir(options.profile_dir)
    config = config or Config.load(home)
    launcher = write_launcher(home, platform, _shared(options))
    ids = (config.all_extension_ids(), config.firefox_ids)
    browsers, missing = present_and_missing(options, platform)
    written = [_install_one(b, options, home, launcher, ids, platform) for b in browsers]
    return {
        "launcher": str(launcher),
        "installed": written,
        "missing": missing,
        "extension_ids": ids[0],
        "firefox_ids": ids[1],
    }


def manifest_path(browser: str, options: InstallOptions, home: Path, platform=None) -> Path:
    if _uses_registry(options, platform):  # the file is ours to place; the key points at it
        base = shared_dir() if _shared(options) else Path(home)
        return base / "native-messaging" / browser / f"{HOST_NAME}.json"
    return Path(manifest_dir(browser, options, platform)) / f"{HOST_NAME}.json"


def uninstall(home: Path, options: InstallOptions, platform: str | None = None) -> dict:
    """Remove our manifests (and registry keys); the data in the home stays."""
    removed = []
    for browser in options.browsers:
        path = manifest_path(browser, options, home, platform)
        if path.exists():
            path.unlink()
            removed.append({"browser": browser, "manifest": str(path)})
        if _uses_registry(options, platform):
            winreg, root = _registry(options.system)
            with contextlib.suppress(OSError):
                winreg.DeleteKey(root, f"{manifest_dir(browser, options, platform)}\\{HOST_NAME}")
    return {"removed": removed}


def launcher_home(launcher: Path) -> tuple[Path | None, bool]:
    """The home a launcher :func:`launcher_text` wrote serves, and whether it names it: the
    ``PAGEKEEPER_HOME`` it sets (a per-user install), else, for ``--system``'s launcher, which
    sets none, the platform's default home of the user the browser runs as; ``(None, False)``
    for a file that is not our launcher (no home can be told).

    >>> import tempfile
    >>> made = Path(tempfile.mkdtemp()) / "pagekeeper-native"
    >>> _ = made.write_text(launcher_text(Path("/data/my home")))
    >>> launcher_home(made)
    (PosixPath('/data/my home'), True)
    """
    try:
        text = launcher.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None, False
    for line in text.splitlines():
        if line.startswith(f"{HOME_ENV}="):  # sh: PAGEKEEPER_HOME=<shell-quoted>
            words = shlex.split(line.split("=", 1)[1])
            return (Path(words[0]), True) if words else (None, False)
        if line.startswith(f'set "{HOME_ENV}='):  # cmd: set "PAGEKEEPER_HOME=<path>"
            return Path(line.split("=", 1)[1].rstrip('"')), True
    ours = "host.native.relay" in text or "PageKeeper" in text or _BINARY_CMD.search(text)
    return (default_home(), False) if ours else (None, False)


def _same_home(a: Path, b: Path) -> bool:
    return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()


def check_manifest(
    browser: str,
    path: Path,
    windows: bool = False,
    registered=None,
    expected=(),
    again: str = "pagekeeper install",
    home: Path | None = None,
    own: str | None = None,
) -> dict:
    """One doctor line: present, valid, pointing at an executable, which IDs it allows, and
    which home its launcher serves (``serves``): one other than ``home`` is a fault, since the
    browser's helper then reads and writes that home's archive, not this one's.

    On Windows (``windows``) the browser finds the file only through its registry key:
    ``registered`` is the path that key names (``None``: no key), and must be ``path``.
    ``expected``: the origins (Firefox: add-on IDs) the manifest must allow, ours.
    A launcher that names no home (``--system``'s) serves each user's default home: for
    any other ``home`` that is a fault too, whose fix is ``own``, the per-user install of
    ``home`` (a browser reads a user's manifest before the system's).
    """
    entry = {"browser": browser, "manifest": str(path), "present": path.is_file()}
    if windows:
        entry["registry_value"] = registered
        entry["present"] = entry["present"] and registered is not None and Path(registered) == path
    if not entry["present"]:
        return entry
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        return {**entry, "ok": False, "problem": f"unreadable manifest: {exc}"}
    target = Path(data.get("path", ""))
    executable = target.is_absolute() and target.is_file() and os.access(target, os.X_OK)
    allowed = _allowed(data, browser)
    problem = (
        None
        if executable
        else f"path {str(target)!r} is not an executable file (run {again} again)"
    )
    serves, named = launcher_home(target) if executable else (None, False)
    if serves is not None and home is not None and not _same_home(serves, home):
        problem = (
            f"serves another home ({serves}), not {home}: the browser's helper uses that"
            f" home's archive; {again} makes it serve this one instead"
            if named
            else f"serves each user's default home ({serves}: a --system install), not {home}:"
            " the browser's helper uses that home's archive;"
            f" {own or again} (for this user) makes it serve this one instead"
        )
    missing = [ext for ext in expected if ext not in allowed]
    if missing:
        problem = f"does not allow {', '.join(missing)} (run {again} again)"
    if data.get("name") != HOST_NAME:
        problem = f"name is {data.get('name')!r}, not {HOST_NAME}"
    return {
        **entry,
        "ok": problem is None,
        "path": str(target),
        "serves": None if serves is None else str(serves),
        "allowed": allowed,
        "problem": problem,
    }


def _allowed(data: dict, browser: str) -> list[str]:
    return data.get("allowed_extensions" if browser in FIREFOX else "allowed_origins", [])


# What a stopped daemon means: information, not a fault (every operation has one path,
# daemon or not: host/cli/backend.py), and how to start it.
def daemon_stopped(home: Path | None = None) -> str:
    return (
        "stopped: PageKeeper works without it (the browser's helper starts it when needed); "
        f"to start it now: {client.own_command(home)} serve --detach"
    )


def daemon_paused(home: Path | None = None) -> str:
    return (
        "stopped until the next login (pagekeeper stop --until-login): the browser's helper "
        f"starts none until then; to start it now: {client.own_command(home)} serve --detach"
    )


def doctor(
    home: Path, options: InstallOptions, platform: str | None = None, archive: dict | None = None
) -> dict:
    """Manifests present and executable, token readable, IDs allowed, the daemon when it runs,
    and the ``archive`` check the caller made (it opens the store: not this module's part).

    ``ok`` is False only for a fault: no manifest installed, a manifest that is wrong, no
    token, a daemon that runs but does not answer, an archive that cannot be read. A stopped
    daemon is not one (``daemon.note`` says how to start it).
    """

    config = Config.load(home)
    ids = (config.all_extension_ids(), config.firefox_ids)
    windows = _uses_registry(options, platform)
    browsers, missing = present_and_missing(options, platform)
    again = install_command(home, options)
    manifests = [
        check_manifest(
            b,
            manifest_path(b, options, home, platform),
            windows,
            registered_manifest(b, options, platform) if windows else None,
            _allowed(manifest(b, Path(), *ids), b),
            again,
            home,
            install_command(home, dataclasses.replace(options, system=False)),
        )
        for b in browsers
    ]
    token = read_token(home)
    daemon = daemon_state(home)
    installed = [m for m in manifests if m["present"]]
    archive = archive or {"ok": True}
    ok = (
        bool(installed)
        and all(m.get("ok") for m in installed)
        and bool(token)
        and "problem" not in daemon
        and archive["ok"]
    )
    return {
        "ok": ok,
        "manifests": manifests,
        "missing": missing,
        "token_readable": bool(token),
        "daemon": daemon,
        "archive": archive,
        "home": str(home),
        "install_command": again,
    }


def install_command(home: Path, options: InstallOptions) -> str:
    """The ``install`` that writes what ``doctor`` checked with these options: the same home,
    browser, scope and profile folder, as a command a user can type.

    >>> said = install_command(Path("/h"), InstallOptions(("chromium",), profile_dir=Path("/p q")))
    >>> said.removeprefix(client.own_command())
    " --home /h install --browser chromium --profile-dir '/p q'"
    """
    words = [client.own_command(home), "install"]
    if len(options.browsers) == 1:
        words += ["--browser", options.browsers[0]]
    if options.system:
        words.append("--system")
    if options.profile_dir is not None:
        words += ["--profile-dir", shlex.quote(str(options.profile_dir))]
    return " ".join(words)


def daemon_state(home: Path) -> dict:
    """``{"running": True, "url", "ping"}``; ``{"running": False, "note"}`` when it is stopped;
    ``{"running": False, "problem"}`` when it runs (or says it does) and does not answer."""
    try:
        state = client.running(home)
        if not state:
            note = daemon_paused(home) if paused(home) else daemon_stopped(home)
            return {"running": False, "note": note}
        return {"running": True, "url": state["url"], "ping": client.call(home, "ping", timeout=5)}
    except Exception as exc:
        return {"running": False, "problem": str(exc)}
