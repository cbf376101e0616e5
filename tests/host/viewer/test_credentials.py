"""An archive written before the daemon cut URL credentials at storage still shows none in
the viewer: every viewer reply is cleaned. A real daemon over a real store on disk."""

from __future__ import annotations

import json

import pytest

from engine.archive import registry
from engine.archive.model import Capture
from engine.archive.store import ArchiveStore
from tests.host.viewer.conftest import ARTICLE, free_port, page_bytes, start_daemon, stop_daemon

SECRET_URL = "https://alice:s3cret@creds.example/account/page.html"


@pytest.fixture
def old_archive(tmp_path):
    """The engine stores what it is given: the way an older host stored this page."""
    home = tmp_path / "home"
    with ArchiveStore.open(home) as store:
        reg = registry.register(store, Capture(SECRET_URL, page_bytes(ARTICLE)))
        assert "s3cret" in store.version(reg.id)["url"]  # the old data really holds it
    running = start_daemon(home, free_port())
    yield running, reg.id
    stop_daemon(running.proc)


def test_no_viewer_reply_shows_stored_credentials(old_archive):
    daemon, reg_id = old_archive
    replies = {
        "search_page": daemon.result("search_page", {"pattern": "*creds.example*"}),
        "document": daemon.result("document", {"id": reg_id}),
        "diff": daemon.result("diff", {"a": reg_id, "b": reg_id}),
        "archive_stats": daemon.result("archive_stats"),
        "liveness_report": daemon.result("liveness_report"),
        "viewer_changes": daemon.result("viewer_changes"),
    }
    assert replies["search_page"]["total"] == 1
    assert replies["search_page"]["results"][0]["url"] == "https://creds.example/account/page.html"
    for kind, reply in replies.items():
        assert "s3cret" not in json.dumps(reply), kind
