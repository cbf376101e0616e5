"""The viewer's message types over a real websocket to a real daemon on a seeded archive."""

from __future__ import annotations

import base64
import io
import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from warcio.archiveiterator import ArchiveIterator

from engine.archive.documents import pattern_regex
from engine.archive.model import Capture, RegisterOptions, iso
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.html.diff import diff_rows, word_parts
from host.handlers import viewer
from host.handlers.viewer import _public_check, check_of, diff, liveness_states
from tests.host.viewer.conftest import CHIP, edited_article, page_bytes


def urls(result) -> list[str]:
    return [r["url"] for r in result["results"]]


def test_search_by_pattern_case_and_sort(daemon, seeded):
    chip = daemon.result("search_page", {"pattern": "*chip.de*"})
    assert chip["total"] == 2
    assert all("chip.de" in u for u in urls(chip))
    assert (
        daemon.result("search_page", {"pattern": "*CHIP.DE*", "case_sensitive": True})["total"] == 0
    )
    assert daemon.result("search_page", {"pattern": "*CHIP.DE*"})["total"] == 2
    by_url = daemon.result("search_page", {"pattern": "*", "sort": "url"})
    assert urls(by_url) == sorted(urls(by_url))
    by_time = daemon.result("search_page", {"pattern": "*"})
    times = [r["registered_at"] for r in by_time["results"]]
    assert times == sorted(times, reverse=True)
    assert by_time["results"][0]["url"] == seeded.article_url


def test_question_mark_matches_one_character(daemon, seeded):
    one = seeded.article_url.replace("ministerium.html", "ministeriu?.html")
    assert urls(daemon.result("search_page", {"pattern": one})) == [seeded.article_url]
    two = seeded.article_url.replace("ministerium.html", "ministeri?.html")
    assert daemon.result("search_page", {"pattern": two})["total"] == 0


def test_full_text_and_filters(daemon, seeded):
    steak = daemon.result("search_page", {"pattern": "*", "text": "Steak-Himmel"})
    assert urls(steak) == ["https://www.chip.de/test/Beef-Maker-von-Aldi-im-Test_154632771.html"]
    local = daemon.result("search_page", {"pattern": "*", "site": "127.0.0.1"})
    assert set(urls(local)) == {seeded.article_url, seeded.sibling_url}
    early = daemon.result("search_page", {"pattern": "*", "until": "2026-03-02"})
    assert early["total"] == 2  # the two chip.de pages (1 and 2 March)
    never = daemon.result("search_page", {"pattern": "*chip.de*", "state": "unchecked"})
    assert never["total"] == 2


def test_since_and_liveness_state_filters(daemon, seeded):
    later = daemon.result("search_page", {"pattern": "*", "since": "2026-03-04"})
    assert set(urls(later)) == {seeded.article_url, seeded.sibling_url}  # 3 Apr and 5 Mar
    between = {"pattern": "*", "since": "2026-03-02", "until": "2026-03-05"}
    assert daemon.result("search_page", between)["total"] == 2  # 2 Mar (chip) and 5 Mar
    assert daemon.result("search_page", {"pattern": "*", "state": "present"})["total"] == 0
    verdict = daemon.result("check", {"id": seeded.article_ids[-1]})
    assert verdict["state"] == "present"
    present = daemon.result("search_page", {"pattern": "*", "state": "present"})
    assert urls(present) == [seeded.article_url]
    assert present["results"][0]["state"] == "present"
    unchecked = daemon.result("search_page", {"pattern": "*", "state": "unchecked"})
    assert seeded.article_url not in urls(unchecked) and unchecked["total"] == 3
    assert daemon.result("search_page", {"pattern": "*", "state": "gone"})["total"] == 0


def test_a_partly_changed_live_page_is_changed_everywhere(daemon, seeded, live_site):
    """P between the thresholds (0.65 <= P < 0.8): the document's check, the state
    filter and the report all say "changed"."""
    first = daemon.result("check", {"id": seeded.article_ids[-1]})
    assert first["state"] == "present" and len(first["matched"]) >= 10
    kept = live_site.pages["/ministerium.html"]
    html = kept.decode("utf-8")
    for word in first["matched"][: round(len(first["matched"]) * 0.3)]:
        html = re.sub(re.escape(word), "xxxx", html, flags=re.IGNORECASE)
    live_site.pages["/ministerium.html"] = html.encode("utf-8")
    try:
        verdict = daemon.result("check", {"id": seeded.article_ids[-1]})
    finally:
        live_site.pages["/ministerium.html"] = kept
    assert verdict["state"] == "changed", verdict["reason"]
    assert 0.65 <= verdict["match"] < 0.8
    doc = daemon.result("document", {"id": seeded.article_url})
    assert doc["liveness"]["state"] == "changed" and doc["liveness"]["checked_at"]
    # what decided it, and its figure, reach the viewer as the check gave them
    assert (verdict["decided_by"], verdict["figure"]) == ("keywords", verdict["match"])
    assert (doc["liveness"]["decided_by"], doc["liveness"]["figure"]) == (
        "keywords",
        verdict["match"],
    )
    found = daemon.result("search_page", {"pattern": "*", "state": "changed"})
    assert urls(found) == [seeded.article_url]
    assert daemon.result("liveness_report")["counts"]["changed"] == 1
    daemon.result("check", {"id": seeded.article_ids[-1]})  # back to present for the rest


