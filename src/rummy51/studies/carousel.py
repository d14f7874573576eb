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
``games()`` gives one row per (game, seat). Runs with ``seats`` "rotate" or "permute"
play every game once per seat arrangement (``rummy51.common.arrangements``: the same cards,
each bot with its own seed) and the records gain an ``arrangement`` column; ``ratings``
(Bradley-Terry, from ``rummy51.ratings`` as for Rummy 51) and ``paired`` (two bots game
by game) read the games' results (``rating_records``). ``histories=True`` writes every
game's history (``GameState.to_json``) into the run directory; ``read_histories`` reads
them back and ``GameState.from_dict`` replays one.

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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._checks import MAX_COUNT, MAX_GAME_CHUNK, int_arg
from ..carousel.bots import BOTS, make_bot, parse_bot
from ..carousel.engine import GameState
from ..carousel.rules import CarouselRules
from ..common.seats import SEATS, arrangements
from ..stats import Z95, proportion
from . import _carousel_plan
from ._carousel_plan import (
    DEFAULTS,
    ENDS,
    KIND,
    Settings,
    parse_bots,
    play_recorded,
    uses_kernel,
)
from ._common import PathLike
from ._runner import (
    ChunkStudy,
    RecordsPlan,
    default_command,
    execute,
    game_seeds,
    histories_arg,
    length_stats,
    mean_se,
    rate,
    read_run_histories,
    run_args,
    start,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CarouselStudy", "simulate_carousel", "read_histories", "KIND", "ENDS", "DEFAULTS",
           "SEATS"]

#: The columns that identify a play: a game under one seat arrangement.
_PLAY = ["game", "arrangement"]


