"""Deleting from the viewer, and undoing it, in real Chromium against a real daemon.

A module of its own: the daemon and seeded archive fixtures are module-scoped, and these
tests change the archive the other viewer tests read.
"""

from __future__ import annotations

import re

import pytest

from host.cli.commands.collection import render_stats, size
from tests.host.viewer.test_labels_browser import viewer_on_a_new_home

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def open_viewer(page, daemon, hash_="#/search"):
    page.goto(daemon.viewer(hash_))
    expect(page.locator("#conn")).to_have_text("live")


def test_delete_a_version_then_undo_from_the_toast(page, daemon, seeded):
    old, new = seeded.article_ids
    open_viewer(page, daemon, f"#/doc/{new}")
    versions = page.locator(".timeline .version")
    expect(versions).to_have_count(2)
    page.locator(f"[data-delete='{old}']").click()
    expect(page.locator(".toast")).to_contain_text("Deleted 1 version")
    expect(versions).to_have_count(1)
    assert [
        v["id"] for v in daemon.result("versions", {"url": seeded.article_url})["versions"]
    ] == [new]
    page.locator("#undo-delete").click()
    expect(page.locator(".toast").last).to_contain_text("Restored 1 version")
    expect(versions).to_have_count(2)
    assert len(daemon.result("versions", {"url": seeded.article_url})["versions"]) == 2


def test_delete_the_shown_version_moves_to_the_one_left(page, daemon, seeded):
    old, new = seeded.article_ids
    open_viewer(page, daemon, f"#/doc/{new}")
    page.locator(f"[data-delete='{new}']").click()
    expect(page.locator(".timeline .version")).to_have_count(1)
    expect(page).to_have_url(f"{daemon.base}/viewer/#/doc/{old}")
    undo = daemon.result("archive_trash")["pending"][0]["undo"]
    daemon.result("archive_undo", {"undo": undo})


def test_delete_a_document_and_undo_from_the_archive_tab(page, daemon, seeded):
    open_viewer(page, daemon, f"#/doc/{seeded.sibling_id}")
    before = daemon.result("archive_stats")
    page.locator("#delete-doc").click()
    expect(page).to_have_url(f"{daemon.base}/viewer/#/search")
    expect(page.locator(".results .result-link")).to_have_count(before["documents"] - 1)
    page.get_by_role("link", name="Archive", exact=True).click()
    expect(page.locator("#stat-documents")).to_have_text(str(before["documents"] - 1))
    row = page.locator("#trash-list li").first
    expect(row).to_contain_text("1 document (1 version)")
    row.get_by_role("button", name="Undo").click()
    expect(page.locator("#trash-empty")).to_be_visible()
    expect(page.locator("#stat-documents")).to_have_text(str(before["documents"]))
    open_viewer(page, daemon, f"#/doc/{seeded.sibling_id}")
    expect(page.locator(".timeline .version")).to_have_count(1)


def test_storage_figure_compares_captured_with_kept_like_with_like(page, daemon):
    """The storage card's figure is the pages and resources kept once, and its note the same
    bytes as captured, before the files on disk (which also hold copies and extracts), as
    `pagekeeper archive stats` says them."""
    url = "http://127.0.0.1:9/notes/captured-twice.html"
    words = " ".join(f"word{i}" for i in range(6000))  # ~50 KB: a saving the card's rounding shows
    html = f"<html><head><title>Twice</title></head><body><p>{words}</p></body></html>"
    for _ in range(2):  # the second capture is kept once: dedup saves its bytes
        daemon.result("archive_page", {"url": url, "html": html})
    open_viewer(page, daemon, "#/stats")
    stats = daemon.result("archive_stats")
    assert 0 < stats["blob_bytes"] < stats["storage_bytes"] and stats["dedup_saved_bytes"] > 0
    kept = stats["original_bytes"] - stats["dedup_saved_bytes"] + stats["resource_unique_bytes"]
    captured = stats["original_bytes"] + stats["resource_bytes"]
    expect(page.locator("#stat-storage")).to_have_text(size(kept))
    card = page.locator(".stat", has=page.locator("#stat-storage"))
    expect(card).to_contain_text("kept after dedup")
    note = card.locator(".stat-share").inner_text()
    assert note.startswith(f"{size(captured)} of pages and resources captured · "), note
    # The files are compressed (fewer bytes than kept, without a contradiction), in the words of
    # `pagekeeper archive stats`.
    disk = f"{size(stats['blob_bytes'])} on disk, compressed, with copies and extracts"
    assert disk in note and disk in render_stats(stats), note
    # all the archive takes (the full-text index too), as the CLI says it
    total = f"{size(stats['archive_bytes'])} in all, with the full-text index"
    assert note.endswith(total) and total in render_stats(stats), note


def test_an_empty_archives_storage_card_says_it_is_empty_as_the_cli_does(browser, tmp_path):
    """No "0 B on disk … with the records" for an archive with no page: the card says it is
    empty and what still takes room, in `pagekeeper archive stats`' words."""
    with viewer_on_a_new_home(browser, tmp_path / "empty") as (running, tab):
        tab.goto(running.viewer("#/stats"))
        note = tab.locator(".stat", has=tab.locator("#stat-storage")).locator(".stat-share")
        expect(note).to_contain_text("empty archive")
        stats = running.result("archive_stats")
        assert stats["versions"] == 0 and note.inner_text() == render_stats(stats)


def test_deleting_a_version_takes_its_unchanged_recaptures_and_says_so(page, daemon):
    """A version seen again: its Delete says the re-capture goes too, and after the delete the
    viewer moves to a capture that is left, not to the deleted re-capture."""
    url = "http://127.0.0.1:9/notes/seen-again.html"
    first = (
        "<html><head><title>Seen again</title></head><body><p>The first words.</p></body></html>"
    )
    second = first.replace("first words", "second words")
    old = daemon.result("archive_page", {"url": url, "html": first})["id"]
    new = daemon.result("archive_page", {"url": url, "html": second})["id"]
    again = daemon.result("archive_page", {"url": url, "html": second})
    assert again["revisit_of"] == new
    open_viewer(page, daemon, f"#/doc/{again['id']}")
    versions = page.locator(".timeline .version")
    expect(versions).to_have_count(3)
    button = page.locator(f"[data-delete='{new}']")
    expect(button).to_have_text("Delete (+1 seen again)")
    expect(button).to_have_attribute("aria-label", re.compile("and its 1 unchanged re-capture$"))
    expect(page.locator(f"[data-delete='{old}']")).to_have_text("Delete")
    button.click()
    expect(page.locator(".toast")).to_contain_text("Deleted 2 versions")
    expect(page).to_have_url(f"{daemon.base}/viewer/#/doc/{old}")
    expect(versions).to_have_count(1)
