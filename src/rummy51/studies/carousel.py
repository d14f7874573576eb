"""Batch simulations of Carousel games: bots against bots, one record per player and round.

``simulate_carousel(...) -> CarouselStudy`` plays ``games`` whole games (rounds to the
target score, docs/rules-carousel.md sections 3, 5, 6) of the Carousel engine
(``rummy51.carousel.engine``) between bots of ``rummy51.carousel.bots.BOTS``, one per
seat, and keeps one record per player and round. ``CarouselStudy`` turns them into
tables: round and game win rates by bot, seat and position (95 % Wilson intervals),
knock, going-out and undercut rates, round length, the chance that a knock is
possible by a player's t-th turn, and score distributions.

Records (``CarouselStudy.records``, a pandas DataFrame, one row per (game, round,
seat)): ``game``, ``round`` (0-based in the game), ``seat``, ``bot``, ``position`` (0 =
the dealer's left, who plays first), ``dealer``, ``score`` (the round's score),
``points`` (the count left in hand), ``won`` (won the round), ``knocked``,
``went_out``, ``undercut`` (knocked, or went out, and did not win), ``round_length``
(turns in the round), ``end`` (knock, out, stock), ``knock_turn`` (the player's own
turn, 1-based, at whose end their hand first counted ``knock_limit`` or fewer; NA:
never in the round), ``turns`` (the player's own turns in the round), ``total`` (the
running total after the round, before the game bonuses), ``last_round``, ``final``
(the final score with the bonuses, on the game's last round) and ``won_game``.
``games()`` gives one row per (game, seat).

Tables where every seat is ``"greedy"`` are played by the C greedy game kernel
(``engine="auto"``): the same games move for move as the Python engine with
``GreedyBot`` s, the same records (tests/test_carousel_kernel.py compares them game
by game); other tables by the Python engine.

Seeding is that of the Rummy 51 games study (``studies.games``): chunk ``i`` draws
from ``SeedSequence(entropy).spawn(n)[i]``; its ``j``-th game gets the child
``(j, 0)`` (the first dealer and every shuffle) and the bot in seat ``s`` the child
``(j, 1 + s)``. So the records never depend on the workers or the backend, and a
resumed run equals an uninterrupted one. Run directories as every study's (kind
``"carousel"``)::

    DIR/manifest.json   DIR/chunks/chunk-000012.parquet (or .csv)
    DIR/records.parquet (or .csv)  summary.csv  overview.csv  results.json   at the end

>>> st = simulate_carousel(players=2, bots="greedy", games=2, seed=1, workers=1,
...                        progress=False)
>>> int(st.games().won_game.sum()) >= 2, int(st.overview().games[0])
(True, 2)
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, ClassVar, Optional

import numpy as np

from .._checks import MAX_COUNT, MAX_GAME_CHUNK, int_arg
from ..carousel.bots import make_bot
from ..carousel.rules import CarouselRules
from ..stats import Z95, proportion
from . import _carousel_plan
from ._carousel_plan import (
    DEFAULTS,
    ENDS,
    KIND,
    Settings,
    game_seeds,
    parse_bots,
    play_recorded,
    uses_kernel,
)
from ._runner import (ChunkStudy, default_command, execute, length_stats, mean_se, rate, run_args,
                      start)

__all__ = ["CarouselStudy", "simulate_carousel", "KIND", "ENDS", "DEFAULTS"]


# --------------------------------------------------------------------------- tables
def _group(g, games) -> dict:
    n = len(g)
    out: dict[str, Any] = {"player_rounds": n}
    for name, col in (("round_win", "won"), ("knock", "knocked"), ("out", "went_out")):
        k = int(g[col].sum())
        out[f"{name}s"] = k
        out.update(rate(name, k, n))
    knocks = int(g["knocked"].sum() + g["went_out"].sum())
    cut = int(g["undercut"].sum())
    out["undercuts"] = cut
    out.update(rate("undercut", cut, knocks))
    m, se = mean_se(g["score"].to_numpy(np.float64))
    out.update(mean_score=m, mean_score_se=se)
    m, se = mean_se(g["points"].to_numpy(np.float64))
    out.update(mean_points=m, mean_points_se=se)
    gn = len(games)
    gw = int(games["won_game"].sum())
    out.update(player_games=gn, game_wins=gw, **rate("game_win", gw, gn))
    m, se = mean_se(games["final"].to_numpy(np.float64))
    out.update(mean_final=m, mean_final_se=se)
    return out


# --------------------------------------------------------------------------- the study
@dataclass(frozen=True, eq=False)
class CarouselStudy(ChunkStudy):
    """The records of a batch of Carousel games, and the tables computed from them.

    ``records``: one row per (game, round, seat) (module docstring). Tables (pandas
    DataFrames): ``summary(by)``, ``overview()``, ``knock_possible()``,
    ``score_distribution()``, ``games()``. Rates come with 95 % Wilson intervals
    (``_lo``/``_hi``), means with their standard errors (``_se``)."""

    games_total: int
    rules: CarouselRules
    chunk_size: int = DEFAULTS["chunk_size"]
    compute_seconds: float = float("nan")

    _plan: ClassVar[ModuleType] = _carousel_plan

    def _settings(self) -> Settings:
        return Settings(players=self.players, bots=tuple(self.bots), games=self.games_total,
                        chunk_size=self.chunk_size, rules=self.rules, entropy=self.entropy,
                        spawn_key=tuple(self.spawn_key))

    @property
    def rounds(self) -> int:
        """Rounds played."""
        return len(self.records) // self.players

    @property
    def games_done(self) -> int:
        return int(self.records["last_round"].sum()) // self.players

    @property
    def turns(self) -> int:
        r = self.records
        return int(r["round_length"][r["seat"] == 0].sum())

    def games(self):
        """One row per (game, seat): ``game``, ``seat``, ``bot``, ``rounds``, ``total``
        (before the bonuses), ``final``, ``rounds_won`` and ``won_game``."""
        r = self.records
        last = r[r["last_round"]]
        won = r.groupby(["game", "seat"], observed=True)["won"].sum().to_numpy()
        out = last[["game", "seat", "bot", "total", "final", "won_game"]].reset_index(drop=True)
        out.insert(3, "rounds", (last["round"].to_numpy(np.int64) + 1))
        out["rounds_won"] = won
        return out

    def replay(self, game: int):
        """Play game ``game`` again from its seeds with fresh bots; the finished
        ``GameState`` (its ``to_json()`` is the game's history)."""
        game = int_arg("game", game, 0, self.games_total - 1)
        chunk, j = divmod(game, self.chunk_size)
        game_ss, bot_ss = game_seeds(self.entropy, self.spawn_key, chunk, j, self.players)
        bots = [make_bot(b, ss) for b, ss in zip(self.bots, bot_ss)]
        return play_recorded(bots, self.rules, game_ss)[0]

    # ------------------------------------------------------------------ tables
    def summary(self, by: Optional[str] = None):
        """Per-player figures grouped ``by`` ``"bot"``, ``"seat"`` or ``"position"`` (0 =
        the dealer's left; game figures by position use the position in the game's
        first round); ``None``: all three with a ``group`` column.

        Columns: ``player_rounds``; ``round_wins``/``round_win_rate``, ``knocks``/
        ``knock_rate`` (voluntary knocks per player-round), ``outs``/``out_rate`` (went
        out), ``undercuts``/``undercut_rate`` (per knock or going out), each with its
        Wilson interval; ``mean_score`` (round score) and ``mean_points`` (count left)
        with standard errors; ``player_games``, ``game_wins``/``game_win_rate`` (tied
        winners all count) and ``mean_final``."""
        import pandas as pd

        if by is None:
            frames = [self.summary(b).assign(group=b) for b in ("bot", "seat", "position")]
            df = pd.concat(frames, ignore_index=True)
            for c in ("seat", "position"):
                df[c] = df[c].astype("Int64")
            front = ["group", "bot", "seat", "position"]
            return df[front + [c for c in df.columns if c not in front]]
        r = self.records
        g = self.games()
        rows = []
        if by == "bot":
            for name in dict.fromkeys(self.bots):
                rows.append({"bot": name, **_group(r[r["bot"] == name], g[g["bot"] == name])})
        elif by == "seat":
            for s, name in enumerate(self.bots):
                rows.append({"seat": s, "bot": name,
                             **_group(r[r["seat"] == s], g[g["seat"] == s])})
        elif by == "position":
            first = r[r["round"] == 0][["game", "seat", "position"]]
            gp = g.merge(first, on=["game", "seat"])
            for q in range(self.players):
                rows.append({"position": q, **_group(r[r["position"] == q], gp[gp["position"] == q])})
        else:
            raise ValueError(f"by must be 'bot', 'seat', 'position' or None, got {by!r}")
        return pd.DataFrame(rows)

    def overview(self):
        """One row: ``games``, ``rounds``, ``rounds_per_game`` (± SE); how rounds end
        (``knock_rate``, ``out_rate``, ``stock_rate`` with intervals); ``undercut_rate``
        (per round with a knocker); ``mean_round_length`` (turns, ± SE), median, 90th
        percentile; ``turns``."""
        import pandas as pd

        r = self.records
        d = r[r["seat"] == 0]
        n = len(d)
        row: dict[str, Any] = {"games": self.games_done, "rounds": n, "players": self.players}
        per_game = d.groupby("game")["round"].max().to_numpy(np.float64) + 1
        m, se = mean_se(per_game)
        row.update(rounds_per_game=m, rounds_per_game_se=se)
        ends = d["end"].astype(str).value_counts()
        for e in ENDS:
            k = int(ends.get(e, 0))
            row[f"{e}_rounds"] = k
            row.update(rate(e, k, n))
        knocked = int(ends.get("knock", 0) + ends.get("out", 0))
        cut = int(r["undercut"].sum())
        row["undercuts"] = cut
        row.update(rate("undercut", cut, knocked))
        row.update(length_stats("round", d["round_length"].to_numpy(np.float64)))
        return pd.DataFrame([row])

    def knock_possible(self, t_max: int = 12):
        """P(knock possible by own turn t) per position (0 = the dealer's left): the
        share of player-rounds in which the hand counted ``knock_limit`` or fewer at the
        end of one of the player's first ``t`` turns, as the rounds were played (a round
        that ended sooner counts as "not by t"), with Wilson intervals. Columns
        ``position``, ``t``, ``n``, ``k``, ``p``, ``p_lo``, ``p_hi``."""
        import pandas as pd

        r = self.records
        kt = r["knock_turn"].astype("Int64").fillna(0).to_numpy(np.int64)
        pos = r["position"].to_numpy(np.int64)
        rows = []
        for q in range(self.players):
            sel = kt[pos == q]
            n = len(sel)
            for t in range(1, t_max + 1):
                k = int(((sel >= 1) & (sel <= t)).sum())
                p, lo, hi = proportion(k, n)
                rows.append({"position": q, "t": t, "n": n, "k": k, "p": float(p),
                             "p_lo": float(lo), "p_hi": float(hi)})
        return pd.DataFrame(rows)

    def score_distribution(self, what: str = "round"):
        """Histogram of scores by bot: ``what="round"`` the round scores of the rounds
        won, ``"final"`` the final game scores. Columns ``bot``, ``score``, ``count``,
        ``share``."""
        import pandas as pd

        if what == "round":
            r = self.records
            src = r[r["won"]][["bot", "score"]]
        elif what == "final":
            src = self.games()[["bot", "final"]].rename(columns={"final": "score"})
        else:
            raise ValueError(f"what must be 'round' or 'final', got {what!r}")
        rows = []
        for name in dict.fromkeys(self.bots):
            s = src[src["bot"] == name]["score"].to_numpy(np.int64)
            vals, counts = np.unique(s, return_counts=True)
            for v, c in zip(vals, counts):
                rows.append({"bot": name, "score": int(v), "count": int(c),
                             "share": float(c / len(s))})
        return pd.DataFrame(rows, columns=["bot", "score", "count", "share"])

    # ------------------------------------------------------------------ persistence
    def meta(self) -> dict:
        s = self._settings()
        fin = np.isfinite
        return {
            "kind": KIND, "settings": s.to_json(), "config_hash": s.config_hash,
            "seed": {"entropy": self.entropy, "spawn_key": list(self.spawn_key)},
            "chunks": {"total": self.chunks, "done_count": self.chunks_done},
            "complete": self.complete, "games_done": self.games_done, "rounds": self.rounds,
            "turns": self.turns,
            "elapsed_s": round(self.elapsed, 3) if fin(self.elapsed) else None,
            "compute_s": round(self.compute_seconds, 3) if fin(self.compute_seconds) else None,
            "rounds_per_s_per_worker": round(self.rounds / self.compute_seconds, 2)
            if fin(self.compute_seconds) and self.compute_seconds > 0 else None,
            "workers": self.workers, "backend": self.backend, "z": Z95,
        }

    @classmethod
    def _make(cls, settings: Settings, records, **kw) -> "CarouselStudy":
        return cls(records=records, players=settings.players, bots=settings.bots,
                   games_total=settings.games, rules=settings.rules, entropy=settings.entropy,
                   spawn_key=settings.spawn_key, chunk_size=settings.chunk_size, **kw)


# --------------------------------------------------------------------------- the run
def simulate_carousel(
    players: Optional[int] = None, bots=None, games: Optional[int] = None,
    rules: Optional[CarouselRules] = None, seed=None, workers: Optional[int] = None,
    chunk_size: Optional[int] = None, out=None, resume=None, progress: Optional[bool] = None,
    *,
    backend: str = "local",
    scheduler=None,
    chunk_format: Optional[str] = None,
    on_chunk: Optional[Callable[[int, int, int], None]] = None,
    command: Optional[str] = None,
    engine: str = "auto",
) -> CarouselStudy:
    """Play ``games`` whole Carousel games between bots and record every player's rounds.

    Parameters (``None``: the default, or the run directory's value on resume):

    * ``players`` (4; 2..6) and ``bots`` (greedy in every seat): one name of
      ``rummy51.carousel.bots.BOTS`` per seat, or one for every seat.
    * ``games`` (1,000): whole games (rounds to ``rules.target_score``).
    * ``rules``: a ``CarouselRules`` (default ``CarouselRules.for_players(players)``:
      one deck and a joker for 2 players, two decks and two jokers for more).
    * ``seed``, ``workers`` (all cores: worker processes, or Dask workers),
      ``chunk_size`` (50 games; it fixes the seeds, so it is a setting), ``out`` (a new
      run directory), ``resume`` (an existing one), ``progress``, ``backend`` ("local"
      or "dask", ``scheduler``), ``chunk_format``, ``on_chunk``, ``command``: as
      ``simulate_games``.
    * ``engine``: "auto" (default) plays tables where every seat is greedy with the C
      game kernel (``_carousel.play_greedy_game``: the same games, move for move, as the
      Python engine with ``GreedyBot`` s) and other tables with the Python engine;
      "python" always uses the Python engine; "c" insists on the kernel (a ValueError
      for a table it cannot play). The records do not depend on it, so it is not a
      setting of the run.
    """
    t_start = time.perf_counter()
    args = run_args(seed=seed, workers=workers, out=out, resume=resume, chunk_format=chunk_format,
                    progress=progress, backend=backend, scheduler=scheduler, on_chunk=on_chunk,
                    t_start=t_start)
    if rules is not None and not isinstance(rules, CarouselRules):
        raise TypeError(f"rules must be a CarouselRules, got {type(rules).__name__}")
    given: dict[str, Any] = {
        "games": None if games is None else int_arg("games", games, 1, MAX_COUNT),
        "chunk_size": None if chunk_size is None else int_arg("chunk_size", chunk_size, 1,
                                                              MAX_GAME_CHUNK),
        "rules": rules, "players": None, "bots": None,
    }
    if bots is not None or players is not None:
        given["bots"], given["players"] = parse_bots(bots, players)

    def new_settings(entropy, spawn_key) -> Settings:
        if given["bots"] is None:
            given["bots"], given["players"] = parse_bots(None, None)
        n = given["players"]
        table_rules = (CarouselRules.for_players(n) if rules is None
                       else rules if rules.players == n else dataclasses.replace(rules, players=n))
        return Settings(players=n, bots=given["bots"],
                        games=DEFAULTS["games"] if given["games"] is None else given["games"],
                        chunk_size=DEFAULTS["chunk_size"] if given["chunk_size"] is None
                        else given["chunk_size"],
                        rules=table_rules, entropy=entropy, spawn_key=spawn_key)

    run, settings = start(_carousel_plan, args, given, new_settings)
    in_c = uses_kernel(settings.bots, settings.rules, engine)
    if command is None:
        command = default_command("simulate_carousel", players=players, bots=bots, games=games,
                                  seed=seed)
    return execute(_carousel_plan, CarouselStudy, settings, run, args, command=command, in_c=in_c,
                   spec_extra={"engine": engine})
