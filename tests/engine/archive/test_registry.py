"""Registration and the provider operations on real saved pages, with a real store on disk."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from selectolax.lexbor import LexborHTMLParser

from engine.archive.model import Capture, RegisterOptions, id_time
from engine.archive.provider import (
    get,
    keywords,
    nearest_version,
    refresh_similar,
    resolve_gc,
    resolve_open,
    search,
    served_copy,
    similar,
    stale_similar,
    versions,
    visible_text_of,
)
from engine.archive.registry import register
from engine.archive.search import text_keys
from engine.archive.similar import SimilarOptions, sketch
from engine.archive.store import ArchiveStore
from engine.errors import DecodeError, InvalidInput, InvalidURL, NotFound, TooLarge
from engine.html.extract import TITLE_CHARS, extract, tab_title
from engine.html.fingerprint import fingerprint
from tests.engine.archive.pages import page


@pytest.fixture
def store(tmp_path):
    with ArchiveStore.open(tmp_path / "home") as opened:
        yield opened


def at(minutes: int) -> RegisterOptions:
    """Registration at a fixed time, with a similarity budget that a loaded CI machine meets."""
    when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=minutes)
    return RegisterOptions(now=when, similar_budget_s=1.0)


def test_register_returns_the_contract_fields(store):
    url, body = page("partei")
    reg = register(store, Capture(url, body), at(0))
    assert (
        reg.url == url
        and reg.key
        == "https://die-partei.net/luebeck/2012/05/31/das-ministerium-fur-club-kultur-informiert/"
    )
    assert reg.version_url == f"http://127.0.0.1:47477/v/{reg.id}/{url}"
    assert reg.registered_at == "2026-01-01T00:00:00Z"
    assert id_time(reg.id) == datetime(2026, 1, 1, tzinfo=UTC).timestamp()


def test_original_is_byte_identical_and_rewritten_has_gc_links(store):
    url, body = page("latin1")
    reg = register(store, Capture(url, body))
    original = get(store, reg.id, original=True)
    assert original.body == body and original.charset in {"iso8859-1", "cp1252"}
    rewritten = get(store, reg.id).body.decode("utf-8")
    assert "http://127.0.0.1:47477/gc?url=http%3A%2F%2Flove-hina.ch%2F" in rewritten
    assert f"&amp;id={reg.id}" in rewritten
    url, body = page("erfurt")
    assert b"Zur\xfcck" in body
    reg = register(store, Capture(url, body))
    assert get(store, reg.id, original=True).body == body
    assert "Zurück" in get(store, reg.id).body.decode("utf-8")  # decoded from ISO-8859-1


def test_ids_are_unique_and_time_ordered_even_within_one_microsecond(store):
    url, body = page("partei")
    ids = [register(store, Capture(url, body), at(0)).id for _ in range(3)]
    assert ids == sorted(ids) and len(set(ids)) == 3


def test_syntactic_variants_are_versions_of_one_document(store):
    url, body = page("partei")
    register(store, Capture(url, body), at(0))
    variant = url.replace("https://die-partei.net", "https://DIE-PARTEI.net:443") + "#comments"
    register(store, Capture(variant, body.replace(b"Zeiger", b"Uhr")), at(5))
    found = versions(store, url)
    assert [v["registered_at"] for v in found] == ["2026-01-01T00:05:00Z", "2026-01-01T00:00:00Z"]
    assert 0.9 < found[0]["similarity_to_previous"] <= 1.0
    assert found[1]["similarity_to_previous"] is None


def test_identical_content_is_stored_once(store, tmp_path):
    url, body = page("modabot")
    first = register(store, Capture(url, body))
    blobs = sorted(p for p in (tmp_path / "home" / "blobs").rglob("*") if p.is_file())
    second = register(store, Capture(url, body))
    again = sorted(p for p in (tmp_path / "home" / "blobs").rglob("*") if p.is_file())
    assert first.id != second.id
    # The stored rewritten copy names its version by a slot filled in when read, so an
    # unchanged page adds no blob at all.
    assert len(again) == len(blobs)
    assert store.version(first.id)["orig"] == store.version(second.id)["orig"]
    assert store.version(first.id)["rewritten"] == store.version(second.id)["rewritten"]
    assert f"id={second.id}" in get(store, second.id).body.decode()


def test_link_and_referenced_link_tables(store):
    url, body = page("partei")
    reg = register(store, Capture(url, body))
    link_ids = store.refs(reg.id)
    urls = {store.link_url(i) for i in link_ids}
    assert "http://www.openpetition.de/" in urls or any("openpetition" in u for u in urls)
    assert len(link_ids) == len(set(link_ids)) > 10
    again = register(store, Capture(url, body))
    assert store.refs(again.id) == link_ids  # same links, same IDs


def test_extraction_is_stored_per_version(store):
    url, body = page("partei")
    reg = register(store, Capture(url, body))
    row = store.row("extracts", reg.id)
    assert row["keywords"] and "GEMA" in store.get_blob(row["text"]).decode()


def test_similar_pages_of_one_host_and_content_measure(store):
    url_a, body_a = page("ordnung")
    first = register(store, Capture(url_a, body_a), at(0))
    changed = body_a.replace(b"<p>", b"<p>Neu: ", 3)
    second = register(store, Capture(url_a + "?v=2", changed), at(1))
    other_url, other = page("latin1")
    register(store, Capture(other_url, other), at(2))  # another host: never compared
    listed = similar(store, second.id)["similar"]
    assert [p["id"] for p in listed] == [first.id]
    assert 0.9 < listed[0]["similarity"] < 1.0
    assert 0.5 < listed[0]["content_similarity"] <= 1.0
    assert similar(store, second.id)["computed_at"] is not None


def test_similar_pages_leave_out_the_versions_of_the_same_document(store):
    """Another version of the page is one of its versions, not a similar page, even at 1.0;
    the stored list keeps it (the similarity to the previous version is read from it)."""
    url, body = page("ordnung")
    first = register(store, Capture(url, body), at(0))
    sibling = register(store, Capture(url + "?v=2", body), at(1))
    again = register(store, Capture(url, body.replace(b"<p>", b"<p>Neu: ", 3)), at(2))
    assert store.version(first.id)["key"] == store.version(again.id)["key"]
    assert [p["id"] for p in similar(store, again.id)["similar"]] == [sibling.id]
    assert first.id in [row[0] for row in store.row("fingerprints", again.id)["similar"]]
    assert [v["similarity_to_previous"] is not None for v in versions(store, url)] == [True, False]


def test_only_if_different_skips_a_near_identical_version(store):
    url, body = page("ordnung")
    first = register(store, Capture(url, body), at(0))
    skip = RegisterOptions(only_if_different=0.99)
    blobs_before = sorted(p.name for p in (store.home / "blobs").rglob("*") if p.is_file())
    again = register(store, Capture(url, body), skip)
    assert again.skipped and again.duplicate_of == first.id
    assert len(versions(store, url)) == 1
    blobs_after = sorted(p.name for p in (store.home / "blobs").rglob("*") if p.is_file())
    assert blobs_after == blobs_before  # a skipped capture leaves nothing on disk
    _, other = page("time4talks")
    changed = register(store, Capture(url, other), skip)
    assert not changed.skipped and len(versions(store, url)) == 2


def test_refresh_and_stale_similar(store):
    url_a, body_a = page("ordnung")
    first = register(store, Capture(url_a, body_a), at(0))
    register(store, Capture(url_a + "?copy", body_a), at(1))
    assert first.id in stale_similar(store)
    refreshed = refresh_similar(store, first.id)
    assert [p["similarity"] for p in refreshed["similar"]] == [1.0]
    assert first.id not in stale_similar(store)


def test_bad_input_is_typed(store):
    url, body = page("partei")
    with pytest.raises(InvalidInput, match="not an HTML page"):
        register(store, Capture(url, b"%PDF-1.4", content_type="application/pdf"))
    with pytest.raises(DecodeError):
        register(store, Capture(url, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
    with pytest.raises(TooLarge) as info:
        register(store, Capture(url, body), RegisterOptions(max_bytes=1000))
    assert info.value.code == "too_large"
    with pytest.raises(NotFound) as missing:
        get(store, "20990101000000000000")
    assert missing.value.code == "not_found"
    with pytest.raises(InvalidURL):  # no ID, no version URL, no URL: not a missing one
        get(store, "not-an-id")
    with pytest.raises(InvalidInput, match="not one of its versions"):
        get(store, "https://example.org/a")
    assert store.ids == []  # nothing half-registered


def test_invalid_bytes_are_registered_as_a_browser_reads_them(store):
    url, _ = page("partei")
    junk = b"<html><body><p>ok \xff\xfe\xc3\x28 text</p></body></html>"
    reg = register(store, Capture(url, junk))
    assert get(store, reg.id, original=True).body == junk
    # Not UTF-8 and nothing declared: windows-1252, the WHATWG default for legacy pages.
    assert "ok ÿþÃ( text" in get(store, reg.id).body.decode("utf-8")


def test_invalid_bytes_under_a_declared_charset_become_replacement_characters(store):
    url, _ = page("partei")
    junk = b'<html><head><meta charset="utf-8"></head><body><p>ok \xff\xc3\x28</p></body></html>'
    reg = register(store, Capture(url, junk))
    assert get(store, reg.id, original=True).body == junk
    assert "\ufffd" in get(store, reg.id).body.decode("utf-8")


def test_open_live_or_stored_with_banner(store):
    url, body = page("partei")
    reg = register(store, Capture(url, body), at(0))
    live = resolve_open(store, reg.version_url, reachable=True)
    assert (live["action"], live["location"]) == ("live", url)
    stored = resolve_open(store, reg.id, reachable=False)
    assert (stored["action"], stored["location"]) == ("stored", reg.version_url)
    served = served_copy(store, reg.id).body.decode("utf-8")
    assert "registered on 2026-01-01 00:00:00 UTC, links rewritten" in served
    assert served.index("pagekeeper-banner") > served.lower().index("<body")


def test_gc_nearest_version_to_the_referring_page(store):
    url, body = page("partei")
    old = register(store, Capture(url, body), at(0)).id
    ref_early = register(store, Capture("https://die-partei.net/", b"<a href=x>x</a>"), at(10)).id
    new = register(store, Capture(url, body + b"<!-- v2 -->"), at(100)).id
    assert nearest_version(store, url, ref_early) == old
    assert nearest_version(store, url) == new
    stored = resolve_gc(store, url, ref_early, reachable=False)
    assert stored["action"] == "stored" and stored["id"] == old
    assert resolve_gc(store, url, ref_early, reachable=True)["action"] == "live"
    assert resolve_gc(store, "https://nowhere.example/", None, False)["action"] == "missing"


def test_everything_survives_reopen(tmp_path):
    url, body = page("ordnung")
    with ArchiveStore.open(tmp_path) as store:
        reg = register(store, Capture(url, body))
        register(store, Capture(url, body + b"<!-- 2 -->"))
    with ArchiveStore.open(tmp_path, readonly=True) as store:
        assert len(versions(store, url)) == 2
        assert get(store, reg.id, original=True).body == body
        newest = versions(store, url)[0]["id"]
        assert store.row("fingerprints", newest)["similar"][0][0] == reg.id


def test_keywords_by_url_and_by_id(store):
    url, body = page("partei")
    reg = register(store, Capture(url, body))
    by_url = keywords(store, url.replace("https://die-partei.net", "https://DIE-partei.NET:443"))
    assert by_url["id"] == reg.id and by_url["keywords"]
    assert by_url["keywords"] == store.row("extracts", reg.id)["keywords"]
    assert keywords(store, reg.version_url)["keywords"] == by_url["keywords"]
    with pytest.raises(NotFound):
        keywords(store, "https://nothing.example/")


def test_open_by_original_url_uses_the_newest_version(store):
    url, body = page("partei")
    register(store, Capture(url, body), at(0))
    newest = register(store, Capture(url, body + b"<!-- 2 -->"), at(1))
    assert resolve_open(store, url, reachable=False)["id"] == newest.id
    with pytest.raises(NotFound):
        resolve_open(store, "https://never.example/", reachable=False)


def test_a_serialized_dom_is_text_whatever_charset_it_declares(store):
    url, body = page("erfurt")
    dom = body.decode("latin-1")  # what the extension sends: text, with the page's charset
    reg = register(store, Capture(url, dom, charset="windows-1252"))
    original = get(store, reg.id, original=True)
    assert original.charset == "utf-8" and original.body == dom.encode("utf-8")
    assert "Zurück" in get(store, reg.id).body.decode("utf-8")


def test_a_page_too_big_for_the_budget_is_left_to_the_daemon(store):
    url, body = page("ordnung")
    first = register(store, Capture(url, body), at(0))
    small = RegisterOptions(similar_max_fingerprint=100, similar_budget_s=1.0)
    # another document: a version of the same one is never a similar page
    second = register(store, Capture(url + "?v=2", body + b"<!-- 2 -->"), small)
    assert second.similar == [] and similar(store, second.id)["computed_at"] is None
    assert second.id in stale_similar(store)
    assert [p["id"] for p in refresh_similar(store, second.id)["similar"]] == [first.id]


def test_a_list_cut_short_by_the_budget_is_marked_for_refresh(store):
    url, body = page("ordnung")
    register(store, Capture(url + "?a", body), at(0))
    register(store, Capture(url + "?b", body), at(1))
    rushed = register(store, Capture(url + "?c", body), RegisterOptions(similar_budget_s=0.0))
    assert len(rushed.similar) == 1  # the first candidate is always compared
    assert rushed.id in stale_similar(store)
    assert len(refresh_similar(store, rushed.id)["similar"]) == 2
    assert rushed.id not in stale_similar(store)


def test_text_keys_finds_documents_by_their_stored_words(store):

    url, body = page("partei")
    reg = register(store, Capture(url, body))
    other_url, other = page("latin1")
    register(store, Capture(other_url, other))
    assert text_keys(store, "GEMA") == {reg.key}
    assert text_keys(store, "gema nosuchwordanywhere") == set()


def test_similar_lists_are_symmetric(store):
    url, body = page("ordnung")
    first = register(store, Capture(url, body), at(0))
    second = register(store, Capture(url + "?v=2", body.replace(b"<p>", b"<p>Neu: ", 3)), at(1))
    listed = similar(store, first.id)["similar"]
    assert [p["id"] for p in listed] == [second.id]
    back = similar(store, second.id)["similar"][0]
    assert listed[0]["similarity"] == back["similarity"] and back["id"] == first.id
    assert first.id in stale_similar(store)  # its own list is still recomputed by the daemon


def test_versions_are_ordered_by_capture_time_not_by_id(store):
    url, body = page("ordnung")
    recent = register(store, Capture(url, body), at(60))
    older = register(store, Capture(url, body.replace(b"<p>", b"<p>Alt: ", 3)), at(0))
    assert older.id > recent.id  # an imported older capture gets a newer ID
    found = versions(store, url)
    assert [v["id"] for v in found] == [recent.id, older.id]
    assert 0.9 < found[0]["similarity_to_previous"] < 1.0
    assert found[1]["similarity_to_previous"] is None


def test_the_previous_version_and_the_nearest_copy_go_by_capture_time(store):
    url, body = page("ordnung")
    recent = register(store, Capture(url, body), at(60))
    older = register(store, Capture(url, body.replace(b"<p>", b"<p>Alt: ", 3)), at(0))
    assert older.id > recent.id  # imported: the older capture has the newer ID
    newest = register(store, Capture(url, body + b"<!-- v3 -->"), at(120))
    assert store.version(newest.id)["prev"] == recent.id  # not the imported older one
    assert nearest_version(store, url) == newest.id
    ref = register(store, Capture("https://ordnung.example/", b"<a href=x>x</a>"), at(5)).id
    assert nearest_version(store, url, ref) == older.id  # captured 5 minutes before the referrer


def test_search_describes_and_sorts_a_document_by_its_newest_capture(store):
    url, body = page("ordnung")
    other_url, other_body = page("partei")
    recent = register(store, Capture(url, body), at(60))
    register(store, Capture(other_url, other_body), at(90))
    imported = register(store, Capture(url, body + b"<!-- old -->"), at(0))
    assert imported.id > recent.id
    found = search(store, "*", sort="time")
    assert [row["url"] for row in found] == [other_url, url]  # by capture time, not by ID
    assert found[1]["id"] == recent.id and found[1]["versions"] == 2
    assert keywords(store, url)["id"] == recent.id


def test_the_previous_version_in_memory_gives_the_same_similarity_as_read_back(tmp_path):
    """The last registrations' fingerprint, text and shingles stay in memory; the values they
    give must equal those computed from the stored blobs after a reopen."""
    url, body = page("ordnung")
    sentence = b"Mehr aus der vorhandenen Zeit zu machen"  # a sentence of the main text
    assert sentence in body
    changed = body.replace(sentence, b"Weniger aus der knappen Zeit zu machen", 1)
    with ArchiveStore.open(tmp_path / "warm") as store:
        register(store, Capture(url, body), at(0))
        warm = register(store, Capture(url, changed), at(1)).similar
    with ArchiveStore.open(tmp_path / "cold") as store:
        register(store, Capture(url, body), at(0))
    with ArchiveStore.open(tmp_path / "cold") as store:
        cold = register(store, Capture(url, changed), at(1)).similar
    assert warm == cold
    assert len(warm) == 1 and 0.5 < warm[0]["similarity"] < 1.0
    assert 0.5 < warm[0]["content_similarity"] < 1.0


def test_search_finds_a_linked_headline_that_the_main_text_drops(store):

    url, body = page("partei")
    reg = register(store, Capture(url, body))
    row = store.row("extracts", reg.id)
    main = store.get_blob(row["text"]).decode()
    assert "Steuerdarling" not in main  # the stored text stays the main text (liveness, keywords)
    assert "Steuerdarling" in visible_text_of(store, reg.id)
    assert text_keys(store, "Steuerdarling") == {reg.key}


def test_a_version_stored_without_visible_text_reads_it_from_its_original(store):

    url, body = page("partei")
    reg = register(store, Capture(url, body))
    store.update("extracts", reg.id, {"visible_text": None})  # as registered before it was kept
    assert "Steuerdarling" not in visible_text_of(store, reg.id, recompute=False)  # main text
    assert "Steuerdarling" in visible_text_of(store, reg.id)


# -- similar lists: every candidate compared, or marked incomplete and finished later ---------


class StepClock:
    """A fake clock: each reading is ``step`` seconds after the last (0: time stands still)."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def near_identical(count: int) -> list[tuple[str, bytes]]:
    """``count`` pages of one site: the same real page, one sentence differing in each."""
    url, body = page("modabot")
    return [
        (f"{url}?p={n}", body.replace(b"</h1>", f" {n}</h1>".encode(), 1)) for n in range(count)
    ]


