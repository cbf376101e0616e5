"""A bounded map that keeps its most recently used entries: the cache behind the parsed
manifests of a store (engine/archive/resources.py) and the site templates of liveness checks
(engine/liveness.py). Not thread-safe: a caller shared between threads holds its own lock.

>>> cache = LRU(2)
>>> cache.put("a", 1); cache.put("b", 2)
>>> cache.get("a")  # "a" is now the most recently used
1
>>> cache.put("c", 3)  # over the size: the least recently used ("b") goes
>>> cache.get("b") is None, cache.get("a"), cache.get("c")
(True, 1, 3)
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``size`` entries; :meth:`get` and :meth:`put` make an entry the most recently
    used, and :meth:`put` drops the least recently used ones over ``size``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, default: V | None = None) -> V | None:
        """The value of ``key``, marked as just used; ``default`` when absent."""
        if key not in self._items:
            return default
        self._items.move_to_end(key)
        return self._items[key]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` as the most recently used entry, dropping the least recently used
        entries over ``size``."""
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __contains__(self, key: object) -> bool:  # a look that does not count as a use
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)
