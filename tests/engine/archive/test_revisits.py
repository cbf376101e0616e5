"""An unchanged re-capture is recorded as "seen again" (engine/archive/registry.py: ``unchanged``,
engine/archive/store.py: ``add_revisit``): exactly the same original bytes and the same resources
as the document's latest version, and nothing else. A real store on disk, real saved pages
(tests/engine/archive/pages.py) with real resource bytes."""

from __future__ import annotations

import json

import pytest

from engine.archive import trash
from engine.archive.documents import DocumentIndex
from engine.archive.model import Capture, RegisterOptions
from engine.archive.provider import (
    get,
    keywords,
    refresh_similar,
    served_resource,
    similar,
    versions,
    visible_text_of,
)
from engine.archive.registry import register
from engine.archive.search import SearchOptions, search
from engine.archive.store import ArchiveStore
from engine.errors import NotFound
from tests.engine.archive.pages import page
from tests.engine.archive.test_registry import at

CSS = b"body{background:url(bg.png)} h1{color:#036}"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")


@pytest.fixture
def store(tmp_path):
    with ArchiveStore.open(tmp_path / "home", fsync=False) as opened:
        yield opened


def capture(body: bytes | None = None, css: bytes = CSS, png: bytes = PNG) -> Capture:
    """A real article with a stylesheet and an image, fetched bytes attached (as host-side)."""
    url, html = page("ordnung")
    html = body if body is not None else html
    html = html.replace(b"</head>", b'<link rel="stylesheet" href="/pk.css"></head>', 1)
    html = html.replace(b"</body>", b'<img src="/pk.png"></body>', 1)
    base = url.split("/", 3)[:3]
    resources = [
        {"url": "/".join([*base, "pk.css"]), "type": "text/css", "size": len(css), "data": css},
        {"url": "/".join([*base, "pk.png"]), "type": "image/png", "size": len(png), "data": png},
    ]
    for entry in resources:
        entry["status"] = "pending"
    return Capture(url, html, resources=resources, source="fetch")


def blob_files(store: ArchiveStore) -> set[str]:
    return {name for name, _ in store.blob_names()}


def test_an_exact_recapture_is_seen_again_and_shares_every_row(store):
    first = register(store, capture(), at(0))
    blobs = blob_files(store)
    again = register(store, capture(), at(5))
    assert again.revisit_of == first.id and again.id != first.id
    assert again.similar[0] == {"id": first.id, "similarity": 1.0, "content_similarity": 1.0}
    assert again.version_url.endswith(f"/v/{again.id}/{first.url}")
    assert store.ids == [first.id]  # no version row of its own
    assert blob_files(store) == blobs  # and no blob
    for table in ("refs", "fingerprints", "extracts"):
        assert store.row(table, again.id) == store.row(table, first.id)
    assert keywords(store, again.id)["keywords"] == keywords(store, first.id)["keywords"]
    assert similar(store, again.id)["similar"] == similar(store, first.id)["similar"]
    assert similar(store, again.id)["complete"] == similar(store, first.id)["complete"]
    assert refresh_similar(store, again.id)["id"] == first.id  # the sweep works on the version
    assert visible_text_of(store, again.id) == visible_text_of(store, first.id)


def test_one_resource_changed_is_a_full_version(store):
    first = register(store, capture(), at(0))
    changed = register(store, capture(png=PNG[:-1] + b"\x8a"), at(5))  # same URL, one byte
    assert changed.revisit_of is None and store.ids == [first.id, changed.id]
    assert store.version(changed.id)["orig"] == store.version(first.id)["orig"]  # same HTML
    assert store.version(changed.id)["manifest"] != store.version(first.id)["manifest"]


def test_one_more_or_one_less_resource_is_a_full_version(store):
    first = register(store, capture(), at(0))
    fewer = capture()
    fewer.resources = fewer.resources[:1]  # the image failed to load this time
    assert register(store, fewer, at(5)).revisit_of is None
    assert register(store, capture(), at(10)).revisit_of is None  # back: not fewer's bytes
    assert len(store.ids) == 3 and first.id in store.ids


