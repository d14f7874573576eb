"""The plan of an opening study (a private module shared by ``openings``): the defaults, the
rule sweep, the settings and their chunks, the chunk kernel, the chunk files and the
running totals."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core, runs
from .._checks import int_arg
from ..rules import PRESETS, RuleSet, rules_from_dict, rules_label, rules_to_dict
from ..solver import compiled_rules

KIND = "openings"
#: The progress bar's name and what it counts (``_runner.RunPlan``).
LABEL = "openings"
UNIT = " deals"
#: where a local run plays its chunks: threads (the core releases the GIL)
LOCAL = "threads"
#: the run keeps no records file: its results are the chunks' counts summed
RECORDS = False
_DEFAULT_RULES = PRESETS["default"]
_RULE_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))

#: Hands of the deal study, in the core's order (bit k of ``what`` = hand k).
HANDS = ("first", "other", "raw")
#: Joker classes: jokers in the hand (0, 1, 2, 3 or more).
JOKER_CLASSES = ("0", "1", "2", "3+")
#: Bins of the best-value histogram for the default rules (the bins grow with the rules:
#: ``hist_bins``); the last bin holds the hands the search gave up on.
HIST_BINS = 256
MAX_SEATS = 6
MAX_HAND = 120  # the core's MAX_HAND (_core.pxd)

#: Defaults of ``simulate_openings`` and ``opening_odds`` (``None`` means these).
DEFAULTS: dict[str, Any] = {
    "deals": 1_000_000,
    "hands": HANDS,
    "players": (4,),
    "turns": 15,
    "turn_deals": 25_000,
    "chunk_size": 250_000,
    "turn_chunk_size": 2_500,
    "odds_samples": 100_000,
    "odds_draws": 5,
    "odds_chunk_size": 25_000,
}

_ARRAY_IDS = {"hist": 0, "goout": 1, "first_open": 2, "dealt": 3}
_ARRAY_NAMES = {v: k for k, v in _ARRAY_IDS.items()}

def rule_sweep(base: None | str | RuleSet | Sequence[str | RuleSet] = None,
               **fields: Any) -> dict[str, RuleSet]:
    """Labelled rule sets for a sweep: every combination of ``base`` (a preset name,
    a RuleSet or a list of them; default the default rules) and the values given for
    ``RuleSet`` fields (a value or a list of values)::

        >>> list(rule_sweep(jokers=[2, 4], threshold=[40, 51]))
        ['jokers=2 threshold=40', 'jokers=2 threshold=51', 'jokers=4 threshold=40', 'jokers=4 threshold=51']
        >>> list(rule_sweep(["default", "gin"]))
        ['default', 'gin']

    Labels name the preset (when ``base`` names one) and every field given."""
    for f in fields:
        if f not in _RULE_FIELDS:
            raise ValueError(f"{f!r} is not a RuleSet field: choose from {', '.join(_RULE_FIELDS)}")
    if base is None:
        bases: list[tuple[str | None, RuleSet]] = [(None, _DEFAULT_RULES)]
    else:
        items = [base] if isinstance(base, (str, RuleSet)) else list(base)
        if not items:
            raise ValueError("rule_sweep: base is an empty list")
        bases = []
        for b in items:
            if isinstance(b, str):
                bases.append((b, RuleSet.preset(b)))
            elif isinstance(b, RuleSet):
                bases.append((rules_label(b) if len(items) > 1 else None, b))
            else:
                raise TypeError(f"rule_sweep: base must be preset names or RuleSets, got {b!r}")
    axes = []
    for f, values in fields.items():
        vals = list(values) if isinstance(values, (list, tuple, range, np.ndarray)) else [values]
        if not vals:
            raise ValueError(f"rule_sweep: no values for {f}")
        axes.append([(f, v) for v in vals])
    out: dict[str, RuleSet] = {}
    for name, rules in bases:
        for combo in itertools.product(*axes):
            label = " ".join(([name] if name else []) + [f"{f}={v}" for f, v in combo])
            label = label or rules_label(rules)
            try:
                r = rules.replace(**dict(combo)) if combo else rules
            except (TypeError, ValueError) as e:
                raise type(e)(f"rule sweep {label!r}: {e}") from None
            if label in out:
                raise ValueError(f"rule sweep: configuration {label!r} appears twice")
            out[label] = r
    return out


def _configs(rules: Any) -> list[tuple[str, RuleSet]]:
    """The (label, RuleSet) configurations of a study's ``rules`` argument."""
    if rules is None:
        return [("default", _DEFAULT_RULES)]
    if isinstance(rules, RuleSet):
        return [(rules_label(rules), rules)]
    if isinstance(rules, str):
        return [(rules, RuleSet.preset(rules))]
    if isinstance(rules, Mapping):
        items = list(rules.items())
    else:
        try:
            seq = list(rules)
        except TypeError:
            raise TypeError(f"rules must be a RuleSet, a list or dict of RuleSets, or None; "
                            f"got {type(rules).__name__}") from None
        items = []
        for r in seq:
            if isinstance(r, str):
                items.append((r, RuleSet.preset(r)))
            else:
                items.append((rules_label(r) if isinstance(r, RuleSet) else None, r))
    if not items:
        raise ValueError("rules: the list of rule sets is empty")
    out, seen = [], set()
    for label, r in items:
        if not isinstance(r, RuleSet):
            raise TypeError(f"rules must hold RuleSets, got {type(r).__name__}")
        label = str(label)
        if label in seen:
            raise ValueError(f"rules: configuration {label!r} appears twice (give a dict of labels)")
        seen.add(label)
        out.append((label, r))
    return out


