"""Decompression bombs from a real local server: stacked gzip, deflate, brotli, and a bomb
in a redirect's body. Fetching stops at the cap while decoding, and peak memory stays
bounded, in the CLI (``archive add`` with no daemon) and in the daemon's ``/gc`` route.

Each process under test runs with its address space limited (RLIMIT_AS), so a
regression fails the test with a MemoryError instead of taking the machine's memory.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import resource
import subprocess
import sys
import threading
import urllib.parse
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import brotli
import pytest

from engine.errors import TooLarge
from host.services.fetch import BoundedBody, FetchOptions, fetch
from tests.host.daemon_fixtures import ROOT, pk, token_of

MB = 1 << 20
AS_LIMIT = 1536 * MB  # a regression hits MemoryError here, not the machine
PEAK_LIMIT_KB = 400 * 1024  # 50 MB cap + the interpreter, httpx and the CLI's imports


def gzip_zeros(megabytes: int) -> bytes:
    """A gzip member of ``megabytes`` MB of zeros, built from one compressed block repeated
    (deflate's output for a full-flushed block of zeros is the same every time)."""
    block = bytes(MB)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    piece = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(megabytes):
        crc = zlib.crc32(block, crc)
    trailer = crc.to_bytes(4, "little") + ((megabytes * MB) % 2**32).to_bytes(4, "little")
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + piece * megabytes + deflate.flush() + trailer


def raw_deflate_zeros(megabytes: int) -> bytes:
    block = bytes(MB)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    piece = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    return piece * megabytes + deflate.flush()


def brotli_zeros(megabytes: int) -> bytes:
    compressor = brotli.Compressor(quality=4)
    block = bytes(MB)
    return b"".join(compressor.process(block) for _ in range(megabytes)) + compressor.finish()


@pytest.fixture(scope="module")
def bombs():
    """path -> (Content-Encoding, body, status): each decodes to 1 GB or more of zeros."""
    inner_gzip, inner_br = gzip_zeros(1024), brotli_zeros(512)
    return {
        "/gzip-gzip": ("gzip, gzip", gzip.compress(inner_gzip), 200),
        "/deflate": ("deflate", raw_deflate_zeros(1024), 200),
        "/br": ("br", inner_br, 200),
        "/br-br": ("br, br", brotli.compress(inner_br), 200),
        "/br-gzip": ("br, gzip", gzip.compress(inner_br), 200),
        "/redirect-bomb": ("gzip, gzip", gzip.compress(inner_gzip), 302),
        "/small": ("gzip", gzip.compress(b"<title>small</title><p>fine</p>"), 200),
    }


@pytest.fixture(scope="module")
def server(bombs):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            encoding, body, status = bombs.get(self.path, ("", b"no", 404))
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Encoding", encoding)
            self.send_header("Content-Length", str(len(body)))
            if status == 302:
                self.send_header("Location", "/small")
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


RUNNER = r"""
import json, resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
done = subprocess.run(sys.argv[2:], capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": done.returncode, "out": done.stdout, "err": done.stderr, "peak_kb": peak}))
"""


def limited(*argv: str) -> dict:
    """Run argv with its address space limited; its exit code, output and peak RSS."""
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(AS_LIMIT), *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize("path", ["/gzip-gzip", "/deflate", "/br", "/br-br", "/br-gzip"])
def test_cli_fetch_of_a_bomb_is_too_large_with_bounded_memory(server, path, tmp_path):
    url = server + path
    got = limited(
        sys.executable, "-m", "host.cli", "archive", "add", url, "--json", "--home", str(tmp_path)
    )
    assert got["rc"] != 0, got
    assert json.loads(got["out"])["error"]["code"] == "too_large", got
    assert "MemoryError" not in got["err"]
    assert got["peak_kb"] < PEAK_LIMIT_KB, got["peak_kb"]


def test_a_bomb_in_a_redirect_body_is_never_decoded(server):
    got = fetch(server + "/redirect-bomb")
    assert got.status == 200 and got.redirects == 1 and b"small" in got.body


def test_each_layer_is_bounded_while_it_decodes():
    body = BoundedBody("gzip, gzip", 10 * MB, "u")
    with pytest.raises(TooLarge, match="decoded"):
        body.feed(gzip.compress(gzip_zeros(100)))
    # Nothing beyond the cap and one step was ever held.
    assert sum(map(len, body.chunks)) <= 10 * MB


def test_a_normal_compressed_page_is_decoded(server):
    got = fetch(server + "/small", FetchOptions())
    assert got.body == b"<title>small</title><p>fine</p>"


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_daemon_gc_of_a_bomb_keeps_memory_bounded(server, daemon, home, tmp_path):
    pid = daemon["pid"]
    resource.prlimit(pid, resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
    page = tmp_path / "page.html"
    page.write_text(f'<title>links</title><a href="{server}/gzip-gzip">bomb</a>')
    reg = json.loads(
        pk(home, "archive", "add", server + "/index", "--html", str(page), "--json").stdout
    )
    before = peak_rss_kb(pid)
    for path in ("/gzip-gzip", "/br-br", "/br-gzip"):
        query = urllib.parse.urlencode({"url": server + path, "id": reg["id"]})
        request = urllib.request.Request(
            f"{daemon['url']}/gc?{query}",
            headers={"Authorization": f"Bearer {token_of(home)}"},
        )
        opener = urllib.request.build_opener(NoRedirect)
        with contextlib.closing(opener.open(request, timeout=60)) as answer:
            # Reachable (it answered, with too much): gc sends the browser to the live page.
            assert answer.status == 302 and answer.headers["Location"] == server + path
    assert pk(home, "status", "--json").returncode == 0  # the daemon lived through it
    assert peak_rss_kb(pid) - before < 200 * 1024, (before, peak_rss_kb(pid))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None

    def http_error_302(self, request, answer, code, msg, headers):
        return answer
