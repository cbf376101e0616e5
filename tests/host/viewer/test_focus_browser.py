"""The document view from the keyboard: an action on it (show the original, add a tag, check
the live page) repaints the whole view, and the focus must stay on the control the user used,
not fall to the page's body (WCAG 2.4.3 focus order). Its own daemon: it tags and checks."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.slowdown import scaled

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def test_the_focus_stays_on_the_control_the_user_used(page, daemon, seeded, live_site):
    page.goto(daemon.viewer(f"#/doc/{seeded.article_ids[-1]}"))
    expect(page.locator("#conn")).to_have_text("live")
    original = page.get_by_role("button", name="Original")
    original.first.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"mode=original"))
    # The address changes at once, the view when the version's data comes: the focus is
    # looked at once it is rebuilt (the chosen button says so), not before.
    expect(original.first).to_have_attribute("aria-pressed", "true")
    expect(original.first).to_be_focused()
    older = page.get_by_role("button", name="Rewritten").nth(1)  # the older version's
    older.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"v={seeded.article_ids[0]}&mode=rewritten"))
    expect(older).to_have_attribute("aria-pressed", "true")
    expect(older).to_be_focused()
    tag = page.get_by_placeholder("add a tag")
    tag.fill("kept")
    tag.press("Enter")
    expect(page.locator(".tag-list")).to_contain_text("kept")
    expect(page.get_by_placeholder("add a tag")).to_be_focused()  # the next tag can be typed
    page.locator("#check-now").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#live-state")).to_have_text("present")
    expect(page.locator("#check-now")).to_be_focused()


class HeldDocument:
    """Routes the viewer's /ws through the test, which may hold the page's next ``document``
    request (the data of the version the user chose) until it lets it go."""

    def __init__(self, page) -> None:
        self.page, self.hold, self.held, self.server = page, False, [], None
        page.route_web_socket(re.compile(r"/ws(\?|$)"), self.route)

    def route(self, ws) -> None:
        self.server = ws.connect_to_server()

        def from_page(message) -> None:
            if self.hold and json.loads(message).get("type") == "document":
                self.held.append(message)
            else:
                self.server.send(message)

        ws.on_message(from_page)

    def wait_held(self) -> None:
        """Until the page has sent the request held (the route sees it while Playwright runs)."""
        deadline = time.monotonic() + scaled(10)
        while not self.held:
            assert time.monotonic() < deadline, "the page sent no document request"
            self.page.wait_for_timeout(10)

    def release(self) -> None:
        self.hold = False
        for message in self.held:
            self.server.send(message)
        self.held.clear()


def choose_the_older_version_held(page, daemon, seeded) -> HeldDocument:
    """Open the newest version and choose the older one, its data held (the view not rebuilt
    yet) until the test releases it."""
    held = HeldDocument(page)
    page.goto(daemon.viewer(f"#/doc/{seeded.article_ids[-1]}"))
    expect(page.locator("#conn")).to_have_text("live")
    older = page.get_by_role("button", name="Rewritten").nth(1)  # the older version's
    expect(older).to_have_attribute("aria-pressed", "false")
    held.hold = True
    older.click()
    held.wait_held()
    return held


def type_and_rebuild(page, held: HeldDocument, field, text: str) -> None:
    """Type ``text`` into ``field`` (the caret one letter before its end), let the held data
    in, and check the rebuilt view kept the text, the focus and the caret."""
    field.fill(text)
    field.press("ArrowLeft")
    held.release()
    expect(page.get_by_role("button", name="Rewritten").nth(1)).to_have_attribute(
        "aria-pressed", "true"
    )  # rebuilt with the older version's data
    expect(field).to_have_value(text)
    expect(field).to_be_focused()
    caret = len(text) - 1
    assert field.evaluate("el => [el.selectionStart, el.selectionEnd]") == [caret, caret]


def test_a_tag_typed_while_the_chosen_version_loads_is_kept(page, daemon, seeded):
    """The view is rebuilt when the chosen version's data arrives: a tag the user began to
    type meanwhile stays in the rebuilt field, with the focus and the caret, and Enter adds
    it; once added, the field is empty for the next one. The data is held until the tag is
    typed, so the rebuild surely comes after it."""
    held = choose_the_older_version_held(page, daemon, seeded)
    tag = page.get_by_placeholder("add a tag")
    type_and_rebuild(page, held, tag, "typed while it loaded")
    tag.press("Enter")
    expect(page.locator(".tag-list")).to_contain_text("typed while it loaded")
    expect(page.get_by_placeholder("add a tag")).to_have_value("")


def test_a_note_written_while_the_chosen_version_loads_is_kept(page, daemon, seeded):
    """A note's editor, open with a draft when the view is rebuilt (the chosen version's data
    arriving), is open again with the draft, the focus and the caret; Save note keeps it, and
    the editor closes. The data is held until the draft is typed."""
    held = choose_the_older_version_held(page, daemon, seeded)
    newest = seeded.article_ids[-1]
    page.locator(f"[data-note-edit='{newest}']").click()
    note = page.locator(f"#note-{newest}")
    type_and_rebuild(page, held, note, "written while it loaded")
    page.get_by_role("button", name="Save note").click()
    expect(page.locator(f"[data-note='{newest}']")).to_have_text("written while it loaded")
    expect(note).to_have_count(0)  # saved: the editor closed


def test_a_note_draft_kept_over_a_rebuild_leaves_the_focus_where_it_was(page, daemon, seeded):
    """The note's editor opened again by a rebuild does not take the focus from the control
    the user used (the version they chose from the keyboard)."""
    page.goto(daemon.viewer(f"#/doc/{seeded.article_ids[-1]}"))
    expect(page.locator("#conn")).to_have_text("live")
    newest = seeded.article_ids[-1]
    page.locator(f"[data-note-edit='{newest}']").click()
    note = page.locator(f"#note-{newest}")
    note.fill("a draft")
    older = page.get_by_role("button", name="Rewritten").nth(1)  # the older version's
    older.focus()
    page.keyboard.press("Enter")
    expect(older).to_have_attribute("aria-pressed", "true")  # rebuilt with its data
    expect(note).to_have_value("a draft")
    expect(older).to_be_focused()


def test_the_sweep_keeps_the_focus_while_its_button_is_disabled(page, daemon, live_site):
    """A disabled button loses the focus: while the sweep runs the progress holds it (read out
    as it changes), and the button has it back when the sweep is over."""
    if not live_site.running:  # a test that took it down failed before bringing it back
        live_site.start()
    live_site.delay_s = 1.5  # slow enough to see where the focus is during the sweep
    try:
        page.goto(daemon.viewer("#/liveness"))
        expect(page.locator("#conn")).to_have_text("live")
        start = page.get_by_role("button", name="Check every document")
        start.focus()
        page.keyboard.press("Enter")
        expect(page.locator(".sweep label")).to_have_text(re.compile(r"^Checking \d+ of \d+…$"))
        expect(start).to_be_disabled()
        expect(page.locator("#sweep-status")).to_be_focused()
        expect(page.locator(".sweep label")).to_have_text(
            re.compile(r"^Last sweep: "), timeout=30_000
        )
    finally:
        live_site.delay_s = 0.0
    expect(start).to_be_enabled()
    expect(start).to_be_focused()


def test_skip_to_content_moves_the_focus_and_keeps_the_page(page, daemon, seeded):
    """The skip link (WCAG 2.4.1 bypass blocks) takes the keyboard past the top bar to the
    view: the same page stays shown and its address unchanged (the address's ``#`` part
    is the viewer's route, not an anchor), and the next Tab is inside the view."""
    page.goto(daemon.viewer(f"#/doc/{seeded.article_ids[-1]}"))
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("#main h1").first).to_be_visible()
    address = page.url  # the token taken off the address as the viewer opened
    heading = page.locator("#main h1").first.inner_text()
    page.get_by_role("link", name="Skip to content").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#main")).to_be_focused()
    assert page.url == address
    expect(page.locator("#main h1").first).to_have_text(heading)
    page.keyboard.press("Tab")
    assert page.evaluate("document.getElementById('main').contains(document.activeElement)")