# --------------------------------------------------------------------------- tables
def _group(g: pd.DataFrame, games: pd.DataFrame) -> dict:
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
    seats: str = "fixed"

    _plan: ClassVar[RecordsPlan] = _carousel_plan

    def _settings(self) -> Settings:
        return Settings(players=self.players, bots=tuple(self.bots), games=self.games_total,
                        chunk_size=self.chunk_size, rules=self.rules, entropy=self.entropy,
                        spawn_key=tuple(self.spawn_key), seats=self.seats)

    @property
    def arrangements(self) -> list[tuple[int, ...]]:
        """The seat arrangements every game is played under (``seats``): arrangement
        ``a`` seats listed bot ``perm[s]`` in seat ``s``."""
        return arrangements(self.players, self.seats)

    def _play_keys(self) -> list[str]:
        return _PLAY if "arrangement" in self.records else ["game"]

    @property
    def rounds(self) -> int:
        """Rounds played (over every arrangement)."""
        return len(self.records) // self.players

    @property
    def plays(self) -> int:
        """Games played, each arrangement of a game counted (``games_done`` times the
        arrangements)."""
        return int(self.records["last_round"].sum()) // self.players

    @property
    def games_done(self) -> int:
        """Games (deals of cards) played, each under every arrangement."""
        return self.plays // len(self.arrangements)

    @property
    def turns(self) -> int:
        r = self.records
        return int(r["round_length"][r["seat"] == 0].sum())

    def games(self) -> pd.DataFrame:
        """One row per (game, seat) (per (game, arrangement, seat) when the seats move):
        ``game``, [``arrangement``], ``seat``, ``bot``, ``rounds``, ``total`` (before the
        bonuses), ``final``, ``rounds_won`` and ``won_game``."""
        r = self.records
        keys = self._play_keys()
        last = r[r["last_round"]].sort_values(keys + ["seat"], kind="stable")
        won = r.groupby(keys + ["seat"], observed=True, sort=True)["won"].sum().to_numpy()
        out = last[keys + ["seat", "bot", "total", "final", "won_game"]].reset_index(drop=True)
        out.insert(len(keys) + 2, "rounds", (last["round"].to_numpy(np.int64) + 1))
        out["rounds_won"] = won
        return out

    def replay(self, game: int, arrangement: int = 0) -> GameState:
        """Play game ``game`` (under seat ``arrangement``) again from its seeds with fresh
        bots; the finished ``GameState`` (its ``to_json()`` is the game's history)."""
        game = int_arg("game", game, 0, self.games_total - 1)
        perm = self.arrangements[int_arg("arrangement", arrangement, 0,
                                         len(self.arrangements) - 1)]
        chunk, j = divmod(game, self.chunk_size)
        game_ss, bot_ss = game_seeds(self.entropy, self.spawn_key, chunk, j, self.players)
        bots = [make_bot(self.bots[k], bot_ss[k]) for k in perm]
        return play_recorded(bots, self.rules, game_ss)[0]

    # ------------------------------------------------------------------ ratings
    def rating_records(self) -> pd.DataFrame:
        """The games' results as ``rummy51.ratings`` reads them: one row per (game,
        [arrangement], seat) with ``deal`` (the game: the independent unit), ``bot``,
        ``score`` (the final score, bonuses included: higher is better), ``went_out``
        (won the game alone) and ``draw`` (the game ended in a shared win)."""
        g = self.games()
        keys = self._play_keys()
        winners = g.groupby(keys, observed=True)["won_game"].transform("sum").to_numpy()
        out = g.rename(columns={"game": "deal"})[
            [k if k != "game" else "deal" for k in keys] + ["seat", "bot"]].copy()
        out["score"] = g["final"].to_numpy(np.int64)
        out["went_out"] = g["won_game"].to_numpy(bool) & (winners == 1)
        out["draw"] = winners != 1
        return out

    def ratings(self, method: str = "bradley-terry", **kw: Any) -> pd.DataFrame:
        """The bots' ratings from the games' winners (``rating_records``):
        ``"bradley-terry"`` (Elo scale, bootstrap intervals over games) or
        ``"plackett-luce"`` (OpenSkill, needs ``pip install ".[ratings]"``; it ranks by score, so
        the final scores are negated: higher is better in Carousel)."""
        from ..ratings import bradley_terry, plackett_luce

        rec = self.rating_records()
        if method == "bradley-terry":
            return bradley_terry(rec, **kw)
        if method == "plackett-luce":
            return plackett_luce(rec.assign(score=-rec["score"]), **kw)
        raise ValueError(f"method must be 'bradley-terry' or 'plackett-luce', got {method!r}")

    def paired(self, a: str, b: str) -> pd.DataFrame:
        """Bot ``a`` against bot ``b`` game by game (``rummy51.ratings.paired_comparison``
        of ``rating_records``): the mean differences of final score (higher is better)
        and of the win rate (sole wins), with intervals. Fair when the seats move
        (``seats`` "rotate" or "permute")."""
        from ..ratings import paired_comparison

        return paired_comparison(self.rating_records(), a, b)

    # ------------------------------------------------------------------ tables
    def summary(self, by: str | None = None) -> pd.DataFrame:
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
                # seats that move hold every bot in turn
                rows.append({"seat": s, "bot": name if self.seats == "fixed" else "(all)",
                             **_group(r[r["seat"] == s], g[g["seat"] == s])})
        elif by == "position":
            keys = self._play_keys() + ["seat"]
            first = r[r["round"] == 0][keys + ["position"]]
            gp = g.merge(first, on=keys)
            for q in range(self.players):
                rows.append({"position": q, **_group(r[r["position"] == q], gp[gp["position"] == q])})
        else:
            raise ValueError(f"by must be 'bot', 'seat', 'position' or None, got {by!r}")
        return pd.DataFrame(rows)

    def overview(self) -> pd.DataFrame:
        """One row: ``games``, ``rounds``, ``rounds_per_game`` (± SE); how rounds end
        (``knock_rate``, ``out_rate``, ``stock_rate`` with intervals); ``undercut_rate``
        (per round with a knocker); ``mean_round_length`` (turns, ± SE), median, 90th
        percentile; ``turns``."""
        import pandas as pd

        r = self.records
        d = r[r["seat"] == 0]
        n = len(d)
        row: dict[str, Any] = {"games": self.games_done, "plays": self.plays, "rounds": n,
                               "players": self.players}
        per_game = d.groupby(self._play_keys())["round"].max().to_numpy(np.float64) + 1
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

    def knock_possible(self, t_max: int = 12, by: str = "position") -> pd.DataFrame:
        """P(knock possible by own turn t) per ``by`` ``"position"`` (0 = the dealer's
        left), ``"seat"`` or ``"bot"``: the share of player-rounds in which the hand
        counted ``knock_limit`` or fewer at the end of one of the player's first ``t``
        turns, as the rounds were played (a round that ended sooner counts as "not by
        t"), with Wilson intervals. Columns ``by``'s, ``t``, ``n``, ``k``, ``p``,
        ``p_lo``, ``p_hi``."""
        import pandas as pd

        t_max = int_arg("t_max", t_max, 1, 10_000)
        r = self.records
        kt = r["knock_turn"].astype("Int64").fillna(0).to_numpy(np.int64)
        if by in ("position", "seat"):
            key = r[by].to_numpy(np.int64)
            groups: list = list(range(self.players))
        elif by == "bot":
            key = r["bot"].astype(str).to_numpy()
            groups = list(dict.fromkeys(self.bots))
        else:
            raise ValueError(f"by must be 'position', 'seat' or 'bot', got {by!r}")
        rows = []
        for q in groups:
            sel = kt[key == q]
            n = len(sel)
            for t in range(1, t_max + 1):
                k = int(((sel >= 1) & (sel <= t)).sum())
                p, lo, hi = proportion(k, n)
                rows.append({by: q, "t": t, "n": n, "k": k, "p": float(p),
                             "p_lo": float(lo), "p_hi": float(hi)})
        return pd.DataFrame(rows)

    def score_distribution(self, what: str = "round") -> pd.DataFrame:
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
            for v, c in zip(vals, counts, strict=True):
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
            "complete": self.complete, "games_done": self.games_done, "plays": self.plays,
            "seats": self.seats, "rounds": self.rounds,
            "turns": self.turns,
            "elapsed_s": round(self.elapsed, 3) if fin(self.elapsed) else None,
            "compute_s": round(self.compute_seconds, 3) if fin(self.compute_seconds) else None,
            "rounds_per_s_per_worker": round(self.rounds / self.compute_seconds, 2)
            if fin(self.compute_seconds) and self.compute_seconds > 0 else None,
            "workers": self.workers, "backend": self.backend, "z": Z95,
        }

    @classmethod
    def _make(cls, settings: Settings, records: pd.DataFrame, **kw: Any) -> CarouselStudy:
        return cls(records=records, players=settings.players, bots=settings.bots,
                   games_total=settings.games, rules=settings.rules, entropy=settings.entropy,
                   spawn_key=settings.spawn_key, chunk_size=settings.chunk_size,
                   seats=settings.seats, **kw)

    def to_dict(self) -> dict:
        """``meta``, ``overview``, ``summary`` (all groups) and, with two bots or more,
        ``ratings`` (Bradley-Terry) and ``paired`` (every pair of bots, game by game)."""
        import itertools

        import pandas as pd

        from ._common import json_records

        d = super().to_dict()
        names = list(dict.fromkeys(self.bots))
        if len(names) > 1 and self.games_done > 1:
            d["ratings"] = json_records(self.ratings(bootstrap=100))
            d["paired"] = json_records(pd.concat(
                [self.paired(a, b) for a, b in itertools.combinations(names, 2)],
                ignore_index=True))
        return d


