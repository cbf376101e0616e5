"""A link followed from a copy goes to the live page when the site is up, judged the way the
daemon's fetch goes: through an HTTP proxy (HTTP_PROXY and HTTPS_PROXY, as httpx reads them)
the proxy resolves the name, so a name the local resolver does not know is not a reason to
call the site down; nothing of a local network is opened by it (a name that resolves here to
a private or loopback address, an address typed as such, a name only a local network knows).

Real parts: the capture-dev replay server as the proxy (its log says what reached it), this
machine's own resolver (it resolves no public name: the corpus's hosts fail here), httpx,
and a real daemon started with the proxy in its environment."""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.request
from urllib.parse import quote, urlsplit

import httpx
import pytest

from engine.errors import FetchError
from host.daemon.security import sign
from host.services.fetch import FetchOptions, _local_name, astatus, fetch, through_proxy
from tests.host.capture_dev import start_replay
from tests.host.daemon.test_security import raw_get
from tests.host.daemon_fixtures import make_home
from tests.host.services.test_fetch import PROXY_VARIABLES
from tests.host.viewer.conftest import free_port, start_daemon, stop_daemon

LIVE = "http://books.toscrape.com/"  # recorded by the corpus, answered 200 by the replay
PUBLIC = FetchOptions(
    timeout=10.0, connect_timeout=5.0, max_bytes=2 * 1024 * 1024, public_only=True
)


