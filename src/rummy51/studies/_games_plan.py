"""The plan of a games study (a private module shared by ``games``): the defaults and
columns, the bots by name, the deal seeds, the settings and their chunks, one chunk
played (Python engine or C kernel), the chunk files and the manifest."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _game, runs
from .._checks import int_arg
from ..common.bots import bot_factory, class_name, import_bot, registry_key
from ..common.seats import arrangements
from ..r51 import fastgame
from ..r51.bots import BOTS, play_deal
from ..r51.engine import GameState, LayDownRecord
from ..rules import RuleSet, rules_from_dict, rules_to_dict
from ._runner import (
    ChunkFiles,
    TableSettings,
    game_seeds,
    seat_bots,
)

if TYPE_CHECKING:
    import pandas as pd

ChunkWarning = runs.ChunkWarning

#: Defaults of ``simulate_games`` (``None`` means these, or the run directory's on resume).
GAME_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "bots": ("greedy", "greedy", "random", "hand-hunter"),
    "games": 10_000,
    "chunk_size": 250,
    "rotate_first": True,
}

#: How a deal ends (the engine's ``Result.how``), in the order of their codes (the
#: game kernel's codes).
ENDS = fastgame.ENDS
#: ``engine=``: "auto" plays tables of built-in bots in C, "python" never, "c" insists
ENGINES = ("auto", "python", "c")
_END_CODE = {e: i for i, e in enumerate(ENDS)}

#: The integer columns a chunk holds (``turn_opened`` -1 = never opened).
_CHUNK_COLUMNS = ("deal", "seat", "first_player", "score", "opened", "turn_opened", "went_out",
                  "hand_win", "bottom_card_win", "deal_length", "draw", "end")
DTYPES = {"deal": np.int64, "seat": np.int8, "first_player": np.int8,
                 "score": np.int32, "opened": np.int8, "turn_opened": np.int16,
                 "went_out": np.int8, "hand_win": np.int8, "bottom_card_win": np.int8,
                 "deal_length": np.int32, "draw": np.int8, "end": np.int8}
#: The columns of ``GameStudy.records``, in order.
COLUMNS = ("deal", "seat", "bot", "position", "first_player", "score", "opened", "turn_opened",
           "went_out", "hand_win", "bottom_card_win", "deal_length", "draw", "end")

KIND = "games"
#: where a local run plays its chunks: worker processes (the bots are Python: the GIL)
LOCAL = "processes"
#: the run keeps a records file (every chunk's rows)
RECORDS = True
#: The progress bar's name and what it counts (a Rummy 51 game is one deal).
LABEL = "games"
UNIT = " deals"
_CHUNK_TAG = "# rummy51-games-chunk "

# --------------------------------------------------------------------------- bots
def bot_name(bot: Any) -> str:
    """The canonical name of a bot: a key of ``BOTS`` (spelling of case, ``-`` and
    ``_`` free: ``handhunter`` is ``hand-hunter``), or ``"module:Class"`` of a bot class
    importable at module level (worker processes import it by that name)."""
    if isinstance(bot, type):
        return class_name(bot)
    if not isinstance(bot, str):
        raise TypeError(f"bots must hold bot names (or bot classes), got {bot!r}")
    key = registry_key(bot, BOTS)
    if key is not None:
        return key
    if ":" in bot:
        import_bot(bot.strip())
        return bot.strip()
    raise ValueError(f"bots: {bot!r} is not a bot: choose from {', '.join(BOTS)} "
                     f"(or module:Class)")


_FACTORIES: dict[str, Callable] = {}


def bot_maker(name: str) -> Callable[[np.random.SeedSequence], Any]:
    """``make(seed) -> bot``: a fresh bot of canonical name ``name`` (``bot_name``);
    ``seed`` goes to bots whose constructor takes one."""
    f = _FACTORIES.get(name)
    if f is None:
        f = _FACTORIES[name] = bot_factory(BOTS[name] if name in BOTS else import_bot(name))
    return f


def parse_bots(bots: Any, players: int | None) -> tuple[tuple[str, ...], int]:
    """``(bots, players)`` from the arguments: one bot per seat, or one for every seat."""
    if players is not None:
        players = int_arg("players", players, 2, 64)
    if bots is None:
        if players is None or players == GAME_DEFAULTS["players"]:
            return tuple(GAME_DEFAULTS["bots"]), GAME_DEFAULTS["players"]
        return ("greedy",) * players, players
    if isinstance(bots, str):
        bots = [b for b in bots.split(",")]
    bots = list(bots)
    if not bots:
        raise ValueError("bots: the list is empty: give one bot per seat, like greedy,random")
    return seat_bots(tuple(bot_name(b) for b in bots), players, GAME_DEFAULTS["players"],
                     "greedy,random")


# --------------------------------------------------------------------------- seeds
#: ``(shuffle_seed, [bot_seed per seat])`` of a deal (``_runner.game_seeds``)
deal_seeds = game_seeds


# --------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class Settings(TableSettings):
    """Everything that decides a run's records (the manifest's ``settings``): the table,
    the rules and the seed (``TableSettings``), who starts and how the bots sit."""

    rules: RuleSet
    rotate_first: bool
    seats: str = "fixed"

    def to_json(self) -> dict:
        d = self.table_json(rules_to_dict, rotate_first=self.rotate_first)
        if self.seats != "fixed":   # fixed runs keep the settings (and hash) they had
            d["seats"] = self.seats
        return d

    @property
    def arrangements(self) -> list[tuple[int, ...]]:
        return arrangements(self.players, self.seats)

    @classmethod
    def from_json(cls, d: Mapping) -> Settings:
        return cls(**cls.table_fields(d, rules_from_dict), rotate_first=bool(d["rotate_first"]),
                   seats=str(d.get("seats", "fixed")))

    def plan(self) -> runs.ChunkPlan:
        """The chunks in seeding order: chunk i plays deals ``deal0 .. deal0 + n - 1``."""
        return self.chunk_specs("deal0", rotate_first=self.rotate_first,
                                rules=rules_to_dict(self.rules), seats=self.seats)


def _check_players(players: int, rules: RuleSet) -> None:
    need = players * rules.hand_size + 1 + (1 if rules.bottom_card else 0) + 1
    if need > rules.deck_size:
        most = (rules.deck_size - 2 - (1 if rules.bottom_card else 0)) // rules.hand_size
        raise ValueError(f"players: {players} players need {need} cards (hands, a stock card"
                         f"{', the bottom card' if rules.bottom_card else ''}) but the deck has "
                         f"{rules.deck_size}: at most {most} players with these rules")


# --------------------------------------------------------------------------- one chunk
def _deal_rows(state: GameState, cols: dict, row: int) -> int:
    """Write the finished deal's rows into ``cols`` from ``row``; return its length in turns."""
    n = state.n_players
    res = state.result
    turn_opened = [-1] * n
    length = 0
    for rec in state.history:
        if rec.player >= 0:
            length = rec.turn + 1
            if isinstance(rec, LayDownRecord) and rec.opening:
                turn_opened[rec.player] = rec.turn // n + 1
    assert res is not None, "the deal is over"
    end = _END_CODE[res.how]
    draw = res.winner is None
    for p in range(n):
        won = res.winner == p
        r = row + p
        cols["seat"][r] = p
        cols["first_player"][r] = state.first
        cols["score"][r] = res.scores[p]
        cols["opened"][r] = state.opened[p]
        cols["turn_opened"][r] = turn_opened[p]
        cols["went_out"][r] = won
        cols["hand_win"][r] = won and res.how in ("hand", "hand_bottom")
        cols["bottom_card_win"][r] = won and res.how == "hand_bottom"
        cols["deal_length"][r] = length
        cols["draw"][r] = draw
        cols["end"][r] = end
    return length