def _register_all(store, pages, clock, budget: float) -> list[str]:
    options = RegisterOptions(
        now=datetime(2026, 1, 1, tzinfo=UTC), similar_budget_s=budget, clock=clock
    )
    return [register(store, Capture(url, body), options).id for url, body in pages]


def test_every_one_of_39_near_identical_pages_is_listed(store):
    ids = _register_all(store, near_identical(39), StepClock(0.0), budget=1.0)
    found = similar(store, ids[-1])
    assert found["complete"] is True
    assert {p["id"] for p in found["similar"]} == set(ids[:-1])  # 38, not a first dozen
    assert all(p["similarity"] > 0.9 for p in found["similar"])
    assert len(similar(store, ids[0])["similar"]) == 38  # the lists are symmetric, uncut


def test_a_list_cut_by_the_budget_says_so_and_the_sweep_finishes_it(store):
    ids = _register_all(store, near_identical(39), StepClock(1.0), budget=2.5)
    cut = similar(store, ids[-1])
    assert cut["complete"] is False and len(cut["similar"]) < 38
    assert ids[-1] in stale_similar(store, 100)
    steps, sweep = 0, RegisterOptions(similar_budget_s=4.5, clock=StepClock(1.0))
    while not similar(store, ids[-1])["complete"]:
        refresh_similar(store, ids[-1], sweep)
        steps += 1
        assert steps <= 20, "the sweep does not resume where it stopped"
    assert steps >= 5  # four or five candidates per step: it resumed, step after step
    done = similar(store, ids[-1])
    assert {p["id"] for p in done["similar"]} == set(ids[:-1])
    assert ids[-1] not in stale_similar(store, 100)


