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

import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

import numpy as np

from .. import runs
from .._checks import MAX_COUNT, MAX_GAME_CHUNK, int_arg
from ..carousel.bots import make_bot
from ..carousel.rules import CarouselRules
from ..stats import Z95, proportion
from ._carousel_plan import (
    CHUNK_COLUMNS,
    DEFAULTS,
    DTYPES,
    ENDS,
    KIND,
    Settings,
    check_cols,
    chunk_reader,
    game_seeds,
    new_manifest,
    parse_bots,
    play_chunk,
    play_recorded,
    read_manifest,
    uses_kernel,
    write_chunk,
)
from ._common import RunFacts, compare_settings, json_records, unfinished

__all__ = ["CarouselStudy", "simulate_carousel", "KIND", "ENDS", "DEFAULTS"]


# --------------------------------------------------------------------------- helpers
def _frame(cols: Mapping[str, np.ndarray], settings: Settings):
    import pandas as pd

    p = settings.players
    seat = np.asarray(cols["seat"], np.int8)
    names = list(dict.fromkeys(settings.bots))
    codes = np.array([names.index(b) for b in settings.bots], np.int64)
    kt = pd.array(np.asarray(cols["knock_turn"], np.int64), dtype="Int16")
    kt[np.asarray(cols["knock_turn"]) < 0] = pd.NA
    return pd.DataFrame({
        "game": np.asarray(cols["game"], np.int64),
        "round": np.asarray(cols["round"], np.int16),
        "seat": seat,
        "bot": pd.Categorical.from_codes(codes[seat.astype(np.int64)], categories=names)
        if len(seat) else pd.Categorical([], categories=names),
        "position": ((seat.astype(np.int64) - np.asarray(cols["dealer"], np.int64) - 1) % p
                     ).astype(np.int8),
        "dealer": np.asarray(cols["dealer"], np.int8),
        "score": np.asarray(cols["score"], np.int32),
        "points": np.asarray(cols["points"], np.int16),
        "won": np.asarray(cols["won"]).astype(bool),
        "knocked": np.asarray(cols["knocked"]).astype(bool),
        "went_out": np.asarray(cols["went_out"]).astype(bool),
        "undercut": np.asarray(cols["undercut"]).astype(bool),
        "round_length": np.asarray(cols["round_length"], np.int16),
        "end": pd.Categorical.from_codes(np.asarray(cols["end"], np.int64), categories=list(ENDS))
        if len(seat) else pd.Categorical([], categories=list(ENDS)),
        "knock_turn": kt,
        "turns": np.asarray(cols["turns"], np.int16),
        "total": np.asarray(cols["total"], np.int32),
        "last_round": np.asarray(cols["last_round"]).astype(bool),
        "final": np.asarray(cols["final"], np.int32),
        "won_game": np.asarray(cols["won_game"]).astype(bool),
    })


