"""The daemon's plain GETs: the viewer's static files, archived copies, and the gc address.

==================  =====================================================================
path                what
==================  =====================================================================
``/``               redirect to ``/viewer/``
``/viewer/…``       static files of ``host/viewer/static/`` (no token: nothing secret in
                    them; index.html names this daemon's command, home and port, for the
                    commands its messages give); opened with ``?token=`` it also sets the
                    HttpOnly session cookie
``/auth``           ``?token=T&next=/viewer/…``: set the cookie, redirect to ``next``
``/v/<id>/<url>``   an archived copy (``?original=1`` for the byte-identical one),
                    served with ``Content-Security-Policy: sandbox``; token, cookie or
                    a signature (``?sig=``) of the path ``/v/<id>/`` required
``/v/<id>/r/<n>``   resource n of that version's manifest (same auth, same sealed CSP)
``/gc?url=&id=``    the "go to copy" address: the live page if reachable, else the stored
                    copy nearest in time; token, cookie or signature required
==================  =====================================================================

Archived copies run no script at all (``sandbox`` without ``allow-scripts``) and
get an opaque origin, so they can reach neither the viewer nor the API. Their
gc links are signed on the way out (:func:`sign_links`): each link carries an
HMAC of its own target, so following it needs no token in the copy.

>>> safe_static_path("../../etc/passwd") is None
True
"""

from __future__ import annotations

import html
import mimetypes
import re
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from engine.archive.resources import is_html
from engine.errors import Forbidden, InvalidInput, NotFound, PageKeeperError, TooLarge
from host.daemon.client import own_command
from host.daemon.security import (
    presented_token,
    same_token,
    session_cookie,
    sign,
    sign_path,
    strip_credentials,
    valid_signature,
    verify_path,
    version_path,
)
from host.services import archive_access
from host.viewer import STATIC_DIR

REASONS = {
    200: "OK",
    302: "Found",
    303: "See Other",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    413: "Payload Too Large",
    500: "Internal Server Error",
    503: "Service Unavailable",
}
ID_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,80}$")
# A copy is sealed: no script, plugins, forms or same-origin access (CSP Level 2 `sandbox`),
# and no request that leaves the daemon (every fetch directive 'self' or data: at most).
SEALED_CSP = (
    "sandbox; default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "font-src 'self' data:; media-src 'self' data:; frame-src 'self'"
)
COPY_HEADERS = {
    "Content-Security-Policy": SEALED_CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}
# A sealed copy's origin is opaque (serialized "null", HTML sandboxing), and fonts are fetched in
# CORS mode (CSS Fonts 4, "Font fetching requirements"): without this the copy loses its web fonts
# (Firefox always, Chromium for some pages). Only opaque origins qualify; the URL's signature
# still guards every resource.
RESOURCE_HEADERS = {**COPY_HEADERS, "Access-Control-Allow-Origin": "null"}
STATIC_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
GC_LINK = re.compile(r"""(/gc\?url=)([^"'\s<>]*)""")


def status_for(exc: PageKeeperError) -> int:
    """HTTP status for a typed error."""
    for cls, status in ((Forbidden, 403), (NotFound, 404), (TooLarge, 413), (InvalidInput, 400)):
        if isinstance(exc, cls):
            return status
    return 500


def response(status: int, body: bytes, content_type: str, headers: dict | None = None) -> Response:
    head = Headers({"Content-Type": content_type, "Content-Length": str(len(body))})
    for key, value in (headers or {}).items():
        head[key] = value
    return Response(status, REASONS.get(status, "OK"), head, body)


def redirect(location: str, status: int = 302, headers: dict | None = None) -> Response:
    return response(
        status,
        b"",
        "text/plain",
        {"Location": location, "Cache-Control": "no-store", **(headers or {})},
    )


def static_dir() -> Path:

    return STATIC_DIR


