"""Delete, undo, expire and reclaim on real saved pages in a real store on disk."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import pytest

from engine.archive import trash
from engine.archive.model import Capture, RegisterOptions
from engine.archive.provider import get, search, served_resource, versions, visible_text_of
from engine.archive.registry import register
from engine.archive.resources import manifest_of
from engine.archive.store import ArchiveStore, blob_hash
from engine.archive.trash import DeleteOptions, ReclaimOptions
from engine.errors import InvalidInput, NotFound
from tests.engine.archive.pages import page

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def store(tmp_path):
    with ArchiveStore.open(tmp_path / "home") as opened:
        yield opened


def at(minutes: int) -> RegisterOptions:
    return RegisterOptions(now=T0 + timedelta(minutes=minutes), similar_budget_s=1.0)


def add(store, name: str, minutes: int, url: str | None = None, body: bytes | None = None):
    page_url, page_body = page(name)
    return register(store, Capture(url or page_url, body or page_body), at(minutes))


def tables(store) -> dict:
    names = ("versions", "fingerprints", "extracts", "refs", "liveness", "schedules")
    return {n: copy.deepcopy(dict(store.raw(n))) for n in names}


def blob_files(store) -> set[str]:
    return {name for name, _path in store.blob_names()}


def test_delete_one_version_forgets_it_everywhere(store):
    first = add(store, "ordnung", 0)
    edited = page("ordnung")[1].replace(b"</body>", b"<p>one more paragraph</p></body>")
    second = add(store, "ordnung", 1, body=edited)
    other = add(store, "peptalks", 2)  # same host: its similar list may name both
    store.update("liveness", second.id, {"state": "present", "checked_at": 1.0})
    result = trash.delete(store, second.id)
    assert result["deleted"] == {"documents": 0, "versions": 1}
    assert [v["id"] for v in versions(store, first.id)] == [first.id]
    assert not store.has_version(second.id) and store.row("liveness", second.id) is None
    for reg_id in (first.id, other.id):
        assert second.id not in [e[0] for e in store.row("fingerprints", reg_id)["similar"]]
    with pytest.raises(NotFound):
        get(store, second.id)


def test_undo_restores_every_row_exactly(store):
    first = add(store, "ordnung", 0)
    second = add(store, "ordnung", 1, body=page("ordnung")[1] + b"<!-- v2 -->")
    third = add(store, "ordnung", 2, body=page("ordnung")[1] + b"<!-- v3 -->")
    add(store, "peptalks", 3)
    store.update("liveness", second.id, {"state": "gone", "checked_at": 2.0})
    before = tables(store)
    result = trash.delete(store, second.id)
    assert store.raw("versions")[third.id]["prev"] == first.id  # relinked past the hole
    assert trash.restore(store, result["undo"]) == {"restored": {"documents": 0, "versions": 1}}
    assert tables(store) == before
    assert [v["id"] for v in versions(store, first.id)] == [third.id, second.id, first.id]
    with pytest.raises(NotFound):
        trash.restore(store, result["undo"])  # once only


def test_whole_document_goes_with_its_schedule_and_comes_back(store):
    url, _ = page("partei")
    add(store, "partei", 0)
    add(store, "partei", 1)
    store.db.table("schedules").insert({"url": url, "every": "daily", "next_run": 5.0})
    result = trash.delete(store, url)
    assert result["deleted"] == {"documents": 1, "versions": 2}
    assert not store.raw("schedules") and search(store, "*") == []
    trash.restore(store, result["undo"])
    assert [r["url"] for r in store.raw("schedules").values()] == [url]
    assert len(search(store, "*")) == 1


def test_blobs_stay_until_the_undo_window_ends_then_space_comes_back(store):
    kept = add(store, "latin1", 0)
    gone = add(store, "partei", 1)
    names = trash.version_blob_refs(store.version(gone.id))
    trash.delete(store, gone.id, DeleteOptions(undo_s=600, now=1000.0))
    assert trash.purge(store, now=1599.0, grace_s=0)["expired"] == 0
    assert names <= blob_files(store)  # still undoable: nothing reclaimed
    on_disk = sum(p.stat().st_size for _, p in store.blob_names())
    purged = trash.purge(store, now=1600.0, grace_s=0)
    assert purged["expired"] == 1 and purged["freed_bytes"] > 0
    assert not names & blob_files(store)
    assert on_disk - sum(p.stat().st_size for _, p in store.blob_names()) == purged["freed_bytes"]
    assert get(store, kept.id, original=True).body == page("latin1")[1]


def test_a_blob_another_version_shares_is_kept(store):
    url, body = page("latin1")
    kept = add(store, "latin1", 0)
    twin = add(store, "latin1", 1, url="http://mirror.example/0409.html", body=body)
    assert store.version(twin.id)["orig"] == store.version(kept.id)["orig"]
    result = trash.delete_now(store, twin.id)
    assert result == {
        "deleted": {"documents": 1, "versions": 1},
        "freed_bytes": result["freed_bytes"],
    }
    assert result["freed_bytes"] > 0
    assert get(store, kept.id, original=True).body == body


def test_reclaim_removes_orphans_and_crash_temp_files_but_respects_grace(store):
    add(store, "latin1", 0)
    orphan = store.put_blob(b"written by a capture that died before its rows")
    temp = store.blob_dir / "ab" / ".cdef.123.456.tmp"
    temp.parent.mkdir(exist_ok=True)
    temp.write_bytes(b"half")
    assert trash.reclaim(store, ReclaimOptions(grace_s=3600))["blobs"] == 0  # young files stay
    assert trash.reclaim(store, ReclaimOptions(grace_s=0))["blobs"] == 2
    assert orphan not in blob_files(store) and not temp.exists()
    assert trash.referenced_blobs(store) == blob_files(store)


def test_deletion_survives_a_reopen_and_can_be_undone_after_it(tmp_path):
    home = tmp_path / "home"
    with ArchiveStore.open(home) as store:
        reg = add(store, "partei", 0)
        undo = trash.delete(store, reg.id)["undo"]
    with ArchiveStore.open(home) as store:
        assert not store.has_version(reg.id) and search(store, "*") == []
        trash.restore(store, undo)
    with ArchiveStore.open(home) as store:
        assert get(store, reg.id, original=True).body == page("partei")[1]


def test_bad_references_are_typed(store):
    add(store, "partei", 0)
    with pytest.raises(NotFound):
        trash.delete(store, "20990101000000000000")
    with pytest.raises(NotFound):
        trash.delete(store, "https://never.example/")
    with pytest.raises(InvalidInput):
        trash.delete(store, "  ")
    with pytest.raises(NotFound):
        trash.restore(store, "77")


def test_full_text_search_forgets_a_deleted_document(store):
    reg = add(store, "partei", 0)
    word = "ministerium"
    assert [r["id"] for r in search(store, "*", text=word)] == [reg.id]
    trash.delete(store, reg.id)
    assert search(store, "*", text=word) == []


def test_reclaim_keeps_the_visible_text_of_a_stored_version(store):
    reg = add(store, "partei", 0)
    seen = store.row("extracts", reg.id)["visible_text"]
    assert trash.reclaim(store, ReclaimOptions(grace_s=0))["blobs"] == 0
    assert store.has_blob(seen) and "Steuerdarling" in visible_text_of(
        store, reg.id, recompute=False
    )


def test_a_blob_any_row_names_is_kept_even_in_fields_added_later(store):
    reg = add(store, "latin1", 0)
    seen = store.row("extracts", reg.id).get("visible_text")
    later = store.put_blob(b"a blob a newer field names")
    other = store.put_blob(b"a blob another module's table names")
    store.update("extracts", reg.id, {"some_new_field": later})
    store.db.table("resources").insert({"version": reg.id, "parts": [{"blob": other}]})
    trash.reclaim(store, ReclaimOptions(grace_s=0))
    assert {later, other} <= blob_files(store)
    if seen:  # the visible text a registration keeps for search and diff
        assert seen in blob_files(store)


PNG = bytes(range(256)) * 4
CSS = b"body { background: url(bg.png) }"


def add_with_resources(store, minutes: int, url: str | None = None):
    """latin1 with a stylesheet and an image, their bytes stored as blobs at registration."""
    page_url, body = page("latin1")
    items = [("https://res.example/s.css", "text/css", CSS), ("https://res.example/i.png", "image/png", PNG)]  # fmt: skip
    resources = [
        {"url": u, "type": t, "size": len(d), "sha256": None, "status": "pending", "data": d}
        for u, t, d in items
    ]
    return register(store, Capture(url or page_url, body, resources=resources), at(minutes))


def resource_blobs(store, reg_id: str) -> set[str]:
    return {e["blob"] for e in manifest_of(store, store.version(reg_id)) if e.get("blob")}


def test_a_manifest_blob_and_its_resources_stay_while_any_version_or_trash_names_them(store):
    first = add_with_resources(store, 0)
    again = add_with_resources(store, 1)  # the unchanged page captured again
    doc, twin = store.version(first.id), store.version(again.id)
    assert doc["manifest"] == twin["manifest"] and "resources" not in doc  # one shared blob
    named = resource_blobs(store, first.id) | {doc["manifest"]}
    assert len(named) == 3
    trash.delete(store, again.id, DeleteOptions(undo_s=600, now=1000.0))
    trash.reclaim(store, ReclaimOptions(grace_s=0))
    assert named <= blob_files(store)  # the live version names them
    trash.delete(store, first.id, DeleteOptions(undo_s=600, now=1000.0))
    trash.purge(store, now=1100.0, grace_s=0)
    assert named <= blob_files(store)  # only the trash names them: still undoable
    trash.purge(store, now=1700.0, grace_s=0)
    assert not named & blob_files(store)


def test_a_manifest_that_cannot_be_read_stops_the_reclaim(store):
    reg = add_with_resources(store, 0)
    orphan = store.put_blob(b"named by nothing")
    store._blob_path(store.version(reg.id)["manifest"]).unlink()
    with pytest.raises(NotFound):
        trash.reclaim(store, ReclaimOptions(grace_s=0))
    assert orphan in blob_files(store)  # what the lost manifest named is unknown: nothing goes
    assert {blob_hash(CSS), blob_hash(PNG)} <= blob_files(store)


def test_a_version_that_keeps_its_manifest_inline_still_works(store):
    """Archives written before manifests were blobs keep ``resources`` in the version row."""
    reg = add_with_resources(store, 0)
    doc = {k: v for k, v in store.raw("versions")[reg.id].items() if k != "manifest"}
    inline = [dict(e) for e in manifest_of(store, store.version(reg.id))]
    store.cache.clear()
    with store.transaction():
        store.remove_version(reg.id)
        store.add_version(reg.id, {**doc, "resources": inline})
    trash.reclaim(store, ReclaimOptions(grace_s=0))  # the old manifest blob is named by no one
    assert manifest_of(store, store.version(reg.id)) == inline
    numbers = {e["url"]: n for n, e in enumerate(inline)}
    assert served_resource(store, reg.id, numbers["https://res.example/i.png"]).body == PNG
    assert {blob_hash(CSS), blob_hash(PNG)} <= blob_files(store)  # counted inline