# --------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class _Settings:
    """Everything that decides a study's numbers (the manifest's ``settings``)."""

    configs: tuple[tuple[str, RuleSet], ...]
    deals: int
    hands: tuple[str, ...]
    players: tuple[int, ...]
    turns: int
    turn_deals: int
    chunk_size: int
    turn_chunk_size: int
    entropy: Any
    spawn_key: tuple[int, ...]

    def to_json(self) -> dict:
        return {
            "configs": [{"label": lab, "rules": rules_to_dict(r)} for lab, r in self.configs],
            "deals": self.deals,
            "hands": list(self.hands),
            "players": list(self.players),
            "turns": self.turns,
            "turn_deals": self.turn_deals,
            "chunk_size": self.chunk_size,
            "turn_chunk_size": self.turn_chunk_size,
            "seed": {"entropy": self.entropy, "spawn_key": list(self.spawn_key)},
        }

    @classmethod
    def from_json(cls, d: Mapping) -> _Settings:
        ent = d["seed"]["entropy"]
        return cls(
            configs=tuple((c["label"], rules_from_dict(c["rules"])) for c in d["configs"]),
            deals=int(d["deals"]), hands=tuple(d["hands"]), players=tuple(int(p) for p in d["players"]),
            turns=int(d["turns"]), turn_deals=int(d["turn_deals"]), chunk_size=int(d["chunk_size"]),
            turn_chunk_size=int(d["turn_chunk_size"]),
            entropy=ent if isinstance(ent, int) else [int(x) for x in ent],
            spawn_key=tuple(int(k) for k in d["seed"]["spawn_key"]),
        )

    @property
    def config_hash(self) -> str:
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def bins(self) -> int:
        """Bins of the best-value histogram (``hist_bins``)."""
        return hist_bins(self.configs)

    @property
    def what(self) -> int:
        return sum(1 << HANDS.index(h) for h in self.hands)

    def plan(self) -> list[dict]:
        """The chunks, in seeding order: config by config, its deal chunks then its
        by-turn chunks for each player count."""
        specs: list[dict] = []

        def add(part: str, c: int, n: int, players: int = 0) -> None:
            specs.append({"index": len(specs), "part": part, "config": c, "players": players,
                          "n": n})

        for c in range(len(self.configs)):
            if self.deals and self.hands:
                full, rest = divmod(self.deals, self.chunk_size)
                for n in [self.chunk_size] * full + ([rest] if rest else []):
                    add("deals", c, n)
            if self.turn_deals:
                for p in self.players:
                    full, rest = divmod(self.turn_deals, self.turn_chunk_size)
                    for n in [self.turn_chunk_size] * full + ([rest] if rest else []):
                        add("turns", c, n, p)
        bins = self.bins
        for s in specs:
            if bins != HIST_BINS:
                s["bins"] = bins
            rules = self.configs[s["config"]][1]
            s.update(rules=rules_to_dict(rules), hand_size=rules.hand_size, what=self.what,
                     turns=self.turns, entropy=self.entropy, spawn_key=list(self.spawn_key))
        return specs