def test_a_server_that_is_down_is_unreachable_not_gone(daemon, seeded, live_site):
    """The live site's port refuses connections: the check, the document, the state
    filter and the report say "unreachable", never "gone", with no keyword list."""
    live_site.stop()
    try:
        verdict = daemon.result("check", {"id": seeded.article_ids[-1]})
    finally:
        live_site.start()
    assert verdict["state"] == "unreachable" and verdict["present"] is False
    assert verdict["missing"] == [] and verdict["matched"] == []
    assert (verdict["decided_by"], verdict["figure"]) == ("", None)  # nothing judged
    assert verdict["reason"].startswith("the server refused the connection")
    assert "Error" not in verdict["reason"] and "127.0.0.1" not in verdict["reason"]
    doc = daemon.result("document", {"id": seeded.article_url})
    assert doc["liveness"]["state"] == "unreachable" and doc["liveness"]["missing"] == []
    found = daemon.result("search_page", {"pattern": "*", "state": "unreachable"})
    assert urls(found) == [seeded.article_url]
    assert daemon.result("search_page", {"pattern": "*", "state": "gone"})["total"] == 0
    counts = daemon.result("liveness_report")["counts"]
    assert (counts["unreachable"], counts["gone"]) == (1, 0)
    back = daemon.result("check", {"id": seeded.article_ids[-1]})  # up again: present
    assert back["state"] == "present"
    assert daemon.result("liveness_report")["counts"]["unreachable"] == 0


def test_the_tab_s_own_page_is_judged_and_nothing_is_fetched(daemon, seeded, live_site):
    """``check`` with ``page`` (the HTML the browser's tab shows): judged as is, with the live
    server down, so no fetch was made; without ``page`` the same check fetches (unreachable)."""
    kept = live_site.pages["/ministerium.html"].decode("utf-8")
    ref = {"id": seeded.article_ids[-1]}
    live_site.stop()
    try:
        tab = daemon.result("check", {**ref, "page": kept})
        gone = daemon.result("check", {**ref, "page": "<title>x</title><p>Seite fehlt</p>"})
        fetched = daemon.result("check", ref)
    finally:
        live_site.start()
    assert (tab["state"], tab["source"], tab["match"]) == ("present", "tab", 1.0)
    assert (gone["state"], gone["source"]) == ("gone", "tab")
    assert (fetched["state"], fetched["source"]) == ("unreachable", "fetch")
    # The popup's fallback when its tab has no verdict: the newest stored check, with its reason.
    last = daemon.result("last_check", {"url": seeded.article_url})
    assert last["state"] == "unreachable" and last["reason"].startswith("the server refused")
    assert daemon.result("last_check", {"url": "https://never.example/archived"}) is None
    # Every stored keyword, but none of the stored text's phrases: the stored main text is read
    # from the archive and judged too, so this is another text, gone.
    words = " ".join(reversed(tab["matched"]))
    shuffled = daemon.result("check", {**ref, "page": f"<title>x</title><p>{words}</p>"})
    assert shuffled["match"] == 1.0 and shuffled["state"] == "gone", shuffled["reason"]
    too_long = daemon.call("check", {**ref, "page": "x" * (4 * 2**20 + 1)})
    assert too_long["error"]["code"] == "invalid_input"
    assert daemon.result("check", ref)["state"] == "present"  # back for the rest


def test_paging(daemon):
    first = daemon.result("search_page", {"pattern": "*", "limit": 2})
    second = daemon.result("search_page", {"pattern": "*", "limit": 2, "offset": 2})
    assert first["total"] == second["total"] == 4
    assert len(first["results"]) == len(second["results"]) == 2
    assert not set(urls(first)) & set(urls(second))


