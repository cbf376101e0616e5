"""``pagekeeper serve | stop | status | native | open``: the daemon and the native host.

>>> render_status({"running": False, "home": "/h"}).replace(client.own_command(), "PK")
'daemon not running (home /h); to start it: PK --home /h serve --detach'
"""

from __future__ import annotations

import argparse
import sys
import webbrowser
from pathlib import Path

from host.cli.command import command
from host.daemon import client
from host.daemon import main as daemon
from host.daemon.app import HIGHEST_PORT
from host.daemon.security import read_token
from host.native import relay


def render_status(state: dict) -> str:
    """Running (its address) or not (the command that starts it for this home, as printed)."""
    if not state.get("running"):
        start = f"{client.own_command(Path(state['home']))} serve --detach"
        return f"daemon not running (home {state['home']}); to start it: {start}"
    note = " (already running)" if state.get("already_running") else ""
    return f"daemon pid {state['pid']} serving {state['url']}{note} (home {state['home']})"


def run_serve(args, ctx):

    if args.detach:
        return daemon.start_detached(ctx.home, args.port, daemon.starting_note(ctx.stderr))
    announce = daemon.announce_stderr if not ctx.json else lambda s: None
    return daemon.serve(ctx.home, args.port, announce)


def run_stop(args, ctx):

    return daemon.stop(ctx.home, until_login=args.until_login)


def render_stop(result: dict) -> str:
    """What stopping means: a plain stop lasts until the browser needs the daemon again. The
    commands it names run as printed (this PageKeeper, for the home it stopped).

    >>> said = render_stop({"stopped": True, "restarts": "on_demand"})
    >>> print(said.replace(client.own_command(), "PK"))
    stopped. The next page load that needs PageKeeper (a failed address, the popup) starts it again;
    to keep it stopped until you log in again: PK stop --until-login
    """
    done = "stopped" if result.get("stopped") else "daemon not running"
    program = client.own_command(Path(result["home"]) if result.get("home") else None)
    if result.get("restarts") == "next_login":
        return (
            f"{done}; it stays stopped until you log in again or restart the computer "
            f"({program} serve --detach starts it now)"
        )
    return (
        f"{done}. The next page load that needs PageKeeper (a failed address, the popup) starts "
        f"it again;\nto keep it stopped until you log in again: {program} stop --until-login"
    )


def run_status(args, ctx):

    return daemon.status(ctx.home)


def run_native(args, ctx):

    relay.run(ctx.home, args.caller)
    return None


def viewer_url(state: dict, token: str, page: str = "/viewer/") -> str:
    """The viewer's address with the token (the viewer keeps it; the daemon sets its cookie)."""
    return f"{state['url']}{page}?token={token}"


def run_open(args, ctx):

    state = client.ensure_daemon(ctx.home)
    url = viewer_url(state, read_token(ctx.home) or "")
    opened = False if args.no_browser else webbrowser.open(url)
    if not opened and not args.no_browser:
        sys.stderr.write("no browser could be started; open the URL yourself\n")
    return {"url": url, "opened": opened}


def port_number(text: str) -> int:
    """``--port``: a TCP port, 0 to 65535 (0: the system picks a free one); argparse turns the
    refusal into a usage error.

    >>> port_number("8080")
    8080
    >>> port_number("99999")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a TCP port is a whole number from 0 to 65535, not '99999'
    """
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= HIGHEST_PORT:
        raise argparse.ArgumentTypeError(
            f"a TCP port is a whole number from 0 to {HIGHEST_PORT}, not {text!r}"
        )
    return port


def register(sub, common) -> None:
    """Add serve, stop, status, native and open."""
    p = command(sub, "serve", run_serve, common, "run the archive daemon (one per data dir)")
    p.add_argument(
        "--port", type=port_number, default=None, help="TCP port on 127.0.0.1 (default 47477)"
    )
    p.add_argument("--detach", action="store_true", help="start in the background and return")
    p.set_defaults(render=render_status)
    p = command(sub, "stop", run_stop, common, "stop the archive daemon")
    p.add_argument(
        "--until-login",
        action="store_true",
        help="keep it stopped (the browser does not start it) until the next login or boot",
    )
    p.set_defaults(render=render_stop)
    p = command(sub, "status", run_status, common, "is the daemon running, and where")
    p.set_defaults(render=render_status)
    p = command(sub, "native", run_native, common, "native-messaging host (started by the browser)")
    p.add_argument(
        "caller", nargs=argparse.ZERO_OR_MORE, help="origin or manifest path + add-on ID"
    )
    p = command(sub, "open", run_open, common, "open the archive viewer in a browser")
    p.add_argument("--no-browser", action="store_true", help="only print the URL")
    p.set_defaults(render=lambda r: r["url"])
