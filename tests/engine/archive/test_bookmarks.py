"""Bookmark files: Netscape HTML (as Chromium and Firefox export it) and Pocket's exports."""

from __future__ import annotations

import pytest

from engine.archive.bookmarks import Bookmark, parse_bookmarks
from engine.errors import InvalidInput

CHROMIUM = b"""<!DOCTYPE NETSCAPE-Bookmark-file-1>
<!-- This is an automatically generated file. -->
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 ADD_DATE="1700000000" PERSONAL_TOOLBAR_FOLDER="true">Bookmarks bar</H3>
    <DL><p>
        <DT><A HREF="https://a.example/" ADD_DATE="1700000000">A page</A>
        <DT><H3 ADD_DATE="1700000000">Recipes</H3>
        <DL><p>
            <DT><A HREF="https://soup.example/tomato">Tomato soup</A>
            <DT><H3>Winter</H3>
            <DL><p>
                <DT><A HREF="https://soup.example/leek">Leek soup</A>
                <DT><A HREF="https://a.example/">A page again</A>
            </DL><p>
        </DL><p>
        <DT><A HREF="javascript:alert(1)">bookmarklet</A>
        <DT><A HREF="file:///etc/passwd">a file</A>
    </DL><p>
    <DT><H3>Other bookmarks</H3>
    <DL><p>
        <DT><A HREF="http://old.example/page">Old</A>
    </DL><p>
</DL><p>
"""


def test_netscape_folders_become_tags_and_only_web_links_count():
    assert parse_bookmarks(CHROMIUM) == [
        Bookmark("https://a.example/", "A page", ("recipes", "winter")),
        Bookmark("https://soup.example/tomato", "Tomato soup", ("recipes",)),
        Bookmark("https://soup.example/leek", "Leek soup", ("recipes", "winter")),
        Bookmark("http://old.example/page", "Old", ()),
    ]


def test_pocket_html_and_csv():
    html = (
        b"<!DOCTYPE html><html><head><title>Pocket Export</title></head><body><h1>Unread</h1><ul>"
        b'<li><a href="https://p.example/1" time_added="1" tags="Tech,ai">One</a></li></ul>'
        b'<h1>Read Archive</h1><ul><li><a href="https://p.example/2" time_added="2" tags="">Two</a>'
        b"</li></ul></body></html>"
    )
    assert parse_bookmarks(html) == [
        Bookmark("https://p.example/1", "One", ("tech", "ai")),
        Bookmark("https://p.example/2", "Two", ()),
    ]
    csv = b"title,url,time_added,tags,status\nOne,https://c.example/1,1,tech|ai,unread\n,ftp://x/,2,,archive\n"
    assert parse_bookmarks(csv) == [Bookmark("https://c.example/1", "One", ("tech", "ai"))]


@pytest.mark.parametrize(
    "bad", [b"hello world", b"", b"\x89PNG\r\n\x1a\n\x00\x00", b"a,b,c\n1,2,3\n"]
)
def test_a_file_that_is_not_a_bookmark_file_is_typed(bad):
    with pytest.raises(InvalidInput):
        parse_bookmarks(bad)