@pytest.mark.parametrize(
    "params",
    [
        {"pattern": "a b"},
        {"pattern": "   "},
        {"pattern": "x" * 3000},
        {"pattern": "*", "sort": "size"},
        {"pattern": "*", "limit": 100000},
        {"pattern": "*", "since": "yesterday"},
        {"pattern": "*", "state": "dead"},
    ],
)
def test_bad_search_input_gets_a_clear_error(daemon, params):
    reply = daemon.call("search_page", params)
    assert not reply["ok"]
    assert reply["error"]["code"] == "invalid_input"
    assert len(reply["error"]["message"]) > 10


def test_document_timeline_and_similar(daemon, seeded):
    doc = daemon.result("document", {"id": seeded.article_ids[0]})
    assert [v["id"] for v in doc["versions"]] == list(reversed(seeded.article_ids))
    newest = doc["versions"][0]
    assert newest["view_url"].startswith(f"/v/{newest['id']}/")
    assert newest["original_view_url"].endswith("&original=1")
    assert 0 < newest["similarity_prev"] <= 1
    assert doc["versions"][-1]["similarity_prev"] is None
    assert seeded.sibling_id in [s["id"] for s in doc["similar"]]
    # its own versions are under versions, never similar pages
    assert not set(seeded.article_ids) & {s["id"] for s in doc["similar"]}
    assert doc["liveness"] is None or doc["liveness"]["state"] == "present"  # tests above check it
    assert daemon.result("document", {"id": seeded.sibling_id})["liveness"] is None  # never


def test_document_by_url_and_unknown_id(daemon, seeded):
    assert (
        daemon.result("document", {"id": seeded.article_url})["versions"][0]["id"]
        == (seeded.article_ids[-1])
    )
    for ref in ("99999999999999999999", "no-such-thing"):
        reply = daemon.call("document", {"id": ref})
        assert reply["error"]["code"] == "not_found", reply


def test_diff_marks_the_changed_words_and_added_paragraph(daemon, seeded):
    old, new = seeded.article_ids
    res = daemon.result("diff", {"a": old, "b": new})
    assert res["same_document"] and not res["identical"]
    replaced = [r for r in res["rows"] if r["op"] == "replace"]
    marked_new = {t.strip() for r in replaced for t, changed in r["right"] if changed}
    marked_old = {t.strip() for r in replaced for t, changed in r["left"] if changed}
    assert "nun endgültig" in marked_new and "völlig" in marked_old
    added = [r["right"] for r in res["rows"] if r["op"] == "insert"]
    assert any("Nachtrag" in a for a in added)
    assert res["stats"]["added"] >= 1 and res["stats"]["changed"] >= 1


def test_diff_of_unknown_version(daemon, seeded):
    reply = daemon.call("diff", {"a": seeded.article_ids[0], "b": "20990101000000000000"})
    assert reply["error"]["code"] == "not_found"


def test_export_one_version_reads_back(daemon, seeded):
    res = daemon.result("export_warc", {"ids": [seeded.article_ids[-1]]})
    data = base64.b64decode(res["content_b64"])
    assert len(data) == res["bytes"] and res["filename"].endswith(".warc.gz")
    responses = [
        (r.rec_headers.get_header("WARC-Target-URI"), r.content_stream().read())
        for r in ArchiveIterator(io.BytesIO(data))
        if r.rec_type == "response"
    ]
    assert responses == [(seeded.article_url, edited_article())]


def test_export_a_search_result(daemon):
    res = daemon.result("export_warc", {"search": {"pattern": "*chip.de*"}})
    assert res["versions"] == 2
    data = base64.b64decode(res["content_b64"])
    targets = {
        r.rec_headers.get_header("WARC-Target-URI")
        for r in ArchiveIterator(io.BytesIO(data))
        if r.rec_type == "response"
    }
    assert all("chip.de" in t for t in targets) and len(targets) == 2


def test_import_bad_warc(daemon):
    for content in ("%%%", base64.b64encode(b"not a warc at all").decode()):
        reply = daemon.call("import_warc", {"content_b64": content, "filename": "x.warc"})
        assert reply["error"]["code"] == "invalid_input", reply


def test_stats_and_liveness_report(daemon):
    stats = daemon.result("archive_stats")
    assert stats["documents"] == 4 and stats["versions"] == 5
    assert stats["storage_bytes"] > 0 and stats["original_bytes"] > len(
        page_bytes("4779762459127ce0")
    )
    report = daemon.result("liveness_report")
    assert sum(report["counts"].values()) == report["total"] == 4


