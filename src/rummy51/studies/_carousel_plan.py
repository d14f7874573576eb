"""The plan of a Carousel study (a private module of ``studies.carousel``): the defaults
and columns, the bots by name, the settings and their chunks, one chunk played (by the
Python engine, or by the C game kernel when every seat is greedy or careful), once per
seat arrangement (``seats``: ``rummy51.common.arrangements``), the chunk files, the
hand histories and the manifest."""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _carousel, runs
from .._checks import int_arg
from ..carousel.actions import Knock, Meld, Pass, Phase
from ..carousel.bots import Bot, CarefulBot, GreedyBot, SearchBot, check_search_rules, make_bot, parse_bot
from ..carousel.engine import GameState, rules_from_dict, rules_to_dict
from ..carousel.rules import CarouselRules
from ..common.seats import arrangements
from ..common.seeds import normalize_seed
from ._runner import (
    ChunkFiles,
    TableSettings,
    game_seeds,
    seat_bots,
)

if TYPE_CHECKING:
    import pandas as pd

KIND = "carousel"
#: where a local run plays its chunks: worker processes (the bots are Python: the GIL)
LOCAL = "processes"
#: the run keeps a records file (every chunk's rows)
RECORDS = True
#: The progress bar's name and what it counts.
LABEL = "carousel games"
UNIT = " games"
_CHUNK_TAG = "# rummy51-carousel-chunk "

#: Defaults of ``simulate_carousel``.
DEFAULTS: dict[str, Any] = {"players": 4, "games": 1_000, "chunk_size": 50}

#: How a round ends, in the order of their codes.
ENDS = ("knock", "out", "stock")
_END_CODE = {e: i for i, e in enumerate(ENDS)}

#: The integer columns of a chunk: one row per player and round.
CHUNK_COLUMNS = ("game", "round", "seat", "dealer", "score", "points", "won", "knocked",
                 "went_out", "undercut", "round_length", "end", "knock_turn", "turns",
                 "total", "last_round", "final", "won_game")
DTYPES = {"game": np.int64, "round": np.int16, "seat": np.int8, "dealer": np.int8,
          "score": np.int32, "points": np.int16, "won": np.int8, "knocked": np.int8,
          "went_out": np.int8, "undercut": np.int8, "round_length": np.int16,
          "end": np.int8, "knock_turn": np.int16, "turns": np.int16, "total": np.int32,
          "last_round": np.int8, "final": np.int32, "won_game": np.int8}
LAYOUT = runs.ChunkLayout(columns=CHUNK_COLUMNS, dtypes=DTYPES, csv_tag=_CHUNK_TAG)
#: Runs whose seats move (``seats`` "rotate" or "permute") add the column
#: ``arrangement``: the rows of a chunk are arrangement-major (every game of the chunk
#: under arrangement 0, then under 1, ...), as in Rummy 51's games study.
DTYPES["arrangement"] = np.int16
LAYOUT_ARRANGED = runs.ChunkLayout(columns=CHUNK_COLUMNS + ("arrangement",), dtypes=DTYPES,
                                   csv_tag=_CHUNK_TAG)

#: A game that has not ended after this many rounds is an error (never seen: every
#: round but an all-tie gives a winner at least one point).
MAX_ROUNDS = 10_000

#: ``engine`` values: "auto" plays tables of greedy and careful bots with the C kernel,
#: others with the Python engine; "python" always the Python engine; "c" insists on the
#: kernel.
ENGINES = ("auto", "python", "c")
#: The bots the C game kernel plays.
KERNEL_BOTS = ("greedy", "careful", "search")


def parse_bots(bots: str | Sequence[str] | None, players: int | None) -> tuple[tuple[str, ...], int]:
    """``(bots, players)``: one bot name per seat, or one name for every seat."""
    if players is not None:
        players = int_arg("players", players, 2, 6)
    if bots is None:
        players = DEFAULTS["players"] if players is None else players
        return ("greedy",) * players, players
    if isinstance(bots, str):
        bots = bots.split(",")
    names = []
    for b in bots:
        key, opts = parse_bot(str(b))   # a ValueError names a bad entry
        names.append(key if not opts else f"{key}:{opts['rollouts']}")
    return seat_bots(tuple(names), players, DEFAULTS["players"], "greedy,careful")