def test_a_newer_version_makes_a_complete_list_incomplete_until_swept(store):
    ids = _register_all(store, near_identical(3), StepClock(0.0), budget=1.0)
    assert similar(store, ids[-1])["complete"] is True
    assert similar(store, ids[0])["complete"] is False  # two newer pages to compare
    refresh_similar(store, ids[0], RegisterOptions(clock=StepClock(0.0)))
    assert (
        similar(store, ids[0])["complete"] is True and len(similar(store, ids[0])["similar"]) == 2
    )
    [newer] = _register_all(store, near_identical(4)[3:], StepClock(0.0), budget=1.0)
    assert similar(store, ids[0])["complete"] is False and ids[0] in stale_similar(store)
    refresh_similar(store, ids[0], RegisterOptions(clock=StepClock(0.0)))
    assert newer in {p["id"] for p in similar(store, ids[0])["similar"]}
    assert similar(store, ids[0])["complete"] is True


def test_a_redesign_sharing_no_sketch_is_still_compared(store):
    """Same text and links, another structure: one sketch hash in common, below the floor the
    ranking applies for find_similar. Every candidate that passes the link filter is compared."""
    url, body = page("peptalks")
    first = register(store, Capture(url, body), RegisterOptions(clock=StepClock(0.0)))
    tree = LexborHTMLParser(body.decode("utf-8", "replace"))
    links = "".join(
        f'<li><a href="{a.attributes.get("href")}"></a></li>' for a in tree.css("a[href]")
    )
    cells = "".join(f"<section><em>{p}</em></section>" for p in extract(tree.html).body.split("\n"))
    redesign = f"<html><body><article>{cells}</article><ul>{links}</ul></body></html>"
    second = register(store, Capture(url + "?v=2", redesign), RegisterOptions(clock=StepClock(0.0)))
    shared = set(sketch(fingerprint(body.decode("utf-8", "replace")))) & set(
        sketch(fingerprint(redesign))
    )
    assert len(shared) < SimilarOptions().min_sketch  # the ranking's floor would drop it
    [match] = similar(store, second.id)["similar"]
    assert match["id"] == first.id and match["content_similarity"] > 0.8


