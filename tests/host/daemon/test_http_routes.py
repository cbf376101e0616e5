"""The HTTP side's locks in this process (no socket): which requests the token, a cookie or a
signature lets through (host/daemon/http_routes.py), and where ``/auth`` may send the browser."""

from __future__ import annotations

import html
import json
import mimetypes
import re
import shlex
from pathlib import Path
from types import SimpleNamespace

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from engine.errors import Forbidden, InvalidInput, NotFound
from host.daemon.app import Config
from host.daemon.client import own_command
from host.daemon.http_routes import auth, authorized, local_path, serve_static
from host.daemon.security import sign

APP = SimpleNamespace(token="s3cret-token")


def request(path: str, **headers: str) -> Request:
    return Request(path, Headers(headers))


def test_a_request_is_authorized_by_the_whole_token_from_any_of_its_three_places():
    assert authorized(APP, request("/v/1/", Authorization="Bearer s3cret-token"))
    assert authorized(APP, request("/v/1/?token=s3cret-token"))
    assert authorized(APP, request("/v/1/", Cookie="pk_token=s3cret-token"))
    for near in (
        request("/v/1/"),
        request("/v/1/?token=s3cret-toke"),
        request("/v/1/?token=s3cret-tokenx"),
        request("/v/1/", Cookie="pk_token="),
        request("/v/1/", Authorization="Bearer "),
    ):
        assert not authorized(APP, near)


def test_a_signature_authorizes_exactly_its_own_target_and_only_when_one_is_named():
    sig = sign(APP.token, "gc", "https://a.example/", "7")
    path = f"/gc?url=x&sig={sig}"
    assert authorized(APP, request(path), "gc", "https://a.example/", "7")
    assert not authorized(APP, request(path), "gc", "https://a.example/", "8")
    assert not authorized(APP, request(f"/gc?sig={sig[:-1]}"), "gc", "https://a.example/", "7")
    assert not authorized(APP, request("/gc"), "gc", "https://a.example/", "7")
    # a route that names no target takes no signature at all, even one of no parts
    assert not authorized(APP, request(f"/v/1/?sig={sign(APP.token)}"))


def test_auth_sets_the_cookie_only_for_the_whole_token_and_a_local_next():
    reply = auth(APP, request("/auth?token=s3cret-token&next=/viewer/%23/doc/1"))
    assert reply.status_code == 303
    assert reply.headers["Location"] == "/viewer/#/doc/1"
    assert reply.headers["Set-Cookie"].startswith("pk_token=s3cret-token; HttpOnly")
    assert auth(APP, request("/auth?token=s3cret-token")).headers["Location"] == "/viewer/"
    for path in ("/auth", "/auth?token=s3cret-toke", "/auth?token=&next=/viewer/"):
        with pytest.raises(Forbidden):
            auth(APP, request(path))
    for target in ("//evil.example/", "/%5Cevil.example/", "https://evil.example/", "/%09/evil"):
        with pytest.raises(InvalidInput):
            auth(APP, request(f"/auth?token=s3cret-token&next={target}"))


def test_a_local_path_is_one_a_browser_reads_as_this_origin():
    for target in ("/", "/viewer/?q=1", "/v/1/https://a.example/"):
        assert local_path(target), target
    for target in (
        "",
        "viewer/",
        "//evil.example",
        "/\\evil.example",
        "/\t/evil.example",
        "/\n/x",
        "/\x7f",
        "/ x",
        "https://evil.example/",
    ):
        assert not local_path(target), repr(target)


def served_app(home: Path, port: int | None = None) -> SimpleNamespace:
    """The daemon's state the viewer's page reads: token, home, and its config as it runs
    (the port it listens on; ``port`` as given by ``--port``)."""
    config = Config.load(home, port=port)
    if config.port == 0:  # the system picked one
        config.port = 45678
    return SimpleNamespace(token=APP.token, home=home, config=config)


def test_the_viewer_sets_the_cookie_only_when_opened_with_the_whole_token(tmp_path):
    app = served_app(tmp_path)
    opened = serve_static(app, request("/viewer/?token=s3cret-token"), "index.html")
    assert opened.status_code == 200 and "pk_token=s3cret-token" in opened.headers["Set-Cookie"]
    for path in ("/viewer/", "/viewer/?token=s3cret-toke"):
        assert "Set-Cookie" not in serve_static(app, request(path), "index.html").headers
    with pytest.raises(NotFound):
        serve_static(app, request("/viewer/../token"), "../token")


@pytest.mark.parametrize("javascript", ["text/javascript", "application/javascript"])
def test_the_viewer_files_are_served_with_their_type_in_utf_8_framed_only_by_the_viewer(
    tmp_path, monkeypatch, javascript
):
    """A module script served with another type is refused by the browser (the HTML
    standard's strict MIME type check for module scripts; ``nosniff`` makes every type
    strict); the files are UTF-8, so each text type says so; and only the viewer's own pages
    may frame them (CSP ``frame-ancestors``). Some systems' type tables name JavaScript
    ``application/javascript``: it is text all the same."""
    guess = mimetypes.guess_type
    monkeypatch.setattr(
        mimetypes,
        "guess_type",
        lambda name: (javascript, None) if name.endswith(".js") else guess(name),
    )
    app = served_app(tmp_path)
    kinds = {"index.html": "text/html", "app.js": javascript, "styles.css": "text/css",
             "views/stats.js": javascript}  # fmt: skip
    for name, kind in kinds.items():
        got = serve_static(app, request(f"/viewer/{name}"), name)
        assert got.headers["Content-Type"] == f"{kind}; charset=utf-8", name
        assert got.headers["Content-Security-Policy"] == "frame-ancestors 'self'"
        assert got.headers["X-Content-Type-Options"] == "nosniff"


def page_commands(app) -> dict[str, str]:
    """The commands index.html names, as the browser reads its attributes."""
    page = serve_static(app, request("/viewer/"), "").body.decode("utf-8")
    root = re.search(r"<html [^>]*>", page)[0]
    return {k: html.unescape(v) for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', root)}


def test_the_viewer_page_names_this_program_home_and_port(tmp_path):
    """index.html's commands act on this daemon's archive as typed in any folder: the program
    for this home (quoted for the shell, escaped for the attribute), and the start with the
    port this daemon listens on when a plain start would take another one."""
    home = tmp_path / 'a "home" & more'
    home.mkdir()
    got = page_commands(served_app(home, port=41234))
    program = own_command(home)
    assert shlex.split(program)[1:] == ["--home", str(home)]
    assert got == {"command": program, "start-command": f"{program} serve --detach --port 41234"}
    (home / "config.json").write_text(json.dumps({"port": 41234}))
    assert page_commands(served_app(home))["start-command"] == f"{program} serve --detach"
    (home / "config.json").write_text(json.dumps({"port": 0}))
    assert page_commands(served_app(home))["start-command"].endswith(" --port 45678")
