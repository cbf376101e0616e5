"""host/services/fetch.py against a real local http.server (real sockets, real redirects)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from engine.errors import FetchError, InvalidURL, TooLarge
from host.services.fetch import FetchOptions, afetch, areachable, astatus, fetch, reachable

PAGES: dict[str, tuple[int, dict, bytes]] = {
    "/latin": (200, {"Content-Type": "text/html; charset=ISO-8859-1"}, b"<p>caf\xe9</p>"),
    "/meta": (200, {"Content-Type": "text/html"}, b'<meta charset="koi8-r"><p>\xc1</p>'),
    "/gone": (404, {"Content-Type": "text/html"}, b"<h1>not here</h1>"),
    "/declared-big": (200, {"Content-Type": "text/html", "Content-Length": str(10**9)}, b""),
}


class Handler(BaseHTTPRequestHandler):
    """Serves PAGES, /redirect/N chains, /stream-big (chunked, no length) and /site/... pages."""

    protocol_version = "HTTP/1.1"
    extra: dict[str, tuple[int, dict, bytes]] = {}

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path.startswith("/redirect/"):
            return self._redirect(int(path.rsplit("/", 1)[1]))
        if path == "/stream-big":
            return self._stream_big()
        status, headers, body = {**PAGES, **self.extra}.get(path, (404, {}, b"no"))
        self._send(status, headers, body)

    def _send(self, status: int, headers: dict, body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)

    def _redirect(self, left: int) -> None:
        target = f"/redirect/{left - 1}" if left > 0 else "/latin"
        self._send(302, {"Location": target}, b"")

    def _stream_big(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"x" * 65536
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for _ in range(200 * 16):  # 200 MB if the client kept reading
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")


@contextlib.contextmanager
def serve(extra: dict | None = None, base_handler: type = Handler):
    """Run a real HTTP server on 127.0.0.1 in a thread; yield its base URL."""
    handler = type("H", (base_handler,), {"extra": dict(extra or {})})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def base():
    with serve() as url:
        yield url


def test_fetch_decodes_header_charset(base):
    got = fetch(f"{base}/latin")
    assert (got.status, got.content_type, got.charset) == (200, "text/html", "iso8859-1")
    assert got.body == b"<p>caf\xe9</p>"


def test_fetch_meta_charset_when_header_has_none(base):
    assert fetch(f"{base}/meta").charset == "koi8-r"


def test_fetch_follows_redirects_and_records_final_url(base):
    got = fetch(f"{base}/redirect/3")
    assert got.final_url == f"{base}/latin"
    assert got.redirects == 4


def test_fetch_refuses_more_than_ten_redirects(base):
    fetch(f"{base}/redirect/9")
    with pytest.raises(FetchError, match="redirects"):
        fetch(f"{base}/redirect/11")


def test_http_error_status_is_returned_not_raised(base):
    got = fetch(f"{base}/gone")
    assert (got.status, got.ok) == (404, False)
    assert not reachable(f"{base}/gone")
    assert reachable(f"{base}/latin")


def test_declared_length_over_cap_is_too_large(base):
    with pytest.raises(TooLarge):
        fetch(f"{base}/declared-big")


def test_streamed_200mb_page_is_refused_without_reading_it_all(base):
    with pytest.raises(TooLarge) as info:
        fetch(f"{base}/stream-big", FetchOptions(max_bytes=1024 * 1024))
    assert info.value.code == "too_large"


def test_refused_connection_is_fetch_error():
    with serve() as url:
        dead = url
    with pytest.raises(FetchError) as info:
        fetch(f"{dead}/latin", FetchOptions(connect_timeout=2))
    assert info.value.details["kind"] == "refused"  # liveness says why, in plain words
    assert info.value.message.endswith(": the server refused the connection"), info.value.message
    assert "ConnectError" not in info.value.message  # `archive add` prints this message
    assert not reachable(f"{dead}/latin")


def test_dns_failure_is_fetch_error():
    with pytest.raises(FetchError) as info:
        fetch("http://no-such-host.invalid/", FetchOptions(connect_timeout=2))
    assert info.value.details["kind"] == "dns"
    assert info.value.message.endswith(": the site's name could not be found (DNS)")


def test_too_many_redirects_have_their_kind(base):
    with pytest.raises(FetchError) as info:
        fetch(f"{base}/redirect/11")
    assert info.value.details["kind"] == "redirects"


def test_non_http_url_is_invalid():
    with pytest.raises(InvalidURL):
        fetch("ftp://example.com/")


def test_afetch_matches_fetch(base):
    got = asyncio.run(afetch(f"{base}/redirect/1"))
    assert (got.status, got.final_url, got.charset) == (200, f"{base}/latin", "iso8859-1")


def test_the_status_a_live_address_answers_with_and_none_when_nothing_answers(base):
    """What a link in a copy is judged on: the status the server answered with (an error
    status is an answer, and only one under 400 is live); a page too large to read whole
    answered 200; no server (a refused connection) is None, not a status."""
    with serve() as url:
        dead = url
    answers = [
        asyncio.run(astatus(f"{base}/latin")),
        asyncio.run(astatus(f"{base}/gone")),
        asyncio.run(astatus(f"{base}/declared-big")),
        asyncio.run(astatus(f"{dead}/")),
    ]
    assert answers == [200, 404, 200, None]
    live = [asyncio.run(areachable(f"{base}/{p}")) for p in ("latin", "gone", "declared-big")]
    assert live == [True, False, True]
    with serve({"/bad": (400, {"Content-Type": "text/html"}, b"<p>bad request</p>")}) as other:
        assert asyncio.run(astatus(f"{other}/bad")) == 400  # 400 itself: an error, not live
        assert asyncio.run(areachable(f"{other}/bad")) is False


def test_the_probes_judge_with_the_options_they_are_given(base):
    """A probe given ``public_only`` (a link followed from a copy) refuses this server's
    loopback address; the same probe without it reaches the same page."""
    public = FetchOptions(public_only=True)
    assert reachable(f"{base}/latin") is True
    assert reachable(f"{base}/latin", public) is False
    assert asyncio.run(areachable(f"{base}/latin")) is True
    assert asyncio.run(areachable(f"{base}/latin", public)) is False
    assert asyncio.run(astatus(f"{base}/latin", public)) is None


def test_reachable_is_a_status_under_400_or_a_page_too_large_to_read_whole(base):
    assert reachable(f"{base}/declared-big") is True  # it answered, with a big page
    with serve({"/bad": (400, {"Content-Type": "text/html"}, b"<p>bad request</p>")}) as other:
        assert reachable(f"{other}/bad") is False  # 400 itself: an error, not live


PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


@pytest.mark.parametrize("fetcher", ["fetch", "afetch"])
def test_without_a_proxy_a_public_only_fetch_of_a_name_that_does_not_resolve_is_a_dns_failure(
    fetcher, monkeypatch
):
    """No proxy: the check has no address to judge and the fetch could not connect either;
    the refusal is the DNS failure it is (liveness reads the kind: unreachable, not gone)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    options = FetchOptions(connect_timeout=2, public_only=True)
    url = "http://no-such-host.invalid/"
    with pytest.raises(FetchError) as info:
        if fetcher == "fetch":
            fetch(url, options)
        else:
            asyncio.run(afetch(url, options))
    assert info.value.details["kind"] == "dns"
    assert info.value.message.startswith("cannot resolve no-such-host.invalid: ")


