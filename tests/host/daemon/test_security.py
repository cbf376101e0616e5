"""Security over real sockets: token, Origin, Host (DNS rebinding), traversal, sandboxed copies."""

from __future__ import annotations

import base64
import gzip
import json
import logging
import os
import re
import socket
import sys
from urllib.parse import quote, urlsplit

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from engine.archive.model import Capture
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.errors import Forbidden
from host.daemon.app import bundled_extension_ids
from host.daemon.http_routes import SEALED_CSP
from host.daemon.main import setup_logging
from host.daemon.security import (
    CredentialFilter,
    allowed_origin,
    check_host,
    check_origin,
    ensure_token,
    has_version_url,
    presented_token,
    same_token,
    sign,
    sign_path,
    sign_version_urls,
    signed_version_url,
    strip_credentials_deep,
    valid_signature,
    verify_path,
)
from host.services.navigation import strip_credentials
from tests.host.daemon_fixtures import ROOT, make_home, pk, stop_daemon, token_of

EXT_ID = bundled_extension_ids()[0]  # host/data/extension-id.txt
PAGE = ROOT / "tests" / "fixtures" / "pages" / "2cf4b812a7cd7f64.html.gz"


def raw_get(port: int, path: str, headers: dict[str, str]) -> tuple[int, dict, bytes]:
    """A hand-written HTTP/1.1 GET (so Host can be anything), over a real socket."""
    head = {"Host": f"127.0.0.1:{port}", "Connection": "close", **headers}
    lines = [f"GET {path} HTTP/1.1", *(f"{k}: {v}" for k, v in head.items() if v is not None)]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    top, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = top.decode("latin-1").split("\r\n")
    parsed = {}
    for line in header_lines:
        key, _, value = line.partition(":")
        parsed.setdefault(key.strip().lower(), []).append(value.strip())
    return int(status_line.split()[1]), parsed, body


def upgrade(port: int, path: str = "/ws", **headers) -> int:
    """Status of a websocket handshake attempt with the given headers."""
    key = base64.b64encode(os.urandom(16)).decode()
    ws_headers = {
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": key,
        "Sec-WebSocket-Version": "13",
    }
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        head = {"Host": f"127.0.0.1:{port}", **ws_headers, **headers}
        lines = [f"GET {path} HTTP/1.1", *(f"{k}: {v}" for k, v in head.items() if v is not None)]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        return int(sock.recv(4096).split(b" ", 2)[1])


def test_websocket_needs_the_token(daemon, home):
    port, token = daemon["port"], token_of(home)
    assert upgrade(port) == 403  # no token
    assert upgrade(port, Authorization="Bearer wrong-token") == 403
    assert upgrade(port, path="/ws?token=wrong") == 403
    assert upgrade(port, Authorization=f"Bearer {token}") == 101
    assert upgrade(port, path=f"/ws?token={token}") == 101


def test_foreign_origin_is_refused_even_with_the_token(daemon, home):
    port, token = daemon["port"], token_of(home)
    auth = {"Authorization": f"Bearer {token}"}
    assert upgrade(port, Origin="https://evil.example", **auth) == 403
    assert upgrade(port, Origin="null", **auth) == 403  # a sandboxed archived copy
    assert (
        upgrade(port, Origin="chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", **auth) == 403
    )
    assert upgrade(port, Origin=f"chrome-extension://{EXT_ID}", **auth) == 101
    assert (
        upgrade(port, Origin="moz-extension://0b7a6a2e-1111-4c1e-9d1a-2a2b2c2d2e2f", **auth) == 101
    )
    assert upgrade(port, Origin=f"http://127.0.0.1:{port}", **auth) == 101
    assert upgrade(port, Origin=f"http://localhost:{port}", **auth) == 101
    assert upgrade(port, Origin="http://127.0.0.1:1", **auth) == 403


def test_cross_site_websocket_hijacking_with_a_real_client(daemon, home):

    with pytest.raises(InvalidStatus) as info:
        connect(
            f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}",
            origin="https://attacker.example",
        )
    assert info.value.response.status_code == 403


