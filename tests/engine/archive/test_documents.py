"""The viewer's document index against the obvious answer, on a real store."""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path
from types import SimpleNamespace
from unittest.mock import patch

from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.archive import documents as index_module
from engine.archive.documents import DocumentIndex, pattern_regex, scan_regex
from engine.archive.model import make_id
from engine.archive.search import _FullText, text_keys, warm_text_index
from engine.archive.store import ArchiveStore
from host.daemon.jobs import warm_search_index
from host.services.fulltext import index_of

SEGMENTS = st.sampled_from(["a", "B", "ab", "x.y", "news", "NEWS", "?q=1", "%20", "-"])
URLS = st.lists(st.lists(SEGMENTS, min_size=1, max_size=4).map("/".join), min_size=1, max_size=25)
PATTERNS = st.lists(st.sampled_from(["*", "?", "a", "b", "news", "/", ".", "x"]), max_size=6).map(
    "".join
)


def store_with(urls: list[str], root: Path) -> ArchiveStore:
    store = ArchiveStore.open(root, fsync=False)
    with store.transaction():
        for n, path in enumerate(urls):
            url = f"https://h{n % 3}.example/{path}"
            doc = {"url": url, "key": url, "host": f"h{n % 3}.example", "ts": 1e9 + n * 7 % 11}
            store.add_version(make_id(1e9 + n, store.ids[-1] if store.ids else None), doc)
    return store


def expected(index: DocumentIndex, rx: re.Pattern, sort: str) -> list[int]:
    return [i for i in index.order_of(sort) if rx.match(index.entries[i].url)]


@settings(max_examples=150, deadline=None)
@given(URLS, PATTERNS, st.booleans(), st.sampled_from(["time", "url"]))
@example(["-/-/-"], "***", True, "time")  # an empty scan match at the end looped forever
def test_scan_over_joined_lines_equals_matching_each_url(urls, pattern, case, sort):
    with tempfile.TemporaryDirectory() as tmp:
        store = store_with(urls, Path(tmp))
        index = DocumentIndex().refresh(store)
        rx = pattern_regex(pattern or "*", case)
        want = expected(index, rx, sort)
        assert index.match_all(rx, sort) == want
        assert index.match_some(rx, sort, range(len(index.entries))) == want
        for dense in (index_module.DENSE, -1):  # -1: the rest always counted in one pass
            with patch.object(index_module, "DENSE", dense):
                for stop in (1, 3):  # a page's first hits and the total
                    assert index.match_first(rx, sort, stop) == (want[:stop], len(want))
        store.close()


def test_incremental_refresh_equals_a_fresh_build(tmp_path):
    urls = [f"p{n % 7}/q{n}" if n % 3 else f"p{n % 7}" for n in range(60)]
    store = store_with(urls[:30], tmp_path)
    index = DocumentIndex().refresh(store)
    with store.transaction():
        for n, path in enumerate(urls[30:], 30):
            url = f"https://h{n % 3}.example/{path}"
            doc = {"url": url, "key": url, "host": f"h{n % 3}.example", "ts": 1e9 + n}
            store.add_version(make_id(1e9 + n, store.ids[-1]), doc)
            index.refresh(store)  # one at a time: the incremental path
    fresh = DocumentIndex().refresh(store)
    rx = pattern_regex("*")
    for sort in ("time", "url"):
        got = [index.entries[i] for i in index.match_all(rx, sort)]
        want = [fresh.entries[i] for i in fresh.match_all(rx, sort)]
        assert got == want
    assert sum(e.versions for e in index.entries) == 60
    store.close()


def test_scan_regex_drops_only_outer_stars():
    assert scan_regex(pattern_regex("*a*b*")).pattern == "a[^\\n]*b"
    assert scan_regex(pattern_regex("a*")).pattern == "^a"
    assert scan_regex(pattern_regex("*a")).pattern == "a$"
    assert scan_regex(pattern_regex("a")).pattern == "a"


def test_full_text_index_warms_in_steps_to_the_same_index(tmp_path):
    """The daemon's background warm-up (host/daemon/jobs.py) builds the inverted index
    250 versions a step; stepped or at once, it is the same index."""

    store = store_with([f"news/w{n}" for n in range(25)], tmp_path)
    steps = 0
    while not warm_text_index(store, max_ids=10):
        steps += 1
    assert steps == 2 and store.cache["search_text"].seen_ids == 25
    whole = _FullText()
    whole.refresh(store)
    assert store.cache["search_text"].index == whole.index
    assert len(text_keys(store, "news")) == 25

    store.cache.pop("search_text")

    async def run(fn, *args):
        return fn(*args)

    app = SimpleNamespace(store=store, run=run, home=store.home)
    assert asyncio.run(warm_search_index(app)) == 25
    assert index_of(store.home).count() == 25  # the daemon warms the full-text index on disk
    store.close()
