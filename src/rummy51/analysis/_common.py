"""The game-independent part of the analysis: results, their JSON form, the tables."""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..stats import wilson

__all__ = ["Candidate", "Decision", "GameAnalysis", "BlunderRow", "blunder_table",
           "format_analysis", "format_decision", "candidate_from_sums"]


@dataclass(frozen=True)
class Candidate:
    """One candidate move and what its rollouts gave.

    ``move``: the move, written as the game's play command reads it; ``equity``: the
    mean margin of its rollouts (the search bot's margin); ``se``: the standard error of
    that mean; ``win``: the share of rollouts the player won (the deal or round), with
    its 95 % Wilson interval ``win_lo``, ``win_hi``; ``rollouts``: how many.
    """

    move: str
    equity: float
    se: float
    win: float
    win_lo: float
    win_hi: float
    rollouts: int

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move, "equity": self.equity, "se": self.se, "win": self.win,
                "win_lo": self.win_lo, "win_hi": self.win_hi, "rollouts": self.rollouts}


def candidate_from_sums(move: str, n: int, total: float, total_sq: float, wins: int) -> Candidate:
    """A :class:`Candidate` from its rollouts' count, sum and sum of squares of margins,
    and wins (``n`` >= 1; one rollout has no standard error: NaN)."""
    if n < 1:
        raise ValueError(f"{move}: no rollouts")
    mean = total / n
    if n > 1:
        var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
        se = math.sqrt(var / n)
    else:
        se = math.nan
    lo, hi = wilson(wins, n)
    return Candidate(move, float(mean), float(se), wins / n, float(lo), float(hi), int(n))


@dataclass(frozen=True)
class Decision:
    """One decision: who made it, the move played (None for a hint: a position with no
    move made) and the candidates, best equity first; the played move is always one of
    them, written the same way."""

    index: int
    player: int
    played: str | None
    candidates: tuple[Candidate, ...]
    kind: str = ""
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.candidates:
            raise ValueError(f"decision {self.index}: no candidates")
        ordered = tuple(sorted(self.candidates, key=lambda c: -c.equity))
        object.__setattr__(self, "candidates", ordered)
        if self.played is not None and self.played not in {c.move for c in ordered}:
            raise ValueError(f"decision {self.index}: the played move {self.played!r} is not "
                             f"among the candidates")

    @property
    def best(self) -> Candidate:
        return self.candidates[0]

    @property
    def played_candidate(self) -> Candidate | None:
        for c in self.candidates:
            if c.move == self.played:
                return c
        return None

    @property
    def loss(self) -> float | None:
        """Best equity less the played move's (0 when it was the best); None for a hint."""
        p = self.played_candidate
        if p is None:
            return None
        return max(0.0, self.best.equity - p.equity)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"index": self.index, "player": self.player, "played": self.played,
                             "candidates": [c.to_dict() for c in self.candidates],
                             "loss": self.loss}
        if self.kind:
            d["kind"] = self.kind
        if self.info:
            d["info"] = dict(self.info)
        return d


@dataclass(frozen=True)
class GameAnalysis:
    """A whole game's (or one decision's) analysis: ``game`` says what was analysed
    (the game, the rules, the players, the budget and seed), ``decisions`` the
    decisions in order."""

    game: Mapping[str, Any]
    decisions: tuple[Decision, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"game": dict(self.game), "decisions": [d.to_dict() for d in self.decisions]}


def _num(x: float, digits: int = 2) -> str:
    return "nan" if math.isnan(x) else f"{x:+.{digits}f}"


def format_decision(d: Decision, names: Sequence[str] | None = None) -> str:
    """The terminal table of one decision: best first, the played move marked ``*``."""
    who = names[d.player] if names is not None and 0 <= d.player < len(names) else f"player {d.player}"
    head = f"decision {d.index} ({who}{', ' + d.kind if d.kind else ''})"
    if d.loss is not None:
        head += f": played {d.played}, loss {d.loss:.2f}"
    width = max(4, max(len(c.move) for c in d.candidates))
    lines = [head, f"     {'move':<{width}}  {'equity':>8}  {'se':>6}  {'win %':>6}  "
                   f"{'95 % interval':>15}  {'n':>6}"]
    for rank, c in enumerate(d.candidates, 1):
        mark = "*" if c.move == d.played else " "
        lines.append(f"{mark}{rank:>3} {c.move:<{width}}  {_num(c.equity):>8}  {c.se:>6.2f}  "
                     f"{100 * c.win:>6.1f}  [{100 * c.win_lo:5.1f}, {100 * c.win_hi:5.1f}]  "
                     f"{c.rollouts:>6}")
    return "\n".join(lines)


def format_analysis(a: GameAnalysis, names: Sequence[str] | None = None) -> str:
    """Every decision's table, then the total loss of each player."""
    parts = [format_decision(d, names) for d in a.decisions]
    losses: dict[int, list[float]] = {}
    for d in a.decisions:
        if d.loss is not None:
            losses.setdefault(d.player, []).append(d.loss)
    if losses:
        parts.append("loss per decision: " + ", ".join(
            f"{names[p] if names is not None and p < len(names) else f'player {p}'} "
            f"{sum(v) / len(v):.2f} over {len(v)}" for p, v in sorted(losses.items())))
    return "\n\n".join(parts)


@dataclass(frozen=True)
class BlunderRow:
    """A player's (bot's) analysed decisions: how many, their mean loss with its
    standard error, the share with a loss above ``threshold``, and the worst ones as
    ``(game index, decision)`` pairs, worst first."""

    name: str
    decisions: int
    mean_loss: float
    se: float
    share_over: float
    threshold: float
    worst: tuple[tuple[int, Decision], ...]


def blunder_table(games: Iterable[tuple[GameAnalysis, Sequence[str]]], worst: int = 5,
                  threshold: float = 1.0) -> list[BlunderRow]:
    """Per player name (a bot seated in several games counts once), from analysed games
    with the names of their seats: the mean loss per decision, its standard error, the
    share of decisions losing more than ``threshold`` and the ``worst`` worst decisions.
    Rows sorted by mean loss, largest first."""
    per: dict[str, list[tuple[int, Decision]]] = {}
    for gi, (a, names) in enumerate(games):
        for d in a.decisions:
            if d.loss is None:
                continue
            name = names[d.player] if d.player < len(names) else f"player {d.player}"
            per.setdefault(name, []).append((gi, d))
    rows = []
    for name, ds in per.items():
        losses = [float(d.loss or 0.0) for _, d in ds]
        n = len(losses)
        mean = sum(losses) / n
        se = math.sqrt(sum((x - mean) ** 2 for x in losses) / (n - 1) / n) if n > 1 else math.nan
        over = sum(1 for x in losses if x > threshold) / n
        top = tuple(sorted(ds, key=lambda t: -(t[1].loss or 0.0))[:worst])
        rows.append(BlunderRow(name, n, mean, se, over, threshold, top))
    rows.sort(key=lambda r: -r.mean_loss)
    return rows
