"""A run's chunk plan, made lazily: ``ChunkPlan(count, make)`` is a sequence of chunk
specs whose spec ``i`` is ``make(i)``, built only when asked. A run of a trillion games
plans in no time and no memory; the executors, the session and the resume scan take
its specs one at a time.

``check_chunks(count)`` refuses a plan the run machinery cannot index: chunk ``i``
draws from ``SeedSequence(entropy, spawn_key + (i,))`` and its games from keys
``(i, j, ...)``; a chunk index of 2**32 or more would spread over two 32-bit words of
the key and could meet another chunk's game keys, so at most ``MAX_CHUNKS`` chunks.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, overload

__all__ = ["ChunkPlan", "Todo", "MAX_CHUNKS", "check_chunks"]

#: Most chunks a run may have (its seeds index chunks with one 32-bit word).
MAX_CHUNKS = 2**32


def check_chunks(units: int, chunk_size: int, what: str = "games") -> int:
    """The number of chunks of ``units`` in chunks of ``chunk_size``; a ``ValueError``
    naming ``what`` and the smallest chunk size that fits when it is more than
    ``MAX_CHUNKS``."""
    count = -(-int(units) // int(chunk_size))
    if count > MAX_CHUNKS:
        need = -(-int(units) // MAX_CHUNKS)
        raise ValueError(f"{what}: {units} in chunks of {chunk_size} make {count} chunks; a run "
                         f"indexes at most {MAX_CHUNKS} (2**32) chunks: give chunk_size >= {need}")
    return count


class ChunkPlan(Sequence):
    """The chunk specs of a run: ``plan[i]`` is ``make(i)`` with ``extra`` joined (a
    fresh dict each time), ``len(plan)`` the chunk count, ``units`` the games (deals,
    samples) of all chunks together."""

    def __init__(self, count: int, make: Callable[[int], dict], units: int,
                 extra: Mapping[str, Any] | None = None) -> None:
        self._count = int(count)
        self._make = make
        self.units = int(units)
        self._extra = dict(extra or {})

    def with_extra(self, extra: Mapping[str, Any]) -> ChunkPlan:
        """The same plan, every spec with ``extra`` joined."""
        return ChunkPlan(self._count, self._make, self.units, {**self._extra, **extra})

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, i: int) -> dict: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict]: ...

    def __getitem__(self, i: int | slice) -> dict | list[dict]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._count))]
        i = int(i)
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError(f"chunk {i} of a plan of {self._count}")
        spec = self._make(i)
        if self._extra:
            spec.update(self._extra)
        return spec

    def __iter__(self) -> Iterator[dict]:
        for i in range(self._count):
            yield self[i]

    def __repr__(self) -> str:
        return f"ChunkPlan({self._count} chunks, {self.units} units)"


class Todo(Collection):
    """The specs of ``specs`` (a sequence whose spec ``i`` has index ``i``) not in
    ``done``, in order, taken lazily: ``len()`` without building them, iteration one at
    a time."""

    def __init__(self, specs: Sequence[dict], done: set[int]) -> None:
        self.specs = specs
        self.done = frozenset(done)
        self._len = len(specs) - sum(1 for i in self.done if 0 <= i < len(specs))

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __contains__(self, spec: object) -> bool:
        return (isinstance(spec, Mapping) and spec.get("index") not in self.done
                and 0 <= int(spec.get("index", -1)) < len(self.specs))

    def __iter__(self) -> Iterator[dict]:
        done = self.done
        for i in range(len(self.specs)):
            if i not in done:
                yield self.specs[i]

    def units(self) -> int:
        """The games (deals, samples) of these specs together."""
        total = getattr(self.specs, "units", None)
        if total is None:
            return sum(int(s["n"]) for s in self)
        return int(total) - sum(int(self.specs[i]["n"]) for i in self.done
                                if 0 <= i < len(self.specs))