def safe_static_path(relative: str, root: Path | None = None) -> Path | None:
    """The file under the viewer's static dir, or ``None`` if the path would escape it."""
    root = (root or static_dir()).resolve()
    name = unquote(relative).lstrip("/")
    if "\x00" in name:  # no file name holds NUL (and Path.resolve raises on one)
        return None
    candidate = (root / name).resolve()
    if candidate != root and root not in candidate.parents:
        return None
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


# The viewer's page names the commands that start this daemon and open its viewer again
# (app.js, api.js): the daemon fills them in, since only it knows its program, home and port.
COMMAND_SLOTS = (b'data-command=""', b'data-start-command=""')


def viewer_commands(app) -> tuple[str, str]:
    """``(program, start)`` as a user types them in any folder: this program for this home
    (``own_command``), and the start of this daemon, with the port it listens on when a plain
    ``serve`` would not take it again (started with ``--port``, or a config that lets the
    system pick a port)."""
    program = own_command(app.home)
    start = f"{program} serve --detach"
    if type(app.config).load(app.home).port != app.config.port:
        start += f" --port {app.config.port}"
    return program, start


def with_commands(app, page: bytes) -> bytes:
    """The viewer's index.html with :func:`viewer_commands` in its slots."""
    for slot, command in zip(COMMAND_SLOTS, viewer_commands(app), strict=True):
        filled = slot[:-1] + html.escape(command, quote=True).encode("utf-8") + b'"'
        page = page.replace(slot, filled)
    return page


def serve_static(app, request: Request, relative: str) -> Response:
    path = safe_static_path(relative)
    if path is None:
        raise NotFound(f"no viewer file {relative!r}")
    body = path.read_bytes()
    if path.name == "index.html":
        body = with_commands(app, body)
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind.endswith("javascript") or kind.endswith("json"):
        kind += "; charset=utf-8"
    headers = {**STATIC_HEADERS, "Content-Security-Policy": "frame-ancestors 'self'"}
    given = presented_token(request.path, request.headers)
    if same_token(given, app.token):
        headers["Set-Cookie"] = session_cookie(app.token)
    return response(200, body, kind, headers)


def authorized(app, request: Request, *signed: str) -> bool:
    """Token (header, query or cookie), or a signature of exactly this target."""
    if same_token(presented_token(request.path, request.headers), app.token):
        return True
    sig = parse_qs(urlsplit(request.path).query).get("sig", [None])[0]
    return bool(signed) and valid_signature(app.token, sig, *signed)


def local_path(target: str) -> bool:
    r"""True for a path on this origin. Browsers read ``\`` as ``/`` and drop tabs and
    newlines in a URL (WHATWG URL), so ``/\evil.example`` and ``/\t/evil.example`` are
    ``//evil.example``: another site.

    >>> local_path("/viewer/?q=1"), local_path("/\\evil.example/"), local_path("//evil.example")
    (True, False, False)
    """
    if any(char == "\\" or ord(char) < 0x21 or ord(char) == 0x7F for char in target):
        return False
    return target.startswith("/") and not target.startswith("//")


def auth(app, request: Request) -> Response:
    """``/auth?token=T&next=/viewer/``: exchange the token for the HttpOnly cookie."""
    query = parse_qs(urlsplit(request.path).query)
    if not same_token(query.get("token", [None])[0], app.token):
        raise Forbidden("missing or wrong token")
    target = query.get("next", ["/viewer/"])[0]
    if not local_path(target):
        raise InvalidInput("next must be a local path")
    return redirect(target, 303, {"Set-Cookie": session_cookie(app.token)})


def signed_version_path(app, version_id: str, url: str = "") -> str:
    """``/v/<id>/<url>?sig=…``: a version address that works without the token (the
    signature covers the version's path, :func:`host.security.sign_path`)."""
    return f"{version_path(version_id)}{url}?sig={sign_path(app.token, version_path(version_id))}"