@dataclass(frozen=True)
class Settings(TableSettings):
    """Everything that decides a run's records (the manifest's ``settings``): the table,
    the rules and the seed (``TableSettings``)."""

    rules: CarouselRules
    #: "fixed", "rotate" or "permute" (``SEATS``): the seat arrangements every game is
    #: played under (``rummy51.common.arrangements``).
    seats: str = "fixed"

    def to_json(self) -> dict:
        # fixed runs keep the settings (and hash) they had before seats existed
        extra = {} if self.seats == "fixed" else {"seats": self.seats}
        return self.table_json(rules_to_dict, **extra)

    @classmethod
    def from_json(cls, d: Mapping) -> Settings:
        return cls(**cls.table_fields(d, lambda r: rules_from_dict(r, recorded=True)),
                   seats=str(d.get("seats", "fixed")))

    def hash_json(self) -> dict:
        d = self.to_json()
        if d["rules"]["stock_out"] == "finder":
            # a run made before the field existed played "finder" and hashed no such
            # field: the same rules keep the same hash (it stays resumable)
            del d["rules"]["stock_out"]
        return d

    @property
    def arrangements(self) -> list[tuple[int, ...]]:
        return arrangements(self.players, self.seats)

    def plan(self) -> runs.ChunkPlan:
        """The chunks in seeding order: chunk i plays games ``game0 .. game0 + n - 1``."""
        extra = {} if self.seats == "fixed" else {"seats": self.seats}
        return self.chunk_specs("game0", rules=rules_to_dict(self.rules), **extra)


# --------------------------------------------------------------------------- one game
def play_recorded(bots: Sequence[Bot], rules: CarouselRules, seed: Any) -> tuple[GameState, list[dict]]:
    """Play one game; returns the state and, per round, the facts the records need
    that the state does not keep: each seat's own turns and the first of them at whose
    end the hand could knock (``knock_turn``, 0 = never)."""
    s = GameState.new(rules, seed=seed)
    n = s.n_players
    limit = rules.knock_limit
    facts: list[dict] = []
    turns = [0] * n
    first_knock = [0] * n
    rnd = 0
    while s.phase is not Phase.OVER:
        p = s.current
        a = bots[p].choose(s.view(p))
        ends_turn = isinstance(a, (Knock, Pass)) or (isinstance(a, Meld) and s.turn_info.last
                                                     and not rules.last_turn_knock)
        s.apply(a)
        over = s.round != rnd or s.phase is Phase.OVER
        if over or ends_turn:   # the move ended the mover's turn: count the hand at its end
            pts = s.rounds[-1].points[p] if over else rules.hand_points(s.hands[p])
            turns[p] += 1
            if not first_knock[p] and pts <= limit:
                first_knock[p] = turns[p]
        if over:
            facts.append({"turns": list(turns), "knock_turn": list(first_knock)})
            turns = [0] * n
            first_knock = [0] * n
            rnd = s.round
            if len(s.rounds) > MAX_ROUNDS:
                raise RuntimeError(f"a game did not end in {MAX_ROUNDS} rounds")
    return s, facts


def _game_rows(s: GameState, facts: list[dict], game: int, cols: dict, row: int) -> int:
    n = s.n_players
    final = s.final
    assert final is not None  # play_recorded plays the game to its end
    running = [0] * n
    last = len(s.rounds) - 1
    for k, r in enumerate(s.rounds):
        f = facts[k]
        for p in range(n):
            running[p] += r.scores[p]
            i = row + p
            cols["game"][i] = game
            cols["round"][i] = k
            cols["seat"][i] = p
            cols["dealer"][i] = r.dealer
            cols["score"][i] = r.scores[p]
            cols["points"][i] = r.points[p]
            cols["won"][i] = p in r.winners
            cols["knocked"][i] = r.how == "knock" and r.knocker == p
            cols["went_out"][i] = r.how == "out" and r.knocker == p
            cols["undercut"][i] = r.undercut and r.knocker == p
            cols["round_length"][i] = r.turns
            cols["end"][i] = _END_CODE[r.how]
            cols["knock_turn"][i] = f["knock_turn"][p] or -1
            cols["turns"][i] = f["turns"][p]
            cols["total"][i] = running[p]
            cols["last_round"][i] = k == last
            cols["final"][i] = final[p] if k == last else 0
            cols["won_game"][i] = k == last and p in s.winners
        row += n
    return row


