"""Strength ladders and strategy tables under strong play: writes docs/strength.md.

Run from the repository root (the page's own numbers come from this command)::

    python bench/strength.py --out docs/strength.md

For each game (Rummy 51: ``rummy51.r51.bots.BOTS``; Carousel:
``rummy51.carousel.bots.BOTS``; every built-in bot, whatever the lists hold when it runs):

* a 2-player round robin, every pair of bots with the seats permuted (each game played
  under both seat orders, ``seats="permute"``), pooled into Bradley-Terry ratings with
  bootstrap intervals (``rummy51.ratings.bradley_terry``), and every pair's paired
  differences (``study.paired(a, b)``);
* 4-player mixed tables with the seats rotated (``seats="rotate"``): one table per
  choice of 4 bots while there are at most 5 bots, else one per cyclic window of 4 in
  the bots' order (``_tables``; with fewer than 4 bots, the list repeated to 4 seats),
  pooled into ratings, and each bot's win rate;
* each bot's speed: 2-player self-play games per CPU-second (the CPU time of the
  process that plays them, chunk by chunk, so the figure has an interval);
* Rummy 51, "when to lay down": a seeded paired experiment (the same deals, a
  tactician that opens at once against one that waits), by the value of the opening;
* Carousel, "when to knock": P(undercut) and the knocker's round score by points in
  hand at the knock and by turn, from the self-play runs of every bot.

Bots named by ``--slow`` (default: the search bots) play ``--slow-games`` games a pair
(and ``--slow-table-games`` a 4-player table; 0 seats the other bots among themselves)
instead of ``--games`` (``--table-games``), so
the page regenerates in about a quarter of an hour on 2 cores; the page says which
sizes it used. ``--jobs`` runs that many runs at once (processes). Sizes below 1 are
refused with one line on stderr (exit 2).
"""
from __future__ import annotations

import argparse
import itertools
import math
import os
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np

Z = 1.959963984540054
#: CPU seconds of the process that plays a run, chunk by chunk (workers=1: in-process)
_CHUNK = 25


# --------------------------------------------------------------------------- options
@dataclass(frozen=True)
class Sizes:
    games: int = 2000
    slow_games: int = 100
    table_games: int = 500
    slow_table_games: int = 50
    selfplay_games: int = 500
    laydown_deals: int = 10_000
    bootstrap: int = 200
    seed: int = 2026
    slow: tuple[str, ...] = ("search", "search-plain", "search-learned")
    jobs: int = 2


_SIZE_FLAGS = ("games", "slow_games", "table_games", "slow_table_games", "selfplay_games",
               "laydown_deals", "bootstrap", "jobs")


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (no usage block)
        sys.stderr.write(f"{self.prog}: {message}\n")
        sys.exit(2)