def read_histories(path: PathLike, chunks: Sequence[int] | None = None) -> Iterator[dict]:
    """The game histories of a Carousel run directory written with ``histories=True``
    (``--histories``): an iterator of dicts, one per play, in the order of the records
    (chunk by chunk; within a chunk arrangement by arrangement, game by game). Each is
    ``GameState.to_json()``'s object: ``rummy51.carousel.engine.GameState.from_dict(h)``
    replays it on its recorded decks and checks its recorded result. ``chunks``: only
    these chunk indices. A missing or damaged file raises ``ValueError`` naming it."""
    return read_run_histories(_carousel_plan, path, chunks)


# --------------------------------------------------------------------------- the run
def simulate_carousel(
    players: int | None = None, bots: Any = None, games: int | None = None,
    rules: CarouselRules | None = None, seed: Any = None, workers: int | None = None,
    chunk_size: int | None = None, out: PathLike | None = None, resume: PathLike | None = None,
    progress: bool | None = None,
    *,
    backend: str = "local",
    scheduler: Any = None,
    chunk_format: str | None = None,
    on_chunk: Callable[[int, int, int], None] | None = None,
    command: str | None = None,
    engine: str = "auto",
    seats: str | None = None,
    histories: bool | None = None,
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
    * ``seats`` ("fixed"): "rotate" plays every game once per cyclic shift of the bots
      over the seats (each bot in each seat once), "permute" once per permutation
      (every order around the table; at most 5 players): the same cards, each bot with
      its own seed, so that the luck of the cards and of a seat cancels in ``paired``.
      The records gain an ``arrangement`` column. A setting of the run.
    * ``histories`` (None: False for a new run): also write every play's history (``GameState.to_json``)
      into the run directory, ``histories/chunk-NNNNNN.jsonl.gz`` (JSON Lines, gzip), read
      back by ``read_histories``. The games are then played by the Python engine (every
      move checked), at its speed; the records are the same, and ``engine="c"`` is
      refused. Needs ``out``. Fixed when the run starts: each history file is
      checksummed in its chunk file, so a resume verifies them (a damaged or missing
      one is played again), and a resume asking for the other value is refused (None,
      the default: the run's own value).
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
        "rules": rules, "players": None, "bots": None, "seats": seats,
    }
    if bots is not None or players is not None:
        given["bots"], given["players"] = parse_bots(bots, players)

    def new_settings(entropy: int | list[int], spawn_key: tuple[int, ...]) -> Settings:
        if given["bots"] is None:
            given["bots"], given["players"] = parse_bots(None, None)
        n = given["players"]
        table_rules = (CarouselRules.for_players(n) if rules is None
                       else rules if rules.players == n else dataclasses.replace(rules, players=n))
        return Settings(players=n, bots=given["bots"],
                        games=DEFAULTS["games"] if given["games"] is None else given["games"],
                        chunk_size=DEFAULTS["chunk_size"] if given["chunk_size"] is None
                        else given["chunk_size"],
                        rules=table_rules, entropy=entropy, spawn_key=spawn_key,
                        seats="fixed" if seats is None else seats)

    if seats is not None and seats not in SEATS:
        raise ValueError(f"seats must be one of {', '.join(SEATS)}, got {seats!r}")
    run, settings = start(_carousel_plan, args, given, new_settings)
    _ = settings.arrangements   # too many players to permute fails before any work
    for b in settings.bots:     # a bot that plays only some tables (ppo) says so now
        check = getattr(BOTS.get(parse_bot(b)[0]), "check_table", None)
        if check is not None:
            check(settings.rules, settings.players)
    histories = histories_arg(histories, run, args, engine)
    in_c = uses_kernel(settings.bots, settings.rules, engine) and not histories
    if command is None:
        command = default_command("simulate_carousel", players=players, bots=bots, games=games,
                                  seed=seed, seats=seats)
    return execute(_carousel_plan, CarouselStudy, settings, run, args, command=command, in_c=in_c,
                   spec_extra={"engine": engine, **({"histories": True} if histories else {})},
                   manifest_extra={"histories": True} if histories else None)