def uses_kernel(bots: Sequence[str], rules: CarouselRules, engine: str = "auto") -> bool:
    """Whether a table of ``bots`` is played by the C game kernel
    (``_carousel.play_greedy_game``): every seat greedy, careful or search and ``engine`` "auto" or "c"
    ("c" raises ValueError for a table the kernel cannot play; "python": never). The
    kernel plays every ``CarouselRules``."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if any(b.partition(":")[0] == "search" for b in bots):
        check_search_rules(rules)   # rules its rollouts do not play: refused before a game
    if engine == "python":
        return False
    other = sorted({b for b in bots if b.partition(":")[0] not in KERNEL_BOTS})
    if other and engine == "c":
        raise ValueError(f"engine c: the C game kernel plays tables where every seat is "
                         f"{', '.join(KERNEL_BOTS[:-1])} or {KERNEL_BOTS[-1]}, not "
                         f"{', '.join(other)} (engine auto falls back to the Python engine)")
    return not other and isinstance(rules, CarouselRules)


def kernel_rules(rules: CarouselRules) -> tuple[int, ...]:
    """The game rules ``_carousel.play_greedy_game`` reads (its ``game_rules``, 13 ints)."""
    return (rules.players, rules.hand_size, rules.deck_size, rules.knock_limit,
            rules.undercut_bonus, rules.going_out_bonus, rules.target_score, rules.game_bonus,
            rules.round_won_bonus, int(rules.round_bonus_for_all), int(rules.last_turn_knock),
            int(rules.game_tie == "play_on"), int(rules.stock_out == "exhauster"))


#: Decks drawn for a game before the kernel plays it, and then each time it needs more
#: (it goes on where it stopped; the decks come from the game's RNG in order either way).
_DECKS_FIRST = 10
_DECKS_MORE = 8


def play_kernel_game(rules: CarouselRules, seed: Any, game: int = 0, *, trace: bool = False,
                     bots: Sequence[Bot] | None = None) -> tuple:
    """Play one game in the C kernel from ``seed`` (what ``GameState.new`` takes): the
    same first dealer and decks as the engine's (its ``normalize_seed``, ``integers``,
    ``permutation`` calls in the same order). ``bots``: None (greedy in every seat) or
    one ``GreedyBot`` / ``CarefulBot`` a seat (a careful bot's generator is advanced as
    its Python twin would be). Returns ``(rows, turns)``:
    ``rows`` an int32 array (rows, 18) of the ``CHUNK_COLUMNS``, ``turns`` the rounds'
    lengths summed; with ``trace`` also the moves (events, 5: round, seat, kind 0 draw /
    1 meld / 2 knock / 3 pass, a, b)."""
    rng, _ = normalize_seed(seed)
    return _kernel_game(rules, rng, game, trace, _kernel_bots(bots, rules.players))


def _kernel_bots(bots: Sequence[Bot] | None, players: int) -> list | None:
    """``play_greedy_game``'s ``bots`` from bot objects (None: all greedy)."""
    if bots is None:
        return None
    bots = list(bots)
    if len(bots) != players:
        raise ValueError(f"bots: one a seat, {players}, got {len(bots)}")
    out: list = []
    for b in bots:
        if isinstance(b, CarefulBot):
            out.append((b.rng, b.max_risk, b.samples))
        elif isinstance(b, GreedyBot):
            out.append(None)
        elif isinstance(b, SearchBot):
            out.append(b.kernel_spec())
        else:
            raise ValueError(f"the C game kernel plays GreedyBot, CarefulBot and SearchBot, not "
                             f"{type(b).__name__}")
    return out


@lru_cache(maxsize=32)
def _kernel_core(rules: CarouselRules) -> _carousel.CoreRules:
    return _carousel.CoreRules(rules)


