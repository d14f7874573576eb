"""Pool the seat orders of a Carousel search-bot measurement
(bench/log/2026-12/README-to-2026-12-06.md, section "Carousel search bot").

``rummy51 carousel simulate`` has no seat permutation, so each seat order is its own
run on the same ``--seed`` (the same decks game by game: a game's decks come from its
own seed, not from the bots). This reads the run directories and prints the search
bot's game wins over all of them with the Wilson interval, and per seat order; with
two 2-player orders also the deal-paired view (each deal played both ways: the share of
deals the search bot won both times, once, never).

    python bench/log/2026-12/carousel_search_pairs.py RUN_DIR [RUN_DIR ...]
"""
from __future__ import annotations

import sys

import numpy as np

from rummy51.stats import wilson
from rummy51.studies.carousel import CarouselStudy


def _search_wins(st: CarouselStudy) -> tuple[np.ndarray, int]:
    """Per game, 1 if the search seat won it (tied winners all count); the seat."""
    seat = next(i for i, b in enumerate(st.bots) if b.partition(":")[0] == "search")
    g = st.games()
    g = g[g["seat"] == seat].sort_values("game")
    return g["won_game"].to_numpy(np.int64), seat


def main(paths: list[str]) -> None:
    wins = []
    for p in paths:
        st = CarouselStudy.load(p)
        w, seat = _search_wins(st)
        lo, hi = wilson(int(w.sum()), len(w))
        print(f"{p}: {', '.join(st.bots)}: search in seat {seat} won {w.sum()} of {len(w)} "
              f"games, {100 * w.mean():.1f}% [{100 * float(lo):.1f}, {100 * float(hi):.1f}]")
        wins.append(w)
    allw = np.concatenate(wins)
    lo, hi = wilson(int(allw.sum()), len(allw))
    print(f"all seat orders: {allw.sum()} of {len(allw)} games, {100 * allw.mean():.1f}% "
          f"[{100 * float(lo):.1f}, {100 * float(hi):.1f}] (95% Wilson)")
    if len(wins) == 2 and len(wins[0]) == len(wins[1]):
        both = wins[0] + wins[1]
        n = len(both)
        print(f"deal-paired ({n} deals, each both ways): won both {np.mean(both == 2):.1%}, "
              f"once {np.mean(both == 1):.1%}, never {np.mean(both == 0):.1%}")


if __name__ == "__main__":
    main(sys.argv[1:])
