"""The daemon's socket: one ``websockets`` server on 127.0.0.1 for ``/ws`` and plain GETs.

``process_request`` runs for every incoming HTTP request before the websocket
handshake: it checks ``Host`` on everything, then either lets a ``/ws`` upgrade
through (token + ``Origin`` checked) or answers a GET itself
(:mod:`host.daemon.http_routes`). websockets' own HTTP handling is enough here: the
viewer only needs GETs, and no second web framework is pulled in.

Each websocket message is handled in its own task (a slow ``check`` never
holds up a ``ping`` on the same connection); replies carry the request's id.

>>> WS_PATH
'/ws'
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK
from websockets.http11 import Request, Response

from engine.errors import BadRequest, Forbidden, PageKeeperError, TooLarge
from host.daemon import http_routes
from host.daemon.changes import CONNECTION_CLOSED
from host.daemon.security import check_host, check_origin, presented_token, same_token
from host.protocol import dispatch
from host.protocol.envelope import error_reply, request_id
from host.protocol.framing import to_json

WS_PATH = "/ws"
# A message longer than this is decoded (UTF-8, then JSON) in the analysis worker process:
# both hold the GIL (a 48 MB page takes ~0.1-0.5 s), so on the loop, or on a thread, they
# would stall every other connection's pings. Below it, decoding here is cheaper than the hop.
BIG_MESSAGE_BYTES = 4 << 20
# A big message's JSON comes back from the worker process pickled, and unpickling it holds the
# GIL on the daemon's side: 20M small values (a 64 MB message of `{}`) take about 2 s and over
# 1 GB there. No request needs more values than this (the largest, a bookmarks file, carries at
# most 100,000 URLs: host/handlers/archive.py MAX_URLS), so the worker refuses the rest.
MAX_VALUES = 1_000_000
log = logging.getLogger("pagekeeper.server")


def text_response(status: int, text: str, extra: dict | None = None) -> Response:
    """A small plain-text response (errors, refusals)."""
    headers = Headers({"Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"})
    for key, value in (extra or {}).items():
        headers[key] = value
    return Response(status, http_routes.REASONS.get(status, "Error"), headers, text.encode())


def single_header(request: Request, name: str) -> str | None:
    """The one value of header ``name`` (None when absent); sent twice it is a bad request
    (RFC 9112 §3.2: a request with more than one Host is answered 400)."""
    values = request.headers.get_all(name)
    if len(values) > 1:
        raise BadRequest(f"the {name} header is sent {len(values)} times")
    return values[0] if values else None


def check_websocket(app, request: Request) -> None:
    """A ``/ws`` upgrade needs an allowed Origin (or none) and the token."""
    check_origin(request.headers.get("Origin"), app.config.port, app.config.all_extension_ids())
    if not same_token(presented_token(request.path, request.headers), app.token):
        raise Forbidden("missing or wrong token")


async def process_request(app, connection: ServerConnection, request: Request) -> Response | None:
    """Gatekeeper and router for every request on the socket."""
    try:
        check_host(single_header(request, "Host"), app.config.port)
        for name in ("Origin", "Authorization", "Cookie"):
            single_header(request, name)  # the checks below read them as one value
        if urlsplit(request.path).path == WS_PATH:
            check_websocket(app, request)
            return None  # proceed with the websocket handshake
        return await http_routes.route(app, request)
    except Forbidden as exc:
        log.info("refused %s: %s", urlsplit(request.path).path, exc.message)
        return text_response(403, f"forbidden: {exc.message}\n")
    except PageKeeperError as exc:
        return text_response(http_routes.status_for(exc), f"{exc.code}: {exc.message}\n")


def parse(message: bytes) -> object:
    """A message's JSON; its bytes must be UTF-8 (UnicodeDecodeError is a ValueError).

    >>> parse(b'{"id": 1}')
    {'id': 1}
    """
    return json.loads(message.decode("utf-8"))


def count_values(obj: object, limit: int) -> int:
    """How many JSON values ``obj`` holds (an object's keys count too), read without
    recursion; raise ``TooLarge`` as soon as the count passes ``limit``.

    >>> count_values({"a": [1, 2, {}]}, 10)
    6
    """
    pending, seen = [obj], 0
    while pending:
        value = pending.pop()
        seen += 1
        if isinstance(value, dict):
            seen += len(value)
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        if seen > limit:
            raise TooLarge(f"message holds more than {limit:,} JSON values")
    return seen


def parse_big(message: bytes) -> object:
    """:func:`parse`, in the worker process, for a message that passes :data:`MAX_VALUES`."""
    obj = parse(message)
    count_values(obj, MAX_VALUES)
    return obj


async def decode(app, message: bytes) -> object:
    """The message's JSON: parsed here, or in the worker process when it is big (its
    bytes go there as received: a str would be encoded again to be pickled)."""
    if len(message) > BIG_MESSAGE_BYTES:
        return await app.analyse(parse_big, message, big=True)
    return parse(message)


async def received(ws: ServerConnection):
    """Each message's bytes, text frames not decoded (:func:`decode` does it) until the
    connection closes (an error close raises, as ``async for message in ws`` does)."""
    with contextlib.suppress(ConnectionClosedOK):
        while True:
            yield await ws.recv(decode=False)


async def answer(app, ws: ServerConnection, message: bytes) -> None:
    """Decode one message, handle it, send exactly one reply."""
    app.counters["requests"] = app.counters.get("requests", 0) + 1
    try:
        obj = await decode(app, message)
    except (ValueError, RecursionError) as exc:
        reply = error_reply(None, BadRequest(f"message is not valid JSON ({str(exc)[:200]})"))
    except TooLarge as exc:  # as a frame over the cap: no id is read from it
        reply = error_reply(None, exc)
    else:
        reply = await dispatch.handle(obj, app)
    try:
        text = to_json(reply)  # a lone surrogate is escaped, never a dropped connection
    except ValueError as exc:  # NaN/Infinity in a result: not JSON
        text = to_json(error_reply(request_id(reply), exc))
    with contextlib.suppress(ConnectionClosed):  # the client left first: nobody to answer
        await ws.send(text)


async def session(app, ws: ServerConnection) -> None:
    """One websocket: every message gets its own task; wait for them on close (a
    ``viewer_watch`` long-poll ends at once: ``CONNECTION_CLOSED``, host/daemon/changes.py).
    When the daemon stops they are cancelled instead: no reply can be sent on a connection
    the stop closed, and a stop must not wait for a fetch's timeout. A store-thread step
    one of them began still ends whole (the store closes after it: App.close)."""
    tasks: set[asyncio.Task] = set()
    closed = asyncio.Event()
    CONNECTION_CLOSED.set(closed)  # this connection's tasks copy this context
    try:
        async for message in received(ws):
            task = asyncio.create_task(answer(app, ws, message))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    finally:
        closed.set()
        if app.stopping is not None:
            for task in tasks:
                task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=30)
        if app.stopping is not None:
            app.stopping("closing connections", 1)


def make_server(app, port: int):
    """The (not yet started) server; ``async with`` it to listen on 127.0.0.1 only."""
    return serve(
        lambda ws: session(app, ws),
        "127.0.0.1",
        port,
        process_request=lambda conn, req: process_request(app, conn, req),
        compression=None,  # loopback: deflate costs CPU and buys nothing
        max_size=app.config.request_cap + 4096,
        max_queue=64,
        ping_interval=None,
        server_header=None,
    )
