"""The least-recently-used map (engine/lru.py): what it keeps, in which order it drops."""

from __future__ import annotations

from engine.lru import LRU


def test_the_least_recently_used_entry_goes_first():
    cache: LRU[str, int] = LRU(3)
    for n, key in enumerate("abc"):
        cache.put(key, n)
    cache.put("d", 3)
    assert "a" not in cache and len(cache) == 3  # the oldest, never used since, went


def test_a_get_makes_an_entry_the_most_recently_used():
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)
    assert "a" in cache and "b" not in cache


def test_a_put_of_a_kept_key_replaces_it_and_makes_it_the_most_recent():
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert cache.get("a") == 10 and "b" not in cache and len(cache) == 2


def test_a_look_with_in_is_not_a_use_and_a_missing_key_gives_the_default():
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache
    cache.put("c", 3)
    assert "a" not in cache  # `in` did not keep it
    assert cache.get("zz") is None and cache.get("zz", 7) == 7
    falsy: LRU[str, list] = LRU(1)
    falsy.put("empty", [])
    assert falsy.get("empty", None) == [] and "empty" in falsy
