"""The archive's key profile through the real paths: the daemon's ``key_profile`` message (what
the extension's options page sends), the viewer's warm index after a re-key, and
``pagekeeper archive profile`` with and without a daemon."""

from __future__ import annotations

import json

import pytest

from engine.errors import PageKeeperError
from host.daemon import client
from tests.host.daemon_fixtures import daemon, home, pk  # noqa: F401 (fixtures)

TRACKED = "https://www.example.com/guide/index.html?utm_source=mail"
PLAIN = "https://example.com/guide/"
PAGE = "<html><head><title>The guide</title></head><body><p>{}</p></body></html>"


def _archive(where, url: str, words: str) -> dict:
    html = PAGE.format(words)
    return client.call(where, "archive_page", {"url": url, "html": html})


def _documents(where) -> int:
    return client.call(where, "search_page", {"pattern": "*example.com/guide*"})["total"]


def test_the_daemon_rekeys_the_archive_and_the_viewer_follows(home, daemon):  # noqa: F811
    _archive(home, TRACKED, "How to set up the guide, first edition with many words.")
    assert _archive(home, PLAIN, "How to set up the guide, second edition.")["versions"] == 2
    assert _documents(home) == 1  # the viewer's index is warm now
    assert client.call(home, "key_profile") == {
        "profile": "archive",
        "profiles": ["safe", "archive", "aggressive"],
    }
    changed = client.call(home, "key_profile", {"profile": "safe"})
    assert (changed["profile"], changed["rekeyed"], changed["documents"]) == ("safe", 1, 2)
    assert _documents(home) == 2
    assert len(client.call(home, "versions", {"url": PLAIN})["versions"]) == 1
    assert _archive(home, TRACKED, "A third capture of the tracked spelling.")["versions"] == 2


def test_a_bad_profile_is_a_typed_error_and_the_daemon_goes_on(home, daemon):  # noqa: F811
    for bad in ("loose", 3, ""):
        with pytest.raises(PageKeeperError) as caught:
            client.call(home, "key_profile", {"profile": bad})
        assert caught.value.code == "invalid_input"
    assert client.call(home, "key_profile")["profile"] == "archive"


def test_the_cli_shows_and_sets_the_profile_with_and_without_a_daemon(home):  # noqa: F811
    shown = json.loads(pk(home, "archive", "profile", "--json").stdout)
    profiles = ["safe", "archive", "aggressive"]
    assert shown == {"profile": "archive", "profiles": profiles}  # as the daemon answers
    direct = json.loads(pk(home, "archive", "profile", "aggressive", "--json").stdout)
    assert direct == {"profile": "aggressive", "rekeyed": 0, "documents": 0, "profiles": profiles}
    pk(home, "serve", "--detach", "--json")
    through = json.loads(pk(home, "archive", "profile", "safe", "--json").stdout)
    assert through["profile"] == "safe" and client.call(home, "key_profile")["profile"] == "safe"
    refused = pk(home, "archive", "profile", "loose", check=False)
    assert refused.returncode == 2 and "invalid choice" in refused.stderr