def resolves_here(host: str) -> bool:
    try:
        socket.getaddrinfo(host, 80, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def replay():
    server = start_replay()
    if resolves_here(urlsplit(LIVE).hostname):  # the case only exists where DNS fails
        server.stop()
        pytest.skip("this machine resolves public names: the proxy's own resolution is not needed")
    yield server
    server.stop()


@pytest.fixture
def proxied(replay, monkeypatch):
    """This process's httpx sent through the replay server, as a user behind a proxy sets it."""
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", replay.proxy)
    monkeypatch.setenv("HTTPS_PROXY", replay.proxy)
    return replay


# The replay's log read with an opener of this file's own, which no proxy setting reaches:
# urllib.request.urlopen keeps the proxies it saw first for the whole process.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def log_since(replay, seq: int) -> dict:
    url = f"http://127.0.0.1:{replay.info['control']}/log?since={seq}"
    with DIRECT.open(url, timeout=10) as resp:
        return json.loads(resp.read())


def seq_of(replay) -> int:
    return log_since(replay, 0)["seq"]


def reached(replay, seq: int, host: str | None = None) -> list[dict]:
    """The requests the proxy saw since ``seq`` (for ``host``, when given)."""
    log = log_since(replay, seq)["log"]
    return [r for r in log if host is None or urlsplit(r["url"]).hostname == host]


def status_of(url: str) -> int | None:
    return asyncio.run(astatus(url, PUBLIC))


def test_a_public_name_the_proxy_resolves_is_live_through_the_proxy(proxied):
    seq = seq_of(proxied)
    assert status_of(LIVE) == 200
    assert reached(proxied, seq, "books.toscrape.com")  # it went through the proxy
    assert fetch(LIVE, PUBLIC).status == 200  # the sync fetch judges the same way


def test_without_a_proxy_a_name_that_does_not_resolve_stays_refused(replay, monkeypatch):
    """No proxy: the fetch resolves the name itself, so a name that does not resolve here is
    not reachable, and the check says so before any request (the rule as it was)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    seq = seq_of(replay)
    assert status_of(LIVE) is None
    assert not reached(replay, seq, "books.toscrape.com")


def test_a_host_no_proxy_names_is_judged_by_the_local_resolver(proxied, monkeypatch):
    """NO_PROXY takes a host off the proxy: the fetch resolves it here, so the check does too."""
    monkeypatch.setenv("NO_PROXY", "toscrape.com")
    seq = seq_of(proxied)
    assert status_of(LIVE) is None
    assert not reached(proxied, seq, "books.toscrape.com")


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/",  # a private address typed as such
        "http://192.168.1.1/admin",
        "http://[fd00::1]/",  # a unique local IPv6 address
        "http://2130706433/",  # 127.0.0.1 written as one number: the resolver reads it
        "http://localhost/",  # resolves here to loopback
    ],
)
def test_through_the_proxy_an_address_that_is_private_here_stays_refused(proxied, url):
    seq = seq_of(proxied)
    assert status_of(url) is None
    assert reached(proxied, seq) == []


@pytest.mark.parametrize(
    "url",
    [
        "http://intranet/wiki",  # one label: the resolver's search domains, a local network
        "http://nas.local/",  # mDNS (RFC 6762)
        "http://router.home.arpa/",  # RFC 8375
        "http://build.corp.internal/",  # ICANN's private-use TLD
        "http://printer.localhost/",  # RFC 6761
    ],
)
def test_through_the_proxy_a_name_only_a_local_network_knows_stays_refused(proxied, url):
    host = urlsplit(url).hostname
    assert not resolves_here(host)  # so the address rule cannot be what refuses it
    seq = seq_of(proxied)
    assert status_of(url) is None
    assert not reached(proxied, seq, host)


def test_the_check_asks_the_fetch_s_own_client_which_way_a_request_goes(proxied, monkeypatch):
    """The judgement follows httpx's own routing (its mounts from the environment), per URL."""
    monkeypatch.setenv("NO_PROXY", "toscrape.com")
    with httpx.Client() as client:
        assert not through_proxy(client, httpx.URL(LIVE))
        assert through_proxy(client, httpx.URL("http://stringjs.com/"))
        assert through_proxy(client, httpx.URL("http://10.0.0.1/"))  # proxied, yet refused above
    with httpx.Client(trust_env=False) as client:
        assert not through_proxy(client, httpx.URL("http://stringjs.com/"))


def test_a_link_from_a_copy_opens_the_live_page_through_the_daemon_s_proxy(replay, tmp_path):
    """End to end: a daemon started behind the proxy; a signed link from a copy (an iframe may
    load it without a click, so only public addresses are fetched) to a live page of a site
    this machine cannot resolve redirects to the live page; a LAN address does not."""
    home = make_home(tmp_path)
    daemon = start_daemon(home, free_port(), env=replay.env())
    try:
        page = daemon.result(
            "archive_page",
            {"url": "http://books.toscrape.com/copy.html", "html": f'<a href="{LIVE}">home</a>'},
        )

        def follow(target: str):
            path = f"/gc?url={quote(target, safe='')}&id={page['id']}&sig={sign(daemon.token, 'gc', target, page['id'])}"
            return raw_get(daemon.port, path, {})

        status, headers, _ = follow(LIVE)
        assert status in (302, 303, 307) and headers["location"] == [LIVE]
        seq = seq_of(replay)
        status, headers, body = follow("http://10.0.0.1/")
        assert status == 404 and b"This page is not in your archive" in body
        assert not reached(replay, seq, "10.0.0.1")
    finally:
        stop_daemon(daemon.proc)


@pytest.mark.parametrize(
    "host, local",
    [
        ("intranet", True),
        ("NAS.Local.", True),  # any case, a final dot
        ("printer.localhost", True),
        ("router.home.arpa", True),
        ("build.corp.internal", True),
        ("home.arpa", True),  # the special-use name itself
        ("news.thelocal", False),  # a label that only ends with the letters of one
        ("shop.eternal", False),
        ("myhome.arpa", False),
        ("books.toscrape.com", False),
    ],
)
def test_a_local_networks_name_is_one_label_or_ends_in_a_special_use_label(host, local):
    assert _local_name(host) is local


@pytest.mark.parametrize(
    "url, said",
    [
        ("http://10.0.0.1/", "is a private or loopback address"),
        ("http://nas.local/", "names a local network's machine"),
    ],
)
def test_the_blocking_fetch_refuses_what_the_daemons_fetch_refuses(proxied, url, said):
    """``fetch`` (the blocking twin of ``afetch``) judges an address the same way through the
    proxy: a private address and a local network's name are refused before any request."""
    seq = seq_of(proxied)
    with pytest.raises(FetchError, match=said):
        fetch(url, PUBLIC)
    assert reached(proxied, seq) == []
