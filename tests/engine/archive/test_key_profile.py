"""The archive's key profile: which URLs count as one document, set once per archive,
every stored version re-keyed in one transaction. A real store on disk, real saved pages."""

from __future__ import annotations

import pytest

from engine.archive.keys import document_key, key_profile, set_key_profile
from engine.archive.model import Capture
from engine.archive.provider import search, versions
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput
from tests.engine.archive.pages import page
from tests.engine.archive.test_registry import at

TRACKED = "https://www.example.com/guide/index.html?utm_source=mail"
PLAIN = "https://example.com/guide/"


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def _two_spellings(store) -> None:
    register(store, Capture(TRACKED, page("ordnung")[1]), at(0))
    register(store, Capture(PLAIN, page("peptalks")[1]), at(1))


def test_the_default_profile_groups_two_spellings_and_safe_splits_them(home):
    with ArchiveStore.open(home) as store:
        _two_spellings(store)
        assert key_profile(store) == "archive"
        assert len(versions(store, TRACKED)) == 2
        result = set_key_profile(store, "safe")
        assert result == {"profile": "safe", "rekeyed": 1, "documents": 2}  # PLAIN's key stays
        assert [v["url"] for v in versions(store, TRACKED)] == [TRACKED]
        assert [v["url"] for v in versions(store, PLAIN)] == [PLAIN]
        assert len(search(store, "*example.com/guide*")) == 2  # the search index was rebuilt


def test_going_back_merges_them_again_and_the_choice_survives_a_reopen(home):
    with ArchiveStore.open(home) as store:
        _two_spellings(store)
        set_key_profile(store, "safe")
    with ArchiveStore.open(home) as store:
        assert key_profile(store) == "safe"
        assert document_key(store, TRACKED) != document_key(store, PLAIN)
        assert set_key_profile(store, "archive")["documents"] == 1
    with ArchiveStore.open(home) as store:
        assert len(versions(store, PLAIN)) == 2
        assert len(search(store, "*example.com/guide*")) == 1


def test_new_registrations_use_the_profile_in_force(home):
    with ArchiveStore.open(home) as store:
        set_key_profile(store, "safe")
        _two_spellings(store)
        assert len(versions(store, TRACKED)) == 1
        assert set_key_profile(store, "safe")["rekeyed"] == 0


def test_an_unknown_profile_is_refused_and_nothing_changes(home):
    with ArchiveStore.open(home) as store:
        _two_spellings(store)
        with pytest.raises(InvalidInput, match="unknown profile"):
            set_key_profile(store, "loose")
        assert key_profile(store) == "archive" and len(versions(store, PLAIN)) == 2


def test_a_failure_halfway_through_the_rekey_keeps_the_archive_as_it_was(home, monkeypatch):
    with ArchiveStore.open(home) as store:
        _two_spellings(store)
        register(store, Capture("https://www.example.com/guide/", page("modabot")[1]), at(2))
        real, calls = store.update, []

        def failing(table, reg_id, fields):
            calls.append(reg_id)
            if len(calls) == 2:
                raise OSError("disk full")
            real(table, reg_id, fields)

        monkeypatch.setattr(store, "update", failing)
        with pytest.raises(OSError):
            set_key_profile(store, "safe")
        assert calls and key_profile(store) == "archive" and len(versions(store, PLAIN)) == 3
    with ArchiveStore.open(home) as store:
        assert key_profile(store) == "archive" and len(versions(store, TRACKED)) == 3


def test_dust_rules_give_keys_of_the_profile_in_force(home):
    rule = {"site": "example.com", "part": "rest", "find": "/print", "replace": ""}
    with ArchiveStore.open(home) as store:
        store.save_state("dust_rules", {"rules": [rule]})
        set_key_profile(store, "safe")
        # The rule applied, and the result is keyed with `safe`: the fragment stays.
        assert document_key(store, "https://www.example.com/print/a#part") == (
            "https://www.example.com/a#part"
        )
