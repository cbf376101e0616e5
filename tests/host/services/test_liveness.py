"""The check's site template on a real store: read once per set of stored texts, and read
again after a capture or a delete on the site; the address the stored page named
(host/services/liveness.py)."""

from __future__ import annotations

import asyncio

from host.daemon.app import App, Config
from host.handlers.archive import archive_page, check
from host.handlers.collection import archive_delete
from tests.engine.test_liveness import (
    ARTICLE,
    FEED,
    as_paragraphs,
    at_new_address,
    body_lines,
    bombas,
    boxed_copy,
    copy_of,
    dagbladet,
    in_template,
    moved_article,
    moved_away,
    redesigns,
    site_box,
    wcxb,
)

SITE = "https://news.example"


def run(handler, params: dict, app: App):
    result = handler(params, app)
    return asyncio.run(result) if asyncio.iscoroutine(result) else result


def add(app: App, path: str, page: str) -> dict:
    return run(archive_page, {"url": SITE + path, "html": page}, app)


def checked(app: App, live: str) -> str:
    """The state of /a judged against ``live`` (the tab's page: nothing fetched)."""
    return run(check, {"url": SITE + "/a", "page": live}, app)["state"]


def blob_reads(app: App) -> list[str]:
    """Record every blob the store reads from now on."""
    reads, get = [], app.store.get_blob
    app.store.get_blob = lambda digest: reads.append(digest) or get(digest)
    return reads


def test_a_capture_and_a_delete_on_the_site_change_the_template_the_next_check_reads(tmp_path):
    # The stored main text holds a box the site shows on every page (real text); another
    # archived page of the site shows the box too, so it is template, and another article
    # beside it is gone. Alone, the box passes for the text (changed).
    app = App(tmp_path, Config(port=47999))
    _, stored_page = boxed_copy()
    other = in_template(as_paragraphs(body_lines(FEED[0]) + site_box()))
    live = in_template(as_paragraphs(body_lines(FEED[2]) + site_box()))
    add(app, "/a", stored_page)
    assert checked(app, live) == "changed"
    added = add(app, "/b", other)  # a capture on the site: its text is read at the next check
    digest = app.store.row("extracts", added["id"])["visible_text"]
    reads = blob_reads(app)
    assert checked(app, live) == "gone"
    assert digest in reads
    reads.clear()
    assert checked(app, live) == "gone"
    assert digest not in reads  # the same site: its template is not read again
    add(app, "/c", in_template(as_paragraphs(body_lines(ARTICLE))))  # a page without the box
    reads.clear()
    assert checked(app, live) == "gone"  # /b's phrases, known, are still in the template
    assert digest not in reads
    run(archive_delete, {"ref": SITE + "/b", "document": True}, app)
    assert checked(app, live) == "changed"  # deleted: no longer the site's template
    app.close()


def test_the_address_the_stored_page_named_is_kept_at_capture_and_for_older_copies(tmp_path):
    # A real shop product page whose extraction took the shop's footer; the URL now serves the
    # shop's collection page (another address, the same footer): gone.
    app = App(tmp_path, Config(port=47999))
    url = "https://shop.bombas.com/products/mens-quarter-socks"
    stored = run(archive_page, {"url": url, "html": bombas("0582")}, app)
    row = app.store.row("extracts", stored["id"])
    assert row["address"] == "/products/mens-quarter-socks"
    verdict = run(check, {"url": url, "page": bombas("0639")}, app)
    assert verdict["state"] == "gone" and "another address" in verdict["reason"]
    assert run(check, {"url": url, "page": bombas("0582")}, app)["state"] == "present"
    # a copy stored before the address was kept: read from its original page, then kept
    older = {k: v for k, v in row.items() if k != "address"}
    with app.store.transaction():
        app.store.remove_row("extracts", stored["id"])
        app.store.update("extracts", stored["id"], older)
    assert "address" not in app.store.row("extracts", stored["id"])
    orig = app.store.version(stored["id"])["orig"]
    reads = blob_reads(app)
    verdict = run(check, {"url": url, "page": bombas("0639")}, app)
    assert verdict["state"] == "gone" and "another address" in verdict["reason"]
    assert orig in reads  # read from its original page once …
    assert app.store.row("extracts", stored["id"])["address"] == "/products/mens-quarter-socks"
    reads.clear()
    verdict = run(check, {"url": url, "page": bombas("0639")}, app)
    assert verdict["state"] == "gone" and "another address" in verdict["reason"]
    assert orig not in reads  # … and kept: the next check (a sweep) does not parse it again
    app.close()


def test_an_article_the_site_moved_to_a_new_address_and_redesigned_is_not_gone(tmp_path):
    # The real dagbladet.no article archived at its URL; the site moved its URLs (the old one
    # redirects) and redesigned: the page the tab shows names the new address. The check reads
    # the stored row's title and address as the engine test's copy has them.
    app = App(tmp_path, Config(port=47999))
    url = "https://www.dagbladet.no/nyheter/nordmann-domt-til-livstid/81348547"
    run(archive_page, {"url": url, "html": dagbladet("V1")}, app)
    _, lines = moved_article()
    for name, live in redesigns(lines).items():
        verdict = run(check, {"url": url, "page": live}, app)
        assert verdict["present"] and "another address" not in verdict["reason"], (name, verdict)
    # the shop's footer page under a new address is still another page
    shop = "https://shop.bombas.com/products/mens-quarter-socks"
    run(archive_page, {"url": shop, "html": bombas("0582")}, app)
    verdict = run(check, {"url": shop, "page": at_new_address(bombas("0639"))}, app)
    assert verdict["state"] == "gone" and "another address" in verdict["reason"]
    # a page whose title's longest part is the site's name (osha.gov's real page, the only one
    # of its site archived): the check tells the name by the version's URL
    osha = "http://www.osha.gov/electrical"
    run(archive_page, {"url": osha, "html": wcxb("0349")}, app)
    verdict = run(check, {"url": osha, "page": moved_away(copy_of(wcxb("0349"), osha))}, app)
    assert verdict["present"] and "another address" not in verdict["reason"], verdict
    app.close()