def sign_links(app, html: str, page_id: str, produced: set[str]) -> str:
    """Append ``&sig=`` (the link's own HMAC) to the gc links the rewriter produced.

    Only a link of this page (``id`` = ``page_id``) to one of its recorded navigation
    links (``produced``) is signed: a ``/gc?url=…`` the page's author wrote stays
    unsigned, and the daemon never follows it.
    """

    def signed(match: re.Match) -> str:
        query = parse_qs("url=" + match.group(2).replace("&amp;", "&"))
        target, link_id = query.get("url", [""])[0], query.get("id", [""])[0]
        if link_id != page_id or target not in produced:
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}&amp;sig={sign(app.token, 'gc', target, link_id)}"

    return GC_LINK.sub(signed, html)


def gc_signature(app, url: str, page_id: str) -> str:
    return sign(app.token, "gc", url, page_id)


def sign_resources(app, body: bytes, version_id: str) -> bytes:
    """Append the version's signature to each of its resource paths in a served copy,
    stylesheet or frame (a sandboxed copy sends no cookie): the version's own path
    signature (``sign_path`` of ``/v/<id>/``), which opens that version and what lies under
    its path, nothing else."""
    prefix = f"/v/{version_id}/r/".encode()
    if prefix not in body:
        return body
    sig = sign_path(app.token, version_path(version_id)).encode()
    pattern = re.compile(re.escape(prefix) + rb"[0-9a-z]+")
    return pattern.sub(lambda m: m.group(0) + b"?sig=" + sig, body)


def openable_copy(app, html: str, version_id: str, produced: set[str]) -> str:
    """A rewritten copy as ``get`` hands it out, to be opened outside the daemon (a file
    written by ``archive get -o``): its gc links signed as :func:`sign_links` signs them, and
    its resource paths made absolute (``<base>/v/<id>/r/<n>``) and signed, so a copy opened
    from a file, where no cookie is sent and ``/v/…`` would name a local path, still reaches
    its links and resources."""
    body = sign_links(app, html, version_id, produced).encode("utf-8")
    body = sign_resources(app, body, version_id)
    local = re.compile(rb"(?<![A-Za-z0-9.:/])(/v/" + re.escape(version_id.encode()) + rb"/r/)")
    return local.sub(app.base_url.encode() + rb"\1", body).decode("utf-8")


def _wants_original(request: Request) -> bool:
    return parse_qs(urlsplit(request.path).query).get("original", ["0"])[0] in ("1", "true")


async def serve_version(app, request: Request, rest: str) -> Response:
    version_id, _, tail = rest.partition("/")
    if not ID_PATTERN.match(version_id):
        raise NotFound("no such version")
    sig = parse_qs(urlsplit(request.path).query).get("sig", [None])[0]
    signed = verify_path(app.token, version_path(version_id), sig)
    if not (signed or authorized(app, request)):
        raise Forbidden("missing or wrong token")
    if tail.startswith("r/"):
        return await serve_resource(app, request, version_id, tail[2:])
    original = _wants_original(request)

    body, content_type = await app.run(archive_access.copy_bytes, app, version_id, original)
    if not original and is_html(content_type):  # XHTML is rewritten as HTML is
        produced = await app.run(archive_access.produced_links, app, version_id)
        text = body.decode("utf-8", "replace")
        body = sign_links(app, text, version_id, produced).encode("utf-8")
        body = sign_resources(app, body, version_id)
    return response(200, body, content_type, COPY_HEADERS)


async def serve_resource(app, request: Request, version_id: str, number: str) -> Response:
    """One resource of a version, byte for byte (stylesheets and frames sealed), with the
    copy's CSP (an SVG or HTML resource runs no script) and ``nosniff``."""
    if not number.isdigit():
        raise NotFound(f"no resource {number!r}")
    original = _wants_original(request)
    found = await app.run(archive_access.resource_bytes, app, version_id, int(number), original)
    body, content_type = found
    if not original and (is_html(content_type) or content_type == "text/css"):
        body = sign_resources(app, body, version_id)
        if is_html(content_type):
            produced = await app.run(archive_access.produced_links, app, version_id)
            text = body.decode("utf-8", "replace")
            body = sign_links(app, text, version_id, produced).encode("utf-8")
    return response(200, body, content_type, RESOURCE_HEADERS)