def _kernel_game(rules: CarouselRules, rng: np.random.Generator, game: int, trace: bool = False,
                 bots: list | None = None) -> tuple:
    core = _kernel_core(rules)
    params = kernel_rules(rules)
    n = rules.players
    first = int(rng.integers(n))    # GameState.new's first dealer, then one shuffle a round
    deck = np.asarray(rules.deck(), np.int64)
    state = np.zeros(_carousel.GAME_STATE_SIZE, np.int64)
    rows: list[np.ndarray] = []
    events: list[np.ndarray] = []
    turns = 0
    k = _DECKS_FIRST
    while True:
        decks = np.array([rng.permutation(deck) for _ in range(k)], np.uint8)
        out = np.empty((k * n, len(CHUNK_COLUMNS)), np.int32)
        tr = np.empty((k * 512, 5), np.int32) if trace else None
        keep = state.copy()
        bot_rngs = [b[1] if b[0] == "search" else b[0] for b in bots or () if b is not None]
        keep_rngs = [g.bit_generator.state for g in bot_rngs]
        while True:
            status, detail, rounds, nrows, t, nev = _carousel.play_greedy_game(
                core, params, decks, first, game, out, tr, state, bots)
            if tr is None or nev <= len(tr):
                break
            tr = np.empty((2 * nev, 5), np.int32)   # the trace was too short: again
            state[:] = keep
            for g, st in zip(bot_rngs, keep_rngs, strict=True):
                g.bit_generator.state = st
        rows.append(out[:nrows])
        if tr is not None:
            events.append(tr[:nev])
        turns += t
        if status != _carousel.GAME_NEED_DECKS:
            break
        if rounds >= MAX_ROUNDS:
            raise RuntimeError(f"a game did not end in {MAX_ROUNDS} rounds")
        k = _DECKS_MORE
    if status == _carousel.GAME_TOO_LONG:
        raise RuntimeError(f"a game did not end in {MAX_ROUNDS} rounds")
    if status == _carousel.GAME_GAVE_UP:
        from ..carousel.solver import reconstruction_error

        raise reconstruction_error(*divmod(detail, 64))
    if status != _carousel.GAME_OK:
        raise RuntimeError(f"the C game kernel failed (status {status}, detail {detail})")
    allrows = rows[0] if len(rows) == 1 else np.concatenate(rows)
    if trace:
        return allrows, turns, np.concatenate(events)
    return allrows, turns


def _kernel_chunk(spec: Mapping, rules: CarouselRules,
                  perm: Sequence[int] | None = None) -> tuple[dict, int]:
    """``play_chunk``'s columns and turns from the C kernel: each game's RNG is the one
    ``play_recorded`` gets (``_runner.game_seeds``' first child), so the records are the same.
    ``perm``: the seat arrangement (seat ``s`` holds listed bot ``perm[s]``, with that
    bot's own seed); None: the bots as listed."""
    entropy = spec["entropy"]
    base = tuple(runs.chunk_seed(entropy, spec["spawn_key"], spec["index"]).spawn_key)
    SeedSequence, default_rng = np.random.SeedSequence, np.random.default_rng
    parts: list[np.ndarray] = []
    turns = 0
    order = range(spec["players"]) if perm is None else perm
    # greedy bots draw nothing: an all-greedy table needs no bot seeds
    all_greedy = all(b == "greedy" for b in spec["bots"])
    for j in range(spec["n"]):
        game = spec["game0"] + j
        rng = default_rng(SeedSequence(entropy, spawn_key=base + (j, 0)))
        if all_greedy:
            bots = None
        else:
            _, bot_ss = game_seeds(entropy, spec["spawn_key"], spec["index"], j, spec["players"])
            bots = _kernel_bots([make_bot(spec["bots"][k], bot_ss[k]) for k in order],
                                spec["players"])
        try:
            rows, t = _kernel_game(rules, rng, game, bots=bots)
        except Exception as e:  # a bug: name the game so it can be replayed
            raise RuntimeError(f"game {game} (chunk {spec['index']}) failed: "
                               f"{type(e).__name__}: {e}") from e
        parts.append(rows)
        turns += t
    allrows = np.concatenate(parts) if parts else np.zeros((0, len(CHUNK_COLUMNS)), np.int32)
    cols = {c: allrows[:, k].astype(DTYPES[c]) for k, c in enumerate(CHUNK_COLUMNS)}
    # the game numbers as int64 (the kernel's int32 column holds them only up to 2**31)
    cols["game"] = np.repeat(spec["game0"] + np.arange(len(parts), dtype=np.int64),
                             [len(p) for p in parts])
    return cols, turns


