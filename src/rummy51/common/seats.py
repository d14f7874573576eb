"""Seat arrangements: how the listed bots of a table sit for each play of the same cards."""
from __future__ import annotations

import itertools

__all__ = ["SEATS", "MAX_PERMUTE", "arrangements"]

#: ``seats=``: "fixed" (every bot keeps its seat), "rotate" (every deal is played once
#: per cyclic shift of the bots over the seats: each bot sits in each seat once) or
#: "permute" (once per permutation: every order of the bots around the table).
SEATS = ("fixed", "rotate", "permute")
#: Most players a "permute" run may have (6! = 720 plays of every deal is too many).
MAX_PERMUTE = 5


def arrangements(players: int, seats: str) -> list[tuple[int, ...]]:
    """The seat arrangements of a run: arrangement ``a`` puts listed bot ``perm[s]`` in
    seat ``s``. "fixed" is the identity alone.

    >>> arrangements(3, "rotate")
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    """
    if seats == "fixed":
        return [tuple(range(players))]
    if seats == "rotate":
        return [tuple((s + k) % players for s in range(players)) for k in range(players)]
    if seats == "permute":
        if players > MAX_PERMUTE:
            raise ValueError(f"seats 'permute' plays every deal {players}! times; at most "
                             f"{MAX_PERMUTE} players (use seats 'rotate')")
        return list(itertools.permutations(range(players)))
    raise ValueError(f"seats must be one of {', '.join(SEATS)}, got {seats!r}")