def uses_kernel(bots: Sequence[str], rules: RuleSet, engine: str = "auto") -> bool:
    """Whether a table of ``bots`` is played by the C kernel (``rummy51.r51.fastgame``): every
    seat a built-in bot (random, greedy, hand-hunter, tactician), rules it plays, and
    ``engine`` "auto" (or "c", which insists)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "python":
        return False
    other = sorted({b for b in bots if fastgame.bot_code(b) is None})
    why = None if not other else (
        f"it plays tables of the built-in bots only ({', '.join(fastgame.BOT_CODES)}), "
        f"not {', '.join(other)}")
    why = why or fastgame.supported(rules, len(bots))
    if why is not None and engine == "c":
        raise ValueError(f"engine c: the C game kernel cannot play this table: {why} "
                         "(engine auto falls back to the Python engine)")
    return why is None


def _kernel_rows(spec: Mapping, rules: RuleSet, cols: dict) -> int:
    """``play_chunk`` for tables of built-in bots, in C: the same deals (same seeds, same
    moves)."""
    players = spec["players"]
    kernel = fastgame.greedy_kernel(rules)
    entropy = spec["entropy"]
    base = tuple(runs.chunk_seed(entropy, spawn_key=spec["spawn_key"], index=spec["index"]).spawn_key)
    n = spec["n"]
    deals = spec["deal0"] + np.arange(n)
    firsts = (deals % players if spec["rotate_first"] else np.zeros(n, np.int64)).tolist()
    play, SeedSequence, default_rng = _game.play_table, np.random.SeedSequence, np.random.default_rng
    # the bots' names, every one a kernel bot (uses_kernel); a random seat: deal_seeds' bot seed
    codes = [fastgame.BOT_CODES[b] for b in spec["bots"]]
    perm = spec.get("perm")   # a seat arrangement: each bot keeps its own seed
    params = fastgame.kernel_params(codes)   # search and learned seats: their model, loaded
    res = [play(kernel, default_rng(SeedSequence(entropy, spawn_key=base + (j, 0))), players,
                firsts[j], codes, fastgame.seat_rngs(codes, entropy, base + (j,), perm), params)
           for j in range(n)]
    winner = np.array([r[0] for r in res], np.int64)
    how = np.array([r[1] for r in res], np.int64)
    length = np.array([r[2] for r in res], np.int64)
    for name, per_deal in (("deal", deals), ("first_player", firsts), ("deal_length", length),
                           ("draw", winner < 0), ("end", how)):
        cols[name][:] = np.repeat(per_deal, players)
    cols["seat"][:] = np.tile(np.arange(players), n)
    for name, k in (("score", 3), ("opened", 4), ("turn_opened", 5)):  # per seat
        cols[name][:] = np.array([r[k] for r in res]).ravel()
    won = np.flatnonzero(winner >= 0)
    rows = won * players + winner[won]
    cols["went_out"][rows] = True
    cols["hand_win"][rows] = np.isin(how[won], (1, 2))
    cols["bottom_card_win"][rows] = how[won] == 2
    return int(length.sum())


def play_chunk(spec: Mapping) -> dict:
    """Play one chunk's deals, once per seat arrangement (arrangement-major: each block
    of ``n * players`` rows is laid out like a fixed-seat chunk); returns its columns,
    the seconds and the turns played."""
    from .._version import __version__

    t0 = time.perf_counter()
    rules = rules_from_dict(spec["rules"])
    players = spec["players"]
    n = spec["n"]
    seats = spec.get("seats", "fixed")
    perms = arrangements(players, seats)
    block = n * players
    cols = {c: np.zeros(block * len(perms), DTYPES[c]) for c in chunk_columns(seats)}
    # hand histories come from the Python engine (the records are the same either way)
    histories: list[str] | None = [] if spec.get("histories") else None
    turns = 0
    for a, perm in enumerate(perms):
        sub = {c: v[a * block:(a + 1) * block] for c, v in cols.items()}
        if "arrangement" in sub:
            sub["arrangement"][:] = a
        seated = [spec["bots"][k] for k in perm]
        # the kernel seeds each random seat with its listed bot's own seed (``perm``)
        if histories is None and uses_kernel(seated, rules, spec.get("engine", "auto")):
            turns += _kernel_rows(dict(spec, bots=seated, perm=list(perm)), rules, sub)
        else:
            turns += _python_rows(spec, rules, sub, perm, histories)
    out = {"index": spec["index"], "cols": cols, "seconds": time.perf_counter() - t0,
           "turns": turns, "version": __version__}
    if histories is not None:
        out["histories"] = histories
    return out


def chunk_columns(seats: str) -> tuple[str, ...]:
    """The columns of a chunk: an ``arrangement`` column when the seats move."""
    return _CHUNK_COLUMNS if seats == "fixed" else _CHUNK_COLUMNS + ("arrangement",)


def _python_rows(spec: Mapping, rules: RuleSet, cols: dict, perm: Sequence[int],
                 histories: list | None = None) -> int:
    """One arrangement of a chunk through the Python engine: seat ``s`` holds listed bot
    ``perm[s]``, with that bot's own seed (so a bot's randomness follows the bot)."""
    players = spec["players"]
    n = spec["n"]
    makers = [bot_maker(spec["bots"][k]) for k in perm]
    turns = 0
    for j in range(n):
        deal = spec["deal0"] + j
        game_ss, bot_ss = deal_seeds(spec["entropy"], spec["spawn_key"], spec["index"], j, players)
        bots = [make(bot_ss[k]) for make, k in zip(makers, perm, strict=True)]
        first = deal % players if spec["rotate_first"] else 0
        try:
            state = play_deal(bots, rules, seed=game_ss, first=first)
        except Exception as e:  # a bot's bug: name the deal so it can be replayed
            raise RuntimeError(f"deal {deal} (chunk {spec['index']}, bots {', '.join(spec['bots'])}) "
                               f"failed: {type(e).__name__}: {e}") from e
        cols["deal"][j * players:(j + 1) * players] = deal
        turns += _deal_rows(state, cols, j * players)
        if histories is not None:
            histories.append(state.to_json())
    return turns


def check_cols(spec: Mapping, cols: Mapping[str, np.ndarray]) -> str | None:
    """Why ``cols`` cannot be chunk ``spec``'s records (None if they can)."""
    seats = spec.get("seats", "fixed")
    want = chunk_columns(seats)
    if set(cols) != set(want):
        return f"columns {sorted(cols)} instead of {sorted(want)}"
    k = len(arrangements(spec["players"], seats))
    block = spec["n"] * spec["players"]
    if len(cols["deal"]) != k * block:
        return f"{len(cols['deal'])} rows, not {k * block}"
    for a in range(k):
        sub = {c: v[a * block:(a + 1) * block] for c, v in cols.items()}
        if "arrangement" in sub and not (sub["arrangement"] == a).all():
            return f"arrangement {a}'s rows are out of order"
        why = _check_block(spec, sub)
        if why:
            return why if k == 1 else f"arrangement {a}: {why}"
    return None


