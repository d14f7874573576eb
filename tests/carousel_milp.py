"""An integer program for Carousel's best play (HiGHS through ``scipy.optimize.milp``).

An independent oracle for the core (tests/test_carousel_milp.py) and the peer it is
timed against on big tables (bench/big_tables.py). Written from RULES-carousel.md
sections 2 and 4 alone, sharing no code with the solver but the parsing of a position.

The model (after van Rijn, Takes and Vis, "The complexity of Rummikub problems", 2015,
with Carousel's joker rules): every meld *template* (a set: a rank and 3 or 4 suits; a
run: a suit and a span of positions A 2 .. K [A]) has an integer count ``x``, and each
of its slots an integer count ``n`` of naturals in it (``n <= x``); the other ``x - n``
copies of the slot hold jokers, declared as the slot's card. For every card c the
naturals in c's slots are the table's c plus the hand's c played (``y_c <= hand``); the
joker slots are the table's jokers plus the hand's jokers played. Each meld holds a
natural (``sum n >= x``; with at most k jokers a meld, ``sum n >= (len - k) x``): copies
of one template can always share their naturals out that way, one per copy per slot.
A table joker declared d keeps its card unless replaced by a natural d on the table
after the play, so the slots of d hold at least ``D_d - (T_d + y_d)`` jokers. At least
one hand card is played. The objective is the core's: 256 x points placed + cards placed.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from rummy51.carousel import CarouselRules

VALMUL = 256


@lru_cache(maxsize=16)
def templates(ace_high: bool) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every meld template as the tuple of its slots' card codes."""
    out: list[tuple[int, ...]] = []
    for r in range(13):
        suits = range(4)
        for drop in range(4):
            out.append(tuple(s * 13 + r for s in suits if s != drop))
        out.append(tuple(s * 13 + r for s in suits))
    top = 14 if ace_high else 13
    for s in range(4):
        for start in range(1, top - 1):
            for end in range(start + 2, top + 1):
                out.append(tuple(s * 13 + (p - 1 if p <= 13 else 0) for p in range(start, end + 1)))
    return tuple(out)


def card_value(c: int, rules: CarouselRules) -> int:
    if c == 52:
        return rules.joker_value
    rank = c % 13 + 1
    return rules.ace_value if rank == 1 else (rules.face_value if rank > 10 else rank)


def milp_value(T, H, D, JT: int, JH: int, rules: CarouselRules, time_limit: float | None = None) -> int:
    """The best play's value (256 x points placed + cards placed; 0: no legal play) of
    a position given by counts: ``T[c]`` table naturals, ``H[c]`` hand naturals,
    ``D[c]`` table jokers declared as c, ``JT`` table jokers, ``JH`` hand jokers."""
    avail = [T[c] + H[c] for c in range(52)]
    jokers = JT + JH
    # a meld holds a natural, and jokers fill at most ``per_meld`` of its slots: a template
    # with fewer slots whose card is here is never used; with no joker a run longer than
    # 5 is two shorter runs, so spans of 3-5 are enough
    per_meld = jokers if rules.max_jokers_per_meld is None else min(jokers, rules.max_jokers_per_meld)
    tpl = tuple(t for t in templates(rules.ace_high)
                if sum(1 for c in t if avail[c]) >= max(1, len(t) - per_meld)
                and (jokers or len(t) <= 5))
    M = len(tpl)
    if M == 0:
        return 0        # no meld can be made at all: no play
    # variable layout: x (M), n (slots), y (52), yJ (1)
    slot_of: list[tuple[int, int]] = [(m, c) for m, t in enumerate(tpl) for c in t]
    S = len(slot_of)
    nx, nn, ny = M, S, 52
    nv = nx + nn + ny + 1
    X0, N0, Y0, J = 0, nx, nx + nn, nx + nn + ny
    rows, cols, vals, lo, hi = [], [], [], [], []
    r = 0

    def row(entries, lo_, hi_):
        nonlocal r
        for col, v in entries:
            rows.append(r)
            cols.append(col)
            vals.append(v)
        lo.append(lo_)
        hi.append(hi_)
        r += 1

    by_card: list[list[int]] = [[] for _ in range(52)]
    for k, (m, c) in enumerate(slot_of):
        by_card[c].append(k)
        row([(N0 + k, 1.0), (X0 + m, -1.0)], -np.inf, 0.0)              # n <= x
    for c in range(52):                                                   # naturals
        row([(N0 + k, 1.0) for k in by_card[c]] + [(Y0 + c, -1.0)], T[c], T[c])
    # jokers: sum over templates (len x - sum n) - yJ = JT
    ent = [(X0 + m, float(len(t))) for m, t in enumerate(tpl)]
    ent += [(N0 + k, -1.0) for k in range(S)] + [(J, -1.0)]
    row(ent, JT, JT)
    for c in range(52):                                                   # kept table jokers
        if D[c] > 0:
            ent = [(X0 + slot_of[k][0], 1.0) for k in by_card[c]]
            ent += [(N0 + k, -1.0) for k in by_card[c]] + [(Y0 + c, 1.0)]
            row(ent, D[c] - T[c], np.inf)
    limit = rules.max_jokers_per_meld
    start = 0
    for m, t in enumerate(tpl):                                           # naturals a meld
        need = 1 if limit is None else max(1, len(t) - limit)
        row([(N0 + k, 1.0) for k in range(start, start + len(t))] + [(X0 + m, -float(need))],
            0.0, np.inf)
        start += len(t)
    row([(Y0 + c, 1.0) for c in range(52)] + [(J, 1.0)], 1.0, np.inf)     # play something
    A = coo_matrix((vals, (rows, cols)), shape=(r, nv)).tocsr()
    total = sum(T) + sum(H) + JT + JH
    ub = np.empty(nv)
    ub[X0:X0 + nx] = [min(total, rules.decks * len(t) + JT + JH) for t in tpl]
    ub[N0:N0 + nn] = [rules.decks for _ in range(S)]
    ub[Y0:Y0 + ny] = H
    ub[J] = JH
    cost = np.zeros(nv)
    cost[Y0:Y0 + ny] = [-(VALMUL * card_value(c, rules) + 1) for c in range(52)]
    cost[J] = -(VALMUL * rules.joker_value + 1)
    options = {"time_limit": time_limit} if time_limit else {}
    res = milp(cost, constraints=LinearConstraint(A, lo, hi), integrality=np.ones(nv),
               bounds=Bounds(np.zeros(nv), ub), options=options)
    if res.status == 4:
        # HiGHS's presolve sometimes ends an infeasible model (a hand card that fits no
        # meld of a full table) with "Solve error": the model again without it
        res = milp(cost, constraints=LinearConstraint(A, lo, hi), integrality=np.ones(nv),
                   bounds=Bounds(np.zeros(nv), ub), options={**options, "presolve": False})
    if res.status == 2:          # infeasible: no legal play
        return 0
    if res.status != 0:
        raise RuntimeError(f"HiGHS: {res.message}")
    return int(round(-res.fun))
