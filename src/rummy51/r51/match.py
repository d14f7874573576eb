"""Matches of Rummy 51: a series of deals with running totals (docs/rules.md section 6)."""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..rules import RuleSet, rules_from_dict, rules_to_dict
from .actions import FORMAT_VERSION, MATCH_FORMAT
from .engine import GameState


# --------------------------------------------------------------------------- matches
class Match:
    """A series of deals (docs/rules.md 6): deal k's first player is ``(first + k) % players``
    (the deal passes to the next player), totals add up. The match ends after
    ``rules.match_deals`` deals, or once a total reaches ``rules.match_points``; with both
    None it is a single deal. Deal k is seeded by ``SeedSequence(entropy, spawn_key=(k,))``.

    An elimination match (``rules.match_elimination``): after each deal every player whose
    total is above the limit drops out, the next deals are dealt to the others only (``seats``
    maps a deal's seat to the match's), the deal still passing to the next player left, and
    the match ends when one player is left (``winner``); if the last ones drop out together,
    the lowest total among them wins. ``match_deals`` still caps the match: a winner's
    points are negative, so totals may fall and two strong players left can play on long.

    >>> from rummy51 import RuleSet
    >>> m = Match(RuleSet(match_deals=2), players=3, seed=1)
    >>> d = m.new_deal(); d.first
    0
    """

    def __init__(self, rules: RuleSet | None = None, players: int = 4, seed: Any = None,
                 first: int = 0) -> None:
        self.rules = RuleSet() if rules is None else rules
        self.n_players = int(players)
        self.first = int(first)
        if seed is None:
            seed = np.random.SeedSequence().entropy
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"a match seed must be a non-negative int or None, got {seed!r}")
        self.seed = int(seed)
        self.deals: list[GameState] = []
        self.totals = [0] * self.n_players
        #: the match's seats still playing, in seat order (all but the eliminated)
        self.active: list[int] = list(range(self.n_players))
        self._first_seat = self.first
        self._current: GameState | None = None
        self._seats: tuple[int, ...] = ()
        self._last_out: list[int] = []
        self._out_at: dict[int, int] = {}  # seat -> the deal count when it dropped out

    @property
    def over(self) -> bool:
        r = self.rules
        k = len(self.deals)
        if r.match_elimination is not None:
            return len(self.active) <= 1 or (r.match_deals is not None and k >= r.match_deals)
        if r.match_deals is None and r.match_points is None:
            return k >= 1
        if r.match_deals is not None and k >= r.match_deals:
            return True
        if r.match_points is not None and any(t >= r.match_points for t in self.totals):
            return True
        return False

    def deal_seed(self, k: int) -> np.random.SeedSequence:
        return np.random.SeedSequence(self.seed, spawn_key=(k,))

    def new_deal(self) -> GameState:
        """The next deal (play it, then ``record`` it)."""
        if self.over:
            raise ValueError("the match is over")
        if self._current is not None and not self._current.over:
            raise ValueError("the current deal is not over: finish and record it first")
        k = len(self.deals)
        if self.rules.match_elimination is None:
            self._seats = tuple(range(self.n_players))
            self._current = GameState.new(self.rules, self.n_players, seed=self.deal_seed(k),
                                          first=(self.first + k) % self.n_players)
            return self._current
        if k:
            # the deal passes to the next player still in the match
            seat = (self._first_seat + 1) % self.n_players
            while seat not in self.active:
                seat = (seat + 1) % self.n_players
            self._first_seat = seat
        self._seats = tuple(self.active)
        self._current = GameState.new(self.rules, len(self.active), seed=self.deal_seed(k),
                                      first=self.active.index(self._first_seat))
        return self._current

    @property
    def seats(self) -> tuple[int, ...]:
        """The match seat of each seat of the current deal (all seats but in an
        elimination match)."""
        return self._seats or tuple(self.active)

    @property
    def winner(self) -> int | None:
        """An elimination match's winner once it is over: the last player left (or the
        lowest total of the last ones out); otherwise the best total (None while running)."""
        if not self.over:
            return None
        if self.rules.match_elimination is not None and len(self.active) == 1:
            return self.active[0]
        pool = self.active or self._last_out
        return min(pool, key=lambda p: (self.totals[p], p))

    def record(self, state: GameState) -> None:
        """Add a finished deal's scores to the totals."""
        if not state.over:
            raise ValueError("record() takes a finished deal")
        if state is not self._current:
            raise ValueError("record() takes the deal new_deal() returned")
        self.deals.append(state)
        self._current = None
        seats = self._seats or tuple(range(self.n_players))
        for p, s in enumerate(state.scores()):
            self.totals[seats[p]] += s
        limit = self.rules.match_elimination
        if limit is not None:
            out = [p for p in self.active if self.totals[p] > limit]
            if out:
                self._last_out = out
                for p in out:
                    self._out_at[p] = len(self.deals)
                self.active = [p for p in self.active if p not in out]

    def standings(self) -> list[int]:
        """Seats from best (lowest total) to worst; in an elimination match the players
        left come first, then the others, the later out the better."""
        if self.rules.match_elimination is None:
            return sorted(range(self.n_players), key=lambda p: (self.totals[p], p))
        w = self.winner
        return sorted(range(self.n_players),
                      key=lambda p: (p != w, -self._out_at.get(p, len(self.deals) + 1),
                                     self.totals[p], p))

    def to_dict(self) -> dict:
        return {"format": MATCH_FORMAT, "version": FORMAT_VERSION,
                "rules": rules_to_dict(self.rules, full=True), "players": self.n_players,
                "first": self.first, "seed": self.seed, "totals": list(self.totals),
                "deals": [d.to_dict() for d in self.deals]}

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict) -> Match:
        if d.get("format") != MATCH_FORMAT:
            raise ValueError(f"not a rummy51 match (format {d.get('format')!r})")
        m = cls(rules_from_dict(d["rules"], strict=True), int(d["players"]), int(d["seed"]), int(d["first"]))
        for dd in d["deals"]:
            m._current = GameState.from_dict(dd)
            m._seats = tuple(m.active)
            m._first_seat = m._seats[m._current.first]
            m.record(m._current)
        if m.totals != list(d["totals"]):
            raise ValueError(f"match totals {d['totals']} differ from the replayed {m.totals}")
        return m

    @classmethod
    def from_json(cls, text: str) -> Match:
        return cls.from_dict(json.loads(text))
