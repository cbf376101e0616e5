"""``pagekeeper native``: the native-messaging host, a thin relay to the one daemon.

The browser starts it (Chrome: ``argv[1] = "chrome-extension://<ID>/"``; Firefox:
the manifest path and the add-on ID) and talks framed JSON on stdin/stdout
(host/protocol/framing.py). The relay:

* checks each frame (size cap, UTF-8, JSON object, envelope) and answers bad
  ones itself with a typed error, so garbage never reaches the daemon;
* forwards good requests to the daemon's ``/ws`` (starting the daemon, detached,
  if none runs) and writes its replies back as they come (out of order is
  fine: replies carry the request's id);
* pages replies over the browser's 1 MB host→browser limit (host/PROTOCOL.md);
* writes nothing but frames to stdout: at start the frames get a private copy
  of file descriptor 1 and fd 1 itself is pointed at stderr, so a stray print
  from any library cannot corrupt the stream; logs go to ``<home>/logs/native.log``.

It imports no engine code (no selectolax, no dictionary): a browser may start
one per message, so start-up must stay in the tens of milliseconds.

>>> reply = '{"id":1,"ok":true,"result":"' + "x" * 200 + '"}'
>>> pages = split_pages(1, reply, 128)
>>> len(pages), max(len(encode(p)) for p in pages) <= 128, "".join(p["chunk"] for p in pages) == reply
(3, True, True)
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import re
import sys
import threading
from pathlib import Path

from engine.errors import PageKeeperError, Unavailable
from host.daemon import client, pause
from host.daemon.security import CredentialFilter
from host.home import Home
from host.protocol.envelope import error_reply, parse_request, request_id
from host.protocol.framing import (
    DEFAULT_REQUEST_CAP,
    HEADER,
    REPLY_LIMIT,
    Truncated,
    decode,
    encode,
    read_frame,
)
from host.protocol.framing import write_frame as _write_frame

log = logging.getLogger("pagekeeper.native")
DRAIN_TIMEOUT = 60.0


def split_pages(req_id, text: str, limit: int) -> list[dict]:
    """Cut a reply's JSON text into page frames that each encode to <= ``limit`` bytes.

    Each character is counted at what it costs inside the frame's ``chunk`` string: its
    UTF-8 bytes (4 for an emoji or any astral-plane character), or its JSON escape
    (``\\"``, ``\\u0001``). Pages are filled up to the limit, so their number is the least.

    >>> pages = split_pages(7, "😀" * 100, 128)
    >>> max(len(encode(p)) for p in pages) <= 128, "".join(p["chunk"] for p in pages) == "😀" * 100
    (True, True)
    """
    # the frame without its chunk, with page numbers as long as they can ever be
    widest = len(text) + 1
    room = limit - len(encode({"id": req_id, "page": widest, "pages": widest, "chunk": ""}))
    if room < MAX_CHAR_COST:
        raise ValueError(f"a reply limit of {limit} bytes leaves no room for a page's text")
    chunks = [text[start:end] for start, end in _cuts(text, room)]
    return [
        {"id": req_id, "page": i, "pages": len(chunks), "chunk": c} for i, c in enumerate(chunks)
    ]


# Printable ASCII but the quote and the backslash: one byte each inside a JSON string.
PLAIN = re.compile(r"[\x20\x21\x23-\x5b\x5d-\x7e]+")
MAX_CHAR_COST = 6  # "\\u001f": the longest a character gets (UTF-8 never exceeds 4)


@functools.lru_cache(maxsize=4096)
def char_cost(char: str) -> int:
    """Bytes of one character inside a frame's JSON string (as :func:`encode` writes it).

    >>> char_cost("a"), char_cost("é"), char_cost("😀"), char_cost('"'), char_cost("\\x01")
    (1, 2, 4, 2, 6)
    """
    return len(json.dumps(char, ensure_ascii=False).encode("utf-8")) - 2


def _cuts(text: str, room: int) -> list[tuple[int, int]]:
    """(start, end) of each chunk: as many characters as fit in ``room`` bytes."""
    cuts, start, used, pos = [], 0, 0, 0
    while pos < len(text):
        plain = PLAIN.match(text, pos)
        end, cost = (plain.end(), 1) if plain else (pos + 1, char_cost(text[pos]))
        while pos < end:
            fit = min((room - used) // cost, end - pos)
            if fit == 0:
                cuts.append((start, pos))
                start, used = pos, 0
                continue
            pos, used = pos + fit, used + fit * cost
    cuts.append((start, len(text)))
    return cuts


class Relay:
    """Browser stream on one side, the daemon's websocket on the other."""

    def __init__(self, home: Path, out, cap: int, reply_limit: int) -> None:
        self.home, self.out, self.cap, self.reply_limit = home, out, cap, reply_limit
        self.out_lock = threading.Lock()
        self.ws_lock = threading.Lock()
        self.ws = None
        self.pending: dict[str, object] = {}  # json(id) -> id, requests awaiting a reply
        self.idle = threading.Condition()

    def write(self, frame: bytes) -> None:
        with self.out_lock:
            _write_frame(self.out, frame)

    def reply(self, obj: dict) -> None:
        self.write(encode(obj))

    def write_reply_text(self, req_id, text: str) -> None:
        frame = text.encode("utf-8")
        if HEADER.size + len(frame) <= self.reply_limit:  # counted as split_pages counts pages
            self.write(len(frame).to_bytes(4, sys.byteorder) + frame)
            return
        log.info("paging a reply of %d bytes", len(frame))
        for page in split_pages(req_id, text, self.reply_limit):
            self.reply(page)

    # -- the daemon side ------------------------------------------------------
    def connection(self):
        """The websocket to the daemon, connecting (and starting it) when needed."""
        with self.ws_lock:
            if self.ws is None:
                self.refuse_when_paused()
                state = client.ensure_daemon(self.home)
                self.ws = client.connect(self.home, state)
                threading.Thread(target=self.receive, args=(self.ws,), daemon=True).start()
            return self.ws

    def refuse_when_paused(self) -> None:
        """``stop --until-login`` holds until the next login: start no daemon before then
        (one the user started again with ``serve`` or ``open`` is used)."""
        running = client.running(self.home)
        if not (running and running.get("ready")) and pause.paused(self.home):
            raise Unavailable(
                "PageKeeper is stopped until the next login (pagekeeper stop --until-login); "
                f"`{client.own_command(self.home)} serve --detach` starts it again"
            )

    def receive(self, ws) -> None:
        """Write each daemon reply to the browser; on disconnect fail what is in flight."""
        try:
            for text in ws:
                self.delivered(text if isinstance(text, str) else text.decode("utf-8"))
        except Exception as exc:
            log.warning("daemon connection lost: %s", exc)
        with self.ws_lock:
            if self.ws is ws:
                self.ws = None
        self.fail_pending(Unavailable("the daemon connection was lost"))

    def delivered(self, text: str) -> None:
        try:
            req_id = json.loads(text).get("id")
        except ValueError:
            log.error("daemon sent a non-JSON reply")
            return
        # Written before it stops being pending: drain() returns, and the process exits,
        # once nothing is pending, so a reply still unwritten then would be lost.
        self.write_reply_text(req_id, text)
        self.done(req_id)

    def done(self, req_id) -> None:
        with self.idle:
            self.pending.pop(json.dumps(req_id), None)
            self.idle.notify_all()

    def fail_pending(self, exc: PageKeeperError) -> None:
        """Answer every request in flight with ``exc``, each before it stops being pending."""
        with self.idle:
            stranded = list(self.pending.values())
        for req_id in stranded:
            self.reply(error_reply(req_id, exc))
            self.done(req_id)

    def forward(self, req_id, body: bytes) -> None:
        with self.idle:
            self.pending[json.dumps(req_id)] = req_id
        try:
            self.connection().send(body.decode("utf-8"))
        except PageKeeperError as exc:
            self.done(req_id)
            self.reply(error_reply(req_id, exc))
        except Exception as exc:  # connection died between requests: retry once
            log.warning("send failed (%s); reconnecting", exc)
            with self.ws_lock:
                self.ws = None
            try:
                self.connection().send(body.decode("utf-8"))
            except Exception as again:
                self.done(req_id)
                self.reply(error_reply(req_id, Unavailable(f"cannot reach the daemon: {again}")))

    # -- the browser side -----------------------------------------------------
    def handle_frame(self, body: bytes) -> None:
        obj = None
        try:
            obj = decode(body)
            req = parse_request(obj)
        except PageKeeperError as exc:
            self.reply(error_reply(request_id(obj), exc))
            return
        self.forward(req.id, body)

    def run(self, stream) -> None:
        """Read frames until the browser closes the stream, then drain pending replies."""
        while True:
            try:
                body = read_frame(stream, self.cap)
            except Truncated as exc:
                log.info("stream ended: %s", exc.message)
                break
            except PageKeeperError as exc:  # over the cap: skipped, answered, go on
                self.reply(error_reply(None, exc))
                continue
            if body is None:
                break
            self.handle_frame(body)
        self.drain()

    def drain(self) -> None:
        with self.idle:
            self.idle.wait_for(lambda: not self.pending, timeout=DRAIN_TIMEOUT)
        with self.ws_lock:
            if self.ws is not None:
                self.ws.close()


def take_stdout() -> object:
    """A private binary handle on the real stdout; fd 1 then points at stderr.

    From here on nothing but our frames can reach the browser.
    """
    frames = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    if sys.platform == "win32":  # pragma: no cover: no CRLF translation on the frame streams
        import msvcrt

        msvcrt.setmode(frames.fileno(), os.O_BINARY)
        msvcrt.setmode(sys.stdin.fileno(), os.O_BINARY)
    return frames


def setup_logging(home: Path) -> None:
    path = Home(home).relay_log
    path.parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=path,
        level=logging.INFO,
        format="%(asctime)s %(process)d %(levelname)s %(message)s",
    )
    for handler in logging.getLogger().handlers:  # no user:pass@ from a URL in the log
        handler.addFilter(CredentialFilter())