@pytest.mark.parametrize("edit", ["appended", "cut", "one_byte"])
def test_an_html_byte_changed_is_a_full_version(store, edit):
    url, html = page("ordnung")
    changed = {
        "appended": html + b" ",  # the stored page is a prefix of the new one
        "cut": html[:-1],  # the new page is a prefix of the stored one
        "one_byte": html.replace(b"<title>", b"<title >", 1),
    }[edit]
    first = register(store, capture(html), at(0))
    second = register(store, capture(changed), at(5))
    assert second.revisit_of is None and store.ids == [first.id, second.id]


def test_only_the_latest_version_is_seen_again(store):
    url, html = page("ordnung")
    a = register(store, capture(html), at(0))
    b = register(store, capture(html + b"<p>an update</p>"), at(5))
    back = register(store, capture(html), at(10))  # equal to a, not to the latest
    assert back.revisit_of is None and store.ids == [a.id, b.id, back.id]
    assert register(store, capture(html), at(15)).revisit_of == back.id


def test_only_if_different_skips_an_exact_recapture(store):
    first = register(store, capture(), at(0))
    again = register(store, capture(), RegisterOptions(only_if_different=0.99))
    assert again.skipped and again.id == first.id and store.revisit_count() == 0


def test_versions_list_each_capture_with_its_time_and_what_it_revisits(store):
    first = register(store, capture(), at(0))
    seen = [register(store, capture(), at(m)).id for m in (5, 10)]
    listed = versions(store, first.url)
    assert [v["id"] for v in listed] == [seen[1], seen[0], first.id]
    assert [v["revisit_of"] for v in listed] == [first.id, first.id, None]
    assert [v["registered_at"] for v in listed] == [
        "2026-01-01T00:10:00Z",
        "2026-01-01T00:05:00Z",
        "2026-01-01T00:00:00Z",
    ]
    assert [v["similarity_to_previous"] for v in listed] == [1.0, 1.0, None]
    assert json.loads(json.dumps(listed)) == listed  # the CLI's --json prints it as it is


def test_a_revisit_opens_byte_for_byte(store):
    first = register(store, capture(), at(0))
    again = register(store, capture(), at(5))
    assert get(store, again.id, original=True).body == get(store, first.id, original=True).body
    copy = get(store, first.id).body.replace(first.id.encode(), again.id.encode())
    assert get(store, again.id).body == copy  # the copy names its own address
    for n in range(2):
        mine, theirs = served_resource(store, again.id, n), served_resource(store, first.id, n)
        assert mine.body.replace(again.id.encode(), first.id.encode()) == theirs.body
        assert served_resource(store, again.id, n, original=True).body in (CSS, PNG)


def test_a_revisit_entry_is_a_few_bytes_on_disk(tmp_path):
    """Each revisit is one integer in its version's row: measured in the compacted table."""
    home = tmp_path / "home"
    with ArchiveStore.open(home, fsync=False) as store:
        first = register(store, capture(), at(0))
        store.compact()
        before = len(json.dumps(store.raw("versions")[first.id]))
        for m in (5, 10, 15):
            register(store, capture(), at(m))
        store.compact()
        after = len(json.dumps(store.raw("versions")[first.id]))
        assert store.raw("versions")[first.id]["seen"] == [
            int(i) for i in list(store.seen_of(first.id))
        ]
    assert after - before <= 3 * 22 + len(', "seen": []')  # 20 digits and a separator each


def test_a_revisit_survives_reopen(tmp_path):
    home = tmp_path / "home"
    with ArchiveStore.open(home) as store:
        first = register(store, capture(), at(0))
        again = register(store, capture(), at(5))
    with ArchiveStore.open(home, readonly=True) as store:
        assert store.revisit_of(again.id) == first.id
        assert [v["id"] for v in versions(store, first.url)] == [again.id, first.id]
    with ArchiveStore.open(home) as store:  # and a new capture never reuses its ID
        later = register(store, capture(), at(5))
        assert later.id > again.id and later.revisit_of == first.id


def test_a_capture_at_the_same_instant_gets_its_own_id(store):
    first = register(store, capture(), at(0))
    again = register(store, capture(), at(0))
    third = register(store, capture(b"<p>other</p>"), at(0))
    assert len({first.id, again.id, third.id}) == 3 and again.revisit_of == first.id