@contextlib.contextmanager
def silent(reset_after: float):
    """A server that completes every connection and answers nothing; after ``reset_after``
    seconds it closes, which resets the connections it never accepted."""
    sock = socket.create_server(("127.0.0.1", 0), backlog=8)
    closer = threading.Timer(reset_after, sock.close)
    closer.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        closer.cancel()
        sock.close()


PROBE_LIMIT_S = 5.0  # the probes' own read limit when the caller gives none


@pytest.mark.parametrize("probe", ["reachable", "areachable"])
def test_a_probe_gives_up_on_a_server_that_never_answers_at_its_own_limit(probe):
    """The probes (``archive open``'s check, gc) give a silent server 5 s, not the 15 s of a
    fetch and not for ever: the server here resets the connection only after 12 s."""
    with silent(reset_after=12.0) as url:
        start = time.monotonic()
        if probe == "reachable":
            live = reachable(f"{url}/")
        else:
            live = asyncio.run(areachable(f"{url}/"))
        took = time.monotonic() - start
    assert live is False
    assert PROBE_LIMIT_S - 0.5 <= took < 11.0, took


def test_a_body_of_exactly_the_cap_is_read_and_one_byte_more_is_too_large(base):
    """The cap is the most a body may hold: the declared length and the bytes read are both
    judged by it (``/latin`` declares its 12 bytes)."""
    body = PAGES["/latin"][2]
    assert fetch(f"{base}/latin", FetchOptions(max_bytes=len(body))).body == body
    with pytest.raises(TooLarge) as info:
        fetch(f"{base}/latin", FetchOptions(max_bytes=len(body) - 1))
    assert info.value.details["limit"] == len(body) - 1


def test_a_page_too_large_names_the_cap_it_passed_declared_or_streamed(base):
    """Liveness shows the cap a page passed (its "too large" verdict reads ``limit``), whether
    the page declared its length or streamed past the cap."""
    for path in ("/declared-big", "/stream-big"):
        with pytest.raises(TooLarge) as info:
            fetch(f"{base}{path}", FetchOptions(max_bytes=1024 * 1024))
        assert info.value.details["limit"] == 1024 * 1024, path


def test_a_body_its_encoding_cannot_decode_is_a_decode_failure():
    """A page that says gzip and is not: the server answered, the body is broken; the
    failure's kind says so (not a DNS or network failure)."""
    broken = (200, {"Content-Type": "text/html", "Content-Encoding": "gzip"}, b"not gzip at all")
    with serve({"/broken": broken}) as other, pytest.raises(FetchError) as info:
        fetch(f"{other}/broken")
    assert info.value.details["kind"] == "decode"
    assert info.value.message.startswith(f"cannot decode the body of {other}/broken: ")


def test_an_https_url_is_fetched_in_any_case_of_its_scheme():
    """Only http(s) is refused before a request; ``HTTPS://`` is https (here a closed port)."""
    with serve() as url:
        dead = url.replace("http://", "")
    for scheme in ("https://", "HTTPS://"):
        with pytest.raises(FetchError) as info:
            fetch(f"{scheme}{dead}/", FetchOptions(connect_timeout=2))
        assert info.value.details["kind"] == "refused"