def _check_block(spec: Mapping, cols: Mapping[str, np.ndarray]) -> str | None:
    """``check_cols`` of one arrangement's rows."""
    p, n = spec["players"], spec["n"]
    rows = n * p
    for c in cols:
        if len(cols[c]) != rows:
            return f"column {c} has {len(cols[c])} rows, not {rows}"
    deals = np.arange(spec["deal0"], spec["deal0"] + n)
    if not np.array_equal(cols["deal"], np.repeat(deals, p)):
        return f"its deals are not {spec['deal0']}..{spec['deal0'] + n - 1}, {p} rows each"
    if not np.array_equal(cols["seat"], np.tile(np.arange(p), n)):
        return "its seats are out of order"
    first = np.repeat(deals % p if spec["rotate_first"] else np.zeros(n, np.int64), p)
    if not np.array_equal(cols["first_player"], first):
        return "its first players are wrong"
    for c in ("opened", "went_out", "hand_win", "bottom_card_win", "draw"):
        if not np.isin(cols[c], (0, 1)).all():
            return f"column {c} holds values other than 0 and 1"
    if not ((0 <= cols["end"]) & (cols["end"] < len(ENDS))).all():
        return "unknown end codes"
    wins = np.asarray(cols["went_out"], np.int64).reshape(n, p).sum(1)
    draw = np.asarray(cols["draw"]).reshape(n, p)
    if (wins > 1).any() or not (draw == (wins == 0)[:, None]).all():
        return "a deal has more than one winner, or a draw with a winner"
    if (cols["hand_win"] > cols["went_out"]).any() or (cols["bottom_card_win"] > cols["hand_win"]).any():
        return "hand wins without going out"
    if not np.array_equal(cols["turn_opened"] >= 1, cols["opened"] == 1):
        return "turn_opened does not match opened"
    return None


