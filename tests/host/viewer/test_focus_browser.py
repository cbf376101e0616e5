"""The document view from the keyboard: an action on it (show the original, add a tag, check
the live page) repaints the whole view, and the focus must stay on the control the user used,
not fall to the page's body (WCAG 2.4.3 focus order). Its own daemon: it tags and checks."""

from __future__ import annotations

import re

import pytest

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
    expect(original.first).to_be_focused()
    older = page.get_by_role("button", name="Rewritten").nth(1)  # the older version's
    older.focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(rf"v={seeded.article_ids[0]}&mode=rewritten"))
    expect(page.get_by_role("button", name="Rewritten").nth(1)).to_be_focused()
    tag = page.get_by_placeholder("add a tag")
    tag.fill("kept")
    tag.press("Enter")
    expect(page.locator(".tag-list")).to_contain_text("kept")
    expect(page.get_by_placeholder("add a tag")).to_be_focused()  # the next tag can be typed
    page.locator("#check-now").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#live-state")).to_have_text("present")
    expect(page.locator("#check-now")).to_be_focused()


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