def test_stats_count_what_dedup_saves(daemon, seeded):
    """A second copy of identical bytes (here: a version exported and imported again)
    adds a version and its size to the pages' total, and the same size to the savings."""
    before = daemon.result("archive_stats")
    exported = daemon.result("export_warc", {"ids": [seeded.chip_ids[0]]})
    imported = daemon.result("import_warc", {"content_b64": exported["content_b64"]})
    assert imported["imported"] == 1
    after = daemon.result("archive_stats")
    size = len(page_bytes(CHIP[0]))
    assert (after["documents"], after["versions"]) == (before["documents"], before["versions"] + 1)
    assert after["original_bytes"] - before["original_bytes"] == size
    assert after["dedup_saved_bytes"] - before["dedup_saved_bytes"] == size


def test_pattern_regex_and_word_parts():
    rx = pattern_regex("http://a.example/*.html")
    assert rx.search("http://a.example/x/y.html") and not rx.search("http://a.example/x.htm")
    assert pattern_regex("EXAMPLE").search("http://example.com/")
    assert not pattern_regex("EXAMPLE", case_sensitive=True).search("http://example.com/")
    left, right = word_parts("one two three", "one 2 three")
    assert [t for t, c in left if c] == ["two "] and [t for t, c in right if c] == ["2 "]


def test_diff_rows_fold_long_equal_runs():
    a = [f"line {i}" for i in range(40)]
    b = list(a)
    b[20] = "changed"
    rows, stats = diff_rows(a, b)
    skips = [r for r in rows if r["op"] == "skip"]
    assert stats["changed"] == 1 and stats["equal"] == 39
    assert sum(r["count"] for r in skips) + sum(1 for r in rows if r["op"] == "equal") == 39
    assert len(rows) < 12


def test_diff_shows_a_new_linked_headline_on_a_home_page(tmp_path):

    story = "<p>" + "The council met on Monday to discuss the budget for the coming year. " * 4
    old = f"<title>Daily</title><ul><li><a href=/a>Budget talks begin</a></li></ul>{story}</p>"
    new = old.replace("<ul>", "<ul><li><a href=/b>Bridge reopens after the storm</a></li>")
    with ArchiveStore.open(tmp_path / "home") as store:
        a = register(store, Capture("http://127.0.0.1/", old.encode())).id
        b = register(store, Capture("http://127.0.0.1/", new.encode())).id
        res = diff({"a": a, "b": b}, SimpleNamespace(store=store, base_url="http://127.0.0.1:1"))
    added = [r["right"] for r in res["rows"] if r["op"] in ("insert", "replace")]
    assert not res["identical"]
    assert any("Bridge reopens after the storm" in str(side) for side in added), res["rows"]


def test_diff_between_a_version_and_its_revisit_is_no_change(tmp_path):
    """A page seen again, unchanged: the diff with the version it repeats has no change."""
    page = page_bytes(CHIP[0])
    with ArchiveStore.open(tmp_path / "home") as store:
        a = register(store, Capture("http://127.0.0.1/a", page)).id
        b = register(store, Capture("http://127.0.0.1/a", page))
        assert b.revisit_of == a
        res = diff({"a": a, "b": b.id}, SimpleNamespace(store=store, base_url="http://127.0.0.1:1"))
    assert res["identical"] and res["same_document"]
    assert {r["op"] for r in res["rows"]} <= {"equal", "skip"}  # unchanged runs are folded
    assert res["stats"]["added"] == res["stats"]["changed"] == 0 and res["stats"]["equal"] > 0
    assert res["b"]["revisit_of"] == a and res["a"]["revisit_of"] is None


def test_a_404_check_stored_with_its_keywords_missing_is_shown_as_a_status_verdict(tmp_path):
    """A 404 checked before a status verdict dropped its keyword list still lists every
    keyword as missing in the store; the viewer, the popup and the report read it as made now."""
    page = page_bytes(CHIP[0])
    with ArchiveStore.open(tmp_path / "home") as store:
        version = register(store, Capture("http://127.0.0.1/a", page))
        old = {"state": "gone", "match": 0.0, "reason": "HTTP 404", "checked_at": 7.0}
        store.update("liveness", version.id, {**old, "missing": ["chip", "makers"], "matched": []})
        shown = check_of(store, version.key)
        states = liveness_states(SimpleNamespace(store=store))
    assert shown == states[version.key]
    assert (shown["missing"], shown["decided_by"], shown["state"]) == ([], "status", "gone")
    assert shown["reason"].startswith("decided by the status: the server answered HTTP 404")