def test_the_stored_title_is_what_a_browser_s_tab_holds_even_without_a_title_end_tag(store):
    # A real page whose <title> has no </title>: the rest of the document is the title's text
    # (RCDATA, HTML §13.2.6.2), markup and all. The stored title is that text as
    # document.title gives it (whitespace collapsed), clipped at a word with "…".
    url, body = page("partei")
    whole = register(store, Capture(url, body), at(0))
    title = store.version(whole.id)["title"]
    assert 0 < len(title) < 200 and title.count("  ") == 0
    cut = body.replace(b"</title>", b"", 1)
    assert b"</title>" not in cut.lower()
    reg = register(store, Capture(url + "?cut", cut), at(1))
    kept = store.version(reg.id)["title"]
    assert len(kept) <= TITLE_CHARS and kept.endswith("…") and len(kept) > TITLE_CHARS - 40
    assert kept.startswith(title) and "\n" not in kept and "  " not in kept
    assert store.row("extracts", reg.id)["title"] == kept
    # the browser's own document.title (the extension's capture) is held the same way
    raw = " ".join(["word"] * 200)  # 300 characters end a whole word: kept
    tab = register(store, Capture(url + "?tab", body, title=f"  {raw}\n"), at(2))
    assert store.version(tab.id)["title"] == tab_title(raw) == raw[: TITLE_CHARS - 1] + "…"
