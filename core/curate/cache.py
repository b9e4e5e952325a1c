"""A size-limited LRU cache (Qt-free); the UI keeps decoded images and thumbnails in it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class LruCache:
    """Keeps the most recently used values whose total ``cost`` stays within ``budget``.

    A value bigger than the whole budget is not kept at all.
    """

    def __init__(self, budget: int) -> None:
        if budget <= 0:
            raise ValueError("the cache budget must be positive")
        self.budget = budget
        self.total = 0
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> Any | None:
        """The cached value (marked as recently used), or None."""
        entry = self._items.get(key)
        if entry is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return entry[0]

    def put(self, key: Hashable, value: Any, cost: int) -> None:
        """Store ``value``; evict the least recently used entries to stay within budget."""
        self.discard(key)
        if cost > self.budget:
            return
        self._items[key] = (value, cost)
        self.total += cost
        while self.total > self.budget:
            _key, (_value, old_cost) = self._items.popitem(last=False)
            self.total -= old_cost

    def discard(self, key: Hashable) -> None:
        """Forget ``key`` if cached."""
        entry = self._items.pop(key, None)
        if entry is not None:
            self.total -= entry[1]

    def clear(self) -> None:
        """Forget everything."""
        self._items.clear()
        self.total = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items
