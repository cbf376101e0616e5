"""Learning which URLs are one document (engine/archive/keys.py: ``learn``) re-keys the stored
versions in ONE transaction: a page's history is never split between an old and a new key.
A real store on disk, real saved pages (tests/engine/archive/pages.py)."""

from __future__ import annotations

import pytest

from engine.archive import alerts, labels
from engine.archive.keys import document_key, learn, set_key_profile
from engine.archive.model import Capture
from engine.archive.provider import versions
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from tests.engine.archive.pages import page
from tests.engine.archive.test_registry import at

STORIES = ["ordnung", "peptalks", "modabot"]  # three different real articles


def query_form(n: int) -> str:
    return f"https://foo.org/story?id=s{n}"


def path_form(n: int) -> str:
    return f"https://foo.org/story_s{n}"


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def _two_forms(store) -> list[str]:
    """Each story under both URL forms; story 0 captured twice under its query form."""
    ids = []
    for n, name in enumerate(STORIES):
        html = page(name)[1]
        ids.append(register(store, Capture(query_form(n), html), at(2 * n)).id)
        ids.append(register(store, Capture(path_form(n), html), at(2 * n + 1)).id)
    ids.append(register(store, Capture(query_form(0), page(STORIES[0])[1]), at(10)).id)
    return ids


def test_learning_moves_the_earlier_captures_to_the_learned_key(home):
    with ArchiveStore.open(home, fsync=False) as store:
        ids = _two_forms(store)
        assert len(versions(store, query_form(0))) == 2  # two keys before learning
        result = learn(store)
        assert [(r["find"], r["replace"]) for r in result["rules"]] == [("story?id=", "story_")]
        # three version rows move; the unchanged re-capture of story 0 is "seen again" on its
        # version's row and moves with it
        assert store.revisit_of(ids[6]) == ids[0]
        assert result["rekeyed"] == 3 and result["documents"] == 3
        key = document_key(store, query_form(0))
        assert key == document_key(store, path_form(0))
        assert set(store.captures_of_key(key)) == {ids[0], ids[1], ids[6]}  # the whole history
        new = register(store, Capture(query_form(0), page(STORIES[0])[1]), at(20))
        assert new.key == key and len(versions(store, query_form(0))) == 4
        assert store.version(ids[0])["prev"] is None  # the stored records are otherwise untouched
    with ArchiveStore.open(home) as store:  # durable: the new keys are in the journal
        assert len(versions(store, path_form(0))) == 4


def test_learning_again_finds_the_same_rules_and_moves_nothing(home):
    with ArchiveStore.open(home, fsync=False) as store:
        _two_forms(store)
        first = learn(store)
        again = learn(store)
        assert again["rules"] == first["rules"] and again["rekeyed"] == 0
        assert again["documents"] == 3


def test_a_failure_halfway_through_learning_changes_nothing(home, monkeypatch):
    with ArchiveStore.open(home, fsync=False) as store:
        ids = _two_forms(store)
        before = {i: store.version(i)["key"] for i in ids}
        real, calls = store.update, []

        def failing(table, reg_id, fields):
            calls.append(reg_id)
            if len(calls) == 2:
                raise OSError("disk full")
            real(table, reg_id, fields)

        monkeypatch.setattr(store, "update", failing)
        with pytest.raises(OSError):
            learn(store)
        assert len(calls) == 2 and store.load_state("dust_rules") is None
        assert {i: store.version(i)["key"] for i in ids} == before
        assert len(versions(store, query_form(0))) == 2
    with ArchiveStore.open(home) as store:
        assert store.load_state("dust_rules") is None
        assert {i: store.version(i)["key"] for i in ids} == before


def test_tags_and_alert_choices_follow_the_versions_to_their_new_key(home):
    with ArchiveStore.open(home, fsync=False) as store:
        ids = _two_forms(store)
        old_key = store.version(ids[0])["key"]
        with store.transaction():
            labels.set_tags(store, old_key, ["keep"], [])
            labels.set_tags(store, store.version(ids[1])["key"], ["read"], [])
            alerts.set_document(store, old_key, True)
        learn(store)
        key = document_key(store, query_form(0))
        assert labels.tags_of(store, key) == ["keep", "read"]  # both spellings' tags, merged
        assert alerts.document_choice(store, key) is True
        assert (
            labels.tags_of(store, old_key) == [] and alerts.document_choice(store, old_key) is None
        )


def test_a_stricter_profile_gives_the_tags_to_both_halves(home):
    tracked, plain = (
        "https://www.example.com/guide/index.html?utm_source=mail",
        "https://example.com/guide/",
    )
    with ArchiveStore.open(home, fsync=False) as store:
        register(store, Capture(tracked, page("ordnung")[1]), at(0))
        register(store, Capture(plain, page("peptalks")[1]), at(1))
        with store.transaction():
            labels.set_tags(store, document_key(store, plain), ["guide"], [])
        set_key_profile(store, "safe")
        assert labels.tags_of(store, document_key(store, tracked)) == ["guide"]
        assert labels.tags_of(store, document_key(store, plain)) == ["guide"]


# -- query parameters that change nothing ------------------------------------------------------


def _listing(store) -> list[str]:
    """Real pages under /display/?article=N, each also with the default sort and a tracker."""
    ids = []
    for n, name in enumerate(["ordnung", "peptalks", "modabot"]):
        html, url = page(name)[1], f"https://shop.example/display/?article={n}"
        for minute, form in enumerate((url, f"{url}&sort=ascending", f"{url}&fakefoo=x{n}")):
            ids.append(register(store, Capture(form, html), at(3 * n + minute)).id)
    return ids


def test_learned_parameters_join_the_stored_versions_in_one_document(home):
    with ArchiveStore.open(home, fsync=False) as store:
        ids = _listing(store)
        assert len(list(store.keys())) == 9
        result = learn(store)
        found = {(p["name"], p["value"], p["path"]) for p in result["params"]}
        assert found == {("sort", "ascending", "/display/"), ("fakefoo", None, "/display/")}
        assert result["rules"] == []  # DUST leaves whole parameters to the parameter learner
        assert result["rekeyed"] == 6 and result["documents"] == 3
        key = document_key(store, "https://shop.example/display/?article=1&sort=ascending")
        assert key == "https://shop.example/display/?article=1"
        assert set(store.ids_of_key(key)) == set(ids[3:6])
        assert document_key(store, "https://shop.example/display/?sort=descending") == (
            "https://shop.example/display/?sort=descending"
        )


def test_a_parameter_that_changes_the_page_is_never_learned(home):
    with ArchiveStore.open(home, fsync=False) as store:
        for n, (first, second) in enumerate([("ordnung", "peptalks"), ("modabot", "time4talks")]):
            url = f"https://shop.example/display/?article={n}"
            register(store, Capture(url, page(first)[1]), at(2 * n))
            register(store, Capture(f"{url}&page=2", page(second)[1]), at(2 * n + 1))
        result = learn(store)
        assert result["params"] == [] and result["rekeyed"] == 0 and result["documents"] == 4