def _check_settings(configs: Sequence[tuple[str, RuleSet]], deals: int, hands: Sequence[str],
                    players: Sequence[int], turns: int, turn_deals: int, chunk_size: int,
                    turn_chunk_size: int) -> None:
    for label, r in configs:
        if 2 * r.hand_size + 2 > r.deck_size:
            raise ValueError(f"rules {label!r}: two hands of {r.hand_size} cards and a draw do not "
                             f"fit the {r.deck_size}-card deck")
        if r.hand_size + 2 > MAX_HAND:
            raise ValueError(f"rules {label!r}: hand_size {r.hand_size} is too large for the study")
        if turn_deals:
            for p in players:
                if p * r.hand_size + 2 > r.deck_size:
                    raise ValueError(
                        f"players: {p} hands of {r.hand_size} cards do not fit the "
                        f"{r.deck_size}-card deck of rules {label!r} (at most {r.max_players()})")
    if deals == 0 and (turn_deals == 0 or not players):
        raise ValueError("nothing to simulate: deals and turn_deals (or players) are all 0")


def _parse_hands(hands: Any) -> tuple[str, ...]:
    if isinstance(hands, str):
        hands = [h for h in hands.replace(",", " ").split() if h]
    out = []
    for h in hands:
        if h not in HANDS:
            raise ValueError(f"hands: {h!r} is not a hand of the study: choose from {', '.join(HANDS)}")
        if h not in out:
            out.append(h)
    return tuple(h for h in HANDS if h in out)


def _parse_players(players: Any) -> tuple[int, ...]:
    if isinstance(players, (int, np.integer)) and not isinstance(players, bool):
        players = (players,)
    out = []
    for p in players:
        p = int_arg("players", p, 1, MAX_SEATS)
        if p in out:
            raise ValueError(f"players: {p} appears twice")
        out.append(p)
    return tuple(out)


def value_bound(rules: RuleSet) -> int:
    """An upper bound of the best opening value of any hand of the opening study under
    ``rules``: the ``hand_size + 1`` highest card values of the deck added up (a joker
    worth as much as the highest card)."""
    from .._catalogue import card_max_value, joker_max_value

    vals = sorted([card_max_value(c, rules) for c in range(52)] * rules.decks
                  + [joker_max_value(rules)] * rules.jokers, reverse=True)
    return sum(vals[: rules.hand_size + 1])


def hist_bins(configs: Sequence[tuple[str, RuleSet]]) -> int:
    """Histogram bins for a study of ``configs``: 256 (the default rules reach about
    150), more when a rule set could reach 255, so that no value is ever capped and the
    last bin stays free for the hands the search gave up on."""
    return max([HIST_BINS] + [value_bound(r) + 2 for _, r in configs])


# --------------------------------------------------------------------------- chunk kernels
def _zeros(spec: Mapping) -> dict[str, np.ndarray]:
    if spec["part"] == "deals":
        return {"hist": np.zeros((3, 4, spec.get("bins", HIST_BINS)), np.int64),
                "goout": np.zeros((3, 4), np.int64)}
    p, t = spec["players"], spec["turns"]
    return {"first_open": np.zeros((p, 4, t + 1), np.int64), "dealt": np.zeros((p, 4), np.int64)}


