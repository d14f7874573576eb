"""The game-independent part of the analysis: results, their JSON form, the tables; the
budget and seed of an analysis (``budget``, ``fresh_seed``, ``seed_of``), the one reader
of hand histories (``read_histories``), the run of a game's decisions on threads with a
progress bar (``run_decisions``) and the old positional arguments (``keyword_only``)."""
from __future__ import annotations

import functools
import inspect
import json
import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .. import runs
from .._checks import int_arg
from ..stats import wilson

__all__ = ["Candidate", "Decision", "GameAnalysis", "BlunderRow", "blunder_table",
           "format_analysis", "format_decision", "candidate_from_sums", "MAX_ROLLOUTS",
           "budget", "fresh_seed", "seed_of", "read_histories", "parse_histories",
           "one_history", "history_game", "run_decisions", "keyword_only", "deprecated_alias"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: The most rollouts per candidate of a decision, in either game (the kernels' bound).
MAX_ROLLOUTS = 100_000


# --------------------------------------------------------------------------- budget, seed
def budget(rollouts: Any, time: Any, default: int) -> tuple[int, float]:
    """``(rollouts, seconds)`` of an analysis' budget, checked (one line each):
    ``rollouts`` per candidate (None: ``default``, or ``MAX_ROLLOUTS`` as a cap when
    ``time`` is given), 1..``MAX_ROLLOUTS``; ``time`` seconds a decision (None: no
    limit, 0.0), a positive number."""
    seconds = 0.0
    if time is not None:
        if isinstance(time, (bool, np.bool_)) or not isinstance(time, Real):
            raise TypeError(f"time must be a number of seconds, got {time!r}")
        if not (float(time) > 0 and math.isfinite(float(time))):
            raise ValueError(f"time must be a positive number of seconds, got {time}")
        seconds = float(time)
    if rollouts is None:
        rollouts = MAX_ROLLOUTS if time is not None else default
    if isinstance(rollouts, (bool, np.bool_)) or not isinstance(rollouts, Integral):
        raise TypeError(f"rollouts must be an int, got {rollouts!r}")
    if not 1 <= int(rollouts) <= MAX_ROLLOUTS:
        raise ValueError(f"rollouts must be 1..{MAX_ROLLOUTS} (per candidate), got {rollouts}")
    return int(rollouts), seconds


def fresh_seed() -> int:
    """A fresh analysis seed (64 bits of OS entropy), to record and print."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


def seed_of(seed: Any) -> int:
    """The analysis seed as a whole number >= 0 (None: a ``fresh_seed()``, recorded)."""
    if seed is None:
        return fresh_seed()
    return int_arg("seed", seed, 0)


# --------------------------------------------------------------------------- hand histories
#: The run kinds of the games (``runs``' manifests), the game's name and the command that
#: analyses it: the reader says which one a run of another game needs.
_GAMES = {"games": ("Rummy 51", "rummy51 analyse"),
          "carousel": ("Carousel", "rummy51 carousel analyse")}
#: The ``format`` of each game's hand history and its run kind.
_FORMATS = {"rummy51/hand-history": "games", "rummy51/carousel-history": "carousel"}


def history_game(history: Mapping[str, Any]) -> str:
    """The run kind of a hand history (``"games"``: Rummy 51, ``"carousel"``) by its
    ``format`` (a history without one is Rummy 51's, as the first ones were)."""
    return _FORMATS.get(str(history.get("format", "rummy51/hand-history")), "games")


def read_histories(source: Any, kind: str | None = None) -> list[dict]:
    """The hand histories of ``source``, as dicts in order: a history dict, a state (its
    ``to_dict()``), JSON text of one history or JSON Lines (one a line), a path to such a
    file (gzip-compressed too), or a run directory made with histories (every chunk's
    file verified against its chunk file: a missing or damaged one is refused, naming
    it, so the plays keep their numbers). ``kind`` (``"games"``, ``"carousel"``): the
    game whose run directory is wanted (None: whichever the directory holds)."""
    if isinstance(source, Mapping):
        return [dict(source)]
    if hasattr(source, "to_dict") and not isinstance(source, (str, bytes, os.PathLike)):
        return [source.to_dict()]
    if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "{" not in source and source.strip()[:1] not in "[\""):
        p = Path(source)
        if p.is_dir():
            return _run_histories(p, kind)
        return parse_histories(runs.read_history_text(p), str(p))
    if isinstance(source, str):
        return parse_histories(source, "the history")
    raise TypeError(f"a hand history must be a dict, a GameState, JSON text or a path, got "
                    f"{type(source).__name__}")


def _run_histories(path: Path, kind: str | None) -> list[dict]:
    """The histories of a run directory, chunk by chunk, each file verified."""
    if kind is None:
        try:
            kind = str(json.loads((path / "manifest.json").read_text(encoding="utf-8"))["kind"])
        except (OSError, ValueError, KeyError, TypeError):
            kind = "games"      # the reader below names what is wrong
    try:
        files = runs.chunk_histories(path, kind)
    except ValueError as e:
        for other, (name, command) in _GAMES.items():
            if other != kind and f"'{other}' run" in str(e):
                this = _GAMES.get(kind, (kind, ""))[0]
                raise ValueError(f"{path} holds a {name} run, not a {this} one: analyse it "
                                 f"with {command} {path}") from None
        if "without histories" in str(e) or "has no manifest.json" in str(e):
            raise ValueError(f"{path} holds no hand histories (histories/chunk-*.jsonl.gz: "
                             "a run made with --histories)") from None
        raise
    out = []
    for i, lines in files:
        f = runs.histories_path(path, i)
        for n, line in enumerate(lines, 1):
            out.append(_history_object(runs.parse_line(line, f"{f} line {n}"), f"{f} line {n}"))
    return out


def _history_object(d: Any, where: str) -> dict:
    if not isinstance(d, dict):
        raise ValueError(f"{where} is not a hand history (a JSON object)")
    return d


def parse_histories(text: str, where: str = "the input") -> list[dict]:
    """The hand histories of a text: one JSON object, or JSON Lines, as dicts in order."""
    text = text.strip()
    if not text:
        raise ValueError(f"{where} holds no hand history")
    if len(text) > runs.MAX_HISTORY_TEXT:
        raise ValueError(f"{where} holds more than {runs.MAX_HISTORY_TEXT // 2**20} MiB of "
                         "history text: split it into smaller files")
    try:
        one = json.loads(text)
    except RecursionError:
        raise ValueError(f"{where} is not a hand history (JSON nested too deeply)") from None
    except ValueError:
        one = None
    if isinstance(one, dict):
        return [one]
    return [_history_object(runs.parse_line(line, f"{where} line {n}"), f"{where} line {n}")
            for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def one_history(history: Any) -> dict:
    """The one hand history ``history`` is (``read_histories``' sources); a source of
    several is a ``ValueError``."""
    games = read_histories(history)
    if len(games) != 1:
        raise ValueError(f"the source holds {len(games)} games, not one")
    return games[0]


# --------------------------------------------------------------------------- running
def run_decisions(items: Sequence[Any], workers: Any, work: Callable[[Any], Decision],
                  progress: Any, on_decision: Callable[[Decision], None] | None,
                  label: str = "analyse") -> list[Decision]:
    """``work(item)`` of every item on ``workers`` threads (the kernels release the
    GIL: the numbers do not depend on them), in the items' order; ``progress`` a bar on
    stderr (None: when stderr is a terminal; a callable ``progress(done, total)``, the
    old Carousel form, is deprecated; ``label`` names the bar); ``on_decision(d)`` as
    each finishes."""
    workers = int_arg("workers", workers, 1, 1024)
    call = None
    if callable(progress):
        warnings.warn("progress=callable(done, total) is deprecated: progress is a bool (a "
                      "bar on stderr); use on_decision(decision) for a callback",
                      DeprecationWarning, stacklevel=3)
        call, progress = progress, False
    bar = runs.Progress(progress, len(items), 0, label, unit=" decisions")
    out: dict[int, Decision] = {}

    def done(spec: dict, d: Decision) -> None:
        out[spec["index"]] = d
        bar.update(1)
        if call is not None:
            call(len(out), len(items))
        if on_decision is not None:
            on_decision(d)

    try:
        runs.run_threads([{"index": k, "n": 1, "item": t} for k, t in enumerate(items)],
                         workers, lambda spec: work(spec["item"]), done)
    finally:
        bar.close()
    return [out[k] for k in range(len(items))]


def keyword_only(*names: str) -> Callable[[_F], _F]:
    """Arguments ``names`` (in this order) that an old signature took by position and
    the new one takes by keyword only: still accepted by position for one release, with
    a ``DeprecationWarning``."""
    def deco(fn: _F) -> _F:
        params = inspect.signature(fn).parameters.values()
        n = sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))

        @functools.wraps(fn)
        def wrapper(*args: Any, **kw: Any) -> Any:
            if len(args) > n:
                extra = args[n:]
                if len(extra) > len(names):
                    raise TypeError(f"{fn.__name__}() takes at most {n + len(names)} "
                                    f"positional arguments ({len(args)} given)")
                given = names[:len(extra)]
                warnings.warn(f"{fn.__name__}(): pass {', '.join(given)} by keyword (by "
                              "position is deprecated)", DeprecationWarning, stacklevel=2)
                for k, v in zip(given, extra, strict=True):
                    if k in kw:
                        raise TypeError(f"{fn.__name__}() got multiple values for argument {k!r}")
                    kw[k] = v
                args = args[:n]
            return fn(*args, **kw)
        return wrapper  # type: ignore[return-value]
    return deco


def deprecated_alias(fn: _F, old: str, new: str) -> _F:
    """``fn`` under its old name ``old``: it warns (``DeprecationWarning``) that the name
    is ``new`` now, for one release."""
    @functools.wraps(fn)
    def alias(*args: Any, **kw: Any) -> Any:
        warnings.warn(f"{old} is deprecated: use {new} (the same function)",
                      DeprecationWarning, stacklevel=2)
        return fn(*args, **kw)
    alias.__name__ = alias.__qualname__ = old.rsplit(".", 1)[-1]
    alias.__doc__ = f"Deprecated: ``{new}`` (``{old}`` is kept for one release)."
    return alias  # type: ignore[return-value]


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