def _count(flag: str, lo: int = 1):
    def parse(text: str) -> int:
        try:
            v = int(text.replace("_", "").replace(",", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo}, got {v}")
        return v
    return parse


def build_parser() -> argparse.ArgumentParser:
    d = Sizes()
    p = _OneLineParser(prog="strength.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="-", help="the page to write (default: standard output)")
    for name in _SIZE_FLAGS:
        flag = "--" + name.replace("_", "-")
        lo = (0 if name in ("bootstrap", "slow_table_games")
              else (2 if name in ("laydown_deals",) else 1))
        p.add_argument(flag, type=_count(flag, lo), default=getattr(d, name), dest=name)
    p.add_argument("--seed", type=_count("--seed", 0), default=d.seed)
    p.add_argument("--slow", default=",".join(d.slow),
                   help="bots that play the --slow-* sizes (comma-separated; '' for none)")
    p.add_argument("--only", choices=("r51", "carousel"), default=None,
                   help="one game only (the page then has one game's sections)")
    return p


# --------------------------------------------------------------------------- runs
def _seed(sizes: Sizes, *key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(sizes.seed, spawn_key=tuple(key))


def _run(job: dict) -> dict:
    """One study in this process (workers=1), timed chunk by chunk in CPU seconds."""
    from rummy51.studies.carousel import simulate_carousel
    from rummy51.studies.games import simulate_games

    cpu: list[float] = []
    t0 = [time.process_time()]

    def tick(index, done, total):
        t = time.process_time()
        cpu.append(t - t0[0])
        t0[0] = t

    fn = simulate_games if job["game"] == "r51" else simulate_carousel
    kw: dict[str, Any] = {}
    if job["game"] == "r51":
        kw["chunk_size"] = min(_CHUNK, job["games"])
    else:
        kw["chunk_size"] = min(max(1, _CHUNK // 5), job["games"])
    t_start = time.process_time()
    st = fn(players=len(job["bots"]), bots=job["bots"], games=job["games"], seed=job["seed"],
            workers=1, progress=False, seats=job["seats"], on_chunk=tick, **kw)
    total = time.process_time() - t_start
    out = {"job": job, "cpu": total, "chunk_cpu": cpu, "chunk_size": kw["chunk_size"]}
    if job["game"] == "r51":
        out["records"] = st.records
    else:
        out["records"] = st.records
        out["rating_records"] = st.rating_records()
    out["paired"] = ({f"{a}|{b}": st.paired(a, b) for a, b in
                      itertools.combinations(dict.fromkeys(job["bots"]), 2)}
                     if len(set(job["bots"])) > 1 else {})
    return out


def _table_bots(game: str, bots: list[str], players: int) -> list[str]:
    """The bots that sit at a table of ``players`` (a bot's ``check_table`` may refuse)."""
    from rummy51 import RuleSet
    from rummy51.carousel import CarouselRules
    from rummy51.carousel.bots import BOTS as CBOTS
    from rummy51.r51.bots import BOTS as RBOTS

    reg, rules = ((RBOTS, RuleSet()) if game == "r51"
                  else (CBOTS, CarouselRules.for_players(players)))
    out = []
    for b in bots:
        try:
            getattr(reg.get(b), "check_table", lambda r, n: None)(rules, players)
        except ValueError:
            continue
        out.append(b)
    return out


def _tables(seated: list[str]) -> list[tuple[str, ...]]:
    """The 4-player tables: every choice of 4 bots while there are at most 5 (at most 5
    tables), else the cyclic windows of 4 in the bots' order (bots i..i+3 mod n: n
    tables, each bot at 4 of them, each next to every bot within 3 places), so the
    tables grow with the bots, not with their fourth power; with fewer than 4 bots, the
    list repeated to 4 seats."""
    n = len(seated)
    if n < 4:
        return [tuple((seated * 4)[:4])]
    if n <= 5:
        return list(itertools.combinations(seated, 4))
    return [tuple(seated[(i + j) % n] for j in range(4)) for i in range(n)]


def _jobs(game: str, bots: list[str], sizes: Sizes, gi: int) -> list[dict]:
    slow = set(sizes.slow)
    jobs = []
    k = 0
    for a, b in itertools.combinations(bots, 2):
        n = sizes.slow_games if {a, b} & slow else sizes.games
        jobs.append({"game": game, "kind": "pair", "bots": (a, b), "games": n,
                     "seats": "permute", "seed": _seed(sizes, gi, 0, k)})
        k += 1
    seated = _table_bots(game, bots, 4)   # the ppo bots play 2-player tables only
    if sizes.slow_table_games == 0:
        # no table with a slow bot: the tables are those of the others among themselves
        # (every one of them at a table), not the full plan less its slow tables
        seated = [b for b in seated if b not in slow]
    tables = _tables(seated) if seated else []
    for k, t in enumerate(tables):
        n = sizes.slow_table_games if set(t) & slow else sizes.table_games
        jobs.append({"game": game, "kind": "table", "bots": t, "games": n, "seats": "rotate",
                     "seed": _seed(sizes, gi, 1, k)})
    for k, b in enumerate(bots):
        n = sizes.slow_games if b in slow else sizes.selfplay_games
        jobs.append({"game": game, "kind": "self", "bots": (b, b), "games": n, "seats": "fixed",
                     "seed": _seed(sizes, gi, 2, k)})
    return jobs


# --------------------------------------------------------------------------- the lay-down experiment
def _laydown_bot(wait: bool):
    """A tactician that records its first chance to open and then opens at once
    (``wait=False``: the tactician itself) or holds (``wait=True``)."""
    from rummy51.r51.actions import Discard, LayDown
    from rummy51.r51.bots import HandHunterBot, TacticianBot, _go_out_lay_down, _must_use, discardable
    from rummy51.r51.melds import card_value
    from rummy51.solver import best_opening

    class FirstChanceBot(TacticianBot):
        _outs = HandHunterBot._outs
        _best_hold_discard = HandHunterBot._best_hold_discard
        #: hold at most this many own turns, only in the first MAX_ROUND rounds and
        #: while every opponent holds more than MIN_CARDS cards (the hand hunter's limits)
        HOLD, MAX_ROUND, MIN_CARDS = 3, 6, 5

        def __init__(self):
            super().__init__()
            self.wait = wait
            self.first: dict | None = None
            self.held = 0

        def _play(self, view):
            ti = view.turn_info
            if view.opened[view.player] or ti.freed_joker:
                return super()._play(view)
            lay = _go_out_lay_down(view)
            if lay is not None:
                return lay
            hand = list(view.hand)
            o = best_opening(hand, view.rules, keep=1, must_use=_must_use(view))
            if not o.can_open:
                return super()._play(view)
            cards = discardable(view)
            may_hold = (not ti.must_open and bool(cards) and view.round < self.MAX_ROUND
                        and self.held < self.HOLD
                        and all(n > self.MIN_CARDS for p, n in enumerate(view.hand_sizes)
                                if p != view.player))
            if self.first is None:
                self.first = {"value": int(o.value), "round": int(view.round),
                              "left": int(sum(card_value(c, view.rules) for c in o.leftover)),
                              "may_hold": may_hold}
            if self.wait and may_hold:
                self.held += 1
                return Discard(self._best_hold_discard(view, cards)[0])
            return LayDown.of(o.melds)

    return FirstChanceBot()


def _laydown(job: dict) -> dict:
    """Deals ``lo..hi-1`` of the lay-down experiment: each deal played twice (subject
    opening at once, subject waiting) against a tactician, the subject in seat
    ``deal % 2``, the first player ``(deal // 2) % 2``."""
    from rummy51.r51.bots import TacticianBot, play_deal
    from rummy51.rules import RuleSet

    t0 = time.process_time()
    rules = RuleSet()
    rows = []
    for d in range(job["lo"], job["hi"]):
        seat = d % 2
        first = (d // 2) % 2
        res = {}
        for arm, wait in (("open", False), ("wait", True)):
            me = _laydown_bot(wait)
            bots = [TacticianBot(), TacticianBot()]
            bots[seat] = me
            st = play_deal(bots, rules, seed=np.random.SeedSequence(job["entropy"],
                                                                    spawn_key=(0, 3, d)),
                           first=first)
            r = st.result
            res[arm] = (me.first, int(r.scores[seat]), r.winner == seat,
                        r.winner == seat and r.how in ("hand", "hand_bottom"), me.held)
        fo, fw = res["open"][0], res["wait"][0]
        if fo != fw:
            raise RuntimeError(f"deal {d}: the arms differ before the first chance to open")
        if fo is None or not fo["may_hold"]:
            rows.append({"deal": d, "decision": False})
            continue
        rows.append({"deal": d, "decision": True, "value": fo["value"], "left": fo["left"],
                     "round": fo["round"],
                     "score_open": res["open"][1], "score_wait": res["wait"][1],
                     "win_open": res["open"][2], "win_wait": res["wait"][2],
                     "hand_open": res["open"][3], "hand_wait": res["wait"][3],
                     "held": res["wait"][4]})
    return {"job": job, "rows": rows, "cpu": time.process_time() - t0}


def _laydown_jobs(sizes: Sizes, parts: int) -> list[dict]:
    n = sizes.laydown_deals
    cuts = np.linspace(0, n, parts + 1).astype(int)
    return [{"game": "r51", "kind": "laydown", "lo": int(a), "hi": int(b),
             "entropy": sizes.seed} for a, b in itertools.pairwise(cuts) if b > a]


# --------------------------------------------------------------------------- formatting
def _pct(p, lo, hi, digits=1) -> str:
    if p is None or not np.isfinite(p):
        return "n/a"
    return f"{100 * p:.{digits}f} % [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def _rating(x, lo, hi) -> str:
    """A Bradley-Terry rating with its bootstrap interval; a bootstrap too small to give
    one (a few games, or a bot that never won or never lost) says so."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{x:.0f} (too few games for an interval)"
    return f"{x:.0f} [{lo:.0f}, {hi:.0f}]"


def _pm(m, se, digits=2, sign=False) -> str:
    if not np.isfinite(m):
        return "n/a"
    s = f"{m:+.{digits}f}" if sign else f"{m:.{digits}f}"
    if not np.isfinite(se):
        return f"{s} (n/a)"
    return f"{s} ± {Z * se:.{digits}f}"


def _diff(m, lo, hi, scale=1.0, digits=1, unit="") -> str:
    if not np.isfinite(m):
        return "n/a"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{scale * m:+.{digits}f}{unit} (one: no interval)"
    return (f"{scale * m:+.{digits}f}{unit} [{scale * lo:+.{digits}f}, "
            f"{scale * hi:+.{digits}f}]")


def _wilson(k: int, n: int):
    from rummy51.stats import proportion

    p, lo, hi = proportion(k, n)
    return float(p), float(lo), float(hi)


def _mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, float)
    if x.size == 0:
        return float("nan"), float("nan")
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")


def _speed(res: dict) -> tuple[float, float, float]:
    """Games per CPU-second of a self-play run, with a 95 % interval from the chunks
    (the ratio of total games to total CPU time; delta-method standard error)."""
    games = res["job"]["games"]
    cpu = np.asarray(res["chunk_cpu"], float)
    n = np.full(len(cpu), float(res["chunk_size"]))
    if len(cpu):
        n[-1] = games - res["chunk_size"] * (len(cpu) - 1)
    rate = games / res["cpu"]
    if len(cpu) < 2 or cpu.sum() <= 0:
        return rate, float("nan"), float("nan")
    r = n.sum() / cpu.sum()
    resid = n - r * cpu
    se = math.sqrt(np.sum(resid ** 2) / (len(cpu) - 1) / len(cpu)) / cpu.mean()
    return rate, max(0.0, rate - Z * se), rate + Z * se


def _rate(r: float, lo: float, hi: float) -> str:
    digits = 1 if r < 100 else 0
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{r:,.{digits}f} (one chunk: no interval)"
    return f"{r:,.{digits}f} [{lo:,.{digits}f}, {hi:,.{digits}f}]"


def _table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def _pool(results: list[dict], key: str = "records"):
    """The records of several runs as one frame, each run's deals numbered apart (the
    runs draw independent deals)."""
    import pandas as pd

    frames, offset = [], 0
    for res in results:
        r = res[key].copy()
        r["deal"] = r["deal"].astype(np.int64) + offset
        r["bot"] = r["bot"].astype(str)
        offset = int(r["deal"].max()) + 1 if len(r) else offset
        frames.append(r)
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- sections
def _ladder(game: str, bots: list[str], results: list[dict], sizes: Sizes) -> list[str]:
    from rummy51.ratings import bradley_terry

    key = "records" if game == "r51" else "rating_records"
    unit = "deal" if game == "r51" else "game"
    pairs = [r for r in results if r["job"]["kind"] == "pair"]
    tables = [r for r in results if r["job"]["kind"] == "table"]
    selfs = {r["job"]["bots"][0]: r for r in results if r["job"]["kind"] == "self"}
    slow = [b for b in bots if b in sizes.slow]
    out = []

    bt2 = bradley_terry(_pool(pairs, key), bootstrap=sizes.bootstrap, seed=sizes.seed)
    out += ["### Two players: round robin, seats permuted", "",
            f"Every pair of bots plays {sizes.games:,} {unit}s"
            + (f" ({sizes.slow_games:,} for pairs with {', '.join(f'`{b}`' for b in slow)})"
               if slow else "")
            + f", each {unit} twice (both seat orders, the same cards). Bradley-Terry ratings "
            f"(Elo scale, mean 1500; a {unit}'s winner beats the other seat; "
            f"{sizes.bootstrap} bootstrap refits over {unit}s for the 95 % interval) "
            f"from all pairs pooled; beside each, the bot's speed: 2-player self-play "
            f"{unit}s per CPU-second (95 % interval over chunks of the self-play run).", ""]
    rows = []
    for i, r in bt2.iterrows():
        s = selfs.get(r.bot)
        sp = "n/a" if s is None else _rate(*_speed(s))
        rows.append([str(i + 1), f"`{r.bot}`",
                     _rating(r.rating, r.rating_lo, r.rating_hi),
                     f"{int(r.wins):,} / {int(r.comparisons):,}", sp,
                     f"{s['job']['games']:,}" if s else "n/a"])
    out += [_table(["rank", "bot", "rating [95 %]", "wins / comparisons",
                    f"{unit}s per CPU-second [95 %]", "self-play " + unit + "s"], rows), ""]

    out += ["### Two players: paired differences", "",
            f"Bot a against bot b on the same {unit}s: the win rate of a, and the mean "
            f"difference a − b of the win rate and of the "
            + ("score (lower is better in Rummy 51)" if game == "r51"
               else "final score (bonuses included; higher is better in Carousel)")
            + f", {unit} by {unit} (both seat orders averaged), with 95 % intervals.", ""]
    rows = []
    order = {b: i for i, b in enumerate(bt2.bot)}
    for res in pairs:
        a, b = sorted(res["job"]["bots"], key=lambda x: order.get(x, 99))
        pr = res["paired"].get(f"{a}|{b}")
        if pr is None:
            pr = res["paired"][f"{b}|{a}"]
            flip = -1.0
        else:
            flip = 1.0
        w = pr[pr.metric == "win"].iloc[0]
        sc = pr[pr.metric == "score"].iloc[0]
        lo, hi = (w.diff_lo, w.diff_hi) if flip > 0 else (-w.diff_hi, -w.diff_lo)
        slo, shi = (sc.diff_lo, sc.diff_hi) if flip > 0 else (-sc.diff_hi, -sc.diff_lo)
        wa = w.mean_a if flip > 0 else w.mean_b
        rows.append([f"`{a}`", f"`{b}`", f"{int(w.deals):,}", f"{100 * wa:.1f} %",
                     _diff(flip * w["diff"], lo, hi, 100, 1, " pts"),
                     _diff(flip * sc["diff"], slo, shi, 1, 2)])
    out += [_table(["a", "b", unit + "s", "win rate of a", "win rate a − b [95 %]",
                    "score a − b [95 %]"], rows), ""]

    if not tables:
        out += ["### Four players: mixed tables, seats rotated", "",
                "No 4-player table was played: no bot outside `--slow` can sit at one and "
                "`--slow-table-games` was 0.", ""]
        return out
    bt4 = bradley_terry(_pool(tables, key), bootstrap=sizes.bootstrap, seed=sizes.seed)
    sets = ["(" + ", ".join(f"`{b}`" for b in t["job"]["bots"]) + f"): {t['job']['games']:,}"
            for t in tables]
    out += ["### Four players: mixed tables, seats rotated", "",
            f"Each table plays its {unit}s once per rotation of the bots over the seats (4 "
            f"plays of every {unit}). Tables ({unit}s): " + "; ".join(sets) + ". Ratings "
            "from all tables pooled (a winner beats the other three seats), and each bot's "
            "win rate over all its seats (95 % Wilson intervals; "
            + ("a deal without a winner counts as no win" if game == "r51"
               else "a game with tied winners counts as no win") + ").", ""]
    pool4 = _pool(tables, key)
    rows = []
    for i, r in bt4.iterrows():
        g = pool4[pool4.bot == r.bot]
        k = int((g.went_out.astype(bool) & ~g.draw.astype(bool)).sum())
        rows.append([str(i + 1), f"`{r.bot}`",
                     _rating(r.rating, r.rating_lo, r.rating_hi),
                     f"{len(g):,}", _pct(*_wilson(k, len(g)))])
    out += [_table(["rank", "bot", "rating [95 %]", "player-" + unit + "s",
                    "win rate [95 %]"], rows), ""]
    return out


def _laydown_section(results: list[dict], sizes: Sizes) -> list[str]:
    import pandas as pd

    rows = [r for res in results for r in res["rows"]]
    df = pd.DataFrame(rows)
    dec = df[df.decision].copy() if len(df) else df
    out = ["### When to lay down: opening at once or waiting", "",
           f"A paired experiment on {sizes.laydown_deals:,} seeded 2-player deals (deal d "
           f"shuffled from `SeedSequence({sizes.seed}, spawn_key=(0, 3, d))`): "
           "the subject, in seat d mod 2, plays every deal twice against a `TacticianBot`, "
           "with the first player alternating every two deals. Both arms are the tactician "
           "(goes out at once whenever it can); at its first chance to open (a play phase, "
           "not opened, the best opening reaching 51 and the hand not able to go out), "
           "**open** lays the best opening down at once, as the tactician does, and "
           "**wait** holds: it discards the card that keeps the most outs to go out at "
           "once (the hand hunter's rule) for up to 3 own turns, only in the deal's first "
           "6 rounds and while the opponent holds more than 5 cards, going out if it can "
           "and opening when it may hold no longer. The two arms play the same cards up "
           "to that decision, so the difference is the decision's. Deals without such a "
           "decision (the subject never could open, had to open after taking the discard, "
           "or could go out at once) are left out.", ""]
    n_all = len(df)
    n_dec = len(dec)
    out += [f"Deals with a decision: {n_dec:,} of {n_all:,}.", ""]
    if n_dec == 0:
        return out + ["(no deal had a decision: increase --laydown-deals)", ""]
    bins = [(51, 55), (56, 60), (61, 70), (71, 80), (81, 10_000)]
    trows = []

    def row(label, g):
        n = len(g)
        ds, dse = _mean_se(g.score_wait - g.score_open)
        dw, dwse = _mean_se(g.win_wait.astype(float) - g.win_open.astype(float))
        so, soe = _mean_se(g.score_open)
        sw, swe = _mean_se(g.score_wait)
        hk = int(g.hand_wait.sum())
        return [label, f"{n:,}", _pm(so, soe), _pm(sw, swe),
                _diff(ds, ds - Z * dse, ds + Z * dse, 1, 2) if n > 1 else "n/a",
                _diff(dw, dw - Z * dwse, dw + Z * dwse, 100, 1, " pts") if n > 1 else "n/a",
                _pct(*_wilson(hk, n))]
    for lo, hi in bins:
        g = dec[(dec.value >= lo) & (dec.value <= hi)]
        if len(g):
            trows.append(row(f"{lo}–{hi}" if hi < 10_000 else f"{lo}+", g))
    trows.append(row("all", dec))
    out += ["By the value of the best opening at the first chance (points laid down); "
            "scores are the subject's (lower is better; −80 for going out by hand), means "
            "± 1.96 standard errors, differences wait − open with 95 % intervals over "
            "deals, and the share of deals the waiting arm won by hand (Wilson).", "",
            _table(["opening value", "deals", "score, open", "score, wait",
                    "score wait − open [95 %]", "win rate wait − open [95 %]",
                    "won by hand, wait [95 %]"], trows), ""]
    lbins = [(0, 10), (11, 20), (21, 40), (41, 1000)]
    trows = []
    for lo, hi in lbins:
        g = dec[(dec.left >= lo) & (dec.left <= hi)]
        if len(g):
            trows.append(row(f"{lo}–{hi}" if hi < 1000 else f"{lo}+", g))
    out += ["By the points left in hand after that opening (what going out by another "
            "player would cost after opening):", "",
            _table(["points left", "deals", "score, open", "score, wait",
                    "score wait − open [95 %]", "win rate wait − open [95 %]",
                    "won by hand, wait [95 %]"], trows), ""]
    return out


def _knock_section(bots: list[str], results: list[dict], sizes: Sizes) -> list[str]:
    selfs = [r for r in results if r["job"]["kind"] == "self"]
    out = ["### When to knock: undercuts and round scores by points and by turn", "",
           "From every bot's 2-player self-play run (the bot against itself, so the "
           "table describes play where both players play that way): every voluntary knock "
           "(going out is not a knock), by the points in hand at the knock and by the "
           "knocker's own turn of the round. P(undercut) with its 95 % Wilson interval; "
           "the knocker's round score (the winner scores the difference of the counts "
           "and an undercut bonus, docs/rules-carousel.md) and the knocker's net (its "
           "round score less the opponent's) as means ± 1.96 standard errors.", ""]
    for res in selfs:
        bot = res["job"]["bots"][0]
        r = res["records"]
        keys = ["game", "round"] + (["arrangement"] if "arrangement" in r else [])
        tot = r.groupby(keys, observed=True)["score"].transform("sum")
        r = r.assign(net=2 * r["score"] - tot)
        k = r[r.knocked.astype(bool)]
        n_rounds = len(r) // 2
        head = (f"**`{bot}`** ({res['job']['games']:,} games, {n_rounds:,} rounds, "
                f"{len(k):,} knocks, seed `{_seed_text(res['job']['seed'])}`)")
        if len(k) < 2:
            out += [head + ": too few knocks for a table.", ""]
            continue

        def row(label, g):
            u = int(g.undercut.sum())
            m, se = _mean_se(g.score)
            nm, nse = _mean_se(g.net)
            return [label, f"{len(g):,}", _pct(*_wilson(u, len(g))), _pm(m, se, 1),
                    _pm(nm, nse, 1, sign=True)]
        prow = [row(str(p), g) for p, g in k.groupby(k.points.astype(int))]
        tb = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 6), (7, 9), (10, 10_000)]
        trow = []
        for lo, hi in tb:
            g = k[(k.turns >= lo) & (k.turns <= hi)]
            if len(g):
                trow.append(row(str(lo) if lo == hi else (f"{lo}–{hi}" if hi < 10_000
                                                         else f"{lo}+"), g))
        hdr = ["knocks", "P(undercut) [95 %]", "round score", "net"]
        out += [head, "", _table(["points at the knock"] + hdr, prow + [row("all", k)]), "",
                _table(["own turn of the knock"] + hdr, trow), ""]
    return out


def _seed_text(ss) -> str:
    return f"SeedSequence({ss.entropy}, spawn_key={tuple(ss.spawn_key)})"


# --------------------------------------------------------------------------- main
def run_jobs(order: list[dict], ld_jobs: list[dict], processes: int, run, laydown,
             log) -> tuple[list[dict], list[dict]]:
    """``(results, lay-downs)``: ``run`` of every job of ``order`` and ``laydown`` of every
    job of ``ld_jobs``, in this process (``processes`` 1) or in that many spawned ones
    (each result passed to ``log`` as it comes). Shared with bench/tables.py."""
    if processes == 1:
        return [log(run(j)) for j in order], [log(laydown(j)) for j in ld_jobs]
    import multiprocessing

    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as ex:
        futs = [ex.submit(run, j) for j in order]
        lfuts = [ex.submit(laydown, j) for j in ld_jobs]
        for f in as_completed(futs + lfuts):
            log(f.result())
        return [f.result() for f in futs], [f.result() for f in lfuts]


def _log(res: dict) -> dict:
    """One line on stderr per finished run (the page goes to --out)."""
    j = res["job"]
    what = (f"deals {j['lo']}-{j['hi'] - 1}" if j["kind"] == "laydown"
            else f"{','.join(j['bots'])} x {j['games']}")
    sys.stderr.write(f"strength.py: {j['game']} {j['kind']} {what}: {res['cpu']:.1f} CPU-s\n")
    return res


def _aliases(game: str, names: list[str]) -> dict[str, str]:
    """Bot names that play the same bot as an earlier name today (Rummy 51's
    ``search-plain`` is ``search`` while the default search is the plain one: the same
    kernel code and the same default parameters; Carousel's ``search-learned`` is
    ``search`` while the default search is the learned-guided one: the same class but
    its name), each with the name it plays as: such a bot is ranked once."""
    if game == "carousel":
        return _carousel_aliases(names)
    if game != "r51":
        return {}
    from rummy51.r51 import fastgame
    from rummy51.r51.bots import BOTS as RBOTS

    out: dict[str, str] = {}
    for i, b in enumerate(names):
        for a in names[:i]:
            ca, cb = fastgame.BOT_CODES.get(a), fastgame.BOT_CODES.get(b)
            if (a not in out and ca is not None and ca == cb
                    and hasattr(RBOTS[a], "default_params")
                    and RBOTS[a].default_params() == RBOTS[b].default_params()):
                out[b] = a
                break
    return out


def _carousel_aliases(names: list[str]) -> dict[str, str]:
    """``_aliases`` of Carousel: two search classes whose differences are their names
    (the same knock holding, default model, constructor and moves)."""
    from rummy51.carousel.bots import BOTS as CBOTS
    from rummy51.carousel.bots import SearchBot

    def key(n: str) -> tuple | None:
        c = CBOTS[n]
        if isinstance(c, type) and issubclass(c, SearchBot):
            return (c.HOLD, c.MODEL, c.__init__, c.choose, c._decide, c.kernel_spec)
        return None

    out: dict[str, str] = {}
    for i, b in enumerate(names):
        for a in names[:i]:
            if a not in out and key(a) is not None and key(a) == key(b):
                out[b] = a
                break
    return out


def generate(sizes: Sizes, command: str, only: str | None = None) -> str:
    import rummy51
    from rummy51.carousel.bots import BOTS as CBOTS
    from rummy51.r51.bots import BOTS as RBOTS

    t_wall = time.perf_counter()
    games = [g for g in ("r51", "carousel") if only in (None, g)]
    bots = {"r51": list(RBOTS), "carousel": list(CBOTS)}
    same = {g: _aliases(g, bots[g]) for g in bots}
    bots = {g: [b for b in bots[g] if b not in same[g]] for g in bots}
    jobs = []
    for gi, g in enumerate(("r51", "carousel")):
        if g in games:
            jobs += _jobs(g, bots[g], sizes, gi)
    ld_jobs = _laydown_jobs(sizes, max(2, 2 * sizes.jobs)) if "r51" in games else []
    # the slowest first, so the processes end together
    order = sorted(jobs, key=lambda j: -(j["games"] * (1000 if set(j["bots"]) & set(sizes.slow) else 1)))
    results, ld = run_jobs(order, ld_jobs, sizes.jobs, _run, _laydown, _log)
    cpu = sum(r["cpu"] for r in results) + sum(r["cpu"] for r in ld)
    wall = time.perf_counter() - t_wall
    slow = ", ".join(f"`{b}`" for b in sizes.slow) or "none"
    lines = [
        "# Strength ladders and strategy tables under strong play", "",
        "How strong is each built-in bot, what does its strength cost, and how do strong "
        "players decide when to lay down (Rummy 51) and when to knock (Carousel)? Every "
        "figure on this page comes from one command, run from the repository root:", "",
        f"`{command}`", "",
        f"It took {wall / 60:.1f} minutes of wall time and {cpu / 60:.1f} CPU-minutes "
        f"({sizes.jobs} process{'' if sizes.jobs == 1 else 'es'}) with rummy51 "
        f"{rummy51.__version__}. Its sizes are flags "
        f"(`python bench/strength.py --help`): `--games {sizes.games}` a 2-player pair, "
        f"`--table-games {sizes.table_games}` a 4-player table, `--selfplay-games "
        f"{sizes.selfplay_games}` a speed run, `--laydown-deals {sizes.laydown_deals}`; "
        f"pairs, tables and speed runs with a bot of `--slow` ({slow}) play "
        f"`--slow-games {sizes.slow_games}` (tables `--slow-table-games "
        f"{sizes.slow_table_games}`) instead, so **their intervals are wider**. Seed "
        f"`--seed {sizes.seed}`: run k of kind c of game g draws from "
        f"`SeedSequence({sizes.seed}, spawn_key=(g, c, k))` (g 0 Rummy 51, 1 Carousel; c "
        f"0 pairs, 1 tables, 2 self-play, 3 the lay-down experiment's deals), the same "
        f"figures on any machine. The speeds "
        f"(games per CPU-second of the process that plays them, the C kernels' threads "
        f"included) depend on the machine and its load; the rest does not. The bots are "
        f"those of `rummy51.r51.bots.BOTS` and `rummy51.carousel.bots.BOTS` when the "
        f"command runs: a new bot joins the ladders when the page is regenerated.", "",
        "Intervals are 95 %: Bradley-Terry ratings by bootstrap over games (docs/games.md, "
        "section \"Tournaments you can trust\"), rates by Wilson, means and paired "
        "differences by ± 1.96 standard errors over independent deals or games.", "",
    ]
    if "r51" in games:
        r = [x for x in results if x["job"]["game"] == "r51"]
        lines += ["## Rummy 51", "",
                  "Default rules (2 decks, 4 jokers, opening at 51); the first player "
                  "rotates. Bots: " + ", ".join(f"`{b}`" for b in bots["r51"]) + "."
                  + "".join(f" `{b}` plays as `{a}` today (the same bot: ranked once)."
                            for b, a in same["r51"].items()), ""]
        lines += _ladder("r51", bots["r51"], r, sizes)
        lines += _laydown_section(ld, sizes)
    if "carousel" in games:
        r = [x for x in results if x["job"]["game"] == "carousel"]
        lines += ["## Carousel", "",
                  "Default rules for the player count (one deck and a joker for 2 players, "
                  "two decks and two jokers for 4); whole games to 150. Bots: "
                  + ", ".join(f"`{b}`" for b in bots["carousel"]) + "."
                  + "".join(f" `{b}` plays as `{a}` today (the same bot: ranked once)."
                            for b, a in same["carousel"].items()), ""]
        lines += _ladder("carousel", bots["carousel"], r, sizes)
        lines += _knock_section(bots["carousel"], r, sizes)
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    slow = tuple(b.strip() for b in args.slow.split(",") if b.strip())
    from rummy51.carousel.bots import BOTS as CBOTS
    from rummy51.r51.bots import BOTS as RBOTS

    for b in slow:
        if b not in RBOTS and b not in CBOTS:
            parser.error(f"argument --slow: {b!r} is not a bot of either game: choose from "
                         f"{', '.join(dict.fromkeys([*RBOTS, *CBOTS]))}")
    sizes = Sizes(**{k: getattr(args, k) for k in _SIZE_FLAGS}, seed=args.seed, slow=slow)
    argv = sys.argv[1:] if argv is None else list(argv)
    command = " ".join(["python bench/strength.py"] + [shlex.quote(a) for a in argv])
    page = generate(sizes, command, args.only)
    if args.out == "-":
        sys.stdout.write(page)
    else:
        tmp = f"{args.out}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