# -- delete and reclaim ------------------------------------------------------------------


def test_deleting_a_revisit_takes_only_its_entry_and_frees_nothing(store):
    first = register(store, capture(), at(0))
    again = register(store, capture(), at(5))
    blobs = blob_files(store)
    result = trash.delete_now(store, again.id)
    assert result["deleted"] == {"documents": 0, "versions": 1} and result["freed_bytes"] == 0
    assert blob_files(store) == blobs and store.ids == [first.id]
    assert [v["id"] for v in versions(store, first.url)] == [first.id]
    with pytest.raises(NotFound):
        get(store, again.id)


def test_a_deleted_revisit_comes_back_on_undo(store):
    first = register(store, capture(), at(0))
    seen = [register(store, capture(), at(m)).id for m in (5, 10)]
    undo = trash.delete(store, seen[0])["undo"]
    assert store.seen_of(first.id).keys() == {seen[1]}
    assert trash.restore(store, undo) == {"restored": {"documents": 0, "versions": 1}}
    assert list(store.seen_of(first.id)) == seen  # at its place
    assert get(store, seen[0], original=True).body == get(store, first.id, original=True).body


def test_deleting_a_version_deletes_its_revisits_with_it(store):
    first = register(store, capture(), at(0))
    seen = [register(store, capture(), at(m)).id for m in (5, 10)]
    result = trash.delete_now(store, first.id)
    assert result["deleted"] == {"documents": 1, "versions": 3} and result["freed_bytes"] > 0
    for reg_id in (first.id, *seen):
        with pytest.raises(NotFound):
            get(store, reg_id)
    assert blob_files(store) == set()


def test_reclaim_keeps_what_a_revisit_serves(store):
    url, html = page("ordnung")
    old = register(store, capture(html + b"<p>old</p>"), at(0))
    first = register(store, capture(), at(5))
    again = register(store, capture(), at(10))
    trash.delete_now(store, old.id)  # frees the old page's own blobs, not the shared ones
    assert trash.reclaim(store, trash.ReclaimOptions(grace_s=0))["blobs"] == 0
    assert get(store, again.id, original=True).body == get(store, first.id, original=True).body
    assert [served_resource(store, again.id, n, original=True).body for n in range(2)] == [
        CSS,
        PNG,
    ]


def test_undoing_a_version_brings_its_revisits_back(store):
    first = register(store, capture(), at(0))
    again = register(store, capture(), at(5))
    undo = trash.delete(store, first.url)["undo"]
    assert not store.has_capture(again.id)
    assert trash.restore(store, undo)["restored"] == {"documents": 1, "versions": 2}
    assert store.revisit_of(again.id) == first.id


# -- the document list (viewer Archive tab, archive search) --------------------------------


def test_the_document_list_counts_a_revisit_and_dates_the_document_by_it(store):
    first = register(store, capture(), at(0))
    index = DocumentIndex().refresh(store)
    assert (index.entries[0].versions, index.entries[0].id) == (1, first.id)
    again = register(store, capture(), at(5))  # no new version ID: the index must notice
    entry = index.refresh(store).entries[0]
    assert (entry.versions, entry.id, entry.ts) == (2, again.id, store.version(again.id)["ts"])
    found = search(store, SearchOptions())[0]
    assert (found["versions"], found["id"], found["registered_at"]) == (
        2,
        again.id,
        "2026-01-01T00:05:00Z",
    )
    trash.delete(store, again.id)
    assert index.refresh(store).entries[0].versions == 1


def test_a_browsers_last_modified_of_now_does_not_make_a_new_version(store):
    """document.lastModified is the current time when the server sent no Last-Modified."""
    first, again = capture(), capture()
    first.last_modified, again.last_modified = "11/25/2026 04:38:03", "11/25/2026 04:38:08"
    held = register(store, first, at(0))
    assert register(store, again, at(5)).revisit_of == held.id
    retitled = capture()
    retitled.title = "Another title"  # what the copy says it is: not the same record
    assert register(store, retitled, at(10)).revisit_of is None