def test_rebinding_host_is_refused(daemon, home):
    port, token = daemon["port"], token_of(home)
    for host in (
        "evil.example",
        f"evil.example:{port}",
        "127.0.0.1",
        f"127.0.0.1.nip.io:{port}",
        None,
    ):
        assert upgrade(port, Host=host, Authorization=f"Bearer {token}") == 403, host
        assert raw_get(port, f"/viewer/?token={token}", {"Host": host})[0] == 403, host
    assert upgrade(port, Host=f"localhost:{port}", Authorization=f"Bearer {token}") == 101
    assert raw_get(port, "/viewer/", {"Host": f"localhost:{port}"})[0] == 200


@pytest.mark.parametrize(
    "path",
    [
        "/viewer/../token",
        "/viewer/%2e%2e/%2e%2e/token",
        "/viewer/..%2f..%2ftoken",
        "/viewer/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/viewer//etc/passwd",
        "/v/..%2f..%2ftoken/x",
        "/v/../../token",
        "/token",
        "/daemon.json",
    ],
)
def test_traversal_paths_are_refused(daemon, home, path):
    token = token_of(home)
    status, _, body = raw_get(daemon["port"], path, {"Authorization": f"Bearer {token}"})
    assert status in (400, 403, 404), (path, status)
    assert token.encode() not in body


def _archive(daemon, token) -> dict:
    html = gzip.decompress(PAGE.read_bytes()).decode("utf-8", "replace")
    html += '<a href="https://example.org/next">next</a><script>alert(1)</script>'
    with connect(f"ws://127.0.0.1:{daemon['port']}/ws?token={token}") as ws:
        ws.send(
            json.dumps(
                {
                    "id": 1,
                    "type": "archive_page",
                    "params": {"url": "https://example.org/a", "html": html},
                }
            )
        )
        reply = json.loads(ws.recv(timeout=30))
    assert reply["ok"], reply
    return reply["result"]


def test_archived_copies_need_auth_and_are_sandboxed(daemon, home):
    port, token = daemon["port"], token_of(home)
    reg = _archive(daemon, token)
    path = f"/v/{reg['id']}/https://example.org/a"
    assert raw_get(port, path, {})[0] == 403
    assert raw_get(port, path + "?token=nope", {})[0] == 403
    other = sign_path("other-token", f"/v/{reg['id']}/")
    assert raw_get(port, path + f"?sig={other}", {})[0] == 403
    status, headers, body = raw_get(port, path, {"Authorization": f"Bearer {token}"})
    assert status == 200
    assert headers["content-security-policy"] == [SEALED_CSP]
    assert headers["referrer-policy"] == ["no-referrer"]
    # gc links inside carry a signature of their own target only (never the token)
    assert token.encode() not in body
    links = re.findall(rb'href="(/gc\?[^"]+|https?://127\.0\.0\.1:\d+/gc\?[^"]+)"', body)
    assert links, "rewritten copy should link through gc"
    signed = [link for link in links if b"sig=" in link]
    assert signed, links[:3]
    auth = {"Authorization": f"Bearer {token}"}
    status, headers, body = raw_get(port, path + "?original=1", auth)  # the byte-identical copy
    assert status == 200 and headers["content-security-policy"] == [SEALED_CSP]
    assert b"<script>alert(1)</script>" in body  # kept as captured, and unable to run


def test_signed_gc_link_works_without_token_and_tampering_fails(daemon, home):
    port, token = daemon["port"], token_of(home)
    reg = _archive(daemon, token)
    target = "http://nonexistent.invalid/next"
    sig = sign(token, "gc", target, reg["id"])
    good = f"/gc?url={quote(target, safe='')}&id={reg['id']}&sig={sig}"
    status, headers, _ = raw_get(port, good, {})
    assert status in (302, 404), status  # unreachable and not archived: no copy to show
    if status == 404:  # our "not archived" page is sandboxed like a copy
        assert headers["content-security-policy"] == [SEALED_CSP]
    tampered = f"/gc?url={quote(target + 'x', safe='')}&id={reg['id']}&sig={sig}"
    assert raw_get(port, tampered, {})[0] == 403
    assert raw_get(port, f"/gc?url={quote(target, safe='')}&id={reg['id']}", {})[0] == 403


