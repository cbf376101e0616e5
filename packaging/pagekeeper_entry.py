"""Entry point of the single-file binary (PyInstaller): the CLI, with a fast path for the native host.

A browser may start the binary directly as a native host: Chrome passes
``chrome-extension://<ID>/`` (plus ``--parent-window=`` on Windows), Firefox the
manifest path and the add-on ID. Those, and ``native``, go straight to
host/native/relay.py without building the whole CLI.
"""

from __future__ import annotations

import sys


def started_by_browser(argv: list[str]) -> bool:
    """True for the arguments a browser passes to a native-messaging host."""
    first = argv[0] if argv else ""
    return first.startswith("chrome-extension://") or (len(argv) >= 2 and first.endswith(".json"))


def main() -> int:
    import multiprocessing

    multiprocessing.freeze_support()  # the daemon's page-analysis worker is this binary too
    argv = sys.argv[1:]
    if argv[:1] == ["native"] or started_by_browser(argv):
        from host.native.relay import main as native_main

        return native_main(argv[1:] if argv[:1] == ["native"] else argv)
    from host.cli.entry import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