# --------------------------------------------------------------------------- records
def record_columns(settings: Settings) -> tuple[str, ...]:
    """The chunk columns of a run of ``settings``."""
    return chunk_columns(settings.seats)


def units(settings: Settings, cols: Mapping[str, np.ndarray]) -> int:
    """Deals in the chunk columns ``cols`` (each played under every arrangement)."""
    return len(cols["deal"]) // (settings.players * len(settings.arrangements))


def frame(cols: Mapping[str, np.ndarray], settings: Settings) -> pd.DataFrame:
    """The records DataFrame of chunk columns."""
    import pandas as pd

    p = settings.players
    seat = np.asarray(cols["seat"], np.int8)
    first = np.asarray(cols["first_player"], np.int8)
    turn_opened = pd.array(np.asarray(cols["turn_opened"], np.int64), dtype="Int16")
    turn_opened[np.asarray(cols["turn_opened"]) < 0] = pd.NA
    bot_names = list(dict.fromkeys(settings.bots))
    bot_codes = np.array([bot_names.index(b) for b in settings.bots], np.int64)
    # the listed bot in each row's seat: seat s of arrangement a holds listed bot perm_a[s]
    listed = seat.astype(np.int64)
    arranged = "arrangement" in cols
    if arranged:
        perms = np.array(settings.arrangements, np.int64)
        listed = perms[np.asarray(cols["arrangement"], np.int64), listed]
    df = pd.DataFrame({
        "deal": np.asarray(cols["deal"], np.int64),
        "seat": seat,
        "bot": pd.Categorical.from_codes(bot_codes[listed], categories=bot_names)
        if len(seat) else pd.Categorical([], categories=bot_names),
        "position": ((seat.astype(np.int64) - first) % p).astype(np.int8),
        "first_player": first,
        "score": np.asarray(cols["score"], np.int32),
        "opened": np.asarray(cols["opened"]).astype(bool),
        "turn_opened": turn_opened,
        "went_out": np.asarray(cols["went_out"]).astype(bool),
        "hand_win": np.asarray(cols["hand_win"]).astype(bool),
        "bottom_card_win": np.asarray(cols["bottom_card_win"]).astype(bool),
        "deal_length": np.asarray(cols["deal_length"], np.int32),
        "draw": np.asarray(cols["draw"]).astype(bool),
        "end": pd.Categorical.from_codes(np.asarray(cols["end"], np.int64), categories=list(ENDS))
        if len(seat) else pd.Categorical([], categories=list(ENDS)),
    })
    if arranged:
        df.insert(1, "arrangement", np.asarray(cols["arrangement"], np.int16))
    return df


