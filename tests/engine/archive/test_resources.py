"""A store's parsed manifests (engine/archive/resources.py ``manifest_of``): read once, and
only the MANIFEST_CACHE most recently used kept."""

from __future__ import annotations

import json

from engine.archive import resources
from engine.archive.resources import manifest_of
from engine.archive.store import ArchiveStore


def test_manifests_are_parsed_once_and_the_least_recently_used_go(tmp_path, monkeypatch):
    monkeypatch.setattr(resources, "MANIFEST_CACHE", 2)
    with ArchiveStore.open(tmp_path) as store:
        docs = [
            {"manifest": store.put_blob(json.dumps([{"url": f"https://e.org/{n}.css"}]).encode())}
            for n in range(3)
        ]
        reads, get = [], store.get_blob
        store.get_blob = lambda digest: reads.append(digest) or get(digest)
        for doc in docs[:2]:
            assert manifest_of(store, doc)[0]["url"].endswith(".css")
        assert len(reads) == 2
        manifest_of(store, docs[0])  # kept: not read again, and now the most recently used
        assert len(reads) == 2
        manifest_of(store, docs[2])  # over the size: docs[1]'s goes
        manifest_of(store, docs[0])
        assert len(reads) == 3
        manifest_of(store, docs[1])
        assert reads[-1] == docs[1]["manifest"] and len(reads) == 4
        assert manifest_of(store, {"resources": [{"url": "x"}]}) == [{"url": "x"}]  # inline
