"""``pagekeeper install | uninstall | doctor``: the native-messaging host for the browsers.

``doctor`` exits 0 when nothing is wrong, a stopped daemon included (PageKeeper works without
it; the report says how to start it), 1 when it finds a fault, 2 for a usage error or a
config.json it cannot read (:data:`DOCTOR_EXIT`, shown by ``doctor --help``).

>>> render_doctor({"ok": True, "manifests": [], "token_readable": True,
...                "daemon": {"running": True, "url": "http://127.0.0.1:1"}, "home": "/h"})
'all good\\ntoken: readable\\ndaemon: running at http://127.0.0.1:1'
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.errors import PageKeeperError
from host.cli.backend import reading
from host.cli.command import command
from host.compiled import AREAS, described, running
from host.daemon.app import Config
from host.daemon.security import ensure_token
from host.home import Home
from host.native.installer import InstallOptions, choose_browsers, doctor, install, uninstall
from host.services.learning_file import bundled_cache_path, bundled_dictionary

BROWSER_CHOICES = ("all", "chrome", "chromium", "brave", "edge", "firefox")


def _options(args):

    profile = Path(args.profile_dir).expanduser().absolute() if args.profile_dir else None
    everything = args.browser == "all"  # only those installed here; a named one as asked
    return InstallOptions(choose_browsers(args.browser, profile), args.system, profile, everything)


def run_install(args, ctx):

    ensure_token(ctx.home)
    result = install(ctx.home, _options(args))
    result["dictionary_cache"] = warm_dictionary(ctx.home)
    return result


def warm_dictionary(home: Path) -> str:
    """Build the Suggester's index cache now, so the daemon's first start takes ~1 s, not ~6."""

    config = Config.load(home)
    bundled_dictionary(home, config.cache_dir)
    return str(bundled_cache_path(home, config.cache_dir))


def run_uninstall(args, ctx):

    return uninstall(ctx.home, _options(args))


def run_doctor(args, ctx):

    result = doctor(ctx.home, _options(args), archive=check_archive(ctx.home))
    # which build answers `suggest`, and which extracts a page's text, in this process
    result["suggestions"] = running("suggestions")
    result["extraction"] = running("extraction")
    return result


def check_archive(home: Path) -> dict:
    """The archive opened read-only (safe beside a running daemon): ``{"ok", "versions"}``;
    none yet is fine; one that cannot be read is a fault with the store's own reason."""
    if not Home(home).db.exists():
        return {"ok": True, "versions": 0}
    try:
        with reading(home) as store:
            return {"ok": True, "versions": len(store.ids)}
    except (PageKeeperError, OSError) as exc:
        return {"ok": False, "problem": str(exc)}


def render_install(result: dict) -> str:
    lines = [f"launcher: {result['launcher']}"]
    lines += [f"{i['browser']}: {i['manifest']}" for i in result["installed"]]
    lines += _missing_line(result)
    return "\n".join(lines)


def _missing_line(result: dict) -> list[str]:
    missing = result.get("missing") or []
    return [f"not installed here (skipped): {', '.join(missing)}"] if missing else []


# What a missing manifest or token means: the command that writes it, with doctor's own home
# and scope options (``install_command``), so the hint followed as printed fixes what was checked.
MISSING = "missing; {command} writes it"


def render_doctor(result: dict) -> str:
    lines = ["all good" if result["ok"] else "problems found"]
    missing = MISSING.format(command=result.get("install_command", "pagekeeper install"))
    for m in result["manifests"]:
        state = missing if not m["present"] else ("ok" if m.get("ok") else m.get("problem"))
        lines.append(f"{m['browser']}: {state} ({m['manifest']})")
        if m.get("serves"):
            lines.append(f"  serves the home {m['serves']}")
        if m.get("allowed"):
            lines.append(f"  allows {', '.join(m['allowed'])}")
    lines += _missing_line(result)
    lines.append(f"token: {'readable' if result['token_readable'] else missing}")
    lines.append(_daemon_line(result["daemon"]))
    if result.get("archive"):
        lines.append(_archive_line(result["archive"]))
    lines += [_build_line(area, result[area]) for area in AREAS if result.get(area)]
    return "\n".join(lines)


def _build_line(area: str, build: dict) -> str:
    """Which modules of ``area`` run: compiled (mypyc), or pure and why (never a fault)."""
    return f"{area}: {described(build)}"


def _daemon_line(daemon: dict) -> str:
    """Running (its address), running and not answering (a fault), or stopped (how to start)."""
    if daemon.get("running"):
        return f"daemon: running at {daemon['url']}"
    if daemon.get("problem"):
        return f"daemon: not answering: {daemon['problem']}"
    return f"daemon: {daemon.get('note', 'stopped')}"


def _archive_line(archive: dict) -> str:
    if not archive["ok"]:
        return f"archive: cannot be read: {archive['problem']}"
    versions = archive.get("versions", 0)
    return f"archive: ok ({versions} version{'s' if versions != 1 else ''})"


# Every doctor finding and the exit status it leads to (doctor --help shows it).
DOCTOR_EXIT = """exit status:
  0  nothing wrong; a stopped daemon is no fault (PageKeeper works without it;
     the report says how to start it), nor are browsers not installed here
  1  a fault: no manifest installed for any browser checked; a manifest that is
     unreadable, names another host, points at no executable, does not allow
     the extension or serves another home; the token file missing; a daemon that runs but does not
     answer; an archive that cannot be read
  2  a usage error, or a config.json that cannot be read"""


def _scope_options(parser, verb: str) -> None:
    parser.add_argument(
        "--browser",
        choices=BROWSER_CHOICES,
        default="all",
        help="one browser, or all (default): the browsers found on this machine",
    )
    parser.add_argument("--system", action="store_true", help="for all users (needs admin rights)")
    parser.add_argument(
        "--profile-dir", help=f"a browser profile (--user-data-dir) to {verb} instead"
    )


def register(sub, common) -> None:
    """Add install, uninstall and doctor."""
    p = command(sub, "install", run_install, common, "install the native host for your browsers")
    _scope_options(p, "install into")
    p.set_defaults(render=render_install)
    p = command(sub, "uninstall", run_uninstall, common, "remove the native host manifests")
    _scope_options(p, "remove it from")
    p.set_defaults(
        render=lambda r: (
            "\n".join(f"removed {m['manifest']}" for m in r["removed"]) or "nothing to remove"
        )
    )
    p = command(
        sub,
        "doctor",
        run_doctor,
        common,
        "check the native host, token, daemon and archive",
        epilog=DOCTOR_EXIT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _scope_options(p, "check")
    p.set_defaults(render=render_doctor, failed=lambda report: not report["ok"])