MISSING_STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7fb;color:#161c2d}"
    "main{max-width:36rem;margin:12vh auto;padding:2rem;background:#fff;border-radius:12px;"
    "box-shadow:0 4px 24px rgb(0 0 0/8%)}h1{font-size:1.4rem;margin:0 0 .75rem}"
    "p{margin:.5rem 0}.url{word-break:break-all;color:#3949ab}.actions{margin-top:1.5rem;"
    "display:flex;flex-wrap:wrap;gap:.75rem}.actions a{padding:.5rem 1rem;border-radius:8px;"
    "border:1px solid #c5cae9;text-decoration:none;color:#283593}.actions a.primary{"
    "background:#3949ab;border-color:#3949ab;color:#fff}.brand{color:#5c6479;font-size:.85rem}"
    "@media (prefers-color-scheme:dark){body{background:#11141c;color:#e8eaf2}main{background:#1b2030}"
    ".url,.actions a{color:#9fa8da}.actions a{border-color:#3f4a7a}}"
)


def missing_page(url: str, back: str | None = None, answered: int | None = None) -> Response:
    """gc with nothing to show: the live page is unreachable, or its server ``answered`` with
    an error status, and no copy is stored. The page says which, and leads back to the
    archived copy the link was followed from (the browser's Back button works too; the page
    is sandboxed, so it has no script)."""
    safe = html.escape(strip_credentials(url) or "", quote=True)
    why = (
        f"Its server answered with an error (HTTP {answered}), and PageKeeper has no stored copy of it."
        if answered is not None
        else "It cannot be reached now, and PageKeeper has no stored copy of it."
    )
    back_link = (
        f'<a class="primary" href="{html.escape(back, quote=True)}">← Back to the archived page</a>'
        if back
        else ""
    )
    body = (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        f"<title>Not archived</title><style>{MISSING_STYLE}</style><main>"
        "<p class=brand>PageKeeper</p><h1>This page is not in your archive</h1>"
        f'<p>The link leads to <a class="url" href="{safe}">{safe}</a>.</p>'
        f"<p>{why}</p>"
        f'<p class="actions">{back_link}<a href="{safe}">Try the live page again</a></p>'
        "</main></html>"
    ).encode()
    return response(404, body, "text/html; charset=utf-8", COPY_HEADERS)


async def _back_to(app, page_id: str) -> str | None:
    """The signed address of the archived copy a gc link was followed from, if stored."""
    if not ID_PATTERN.match(page_id or ""):
        return None
    try:
        doc = await app.run(app.store.version, page_id)
    except NotFound:
        return None
    return signed_version_path(app, page_id, quote(strip_credentials(doc["url"]), safe=":/"))


async def serve_gc(app, request: Request) -> Response:
    query = parse_qs(urlsplit(request.path).query)
    url, page_id = query.get("url", [""])[0], query.get("id", [""])[0]
    if not url:
        raise InvalidInput("gc needs ?url=")
    user_asked = same_token(presented_token(request.path, request.headers), app.token)
    if not (user_asked or authorized(app, request, "gc", url, page_id)):
        raise Forbidden("missing or wrong token")

    action = await archive_access.gc_target(app, url, page_id, user_asked)
    if action["action"] == "live":
        return redirect(action["url"])
    if action["action"] != "stored":
        return missing_page(url, await _back_to(app, page_id), action.get("answered"))
    return redirect(signed_version_path(app, action["id"], quote(action.get("url", ""), safe=":/")))


async def route(app, request: Request) -> Response:
    """Answer a plain GET (the ``/ws`` upgrade never gets here)."""
    path = urlsplit(request.path).path
    if path == "/":
        return redirect("/viewer/")
    if path == "/viewer":
        return redirect("/viewer/")
    if path.startswith("/viewer/"):
        return serve_static(app, request, path[len("/viewer/") :])
    if path == "/auth":
        return auth(app, request)
    if path.startswith("/v/"):
        return await serve_version(app, request, path[len("/v/") :])
    if path == "/gc":
        return await serve_gc(app, request)
    raise NotFound(f"no route {path!r}")
