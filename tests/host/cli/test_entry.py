"""The CLI's entry point (host/cli/entry.py): the note after a result that holds version
addresses, in process."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from host.cli import entry

ADDRESS = "http://127.0.0.1:8123/v/abc/http://a.example/"


@pytest.mark.parametrize(
    "result, noted",
    [
        ({"version_url": ADDRESS}, True),
        ([{"id": "x"}, {"rows": [{"version_url": ADDRESS}]}], True),  # however deep
        ({"url": "http://a.example/", "id": "abc"}, False),  # a result with no address
        ([], False),
        (None, False),  # a command that printed its own text
    ],
)
def test_only_a_result_holding_version_addresses_is_noted(monkeypatch, result, noted):
    calls: list[object] = []
    monkeypatch.setattr(entry, "note_addresses", calls.append)
    ctx = SimpleNamespace(home=None)
    entry.note_version_addresses(result, ctx)
    assert calls == ([ctx] if noted else [])
