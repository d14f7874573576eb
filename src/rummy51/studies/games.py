"""Batch simulations of complete deals: bots against bots, one record per player-deal.

``simulate_games(...) -> GameStudy`` plays ``games`` deals of the game engine
(``rummy51.r51.engine``) between bots from ``rummy51.r51.bots.BOTS``, one bot per seat, and
keeps one record per player and deal; ``GameStudy.summary()`` turns them into win
rates (by bot, by seat, by position in the turn order) with 95 % Wilson intervals,
mean scores with their standard errors, hand-win and opening rates, and
``GameStudy.overview()`` into deal-level figures (deal length, draws, wins by hand).

Choices (docs/games.md says more):

* **The first player rotates**: deal ``d`` (0-based, over the whole run) starts at
  seat ``d % players`` (``rotate_first=True``), so every bot is the first player
  (15 cards, no draw on turn 0) equally often and position effects can be read in
  ``summary(by="position")``. Bots keep their seats; ``rotate_first=False`` makes
  seat 0 start every deal.
* **A win** is going out (docs/rules.md 5.6-5.7): the player who discarded their last
  card. A deal that ends without anybody going out (``rules.max_turns`` reached:
  ``end="capped"``, or an empty stock that cannot be refilled: ``"stock_out"``) is a
  **draw**: no winner, ``draw`` is True in every row of the deal, and the scores are
  what the engine gives a draw (0 for everybody with ``rules.draw_scoring="zero"``).
  Draws count in every denominator: a win rate is wins per player-deal played.
* ``turn_opened`` is the player's own turn (1 = their first turn, the first
  player's discard-only turn 0 included) in which they opened: ``turn // players + 1``
  of the opening lay-down. ``deal_length`` is the number of turns played in the deal.

Records (``GameStudy.records``, a pandas DataFrame, one row per (deal, seat)):
``deal``, ``seat`` (0-based engine seat), ``bot``, ``position`` (0 = the first
player of the deal), ``first_player``, ``score`` (docs/rules.md 6, lower is better),
``opened``, ``turn_opened`` (nullable), ``went_out``, ``hand_win`` (went out by hand),
``bottom_card_win`` (by hand with the bottom card), ``deal_length``, ``draw``, ``end``
(how the deal ended: out, hand, hand_bottom, capped, stock_out).

Seeding. The run is cut into chunks of ``chunk_size`` deals. Chunk ``i`` draws
everything from ``SeedSequence(entropy).spawn(n_chunks)[i]`` (``rummy51.runs.chunk_seed``):
its ``j``-th deal is shuffled with that sequence's child ``(j, 0)`` and the bot in
seat ``s`` gets child ``(j, 1 + s)`` as its seed (bots whose constructor takes a
``seed``, like ``RandomBot``; a fresh bot is made for every deal). So the records
are the same for any number of worker processes or Dask workers, in any order, and
a resumed run equals an uninterrupted one; ``GameStudy.replay(deal)`` plays any one
deal again from its seeds.

Run directories (``out=`` / ``resume=``), as the opening study's::

    DIR/manifest.json                     kind "games", settings, seed, versions, command
    DIR/chunks/chunk-000012.parquet       one per finished chunk (or .csv), written atomically
    DIR/records.parquet (or .csv)  summary.csv  overview.csv  results.json   at the end

Tables where every seat is ``"greedy"`` are played by the C game kernel
(``rummy51.r51.fastgame``, ``engine="auto"``): the same deals move for move as the Python
engine with ``GreedyBot``s (tests compare them deal by deal), ~50x faster. Other tables
use the Python engine (GIL-bound), so the local backend runs chunks in worker
*processes*; ``backend="dask"`` sends them to Dask workers.

>>> study = simulate_games(games=8, bots=("greedy", "random"), seed=1, workers=1,
...                        progress=False)
>>> len(study.records), int(study.records.went_out.sum()) + int(study.overview().draws[0])
(16, 8)
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._checks import MAX_COUNT, MAX_GAME_CHUNK, int_arg, workers_or_threads
from ..common.seats import arrangements
from ..r51.bots import BOTS, play_deal
from ..r51.engine import GameState
from ..rules import RuleSet, rules_label
from ..runs.seeding import SeedLike
from ..stats import Z95
from . import _games_plan
from ._common import PathLike
from ._games_plan import (
    COLUMNS,
    ENDS,
    GAME_DEFAULTS,
    KIND,
    ChunkWarning,
    Settings,
    _check_players,
    bot_maker,
    check_cols,
    deal_seeds,
    parse_bots,
    read_manifest,  # noqa: F401  (cli.simulate reads a games run's manifest through the study)
    uses_kernel,
)
from ._runner import (
    ChunkStudy,
    RecordsPlan,
    default_command,
    execute,
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

__all__ = ["GameStudy", "simulate_games", "read_histories", "deal_seeds", "uses_kernel", "GAME_DEFAULTS",
           "ENDS", "COLUMNS", "ChunkWarning", "KIND"]

# --------------------------------------------------------------------------- tables
def _group_stats(g: pd.DataFrame) -> dict:
    n = len(g)
    wins = int(g["went_out"].sum())
    hand = int(g["hand_win"].sum())
    opened = int(g["opened"].sum())
    out: dict[str, Any] = {"player_deals": n, "wins": wins}
    out.update(rate("win", wins, n))
    out["hand_wins"] = hand
    out.update(rate("hand_win", hand, n))
    ms, se = mean_se(g["score"].to_numpy(np.float64))
    out.update(mean_score=ms, mean_score_se=se, opened=opened)
    out.update(rate("open", opened, n))
    to = g["turn_opened"].dropna().to_numpy(np.float64)
    mt, mtse = mean_se(to)
    out.update(mean_turn_opened=mt, mean_turn_opened_se=mtse)
    return out


# --------------------------------------------------------------------------- the study
@dataclass(frozen=True, eq=False)
class GameStudy(ChunkStudy):
    """The records of a batch of deals between bots, and the tables computed from them.

    ``records``: one row per (deal, seat), columns ``COLUMNS`` (module docstring).
    Tables (pandas DataFrames, computed on demand, never printed): ``summary(by)`` and
    ``overview()``. Rates come with 95 % Wilson intervals (``_lo``/``_hi``), means
    with their standard error (``_se``). A study loaded with ``partial=True`` may hold
    fewer deals than ``games`` (``complete`` is False).
    """

    games: int
    rules: RuleSet
    chunk_size: int = GAME_DEFAULTS["chunk_size"]
    rotate_first: bool = True
    compute_seconds: float = float("nan")
    seats: str = "fixed"

    _plan: ClassVar[RecordsPlan] = _games_plan

    # ------------------------------------------------------------------ basics
    @property
    def arrangements(self) -> list[tuple[int, ...]]:
        """The seat arrangements every deal is played under (``seats``): arrangement
        ``a`` seats listed bot ``perm[s]`` in seat ``s``."""
        return arrangements(self.players, self.seats)

    @property
    def deals_done(self) -> int:
        """Deals played (each under every arrangement)."""
        return len(self.records) // (self.players * len(self.arrangements))

    @property
    def turns(self) -> int:
        """Turns played over all deals."""
        r = self.records
        return int(r["deal_length"][r["seat"] == 0].sum())

    def _settings(self) -> Settings:
        return Settings(players=self.players, bots=tuple(self.bots), games=self.games,
                        chunk_size=self.chunk_size, rules=self.rules, entropy=self.entropy,
                        spawn_key=tuple(self.spawn_key), rotate_first=self.rotate_first,
                        seats=self.seats)

    def replay(self, deal: int, arrangement: int = 0) -> GameState:
        """Play deal ``deal`` (under seat ``arrangement``) again from its seeds with fresh
        bots; returns the finished state (its ``to_json()`` is the deal's hand history)."""
        deal = int_arg("deal", deal, 0, self.games - 1)
        perm = self.arrangements[int_arg("arrangement", arrangement, 0,
                                         len(self.arrangements) - 1)]
        chunk, j = divmod(deal, self.chunk_size)
        game_ss, bot_ss = deal_seeds(self.entropy, self.spawn_key, chunk, j, self.players)
        bots = [bot_maker(self.bots[k])(bot_ss[k]) for k in perm]
        first = deal % self.players if self.rotate_first else 0
        return play_deal(bots, self.rules, seed=game_ss, first=first)

    # ------------------------------------------------------------------ tables
    def summary(self, by: str | None = None) -> pd.DataFrame:
        """Per-player figures grouped ``by`` ``"bot"`` (seats with the same bot pooled),
        ``"seat"`` or ``"position"`` (0 = the first player of the deal); ``None`` gives
        all three, one after the other, with a ``group`` column.

        Columns: ``player_deals``; ``wins`` and ``win_rate`` (went out), ``hand_wins`` and
        ``hand_win_rate`` (went out by hand), ``opened`` and ``open_rate`` (opened before
        the deal ended), each with its Wilson interval (``win_lo``, ``win_hi``, ...);
        ``mean_score`` and ``mean_turn_opened`` (over the player-deals that opened) with
        standard errors. Draws count as deals without a win. Pooled seats (two greedy
        bots) are not independent within a deal (at most one wins), which makes their
        intervals slightly conservative."""
        import pandas as pd

        if by is None:
            frames = [self.summary(b).assign(group=b) for b in ("bot", "seat", "position")]
            df = pd.concat(frames, ignore_index=True)
            front = ["group", "bot", "seats", "seat", "position"]
            for c in ("seat", "position"):
                df[c] = df[c].astype("Int64")
            return df[front + [c for c in df.columns if c not in front]]
        r = self.records
        rows = []
        if by == "bot":
            for name in dict.fromkeys(self.bots):
                seats = [s for s, b in enumerate(self.bots) if b == name]
                row: dict[str, Any] = {"bot": name, "seats": ",".join(map(str, seats))}
                row.update(_group_stats(r[r["bot"] == name]))
                rows.append(row)
        elif by == "seat":
            for s, name in enumerate(self.bots):
                # seats that move hold every bot in turn
                row = {"seat": s, "bot": name if self.seats == "fixed" else "(all)"}
                row.update(_group_stats(r[r["seat"] == s]))
                rows.append(row)
        elif by == "position":
            for q in range(self.players):
                row = {"position": q}
                row.update(_group_stats(r[r["position"] == q]))
                rows.append(row)
        else:
            raise ValueError(f"by must be 'bot', 'seat', 'position' or None, got {by!r}")
        return pd.DataFrame(rows)

    def paired(self, a: str, b: str) -> pd.DataFrame:
        """Bot ``a`` against bot ``b`` deal by deal (``rummy51.ratings.
        paired_comparison``): the mean differences of score and win rate with intervals.
        Fair when the seats move (``seats`` "rotate" or "permute")."""
        from ..ratings import paired_comparison

        return paired_comparison(self.records, a, b)

    def ratings(self, method: str = "bradley-terry", **kw: Any) -> pd.DataFrame:
        """The bots' ratings: ``"bradley-terry"`` (Elo scale, bootstrap intervals) or
        ``"plackett-luce"`` (OpenSkill, needs ``rummy51[ratings]``)."""
        from ..ratings import bradley_terry, plackett_luce

        if method == "bradley-terry":
            return bradley_terry(self.records, **kw)
        if method == "plackett-luce":
            return plackett_luce(self.records, **kw)
        raise ValueError(f"method must be 'bradley-terry' or 'plackett-luce', got {method!r}")

    def overview(self) -> pd.DataFrame:
        """One row of deal-level figures: ``deals``; ``draws`` (capped + stock_out) and
        ``draw_rate``; ``hand_wins`` (deals won by hand) and ``bottom_card_wins`` with
        rates; ``mean_deal_length`` (turns) with its standard error, its median and
        90th percentile; ``turns`` in all."""
        import pandas as pd

        r = self.records
        d = r[r["seat"] == 0]
        n = len(d)
        ends = d["end"].astype(str).value_counts()
        row: dict[str, Any] = {"deals": n, "players": self.players}
        draws = int(d["draw"].sum())
        row["draws"] = draws
        row.update(rate("draw", draws, n))
        row["capped"] = int(ends.get("capped", 0))
        row["stock_out"] = int(ends.get("stock_out", 0))
        hw = int(r["hand_win"].sum())
        bw = int(r["bottom_card_win"].sum())
        row["hand_wins"] = hw
        row.update(rate("hand_win", hw, n))
        row["bottom_card_wins"] = bw
        row.update(rate("bottom_card_win", bw, n))
        row.update(length_stats("deal", d["deal_length"].to_numpy(np.float64)))
        ms, mse = mean_se(r["score"].to_numpy(np.float64))
        row.update(mean_score=ms, mean_score_se=mse)
        return pd.DataFrame([row])

    # ------------------------------------------------------------------ persistence
    def meta(self) -> dict:
        """Settings and run facts as plain JSON-able data."""
        s = self._settings()
        fin = np.isfinite
        deals = self.deals_done
        return {
            "kind": KIND,
            "settings": s.to_json(),
            "config_hash": s.config_hash,
            "rules_label": rules_label(self.rules),
            "seed": {"entropy": self.entropy, "spawn_key": list(self.spawn_key)},
            "chunks": {"total": self.chunks, "done_count": self.chunks_done},
            "complete": self.complete,
            "deals_done": deals,
            "turns": self.turns,
            "elapsed_s": round(self.elapsed, 3) if fin(self.elapsed) else None,
            "compute_s": round(self.compute_seconds, 3) if fin(self.compute_seconds) else None,
            # the wall-clock rate of this session: a resumed run ran only some deals
            "deals_per_s": round((deals if self.deals_run is None else self.deals_run)
                                 / self.elapsed, 2)
            if fin(self.elapsed) and self.elapsed > 0 else None,
            "deals_per_s_per_worker": round(deals / self.compute_seconds, 2)
            if fin(self.compute_seconds) and self.compute_seconds > 0 else None,
            "workers": self.workers,
            "backend": self.backend,
            "z": Z95,
            "win": "the player who went out; a deal without one (capped, stock_out) is a draw",
            "first_player": "deal d starts at seat d % players" if self.rotate_first
            else "seat 0 starts every deal",
        }

    @classmethod
    def _make(cls, settings: Settings, records: pd.DataFrame, **kw: Any) -> GameStudy:
        return cls(records=records, players=settings.players, bots=settings.bots,
                   games=settings.games, rules=settings.rules, entropy=settings.entropy,
                   spawn_key=settings.spawn_key, chunk_size=settings.chunk_size,
                   rotate_first=settings.rotate_first, seats=settings.seats, **kw)

    @classmethod
    def _check_records(cls, settings: Settings, specs: Sequence[dict],
                       cols: Mapping[str, np.ndarray]) -> str | None:
        plays = settings.players * len(settings.arrangements)
        if settings.seats == "fixed":   # one check of the whole file
            whole = {"index": 0, "deal0": 0, "n": len(cols["deal"]) // plays,
                     "players": settings.players, "rotate_first": settings.rotate_first}
            return check_cols(whole, cols)
        at = 0                          # chunk by chunk: each is arrangement-major
        for spec in specs:
            rows = spec["n"] * plays
            if at >= len(cols["deal"]):
                break
            why = check_cols(spec, {c: v[at:at + rows] for c, v in cols.items()})
            if why:
                return f"chunk {spec['index']}: {why}"
            at += rows
        return None


# --------------------------------------------------------------------------- histories
def read_histories(path: PathLike, chunks: Sequence[int] | None = None) -> Iterator[dict]:
    """The hand histories of a games run directory written with ``histories=True``
    (``--histories``): an iterator of dicts, one per play, in the order of the records
    (chunk by chunk; within a chunk arrangement by arrangement, deal by deal). Each is
    ``GameState.to_json()``'s object: ``GameState.from_dict(h)`` replays it (and checks
    its recorded result). ``chunks``: only these chunk indices. A missing or damaged
    file raises ``ValueError`` naming it."""
    return read_run_histories(_games_plan, path, chunks)


# --------------------------------------------------------------------------- the run
def simulate_games(
    players: int | None = None,
    bots: Any = None,
    games: int | None = None,
    rules: RuleSet | None = None,
    seed: SeedLike = None,
    workers: int | None = None,
    chunk_size: int | None = None,
    backend: str = "local",
    scheduler: Any = None,
    out: PathLike | None = None,
    resume: PathLike | None = None,
    progress: bool | None = None,
    rotate_first: bool | None = None,
    *,
    threads: int | None = None,
    chunk_format: str | None = None,
    on_chunk: Callable[[int, int, int], None] | None = None,
    command: str | None = None,
    engine: str = "auto",
    seats: str | None = None,
    histories: bool | None = None,
) -> GameStudy:
    """Play ``games`` complete deals between bots and record every player's result.

    Parameters (``None`` means the default, or the run directory's value on resume):

    * ``players`` (4) and ``bots`` (greedy, greedy, random, hand-hunter): one bot per
      seat, as names from ``rummy51.r51.bots.BOTS`` (``handhunter`` and ``hand_hunter``
      spell ``hand-hunter``), ``"module:Class"`` names or bot classes importable at
      module level; a single bot plays every seat. ``players`` defaults to the number
      of bots; for another player count without ``bots``, every seat is greedy.
    * ``games`` (10,000): deals to play.
    * ``rules``: a RuleSet (default rules); ``max_turns`` caps a deal (a draw).
    * ``seed``: int, SeedSequence, Generator or None (fresh entropy, recorded).
    * ``workers`` (all cores; ``threads`` is its deprecated name):
      worker processes of the local backend, or workers of a local Dask cluster.
    * ``chunk_size`` (250): deals per chunk; it fixes the seeds, so it is a setting.
    * ``rotate_first`` (True): deal ``d`` starts at seat ``d % players``; False: seat 0
      always starts.
    * ``seats`` ("fixed"): "rotate" plays every deal once per cyclic shift of the bots
      over the seats (each bot in each seat once), "permute" once per permutation
      (every order around the table; at most 5 players), so that the luck of a seat
      and of its neighbours cancels. The same cards, each bot with its own seed; the
      records gain an ``arrangement`` column and ``paired`` compares two bots deal by deal.
    * ``histories`` (None: False for a new run): also write every play's hand history (``GameState.to_json``)
      into the run directory, ``histories/chunk-NNNNNN.jsonl.gz`` (JSON Lines, gzip), read
      back by ``read_histories``. The deals are then played by the Python engine (every
      move checked), at its speed; the records are the same, and ``engine="c"`` is
      refused. Needs ``out``. Fixed when the run starts: each history file is
      checksummed in its chunk file, so a resume verifies them (a damaged or missing
      one is played again), and a resume asking for the other value is refused (None,
      the default: the run's own value).
    * ``backend``: "local" (processes) or "dask" (``scheduler``: ``tcp://HOST:PORT``, a
      ``distributed.Client``, or None for a local cluster of ``workers`` processes).
    * ``out``: a new run directory; ``resume``: an existing one to continue (settings
      not given are read from it; settings given must match).
    * ``progress``: a progress bar on stderr (None: only when stderr is a terminal).
    * ``chunk_format``: "parquet" (default with pyarrow) or "csv", for the chunk files
      and the final records file.
    * ``on_chunk(index, done, total)``: called after each finished chunk (after its file
      is written); an exception it raises stops the run like Ctrl-C.
    * ``engine``: "auto" (default) plays tables of built-in bots (random, greedy,
      hand-hunter, tactician) with the C game kernel (``rummy51.r51.fastgame``: the same
      deals, move for move) and other bots with the Python engine; "python" always uses
      the Python engine; "c" insists on the kernel (an error if it cannot play the
      table). The records do not depend on it, so it is not a setting of the run.

    Ctrl-C stops the run; with a run directory every finished chunk stays on disk and
    ``resume`` continues to the same records as an uninterrupted run.

    Worker processes are started with the "spawn" method (safe with threads, the same on
    every platform): a script that calls ``simulate_games`` with more than one worker
    needs the usual ``if __name__ == "__main__":`` guard.
    """
    t_start = time.perf_counter()
    count, _ = workers_or_threads(workers, threads)
    args = run_args(seed=seed, workers=count, out=out,  # type: ignore[arg-type]
                    resume=resume, chunk_format=chunk_format, progress=progress, backend=backend,
                    scheduler=scheduler, on_chunk=on_chunk, t_start=t_start)
    given = _given(players, bots, games, rules, chunk_size, rotate_first, seats, resume)

    def new_settings(entropy: int | Sequence[int], spawn_key: tuple[int, ...]) -> Settings:
        if given["bots"] is None:
            given["bots"], given["players"] = parse_bots(None, None)
        d = GAME_DEFAULTS
        return Settings(
            players=given["players"], bots=given["bots"],
            games=d["games"] if given["games"] is None else given["games"],
            chunk_size=d["chunk_size"] if given["chunk_size"] is None else given["chunk_size"],
            rotate_first=d["rotate_first"] if given["rotate_first"] is None else given["rotate_first"],
            rules=RuleSet() if rules is None else rules, entropy=entropy, spawn_key=spawn_key,
            seats="fixed" if seats is None else seats)

    run, settings = start(_games_plan, args, given, new_settings)
    _check_table(settings)
    histories = histories_arg(histories, run, args, engine)
    in_c = uses_kernel(settings.bots, settings.rules, engine) and not histories
    if command is None:
        command = default_command("simulate_games", players=players, bots=bots, games=games,
                                  seed=seed)
    return execute(_games_plan, GameStudy, settings, run, args, command=command, in_c=in_c,
                   spec_extra={"engine": engine, **({"histories": True} if histories else {})},
                   manifest_extra={"histories": True} if histories else None)


def _given(players: int | None, bots: Any, games: int | None, rules: RuleSet | None,
           chunk_size: int | None, rotate_first: bool | None, seats: str | None,
           resume: PathLike | None) -> dict[str, Any]:
    """The settings ``simulate_games`` was given, checked (None: not given, so the run
    directory's value on a resume, else the default)."""
    if rules is not None and not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
    if rotate_first is not None and not isinstance(rotate_first, (bool, np.bool_)):
        raise TypeError(f"rotate_first must be True or False, got {rotate_first!r}")
    given: dict[str, Any] = {
        "games": None if games is None else int_arg("games", games, 1, MAX_COUNT),
        "chunk_size": None if chunk_size is None else int_arg("chunk_size", chunk_size, 1, MAX_GAME_CHUNK),
        "rotate_first": None if rotate_first is None else bool(rotate_first),
        "seats": seats,
        "rules": rules,
        "players": None, "bots": None,
    }
    if bots is not None or players is not None:
        if bots is None and resume is not None:
            given["players"] = int_arg("players", players, 2, 64)
        else:
            given["bots"], given["players"] = parse_bots(bots, players)
    return given


def _check_table(settings: Settings) -> None:
    """Refuse a table that cannot be played before any work: too many players for the
    rules' deck, a bad seats value or too many players to permute, a bot class that
    cannot be imported here, a bot that plays only some tables (ppo) and not this one."""
    _check_players(settings.players, settings.rules)
    _ = settings.arrangements
    for b in settings.bots:
        bot_maker(b)
        check = getattr(BOTS.get(b), "check_table", None)
        if check is not None:
            check(settings.rules, settings.players)
