"""The public history a player's view shows: a read-only window on the state's list."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["HistoryView"]


class HistoryView(Sequence):
    """A read-only view of the first ``n`` items of an append-only list (a view's history
    costs nothing to make, and later moves do not show in it).

    >>> items = ["deal", "draw"]
    >>> h = HistoryView(items, 2)
    >>> items.append("meld")
    >>> len(h), h[-1], h[:1]
    (2, 'draw', ('deal',))
    """

    __slots__ = ("_items", "_n")

    def __init__(self, items: list, n: int) -> None:
        self._items = items
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self._items[: self._n][i])
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("history index out of range")
        return self._items[i]

    def __repr__(self) -> str:
        return f"<history of {self._n} records>"