def _compute_chunk(spec: Mapping) -> tuple[dict[str, np.ndarray], float]:
    """Run one chunk in the core; returns its count arrays and the kernel's seconds."""
    rules = rules_from_dict(spec["rules"])
    cr = compiled_rules(rules)
    rng = runs.chunk_rng(spec["entropy"], spec["spawn_key"], spec["index"])
    out = _zeros(spec)
    t0 = time.perf_counter()
    if spec["part"] == "deals":
        _core.study_deals(cr, rng, spec["n"], spec["hand_size"], spec["what"],
                          out["hist"], out["goout"])
    else:
        _core.study_turns(cr, rng, spec["n"], spec["hand_size"], spec["players"], spec["turns"],
                          out["first_open"], out["dealt"])
    return out, time.perf_counter() - t0


def play_chunk(spec: dict) -> dict:
    """One chunk in the core (a thread of a local run, or a Dask task: the rules are
    rebuilt from their dict): its count arrays (``cols``) and the kernel's seconds."""
    from .._version import __version__

    counts, secs = _compute_chunk(spec)
    return {"index": spec["index"], "cols": counts, "seconds": secs, "version": __version__}


def check_cols(spec: Mapping, cols: Mapping[str, np.ndarray]) -> str | None:
    """Why the count arrays ``cols`` cannot be chunk ``spec``'s (None if they can)."""
    return _check_chunk_counts(spec, cols)


def _check_chunk_counts(spec: Mapping, counts: Mapping[str, np.ndarray]) -> str | None:
    """Why ``counts`` cannot be chunk ``spec``'s result (None if they can)."""
    want = _zeros(spec)
    if set(counts) != set(want):
        return f"arrays {sorted(counts)} instead of {sorted(want)}"
    for k, a in want.items():
        if counts[k].shape != a.shape:
            return f"{k} has shape {counts[k].shape}, not {a.shape}"
        if (counts[k] < 0).any():
            return f"{k} holds negative counts"
    n = spec["n"]
    if spec["part"] == "deals":
        for i, h in enumerate(HANDS):
            total = int(counts["hist"][i].sum())
            if spec["what"] & (1 << i) and total != n:
                return f"{total} {h} hands counted, not {n}"
    else:
        per_seat = counts["dealt"].sum(1)
        if (per_seat != n).any():
            return f"dealt counts {per_seat.tolist()}, not {n} per seat"
        if (counts["first_open"].sum((1, 2)) > per_seat).any():
            return "more openings than deals"
    return None


