"""Deleting from the viewer, and undoing it, in real Chromium against a real daemon.

A module of its own: the daemon and seeded archive fixtures are module-scoped, and these
tests change the archive the other viewer tests read.
"""

from __future__ import annotations

import pytest

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


def test_storage_figure_reads_stored_then_before_dedup(page, daemon):
    open_viewer(page, daemon, "#/stats")
    stats = daemon.result("archive_stats")
    assert 0 < stats["blob_bytes"] < stats["storage_bytes"]
    card = page.locator(".stat", has=page.locator("#stat-storage"))
    expect(card).to_contain_text("stored")
    text = card.inner_text()
    assert text.index("stored") < text.index("before dedup")