def _cols_of(df) -> dict[str, np.ndarray]:
    out = {}
    for c in CHUNK_COLUMNS:
        if c == "end":
            v = df["end"]
            out[c] = (v.cat.codes if hasattr(v, "cat") else v.map({e: i for i, e in enumerate(ENDS)})
                      ).to_numpy(np.int64)
        elif c == "knock_turn":
            out[c] = df[c].astype("Int64").fillna(-1).to_numpy(np.int64)
        else:
            out[c] = df[c].astype(np.int64).to_numpy(np.int64)
    return out


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    n = x.size
    if n == 0:
        return float("nan"), float("nan")
    return float(x.mean()), (float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan"))


def _rate(prefix: str, k: int, n: int) -> dict:
    p, lo, hi = proportion(int(k), int(n))
    return {f"{prefix}_rate": float(p), f"{prefix}_lo": float(lo), f"{prefix}_hi": float(hi)}


def _group(g, games) -> dict:
    n = len(g)
    out: dict[str, Any] = {"player_rounds": n}
    for name, col in (("round_win", "won"), ("knock", "knocked"), ("out", "went_out")):
        k = int(g[col].sum())
        out[f"{name}s"] = k
        out.update(_rate(name, k, n))
    knocks = int(g["knocked"].sum() + g["went_out"].sum())
    cut = int(g["undercut"].sum())
    out["undercuts"] = cut
    out.update(_rate("undercut", cut, knocks))
    m, se = _mean_se(g["score"].to_numpy(np.float64))
    out.update(mean_score=m, mean_score_se=se)
    m, se = _mean_se(g["points"].to_numpy(np.float64))
    out.update(mean_points=m, mean_points_se=se)
    gn = len(games)
    gw = int(games["won_game"].sum())
    out.update(player_games=gn, game_wins=gw, **_rate("game_win", gw, gn))
    m, se = _mean_se(games["final"].to_numpy(np.float64))
    out.update(mean_final=m, mean_final_se=se)
    return out


# --------------------------------------------------------------------------- the study
@dataclass(frozen=True, eq=False)
class CarouselStudy(RunFacts):
    """The records of a batch of Carousel games, and the tables computed from them.

    ``records``: one row per (game, round, seat) (module docstring). Tables (pandas
    DataFrames): ``summary(by)``, ``overview()``, ``knock_possible()``,
    ``score_distribution()``, ``games()``. Rates come with 95 % Wilson intervals
    (``_lo``/``_hi``), means with their standard errors (``_se``)."""

    records: Any
    players: int
    bots: tuple[str, ...]
    games_total: int
    rules: CarouselRules
    chunk_size: int = DEFAULTS["chunk_size"]
    compute_seconds: float = float("nan")

    def _settings(self) -> Settings:
        return Settings(self.players, tuple(self.bots), self.games_total, self.chunk_size,
                        self.rules, self.entropy, tuple(self.spawn_key))

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

    def same_records(self, other: "CarouselStudy") -> bool:
        return (self._settings() == other._settings()
                and self.records.reset_index(drop=True).equals(other.records.reset_index(drop=True)))

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
        m, se = _mean_se(per_game)
        row.update(rounds_per_game=m, rounds_per_game_se=se)
        ends = d["end"].astype(str).value_counts()
        for e in ENDS:
            k = int(ends.get(e, 0))
            row[f"{e}_rounds"] = k
            row.update(_rate(e, k, n))
        knocked = int(ends.get("knock", 0) + ends.get("out", 0))
        cut = int(r["undercut"].sum())
        row["undercuts"] = cut
        row.update(_rate("undercut", cut, knocked))
        length = d["round_length"].to_numpy(np.float64)
        m, se = _mean_se(length)
        row.update(mean_round_length=m, mean_round_length_se=se,
                   median_round_length=float(np.median(length)) if n else float("nan"),
                   p90_round_length=float(np.percentile(length, 90)) if n else float("nan"),
                   turns=int(length.sum()))
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

    def to_dict(self) -> dict:
        return {"meta": self.meta(), "overview": json_records(self.overview())[0],
                "summary": json_records(self.summary())}

    def save(self, path, fmt: Optional[str] = None) -> Path:
        """Write ``records.parquet`` (or ``.csv``), ``summary.csv``, ``overview.csv`` and
        ``results.json`` into ``path`` (and a manifest if there is none)."""
        path = Path(path)
        runs.make_dirs(path)
        mf = path / "manifest.json"
        if mf.exists():
            manifest = read_manifest(path)
            if manifest.get("config_hash") != self._settings().config_hash:
                raise ValueError(f"{path} holds a run with other settings: choose another directory")
            fmt = fmt or manifest.get("chunk_format")
        fmt = runs.chunk_format(fmt)
        if not mf.exists():
            manifest = new_manifest(self._settings(), fmt, None, self.chunks,
                                    status="finished" if self.complete else "partial")
            runs.atomic_write_text(mf, json.dumps(manifest, indent=1) + "\n")
        target = path / f"records.{fmt}"
        if fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(self.records, preserve_index=False)
            runs.atomic_write_file(target, lambda f: pq.write_table(table, f))
        else:
            runs.atomic_write_text(target, self.records.to_csv(index=False))
        runs.atomic_write_text(path / "summary.csv", self.summary().to_csv(index=False))
        runs.atomic_write_text(path / "overview.csv", self.overview().to_csv(index=False))
        runs.atomic_write_text(path / "results.json", json.dumps(self.to_dict(), indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path, partial: bool = False) -> "CarouselStudy":
        """Read a carousel run directory back (``partial=True``: an unfinished one, from
        its verified chunk files)."""
        import pandas as pd

        path = Path(path)
        manifest = read_manifest(path)
        try:
            settings = Settings.from_json(manifest["settings"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{path / 'manifest.json'} has bad settings ({e})") from None
        specs = settings.plan()
        meta: dict = {}
        res = path / "results.json"
        if res.exists():
            try:
                meta = json.loads(res.read_text(encoding="utf-8")).get("meta", {})
            except (OSError, ValueError):
                meta = {}
        rec = next((f for f in (path / "records.parquet", path / "records.csv") if f.exists()), None)
        if manifest.get("status") == "finished" and rec is not None:
            df = pd.read_parquet(rec) if rec.suffix == ".parquet" else pd.read_csv(rec)
            cols = _cols_of(df)
            return cls._make(settings, _frame(cols, settings), chunks=len(specs),
                             chunks_done=len(specs),
                             elapsed=meta.get("elapsed_s") or float("nan"),
                             compute_seconds=meta.get("compute_s") or float("nan"),
                             workers=meta.get("workers", 1), backend=meta.get("backend", "local"),
                             directory=str(path))
        if not partial:
            raise unfinished(path)
        run = runs.RunDir.open(path, KIND)
        found = run.scan(specs, chunk_reader(run), rename=False)
        return cls._from_results(settings, found, chunks=len(specs), chunks_done=len(found),
                                 directory=str(path))

    @classmethod
    def _make(cls, settings: Settings, records, **kw) -> "CarouselStudy":
        return cls(records=records, players=settings.players, bots=settings.bots,
                   games_total=settings.games, rules=settings.rules, entropy=settings.entropy,
                   spawn_key=settings.spawn_key, chunk_size=settings.chunk_size, **kw)

    @classmethod
    def _from_results(cls, settings: Settings, found: Mapping[int, dict], **kw) -> "CarouselStudy":
        order = sorted(found)
        cols = {c: np.concatenate([found[i]["cols"][c] for i in order])
                if order else np.zeros(0, DTYPES[c]) for c in CHUNK_COLUMNS}
        kw.setdefault("compute_seconds", float(sum(found[i]["seconds"] for i in order)))
        return cls._make(settings, _frame(cols, settings), **kw)


# --------------------------------------------------------------------------- the run
def simulate_carousel(
    players: Optional[int] = None,
    bots=None,
    games: Optional[int] = None,
    rules: Optional[CarouselRules] = None,
    seed=None,
    workers: Optional[int] = None,
    chunk_size: Optional[int] = None,
    out=None,
    resume=None,
    progress: Optional[bool] = None,
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
    if backend not in ("local", "dask"):
        raise ValueError(f"backend must be 'local' or 'dask', got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("scheduler is only used with backend='dask'")
    nworkers = (os.cpu_count() or 1) if workers is None else int_arg("workers", workers, 1, 4096)
    if out is not None and resume is not None and Path(out) != Path(resume):
        raise ValueError("give either out (a new run directory) or resume (an existing one), not both")
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
    run: Optional[runs.RunDir] = None
    if resume is not None:
        run = runs.RunDir.open(resume, KIND)
        settings = run.settings(Settings.from_json)
        cmp = dict(given)
        cmp["seed"] = None if seed is None else runs.seed_root(seed)
        compare_settings(resume, settings, cmp)
        run.check_resume_format(chunk_format)
    else:
        entropy, spawn_key = runs.seed_root(seed)
        if given["bots"] is None:
            given["bots"], given["players"] = parse_bots(None, None)
        n = given["players"]
        if rules is None:
            rules = CarouselRules.for_players(n)
        elif rules.players != n:
            import dataclasses

            rules = dataclasses.replace(rules, players=n)
        settings = Settings(players=n, bots=given["bots"],
                            games=DEFAULTS["games"] if given["games"] is None else given["games"],
                            chunk_size=DEFAULTS["chunk_size"] if given["chunk_size"] is None
                            else given["chunk_size"],
                            rules=rules, entropy=entropy, spawn_key=spawn_key)
    in_c = uses_kernel(settings.bots, settings.rules, engine)
    specs = settings.plan()
    for spec in specs:
        spec["engine"] = engine
    if command is None:
        command = "rummy51.simulate_carousel(" + ", ".join(
            f"{k}={v!r}" for k, v in (("players", players), ("bots", bots), ("games", games),
                                      ("seed", seed)) if v is not None) + ")"
    if out is not None and resume is None:
        fmt = runs.chunk_format(chunk_format)
        run = runs.RunDir.create(out, new_manifest(settings, fmt, command, len(specs)))
    found: dict[int, dict] = {}
    if run is not None and (resume is not None or run.adopted):
        found = run.scan(specs, chunk_reader(run))
    session = runs.Session(run, specs, found, {"backend": backend, "workers": nworkers,
                                               "command": command,
                                               "engine": "c" if in_c else "python"},
                           progress, "carousel games", on_chunk, t_start, unit=" games")

    def done_cb(spec, res):
        why = check_cols(spec, res["cols"])
        if why:
            raise RuntimeError(f"chunk {spec['index']} came back wrong: {why}")
        if run is not None:
            write_chunk(run, spec, res)
        found[spec["index"]] = res
        session.chunk_done(spec)

    todo = session.todo
    used = nworkers
    with session:
        if backend == "local":
            used = max(1, min(nworkers, len(todo)))
            runs.run_processes(todo, nworkers, play_chunk, done_cb)
        else:
            used = runs.run_dask(todo, scheduler, nworkers,
                                 f"rummy51-carousel-{settings.config_hash}", done_cb,
                                 task=play_chunk)
    elapsed = session.elapsed
    study = CarouselStudy._from_results(settings, found, chunks=len(specs),
                                        chunks_done=len(session.done), elapsed=elapsed,
                                        deals_run=sum(s["n"] for s in session.todo),
                                        chunks_run=len(session.todo),
                                        workers=used if todo else nworkers, backend=backend,
                                        directory=None if run is None else str(run.path))
    if run is not None:
        study.save(run.path, fmt=run.fmt)
    session.finish(elapsed, records_format=None if run is None else run.fmt)
    return study
