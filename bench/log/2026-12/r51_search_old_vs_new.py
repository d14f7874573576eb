"""Issue 29: the new SearchBot against issue 13's, on the same deals, seats swapped.

Run from the repository (it reads issue 13's bot from git, commit 15a31e3):

    python bench/log/2026-12/r51_search_old_vs_new.py DEALS FIRST_DEAL

Deal d is played twice (the new bot in seat 0, then in seat 1; first player d mod 2,
deal seed d * 1000 + 99, each bot seeded d * 10 + 7); prints the paired win-rate and
score differences (new less old) with 95 % intervals over the deals. Issue 13's bot is
the Python-engine bot of main before issue 29 (its rollouts still run in this kernel's
``Position.rollouts``), so this plays through the Python engine.
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rummy51 import RuleSet
from rummy51.r51.bots import play_deal
from rummy51.r51.search import SearchBot as New

OLD_COMMIT = "15a31e3"


def old_bot_class():
    src = subprocess.run(["git", "show", f"{OLD_COMMIT}:src/rummy51/r51/search.py"],
                         check=True, capture_output=True, text=True).stdout
    for rel, absolute in (("from .._checks", "from rummy51._checks"),
                          ("from ..cards", "from rummy51.cards"),
                          ("from .actions", "from rummy51.r51.actions"),
                          ("from .bots", "from rummy51.r51.bots"),
                          ("from .engine", "from rummy51.r51.engine"),
                          ("from . import fastgame", "from rummy51.r51 import fastgame")):
        src = src.replace(rel, absolute)
    d = tempfile.mkdtemp()
    Path(d, "search_issue13.py").write_text(src)
    sys.path.insert(0, d)
    import search_issue13
    return search_issue13.SearchBot


def main(n: int, first_deal: int) -> None:
    Old = old_bot_class()
    R = RuleSet()
    wd, sd = [], []
    t0 = time.process_time()
    for d in range(first_deal, first_deal + n):
        w, sc = [0.0, 0.0], [0.0, 0.0]   # new, old
        for arr in range(2):
            new, old = New(seed=d * 10 + 7), Old(seed=d * 10 + 7)
            bots = [new, old] if arr == 0 else [old, new]
            res = play_deal(bots, R, seed=d * 1000 + 99, first=d % 2).result
            for seat in range(2):
                who = 0 if bots[seat] is new else 1
                w[who] += (res.winner == seat) / 2
                sc[who] += res.scores[seat] / 2
        wd.append(w[0] - w[1])
        sd.append(sc[0] - sc[1])

    def ci(x, k=1.0):
        x = np.asarray(x)
        m, se = x.mean() * k, x.std(ddof=1) / np.sqrt(len(x)) * k
        return f"{m:+.2f} [{m - 1.96 * se:+.2f}, {m + 1.96 * se:+.2f}]"

    print(f"new - old, {n} deals x 2 seatings: win-rate difference, points {ci(wd, 100)}; "
          f"score difference {ci(sd)} ({time.process_time() - t0:.0f} CPU-s)")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
