"""Instruction counts per hand of the solver kernels, with valgrind's callgrind.

Wall-clock benchmarks on a shared 2-core machine move by 30 % with the load; an
instruction count does not (same binary, same inputs). Use this to compare two
versions of the core:

    python bench/instructions.py            # all four questions, 20,000 dealt hands
    python bench/instructions.py best 1     # best value, only hands with one joker
    python bench/instructions.py carousel   # the Carousel kernels below
    python bench/instructions.py deals      # Rummy 51's game kernel

Needs valgrind (Debian: apt-get install valgrind). Prints instructions per hand
spent inside the batch kernel (solve_batch and what it calls).

The Carousel modes count what one call of a Carousel kernel spends (inclusive of what
it calls), on inputs made outside the count: ``rebuild`` the meld-by-meld
reconstruction (``rebuild_counts``: ``_rebuild`` and ``_rb_place``) per position of
seeded greedy games, ``cgame`` a whole game in the game kernel (``play_greedy_game``,
greedy and careful seats) per game, ``analyse`` one decision's rollouts
(``search_analyse``) per decision; and ``deals`` a whole Rummy 51 deal in its game kernel
(``_game.play_table``: random, greedy, hand-hunter and tactician seats) per deal.
"""
import os
import re
import subprocess
import sys
import tempfile

MODES = {"best": "best_opening_values", "open": "can_open_flags", "out": "can_go_out_flags",
         "dw": "min_deadwood_values"}

SCRIPT = """
import numpy as np, rummy51
jokers = {jokers}
h = rummy51.deal(200_000 if jokers == 3 else 80_000, 15, seed=1)
if jokers is not None:
    h = h[(h == 52).sum(1) == jokers] if jokers < 3 else h[(h == 52).sum(1) >= 3]
h = np.ascontiguousarray(h[:20_000])
print("ROWS", len(h))
rummy51.{func}(h, threads=1)   # the old name: older builds run this script too
"""


def count(mode: str, jokers=None) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "run.py")
        out = os.path.join(tmp, "cg.out")
        with open(script, "w") as f:
            f.write(SCRIPT.format(jokers=jokers, func=MODES[mode]))
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                              sys.executable, script], capture_output=True, text=True, check=True)
        rows = int(re.search(r"ROWS (\d+)", run.stdout).group(1))
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                             capture_output=True, text=True, check=True).stdout
        for line in ann.splitlines():
            m = re.match(r"\s*([\d,]+) .*:__pyx_pw_\w*solve_batch", line)
            if m:
                return int(m.group(1).replace(",", "")) / rows
    raise RuntimeError("solve_batch not found in the profile")


CAROUSEL = {"rebuild": "rebuild_counts", "cgame": "play_greedy_game", "analyse": "search_analyse",
            "deals": "play_table"}

CAROUSEL_SCRIPT = """
import numpy as np
from rummy51 import _carousel
from rummy51.carousel import CarouselRules
from rummy51.carousel.bots import CarefulBot, GreedyBot, core_rules, hand_counts, table_counts
from rummy51.carousel.engine import GameState
from rummy51.carousel.actions import Phase
from rummy51.studies import _carousel_plan as plan
mode = {mode!r}
if mode == "deals":
    from rummy51 import RuleSet, _game
    from rummy51.r51 import fastgame
    kernel = fastgame.greedy_kernel(RuleSet())
    n = 400
    print("ROWS", n)
    for d in range(n):
        # random, greedy, hand-hunter and tactician seats (the random seat's own generator)
        _game.play_table(kernel, np.random.default_rng(d), 4, d % 4, [0, 1, 2, 3],
                         [np.random.default_rng(10**6 + d), None, None, None])
    raise SystemExit
rules = CarouselRules.for_players(3)
core = core_rules(rules)
if mode == "rebuild":
    pos = []
    for seed in range(12):
        s = GameState.new(rules, seed=seed)
        bot = GreedyBot()
        while s.phase is not Phase.OVER and s.round < 2:
            if s.phase is Phase.MELD:
                H, jh = hand_counts(s.hands[s.current])
                T, D, jt = table_counts(s.table)
                v = _carousel.solve_counts(core, T, H, D, jt, jh)
                if v > 0:
                    pos.append((T, H, D, jt, jh, v))
            s.apply(bot.choose(s.view(s.current)))
    print("ROWS", len(pos))
    for T, H, D, jt, jh, v in pos:
        _carousel.rebuild_counts(core, T, H, D, jt, jh, v)
elif mode == "cgame":
    n = 6
    print("ROWS", n)
    for g in range(n):
        bots = [GreedyBot(), CarefulBot(seed=g), GreedyBot()]
        plan.play_kernel_game(rules, g, g, bots=bots)
else:
    from rummy51.analysis.carousel import analyse_position
    views = []
    for seed in range(40):
        s = GameState.new(CarouselRules.for_players(2), seed=seed)
        bot = GreedyBot()
        while s.phase is not Phase.OVER and len(views) < 6 * (seed + 1):
            if s.phase is Phase.MELD and bot.choose(s.view(s.current)).__class__.__name__ == "Meld":
                views.append(s.view(s.current))
                break
            s.apply(bot.choose(s.view(s.current)))
        if len(views) >= 6:
            break
    print("ROWS", len(views))
    for i, v in enumerate(views):
        analyse_position(v, rollouts=40, seed=i)
"""


def count_carousel(mode: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "run.py")
        out = os.path.join(tmp, "cg.out")
        with open(script, "w") as f:
            f.write(CAROUSEL_SCRIPT.format(mode=mode))
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                              sys.executable, script], capture_output=True, text=True, check=True)
        rows = int(re.search(r"ROWS (\d+)", run.stdout).group(1))
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                             capture_output=True, text=True, check=True).stdout
        for line in ann.splitlines():
            m = re.match(rf"\s*([\d,]+) .*:__pyx_pw_\w*{CAROUSEL[mode]}", line)
            if m:
                return int(m.group(1).replace(",", "")) / rows
    raise RuntimeError(f"{CAROUSEL[mode]} not found in the profile")


def main(argv):
    if argv and argv[0] in ("carousel",) + tuple(CAROUSEL):
        chosen = [m for m in CAROUSEL if m != "deals"] if argv[0] == "carousel" else [argv[0]]
        for m in chosen:
            what = {"rebuild": "position", "cgame": "game", "analyse": "decision",
                    "deals": "deal"}[m]
            print(f"{m:8s} {count_carousel(m):12.0f} instructions per {what} ({CAROUSEL[m]})")
        return
    modes = [argv[0]] if argv else list(MODES)
    jokers = int(argv[1]) if len(argv) > 1 else None
    for m in modes:
        print(f"{m:5s} {count(m, jokers):8.0f} instructions per 15-card hand"
              + (f" ({jokers} jokers)" if jokers is not None else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