def play_chunk(spec: Mapping) -> dict:
    """Play one chunk's games, once per seat arrangement (``spec["seats"]``, default
    "fixed"; arrangement-major); returns its columns, the seconds and turns. Tables the
    C kernel plays (``uses_kernel`` with ``spec["engine"]``, default "auto") are played
    there: the same records. With ``spec["histories"]`` every game is played by the
    Python engine and its history (``GameState.to_json``) is returned too."""
    from .._version import __version__

    t0 = time.perf_counter()
    rules = rules_from_dict(spec["rules"])
    seats = spec.get("seats", "fixed")
    histories: list[str] | None = [] if spec.get("histories") else None
    blocks: list[dict] = []
    turns = 0
    for a, perm in enumerate(arrangements(spec["players"], seats)):
        seated = [spec["bots"][k] for k in perm]
        if histories is None and uses_kernel(seated, rules, spec.get("engine", "auto")):
            cols, t = _kernel_chunk(spec, rules, perm)
        else:
            cols, t = _python_block(spec, rules, perm, histories)
        if seats != "fixed":
            cols["arrangement"] = np.full(len(cols["game"]), a, np.int16)
        blocks.append(cols)
        turns += t
    cols = blocks[0] if len(blocks) == 1 else {
        c: np.concatenate([b[c] for b in blocks]) for c in blocks[0]}
    out = {"index": spec["index"], "cols": cols, "seconds": time.perf_counter() - t0,
           "turns": turns, "version": __version__}
    if histories is not None:
        out["histories"] = histories
    return out


def _python_block(spec: Mapping, rules: CarouselRules, perm: Sequence[int],
                  histories: list | None = None) -> tuple[dict, int]:
    """One arrangement of a chunk through the Python engine: seat ``s`` holds listed bot
    ``perm[s]``, with that bot's own seed (a bot's randomness follows the bot)."""
    players = spec["players"]
    parts: list[dict] = []
    turns = 0
    for j in range(spec["n"]):
        game = spec["game0"] + j
        game_ss, bot_ss = game_seeds(spec["entropy"], spec["spawn_key"], spec["index"], j, players)
        bots = [make_bot(spec["bots"][k], bot_ss[k]) for k in perm]
        try:
            s, facts = play_recorded(bots, rules, game_ss)
        except Exception as e:  # a bug: name the game so it can be replayed
            raise RuntimeError(f"game {game} (chunk {spec['index']}) failed: "
                               f"{type(e).__name__}: {e}") from e
        rows = len(s.rounds) * players
        cols = {c: np.zeros(rows, DTYPES[c]) for c in CHUNK_COLUMNS}
        _game_rows(s, facts, game, cols, 0)
        parts.append(cols)
        turns += sum(r.turns for r in s.rounds)
        if histories is not None:
            histories.append(s.to_json())
    cols = {c: np.concatenate([p[c] for p in parts]) if parts else np.zeros(0, DTYPES[c])
            for c in CHUNK_COLUMNS}
    return cols, turns


def chunk_columns(seats: str) -> tuple[str, ...]:
    """The columns of a chunk: an ``arrangement`` column when the seats move."""
    return CHUNK_COLUMNS if seats == "fixed" else CHUNK_COLUMNS + ("arrangement",)


def check_cols(spec: Mapping, cols: Mapping[str, np.ndarray]) -> str | None:
    """Why ``cols`` cannot be chunk ``spec``'s records (None if they can)."""
    seats = spec.get("seats", "fixed")
    want = chunk_columns(seats)
    if set(cols) != set(want):
        return f"columns {sorted(cols)} instead of {sorted(want)}"
    if seats == "fixed":
        return _check_block(spec, cols)
    k = len(arrangements(spec["players"], seats))
    arr = np.asarray(cols["arrangement"], np.int64)
    if len(arr) and (np.diff(arr) < 0).any():
        return "its arrangements are out of order"
    if not np.array_equal(np.unique(arr), np.arange(k)):
        return f"its arrangements are not 0..{k - 1}"
    for a in range(k):
        sel = arr == a
        why = _check_block(spec, {c: np.asarray(v)[sel] for c, v in cols.items()
                                  if c != "arrangement"})
        if why:
            return f"arrangement {a}: {why}"
    return None