def limits(home: Path) -> tuple[int, int]:
    """(request cap, reply limit) from ``<home>/config.json`` or the defaults."""
    try:
        data = json.loads(Home(home).config.read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    return int(data.get("request_cap", DEFAULT_REQUEST_CAP)), int(
        data.get("reply_limit", REPLY_LIMIT)
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="pagekeeper native", add_help=False)
    parser.add_argument("--home")
    parser.add_argument("caller", nargs="*", help="what the browser passes (origin, manifest)")
    args, _unknown = parser.parse_known_args(argv)  # Chrome on Windows adds --parent-window
    return args


def run(home: Path, caller: list[str], stdin=None, stdout=None) -> int:
    """Relay until stdin closes; returns the exit status."""
    setup_logging(home)
    log.info("native host started by %s", " ".join(caller) or "(no caller)")
    cap, reply_limit = limits(home)
    out = stdout if stdout is not None else take_stdout()
    Relay(home, out, cap, reply_limit).run(stdin if stdin is not None else sys.stdin.buffer)
    log.info("native host done")
    return 0


def main(argv: list[str] | None = None) -> int:
    from host.home import resolve_home

    args = parse_args(argv)
    return run(resolve_home(args.home), args.caller)


if __name__ == "__main__":
    sys.exit(main())