# --------------------------------------------------------------------------- chunk files
def _encode(counts: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids, idx, val = [], [], []
    for name in sorted(counts, key=_ARRAY_IDS.__getitem__):
        flat = counts[name].ravel()
        nz = np.flatnonzero(flat)
        ids.append(np.full(nz.size, _ARRAY_IDS[name], np.int64))
        idx.append(nz.astype(np.int64))
        val.append(flat[nz].astype(np.int64))
    a, i, v = (np.concatenate(x) if x else np.zeros(0, np.int64) for x in (ids, idx, val))
    return a, i, v


_LAYOUT = runs.ChunkLayout(columns=("array", "index", "count"),
                           dtypes={"array": np.int8, "index": np.int32, "count": np.int64},
                           csv_tag="# rummy51-chunk ")


def _chunk_meta(spec: Mapping) -> dict:
    return {"chunk": spec["index"], "part": spec["part"], "config": spec["config"],
            "players": spec["players"], "n": spec["n"]}


def _write_chunk(run: runs.RunDir, spec: Mapping, counts: Mapping[str, np.ndarray]) -> None:
    a, i, v = _encode(counts)
    runs.write_chunk(run.chunk_path(spec["index"]), run.fmt, _LAYOUT,
                     {"array": a, "index": i, "count": v},
                     dict(_chunk_meta(spec), config_hash=run.hash))


def write_chunk(run: runs.RunDir, spec: Mapping, res: Mapping) -> None:
    """A chunk's counts into its file."""
    _write_chunk(run, spec, res["cols"])


def chunk_reader(run: runs.RunDir) -> Callable[[Path, Mapping], dict]:
    """Reads a chunk file of ``run`` back to the chunk's result (its verified counts;
    the file keeps no kernel time)."""
    read_counts = _chunk_reader(run)

    def read(path: Path, spec: Mapping) -> dict:
        return {"index": spec["index"], "cols": read_counts(path, spec), "seconds": 0.0}
    return read


def new_manifest(settings: _Settings, fmt: str | None, command: str | None, n_chunks: int,
                 status: str = "running") -> dict:
    return runs.new_manifest(
        KIND, settings.to_json(), settings.config_hash,
        {"entropy": settings.entropy, "spawn_key": list(settings.spawn_key)}, fmt, command,
        n_chunks, status=status,
        counts={"deals_per_config": settings.deals,
                "turn_deals_per_config_and_players": settings.turn_deals,
                "configs": len(settings.configs)})


def read_manifest(path: str | Path) -> dict:
    """An openings run directory's manifest (``ValueError`` naming what is wrong)."""
    return runs.RunDir.read_manifest(path, KIND)


def _chunk_reader(run: runs.RunDir) -> Callable[[Path, Mapping], dict[str, np.ndarray]]:
    """Reads a chunk file of ``run`` back to its verified counts."""
    def read(path: Path, spec: Mapping) -> dict[str, np.ndarray]:
        _, cols = runs.read_chunk(path, run.fmt, _LAYOUT, run.hash, _chunk_meta(spec))
        counts = _decode(spec, cols["array"], cols["index"], cols["count"])
        why = _check_chunk_counts(spec, counts)
        if why:
            raise ValueError(why)
        return counts
    return read


def _decode(spec: Mapping, a: np.ndarray, i: np.ndarray, v: np.ndarray) -> dict[str, np.ndarray]:
    out = _zeros(spec)
    for aid, name in _ARRAY_NAMES.items():
        if name not in out:
            if (a == aid).any():
                raise ValueError(f"holds {name} counts, which a {spec['part']} chunk has not")
            continue
        sel = a == aid
        flat = out[name].ravel()
        ii = i[sel]
        if ii.size and (ii.min() < 0 or ii.max() >= flat.size):
            raise ValueError(f"{name} index out of range")
        np.add.at(flat, ii, v[sel])
        out[name] = flat.reshape(out[name].shape)
    return out




class _Totals:
    """Running sums of the chunks' counts (integers: order does not matter)."""

    def __init__(self, s: _Settings) -> None:
        C, P = len(s.configs), len(s.players)
        self.qi = {p: q for q, p in enumerate(s.players)}
        self.hist = np.zeros((C, 3, 4, s.bins), np.int64)
        self.goout = np.zeros((C, 3, 4), np.int64)
        self.first_open = np.zeros((C, P, MAX_SEATS, 4, s.turns + 1), np.int64)
        self.dealt = np.zeros((C, P, MAX_SEATS, 4), np.int64)

    def add(self, spec: Mapping, counts: Mapping[str, np.ndarray]) -> None:
        c = spec["config"]
        if spec["part"] == "deals":
            self.hist[c] += counts["hist"]
            self.goout[c] += counts["goout"]
        else:
            q, p = self.qi[spec["players"]], spec["players"]
            self.first_open[c, q, :p] += counts["first_open"]
            self.dealt[c, q, :p] += counts["dealt"]

    def arrays(self) -> dict[str, np.ndarray]:
        return {"hist": self.hist, "goout": self.goout, "first_open": self.first_open,
                "dealt": self.dealt}


#: The settings class of the plan (``_runner.RunPlan``'s ``Settings``).
Settings = _Settings