def test_gc_to_an_archived_url_redirects_to_a_signed_copy(daemon, home):
    port, token = daemon["port"], token_of(home)
    _archive(daemon, token)  # https://example.org/a is archived; example.org does not resolve here
    status, headers, _ = raw_get(
        port,
        f"/gc?url={quote('https://example.org/a', safe='')}",
        {"Authorization": f"Bearer {token}"},
    )
    assert status == 302
    location = headers["location"][0]
    assert location.startswith("/v/") and "sig=" in location
    status, headers, body = raw_get(port, location, {})  # the signed address alone suffices
    assert status == 200 and headers["content-security-policy"] == [SEALED_CSP]


def test_viewer_opened_with_token_sets_httponly_strict_cookie(daemon, home):
    port, token = daemon["port"], token_of(home)
    reg = _archive(daemon, token)
    status, headers, _ = raw_get(port, f"/viewer/?token={token}", {})
    assert status == 200
    cookie = headers["set-cookie"][0]
    assert cookie.startswith("pk_token=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "set-cookie" not in raw_get(port, "/viewer/", {})[1]  # no token, no cookie
    value = cookie.split(";", 1)[0]
    assert raw_get(port, f"/v/{reg['id']}/x", {"Cookie": value})[0] == 200
    assert raw_get(port, f"/v/{reg['id']}/x", {"Cookie": "pk_token=wrong"})[0] == 403
    status, headers, _ = raw_get(port, f"/auth?token={token}&next=/viewer/%23doc", {})
    assert status == 303 and headers["location"] == ["/viewer/#doc"]
    assert raw_get(port, f"/auth?token={token}&next=//evil.example/", {})[0] == 400
    assert raw_get(port, "/auth?token=wrong&next=/viewer/", {})[0] == 403


def test_token_file_created_private(tmp_path):
    token = ensure_token(tmp_path)
    assert (tmp_path / "token").stat().st_mode & 0o777 == 0o600
    assert ensure_token(tmp_path) == token and len(token) >= 40
    assert ensure_token(tmp_path / "a" / "home")  # a home folder not made yet is made


def test_credentials_never_echoed():
    assert strip_credentials("https://alice:s3cret@bank.example/x?y") == "https://bank.example/x?y"
    assert strip_credentials("http://bob@h.example/") == "http://h.example/"
    assert strip_credentials("https://plain.example/") == "https://plain.example/"


def _ws(daemon, home, type_: str, params: dict) -> dict:
    with connect(f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}") as ws:
        ws.send(json.dumps({"id": 1, "type": type_, "params": params}))
        return json.loads(ws.recv(timeout=30))


def test_credentials_never_reach_replies_copies_or_logs(daemon, home):
    port, token = daemon["port"], token_of(home)
    html = "<title>Account</title><p>" + "your balance and statements " * 20 + "</p>"
    secret = "https://alice:s3cret@bank.example/acct"
    replies = [_ws(daemon, home, "archive_page", {"url": secret, "html": html})]
    reg = replies[0]["result"]
    for type_, params in [
        ("versions", {"url": secret}),
        ("nav_error", {"url": secret, "kind": "http_404"}),  # archived copy + archive suggestion
        ("nav_error", {"url": "https://alice:s3cret@bank.exampel/acct", "kind": "dns"}),
        ("nav_error", {"url": "https://alice:s3cret@bank.example/other", "kind": "http_404"}),
        ("search", {"pattern": "*bank*"}),
        ("similar", {"id": reg["id"]}),
        ("archive_page", {"url": "http://alice:s3cret@nonexistent.invalid/x"}),  # fetch_failed
        ("visited", {"url": "http://alice:s3cret@[bad/x"}),  # invalid_input quoting the URL
        ("crawl", {"url": "http://alice:s3cret@nonexistent.invalid/", "delay": 0}),
        ("schedule_add", {"url": "https://alice:s3cret@bank.example/acct"}),
        ("schedule_list", {}),
    ]:
        replies.append(_ws(daemon, home, type_, params))
    assert replies[1]["result"]["versions"][0]["id"] == reg["id"]  # found under the clean URL
    assert replies[2]["result"]["archived"] and replies[2]["result"]["suggestions"]
    assert replies[5]["result"]["results"][0]["version_url"].startswith(daemon["url"])
    assert [r["ok"] for r in replies[-5:-3]] == [False, False]
    assert replies[-3]["result"]["url"] == "http://nonexistent.invalid/"  # the crawl's job
    assert replies[-1]["result"]["schedules"][0]["url"] == "https://bank.example/acct"
    for reply in replies:
        assert "s3cret" not in json.dumps(reply), reply
    status, _, body = raw_get(port, f"/v/{reg['id']}/x", {"Authorization": f"Bearer {token}"})
    assert status == 200 and b"s3cret" not in body
    for log in (home / "logs").iterdir():
        assert b"s3cret" not in log.read_bytes(), log


def test_credentials_archived_before_they_were_cut_are_not_echoed(home):
    """A store written by an older host may hold ``user:pass@`` URLs: the replies still cut them."""

    store = ArchiveStore.open(home)
    html = "<title>Old</title><p>" + "an old page kept with its login " * 20 + "</p>"
    old = register(store, Capture("https://bob:hunter2@old.example/a", html)).id
    store.close()
    daemon = json.loads(pk(home, "serve", "--detach", "--json").stdout)
    replies = [
        _ws(daemon, home, "nav_error", {"url": "https://old.example/a", "kind": "http_404"}),
        _ws(daemon, home, "nav_error", {"url": "https://old.example/b", "kind": "http_404"}),
        _ws(daemon, home, "search", {"pattern": "*old.example*"}),
        _ws(daemon, home, "similar", {"id": old}),
        _ws(daemon, home, "get", {"id": old}),
        _ws(daemon, home, "open", {"id": old}),
        _ws(daemon, home, "check", {"id": old}),
    ]
    assert replies[1]["result"]["similar"][0]["id"] == old  # same site, nearest path
    assert replies[2]["result"]["results"][0]["id"] == old
    for reply in replies:
        assert reply["ok"] and "hunter2" not in json.dumps(reply), reply


def test_log_files_cut_credentials(tmp_path):

    root = logging.getLogger()
    before = list(root.handlers)
    setup_logging(tmp_path)
    try:
        log = logging.getLogger("pagekeeper.test")
        log.warning("fetch of %s failed", "https://alice:s3cret@bank.example/")
        try:
            raise ValueError("cannot open http://bob:hunter2@h.example/x")
        except ValueError:
            log.exception("handler failed")
    finally:
        for handler in set(root.handlers) - set(before):
            handler.close()
            root.removeHandler(handler)
    text = (tmp_path / "logs" / "daemon.log").read_text()
    assert "https://bank.example/" in text and "http://h.example/x" in text
    assert "s3cret" not in text and "hunter2" not in text and "alice" not in text


# -- exact comparisons: a prefix of a secret is not the secret ----------------------------


def test_a_prefix_of_the_token_or_the_token_with_more_is_refused(daemon, home):
    port, token = daemon["port"], token_of(home)
    assert not same_token(token[:-1], token) and not same_token(token + "x", token)
    for wrong in (token[:-1], token[:8], token[:1], token + "x"):
        assert upgrade(port, Authorization=f"Bearer {wrong}") == 403, wrong
        assert upgrade(port, path=f"/ws?token={quote(wrong)}") == 403, wrong
        assert raw_get(port, f"/auth?token={quote(wrong)}&next=/viewer/", {})[0] == 403, wrong
        status, headers, _ = raw_get(port, f"/viewer/?token={quote(wrong)}", {})
        assert status == 200 and "set-cookie" not in headers, wrong  # no session for a prefix
    assert raw_get(port, f"/auth?token={token}&next=/viewer/", {})[0] == 303


def test_a_prefix_of_a_link_signature_is_refused(daemon, home):
    port, token = daemon["port"], token_of(home)
    reg = _archive(daemon, token)
    target = "http://nonexistent.invalid/next"
    sig = sign(token, "gc", target, reg["id"])
    gc = f"/gc?url={quote(target, safe='')}&id={reg['id']}&sig="
    assert raw_get(port, gc + sig, {})[0] != 403
    copy = f"/v/{reg['id']}/x?sig="
    copy_sig = sign_path(token, f"/v/{reg['id']}/")
    assert raw_get(port, copy + copy_sig, {})[0] == 200
    for cut in (1, 2, 16, 31):
        assert raw_get(port, gc + sig[:cut], {})[0] == 403, cut
        assert raw_get(port, copy + copy_sig[:cut], {})[0] == 403, cut
    assert raw_get(port, gc + sig + "0", {})[0] == 403
    assert raw_get(port, copy + copy_sig + "0", {})[0] == 403
    assert not verify_path(token, f"/v/{reg['id']}/", copy_sig[:-1])


def test_the_signed_message_separates_its_parts(daemon, home):
    """Without a separator, the signature of url=…/next9 with no id would also sign url=…/next
    with id 9: each part must stay a part."""
    port, token = daemon["port"], token_of(home)
    target = "http://nonexistent.invalid/next"
    assert sign(token, "gc", target + "9", "") != sign(token, "gc", target, "9")
    assert sign(token, "gc", "a\nb", "c") != sign(token, "gc", "a", "b\nc")  # escaped inside
    sig = sign(token, "gc", target + "9", "")
    assert raw_get(port, f"/gc?url={quote(target + '9', safe='')}&sig={sig}", {})[0] != 403
    assert raw_get(port, f"/gc?url={quote(target, safe='')}&id=9&sig={sig}", {})[0] == 403
    path_sig = sign_path(token, "/v/12/")
    assert not verify_path(token, "/v/1/", path_sig) and sign(token, "path/v/12/") != path_sig


BAD_ORIGINS = (
    "moz-extension://",
    "moz-extension:///",
    "moz-extension:",
    "moz-extension://x",
    "moz-extension://evil.example",
    "moz-extension://0b7a6a2e-1111-4c1e-9d1a-2a2b2c2d2e2f.evil.example",
    "moz-extension://0b7a6a2e-1111-4c1e-9d1a-2a2b2c2d2e2f@evil.example",
    "chrome-extension://",
)


def test_a_bare_or_malformed_extension_origin_is_refused(daemon, home):
    port, token = daemon["port"], token_of(home)
    for origin in BAD_ORIGINS:
        assert not allowed_origin(origin, port, [EXT_ID]), origin
        assert upgrade(port, Origin=origin, Authorization=f"Bearer {token}") == 403, origin


# -- every version address the CLI prints opens, with no cookie ----------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def printed_version_urls(home, url: str) -> list[str]:
    listed = json.loads(pk(home, "archive", "versions", url, "--json").stdout)
    rows = listed if isinstance(listed, list) else listed["versions"]
    return [row["version_url"] for row in rows]


def test_every_version_url_the_cli_prints_opens_without_a_cookie(tmp_path):
    port = free_port()
    home = make_home(tmp_path, port=port)
    page = tmp_path / "page.html"
    url = "https://example.org/a?b=1#frag"
    try:
        page.write_bytes(gzip.decompress(PAGE.read_bytes()))
        pk(home, "archive", "add", url, "--html", str(page), "--no-fetch")  # no daemon
        down = printed_version_urls(home, url)
        pk(home, "serve", "--detach")
        page.write_bytes(page.read_bytes() + b"<p>a second version</p>")
        pk(home, "archive", "add", url, "--html", str(page), "--no-fetch")  # through the daemon
        up = printed_version_urls(home, url)
        assert len(down) == 1 and len(up) == 2 and down[0] in up
        for address in up:
            parts = urlsplit(address)
            assert (parts.hostname, parts.port) == ("127.0.0.1", port), address
            status, headers, _ = raw_get(port, f"{parts.path}?{parts.query}", {})
            assert status == 200, address
            assert headers["content-security-policy"] == [SEALED_CSP]
            bare, sig = address.split("?sig=")
            assert raw_get(port, urlsplit(bare).path, {})[0] == 403  # unsigned: the token is needed
            assert raw_get(port, f"{urlsplit(bare).path}?sig={sig[:-1]}", {})[0] == 403
    finally:
        stop_daemon(home)


# The rules themselves, without a daemon: each check refuses the near miss of what it accepts.


def test_a_token_is_accepted_only_whole_and_never_empty():
    token = "s3cret-token"
    assert same_token(token, token)
    for near in (token[:-1], token + "x", "", None, token.upper()):
        assert not same_token(near, token)
    assert not same_token("", "")  # an empty token file never opens the door


def test_the_host_must_be_this_daemon_on_its_own_port():
    for host in ("127.0.0.1:47477", "localhost:47477", " LOCALHOST:47477 "):
        check_host(host, 47477)
    for host in ("127.0.0.1:47478", "127.0.0.1", "evil.example:47477", "", None):
        with pytest.raises(Forbidden):
            check_host(host, 47477)


def test_origins_our_extension_firefox_add_ons_and_the_daemon_itself():
    uuid = "moz-extension://0123abcd-0123-0123-0123-0123456789ab"
    for origin in (
        f"chrome-extension://{EXT_ID}",
        f"chrome-extension://{EXT_ID}/",
        uuid,
        "http://127.0.0.1:47477",
        "HTTP://LOCALHOST:47477",
    ):
        assert allowed_origin(origin, 47477, [EXT_ID]), origin
    for origin in (
        f"chrome-extension://{EXT_ID}x",
        "chrome-extension://other",
        uuid + "0",
        "http://127.0.0.1:47478",
        "https://127.0.0.1:47477",
        "null",
        "",
    ):
        assert not allowed_origin(origin, 47477, [EXT_ID]), origin
    check_origin(None, 47477, [EXT_ID])  # the CLI and the relay send none
    check_origin("http://localhost:47477", 47477, [])  # the viewer, on the daemon's own port
    with pytest.raises(Forbidden):
        check_origin("https://evil.example", 47477, [EXT_ID])


def test_the_token_is_read_from_the_bearer_header_then_the_query_then_the_cookie():
    assert presented_token("/ws?token=q", {"Authorization": "Bearer  h "}) == "h"
    assert presented_token("/ws?token=q", {"Authorization": "bearer h"}) == "h"
    assert (
        presented_token("/ws?token=q", {"Authorization": "Basic h", "Cookie": "pk_token=c"}) == "q"
    )
    assert presented_token("/ws", {"Cookie": "a=1; pk_token=c; b=2"}) == "c"
    assert presented_token("/ws", {"Cookie": "pk_token=c=d"}) == "c=d"  # split at the first =
    assert presented_token("/ws", {"Cookie": "xpk_token=c; pk_tokens=d"}) is None
    assert presented_token("/ws", {}) is None


def test_a_link_signature_is_accepted_only_whole_for_its_own_target():
    sig = sign("t", "gc", "https://a.example/", "7")
    assert len(sig) == 32 and valid_signature("t", sig, "gc", "https://a.example/", "7")
    for near in (sig[:-1], sig + "0", "", None, sig.upper()):
        assert not valid_signature("t", near, "gc", "https://a.example/", "7")
    assert not valid_signature("t", sig, "gc", "https://a.example/", "8")
    assert not valid_signature("u", sig, "gc", "https://a.example/", "7")
    # parts are escaped before they are joined: no two targets share a message
    assert sign("t", "a\nb") != sign("t", "a", "b")
    assert sign("t", "a%0Ab") != sign("t", "a\nb")


def test_a_signed_version_address_is_signed_once_and_only_for_the_daemon():
    url = "http://127.0.0.1:1/v/7/https://a.example/x?q=1#f"
    signed = signed_version_url("s", url)
    assert signed == (
        "http://127.0.0.1:1/v/7/https://a.example/x%3Fq=1%23f?sig=" + sign_path("s", "/v/7/")
    )
    assert signed_version_url("s", signed) == signed
    assert signed_version_url("s", "https://evil.example:1/v/7/x") == "https://evil.example:1/v/7/x"
    assert verify_path("s", "/v/7/", signed.rsplit("=", 1)[1])
    assert not verify_path("s", "/v/70/", signed.rsplit("=", 1)[1])
    assert sign_version_urls({"a": [url, 3], "b": (url,)}, "s") == {"a": [signed, 3], "b": [signed]}
    assert has_version_url({"a": [3, (url,)]}) and not has_version_url({"a": ["x", 3]})


def test_credentials_are_cut_from_every_string_of_a_reply_and_from_log_records():
    value = {"a": ["http://u:p@h.example/"], "b": ("ftp://x@f.example/",), "n": 3}
    assert strip_credentials_deep(value) == {
        "a": ["http://h.example/"],
        "b": ["ftp://f.example/"],
        "n": 3,
    }
    assert strip_credentials_deep(None) is None and strip_credentials(None) is None
    try:
        raise ValueError("fetch https://u:pw@bank.example/")
    except ValueError:
        record = logging.LogRecord("x", 40, "f", 1, "at %s", ("http://u:p@h/",), sys.exc_info())
    assert CredentialFilter().filter(record) is True
    assert record.getMessage() == "at http://h/" and "pw@" not in record.exc_text
    assert "bank.example" in record.exc_text