def cols_of(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """Chunk columns back from a records DataFrame (for reading records files)."""
    ends = df["end"].astype(str).map(_END_CODE)
    if ends.isna().any():
        raise ValueError("unknown values in column end")
    return {
        "deal": df["deal"].to_numpy(np.int64), "seat": df["seat"].to_numpy(np.int64),
        "first_player": df["first_player"].to_numpy(np.int64),
        "score": df["score"].to_numpy(np.int64),
        "opened": df["opened"].astype(bool).to_numpy(np.int64),
        "turn_opened": df["turn_opened"].astype("Int64").fillna(-1).to_numpy(np.int64),
        "went_out": df["went_out"].astype(bool).to_numpy(np.int64),
        "hand_win": df["hand_win"].astype(bool).to_numpy(np.int64),
        "bottom_card_win": df["bottom_card_win"].astype(bool).to_numpy(np.int64),
        "deal_length": df["deal_length"].to_numpy(np.int64),
        "draw": df["draw"].astype(bool).to_numpy(np.int64),
        "end": ends.to_numpy(np.int64),
        **({"arrangement": df["arrangement"].to_numpy(np.int64)} if "arrangement" in df else {}),
    }



# --------------------------------------------------------------------------- chunk files
DTYPES["arrangement"] = np.int16
_LAYOUT = runs.ChunkLayout(columns=_CHUNK_COLUMNS, dtypes=DTYPES, csv_tag=_CHUNK_TAG)
_LAYOUT_ARRANGED = runs.ChunkLayout(columns=_CHUNK_COLUMNS + ("arrangement",),
                                    dtypes=DTYPES, csv_tag=_CHUNK_TAG)


_FILES = ChunkFiles(_LAYOUT, _LAYOUT_ARRANGED, "deal0", check_cols)
write_chunk = _FILES.write_chunk
chunk_reader = _FILES.chunk_reader


def new_manifest(settings: Settings, fmt: str | None, command: str | None,
                  n_chunks: int, status: str = "running") -> dict:
    return runs.new_manifest(
        KIND, settings.to_json(), settings.config_hash,
        {"entropy": settings.entropy, "spawn_key": list(settings.spawn_key)}, fmt, command,
        n_chunks, status=status,
        counts={"games": settings.games, "players": settings.players,
                "records": settings.games * settings.players})


def read_manifest(path: str | os.PathLike) -> dict:
    """A games run directory's manifest (``ValueError`` naming what is wrong)."""
    return runs.RunDir.read_manifest(path, KIND)
