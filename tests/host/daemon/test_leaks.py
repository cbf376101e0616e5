"""Small leaks: an off-site /auth redirect, credentials inside pages and in CLI errors,
and look-alike hosts that would key to another document."""

from __future__ import annotations

import gzip
import json
import socket
import zlib
from urllib.parse import quote

import pytest

from tests.host.daemon.test_security import raw_get
from tests.host.daemon_fixtures import make_home, pk, token_of


@pytest.mark.parametrize("target", ["/\\evil.example/", "/\t/evil.example", "//evil.example/"])
def test_auth_never_redirects_off_site(daemon, home, target):
    path = f"/auth?token={token_of(home)}&next={quote(target, safe='')}"
    status, headers, _ = raw_get(daemon["port"], path, {})
    assert status == 400 and "location" not in headers, (status, headers)


def test_auth_still_redirects_to_a_local_path(daemon, home):
    status, headers, _ = raw_get(daemon["port"], f"/auth?token={token_of(home)}&next=/viewer/", {})
    assert status == 303 and headers["location"] == ["/viewer/"]


SECRET_PAGE = (
    "<title>Links</title>"
    '<a href="https://alice:s3cret@bank.example/account">bank</a>'
    '<img src="https://bob:hunter2@cdn.example/i.png">'
    "<p>Written out: https://carol:pa55@files.example/x, and mail me @home.</p>"
)
SECRETS = (b"s3cret", b"hunter2", b"pa55", b"alice:", b"bob:", b"carol:")


def test_credentials_in_a_page_are_cut_before_storing(tmp_path):
    home = make_home(tmp_path)
    page = tmp_path / "page.html"
    page.write_text(SECRET_PAGE)
    reg = json.loads(
        pk(home, "archive", "add", "https://e.org/p", "--html", str(page), "--json").stdout
    )
    served = pk(home, "archive", "get", reg["id"]).stdout.encode()
    original = pk(home, "archive", "get", reg["id"], "--original").stdout.encode()
    warc = tmp_path / "out.warc.gz"
    pk(home, "archive", "export", "--id", reg["id"], "-o", str(warc))
    stored = b"".join(p.read_bytes() for p in (home / "db").iterdir() if p.is_file())
    for blob in home.rglob("*"):
        if blob.is_file() and "blobs" in blob.parts:
            stored += zlib.decompress(blob.read_bytes())
    for name, data in [
        ("get", served),
        ("get --original", original),
        ("WARC", gzip.decompress(warc.read_bytes())),
        ("store", stored),
    ]:
        leaked = [s for s in SECRETS if s in data]
        assert not leaked, (name, leaked)
    assert b"https://bank.example/account" in original and b"@home" in original


def test_a_fetch_error_never_prints_the_password(tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = pk(
        make_home(tmp_path),
        "archive",
        "add",
        f"http://alice:s3cret@127.0.0.1:{port}/x",
        "--json",
        check=False,
    )
    assert done.returncode != 0
    assert "s3cret" not in done.stdout + done.stderr and "alice" not in done.stdout + done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "fetch_failed"


@pytest.mark.parametrize(
    "url",
    [
        "https://exa\u00admple.com/",  # soft hyphen
        "https://exa\u200bmple.com/",  # zero-width space
        "https://ex\u200dample.com/",  # zero-width joiner
        "https://exa%C2%ADmple.com/",  # the soft hyphen percent-encoded
        "https://\ufeffexample.com/",  # BOM
    ],
)
def test_look_alike_hosts_are_refused_not_merged(tmp_path, url):
    home = make_home(tmp_path)
    page = tmp_path / "page.html"
    page.write_text("<title>Real</title><p>the real one</p>")
    pk(home, "archive", "add", "https://example.com/", "--html", str(page))
    page.write_text("<title>Fake</title><p>an impostor</p>")
    done = pk(home, "archive", "add", url, "--html", str(page), "--json", check=False)
    assert json.loads(done.stdout)["error"]["code"] == "invalid_url", done.stdout
    listed = json.loads(pk(home, "archive", "versions", "https://example.com/", "--json").stdout)
    assert [v["title"] for v in listed] == ["Real"]
