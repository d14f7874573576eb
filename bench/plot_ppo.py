"""The learning curves of bench/train_ppo.py as one figure (docs/ppo-curves.png) and a
Markdown table of the numbers: win rate against greedy with its 95 % Wilson interval,
against environment steps and against training CPU minutes, one panel pair per game,
with random masked play and the greedy bot in the agent's seat on the same deals.

    python bench/plot_ppo.py runs/ppo-rummy51 runs/ppo-carousel --out docs/ppo-curves.png
"""
from __future__ import annotations

import argparse
import csv
from pathlib import Path


def _read(path: Path) -> list[dict]:
    with open(path) as f:
        return list(csv.DictReader(f))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("runs", nargs="+")
    p.add_argument("--out", default="docs/ppo-curves.png")
    a = p.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(a.runs), 2, figsize=(10, 3.6 * len(a.runs)), squeeze=False)
    for row, run in zip(axes, a.runs, strict=True):
        run = Path(run)
        curve = _read(run / "curve.csv")
        base = {b["policy"]: b for b in _read(run / "baselines.csv")}
        game = "Rummy 51 (deals won)" if "rummy" in run.name else "Carousel (rounds won)"
        print(f"\n{game}: {run}\n")
        print("| phase | environment steps | CPU minutes | wins / episodes | win rate [95 % interval] |")
        print("|---|---:|---:|---:|---|")
        for r in curve:
            print(f"| {r['phase']} | {int(r['env_steps']):,} | {float(r['cpu_minutes']):.1f} | "
                  f"{r['wins']} / {r['episodes']} | {100 * float(r['win_rate']):.1f} % "
                  f"[{100 * float(r['lo']):.1f}, {100 * float(r['hi']):.1f}] |")
        for name, b in base.items():
            print(f"| {name} in the agent's seat | | | {b['wins']} / {b['episodes']} | "
                  f"{100 * float(b['win_rate']):.1f} % [{100 * float(b['lo']):.1f}, "
                  f"{100 * float(b['hi']):.1f}] |")
        for ax, key, label in ((row[0], "env_steps", "environment steps"),
                               (row[1], "cpu_minutes", "training CPU minutes (1 core)")):
            xs = [float(r[key]) for r in curve]
            ys = [100 * float(r["win_rate"]) for r in curve]
            lo = [y - 100 * float(r["lo"]) for y, r in zip(ys, curve, strict=True)]
            hi = [100 * float(r["hi"]) - y for y, r in zip(ys, curve, strict=True)]
            colors = ["tab:orange" if r["phase"] == "imitation" else "tab:blue" for r in curve]
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="-", color="0.6", lw=1, capsize=2, zorder=1)
            ax.scatter(xs, ys, c=colors, zorder=2, s=18)
            for name, style in (("random", ":"), ("greedy", "--")):
                if name in base:
                    ax.axhline(100 * float(base[name]["win_rate"]), ls=style, color="0.3", lw=1,
                               label=f"{name} in the agent's seat")
            ax.axhline(40, color="tab:red", lw=0.8, alpha=0.5, label="target 40 %")
            ax.set_xlabel(label)
            ax.set_ylabel("win rate against greedy, %")
            ax.set_ylim(0, 70)
            ax.set_title(f"{game}: orange imitation, blue PPO", fontsize=9)
            ax.grid(alpha=0.3)
        row[0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(a.out, dpi=90)
    print(f"\nwrote {a.out}")


if __name__ == "__main__":
    main()