def _check_block(spec: Mapping, cols: Mapping[str, np.ndarray]) -> str | None:
    """``check_cols`` of one arrangement's rows."""
    p = spec["players"]
    n = len(cols["game"])
    if n % p:
        return f"{n} rows is not a whole number of rounds of {p} players"
    if not np.array_equal(cols["seat"], np.tile(np.arange(p), n // p)):
        return "its seats are out of order"
    games = np.unique(cols["game"])
    if not np.array_equal(games, np.arange(spec["game0"], spec["game0"] + spec["n"])):
        return f"its games are not {spec['game0']}..{spec['game0'] + spec['n'] - 1}"
    if int(cols["last_round"].sum()) != spec["n"] * p:
        return "not every game has a last round"
    for c in ("won", "knocked", "went_out", "undercut", "last_round", "won_game"):
        if not np.isin(cols[c], (0, 1)).all():
            return f"column {c} holds values other than 0 and 1"
    won = np.asarray(cols["won"], np.int64).reshape(-1, p).sum(1)
    if (won < 1).any():
        return "a round without a winner"
    return None


# --------------------------------------------------------------------------- records
def record_columns(settings: Settings) -> tuple[str, ...]:
    """The chunk columns of a run of ``settings``."""
    return chunk_columns(settings.seats)


def units(settings: Settings, cols: Mapping[str, np.ndarray]) -> int:
    """Games in the chunk columns ``cols`` (each has one last round a seat, under every
    arrangement)."""
    return (int(np.asarray(cols["last_round"]).sum())
            // (settings.players * len(settings.arrangements)))


def frame(cols: Mapping[str, np.ndarray], settings: Settings) -> pd.DataFrame:
    import pandas as pd

    p = settings.players
    seat = np.asarray(cols["seat"], np.int8)
    names = list(dict.fromkeys(settings.bots))
    codes = np.array([names.index(b) for b in settings.bots], np.int64)
    kt = pd.array(np.asarray(cols["knock_turn"], np.int64), dtype="Int16")
    kt[np.asarray(cols["knock_turn"]) < 0] = pd.NA
    # the listed bot in each row's seat: seat s of arrangement a holds listed bot perm_a[s]
    listed = seat.astype(np.int64)
    arranged = "arrangement" in cols
    if arranged:
        perms = np.array(settings.arrangements, np.int64)
        listed = perms[np.asarray(cols["arrangement"], np.int64), listed]
    df = pd.DataFrame({
        "game": np.asarray(cols["game"], np.int64),
        "round": np.asarray(cols["round"], np.int16),
        "seat": seat,
        "bot": pd.Categorical.from_codes(codes[listed], categories=names)
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
    if arranged:
        df.insert(1, "arrangement", np.asarray(cols["arrangement"], np.int16))
    return df


def cols_of(df: pd.DataFrame) -> dict[str, np.ndarray]:
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
    if "arrangement" in df:
        out["arrangement"] = df["arrangement"].to_numpy(np.int64)
    return out



# --------------------------------------------------------------------------- chunk files
_FILES = ChunkFiles(LAYOUT, LAYOUT_ARRANGED, "game0", check_cols)
write_chunk = _FILES.write_chunk
chunk_reader = _FILES.chunk_reader


def new_manifest(settings: Settings, fmt: str | None, command: str | None,
                 n_chunks: int, status: str = "running") -> dict:
    return runs.new_manifest(
        KIND, settings.to_json(), settings.config_hash,
        {"entropy": settings.entropy, "spawn_key": list(settings.spawn_key)}, fmt, command,
        n_chunks, status=status, counts={"games": settings.games, "players": settings.players})


def read_manifest(path: str | Path) -> dict:
    return runs.RunDir.read_manifest(path, KIND)