def test_a_stored_check_is_shown_field_by_field():
    """What the viewer, the popup and the report read of a stored check: each field under
    its own name, the time as ISO, the lists never null, the check's row ID."""
    row = {
        "state": "changed",
        "match": 0.4,
        "decided_by": "keywords",
        "figure": 0.4,
        "reason": "decided by P=40%",
        "matched": ["alpha"],
        "missing": ["beta"],
        "checked_at": 1767225600.5,
        "id": "7",
    }
    assert _public_check(row) == {
        **{k: row[k] for k in ("state", "match", "decided_by", "figure", "reason")},
        "matched": ["alpha"],
        "missing": ["beta"],
        "checked_at": iso(1767225600.5),
        "checked_id": "7",
    }
    bare = _public_check({"state": "present", "matched": None, "checked_at": "2026-01-01"})
    assert (bare["matched"], bare["missing"], bare["checked_at"]) == ([], [], "2026-01-01")


def test_stats_walk_the_store_once_while_nothing_changes_and_again_after_a_change(
    tmp_path, monkeypatch
):
    """The stats card asks again and again: the blobs and records are walked once while no
    version, check or deletion changes them (the stamp), again after one, and each home has
    its own figures. The index and the pending captures are walked at each call."""
    walked: list[str] = []
    walk = viewer._walk_size
    monkeypatch.setattr(
        viewer, "_walk_size", lambda f, skip="": walked.append(f.name) or walk(f, skip)
    )
    story = "<p>" + "The council met on Monday to discuss the budget for the coming year. " * 4
    with ArchiveStore.open(tmp_path / "one") as one, ArchiveStore.open(tmp_path / "two") as two:
        register(one, Capture("http://127.0.0.1/a", f"<title>A</title>{story}".encode()))
        app = SimpleNamespace(store=one)
        first = viewer.archive_stats({}, app)
        assert sorted(walked) == ["blobs", "db", "index", "pending"]
        walked.clear()
        assert viewer.archive_stats({}, app) == first
        assert sorted(walked) == ["index", "pending"]  # the store's folders: from the stamp
        walked.clear()
        # another home with as many versions (the same stamp): its own walk, its own figures
        register(two, Capture("http://127.0.0.1/a", f"<title>A</title>{story * 3}".encode()))
        walked.clear()
        other = viewer.archive_stats({}, SimpleNamespace(store=two))
        assert other["versions"] == 1 and other["blob_bytes"] != first["blob_bytes"]
        assert sorted(walked) == ["blobs", "db", "index", "pending"]
        walked.clear()
        register(one, Capture("http://127.0.0.1/b", f"<title>B</title>{story} more".encode()))
        after = viewer.archive_stats({}, app)
        assert "blobs" in walked and after["blob_bytes"] > first["blob_bytes"]


def test_stats_count_each_original_once_in_what_dedup_saved(tmp_path):
    """Two captures of the same bytes keep one original: the second's size is saved; two
    different pages save nothing. A revisit counts as a capture of its version's bytes."""
    story = "<p>" + "The council met on Monday to discuss the budget for the coming year. " * 4
    page, other = f"<title>A</title>{story}".encode(), f"<title>B</title>{story}".encode()
    with ArchiveStore.open(tmp_path / "home") as store:
        register(store, Capture("http://127.0.0.1/a", page))
        register(store, Capture("http://127.0.0.1/b", other))
        stats = viewer.archive_stats({}, SimpleNamespace(store=store))
        assert stats["original_bytes"] == len(page) + len(other)
        assert stats["dedup_saved_bytes"] == 0
        register(store, Capture("http://127.0.0.1/c", page))  # the same bytes, another URL
        register(store, Capture("http://127.0.0.1/a", page))  # seen again: a revisit
        stats = viewer.archive_stats({}, SimpleNamespace(store=store))
        assert stats["original_bytes"] == 3 * len(page) + len(other)
        assert stats["dedup_saved_bytes"] == 2 * len(page)


def test_the_diffs_two_sides_each_say_their_place_among_their_documents_captures(tmp_path):
    """Two captures of one second read alike to the second in the diff's header: each side
    carries its place (``number`` of ``of``) and whether its second is shared."""
    start = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    pages = [page_bytes(CHIP[0]), page_bytes(CHIP[0]).replace(b"</body>", b"<p>New.</p></body>")]
    with ArchiveStore.open(tmp_path / "home") as store:
        ids = [
            register(
                store,
                Capture("http://127.0.0.1/a", body),
                RegisterOptions(now=start + timedelta(seconds=0.2 + 0.5 * n)),
            ).id
            for n, body in enumerate(pages)
        ]
        res = diff({"a": ids[0], "b": ids[1]}, SimpleNamespace(store=store, base_url="http://x"))
    place = ("number", "of", "same_second")
    assert [tuple(res[side][k] for k in place) for side in "ab"] == [(1, 2, True), (2, 2, True)]
