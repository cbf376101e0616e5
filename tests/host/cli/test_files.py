"""The one reader of the page files commands are given (host/cli/files.py)."""

from __future__ import annotations

import gzip
import tracemalloc

import pytest

from engine.errors import InvalidInput, TooLarge
from host.cli.files import read_input

MB = 1 << 20


def test_a_small_gzip_that_inflates_past_the_cap_is_refused_without_inflating_it_whole(tmp_path):
    bomb = tmp_path / "page.html.gz"
    bomb.write_bytes(gzip.compress(b"\0" * (256 * MB), 9))  # about 250 KB on disk
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge, match="once gunzipped"):
            read_input(str(bomb), MB, gunzip=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MB, peak  # the cap's worth, not the 256 MB the file inflates to


def test_every_gzip_member_is_read_and_zero_padding_after_them_is_ignored(tmp_path):
    page = tmp_path / "page.html.gz"
    page.write_bytes(gzip.compress(b"<p>one ") + gzip.compress(b"two</p>") + b"\0" * 8)
    assert read_input(str(page), MB, gunzip=True) == b"<p>one two</p>"


def test_a_page_of_exactly_the_cap_is_read_and_one_byte_more_is_refused(tmp_path):
    page = tmp_path / "page.html.gz"
    page.write_bytes(gzip.compress(b"x" * 100))
    assert len(read_input(str(page), 100, gunzip=True)) == 100
    with pytest.raises(TooLarge):
        read_input(str(page), 99, gunzip=True)


@pytest.mark.parametrize(
    "damage",
    [lambda z: z[:-6], lambda z: z + b"not gzip"],
    ids=["cut short", "garbage after the member"],
)
def test_a_damaged_gzip_is_invalid_input(tmp_path, damage):
    page = tmp_path / "page.html.gz"
    page.write_bytes(damage(gzip.compress(b"<p>text</p>")))
    with pytest.raises(InvalidInput, match="cannot read"):
        read_input(str(page), MB, gunzip=True)


def test_a_gzip_file_is_kept_as_it_is_when_the_command_does_not_gunzip(tmp_path):
    page = tmp_path / "bookmarks.html"
    page.write_bytes(gzip.compress(b"x"))
    assert read_input(str(page), MB) == page.read_bytes()
