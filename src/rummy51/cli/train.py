"""``rummy51 train``: train a learned evaluator by self-play (``rummy51.learned.train``).

    rummy51 train r51 --out runs/r51-model --seed 1 --games 20000 --workers 2
    rummy51 train --resume runs/r51-model
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from ..learned import train, trainers
from ._common import EXIT_OK, PROG, _CliWarnings, _print_json


def add_parser(subparsers: Any) -> None:
    games = trainers()
    p = subparsers.add_parser(
        "train", help="train a learned evaluator by self-play (docs/learned.md)",
        description="Train a game's learned evaluator: self-play games in the C kernel "
                    "recorded into a run directory, then a numpy fit; DIR/model.npz is the "
                    "model (copy it to src/rummy51/models/GAME.npz, or set "
                    "RUMMY51_MODEL_DIR). Reproducible from --seed; a killed run continues "
                    "with --resume DIR.")
    p.add_argument("game", nargs="?", choices=sorted(games) or None, default=None,
                   help="the game (left out with --resume)")
    p.add_argument("--out", metavar="DIR", default=None, help="a new run directory")
    p.add_argument("--resume", metavar="DIR", default=None, help="continue the run in DIR")
    p.add_argument("--seed", type=int, default=None, help="the seed (default: fresh entropy, recorded)")
    p.add_argument("--games", type=int, default=None, help="self-play games (deals, rounds)")
    p.add_argument("--chunk-size", type=int, default=None, help="games per chunk file")
    p.add_argument("--epochs", type=int, default=None, help="passes over the positions")
    p.add_argument("--hidden", type=int, default=None, help="hidden units (1..256)")
    p.add_argument("--batch", type=int, default=None, help="positions per minibatch")
    p.add_argument("--lr", type=float, default=None, help="Adam's learning rate")
    p.add_argument("--workers", type=int, default=1, help="threads playing the games (default 1)")
    p.add_argument("--chunk-format", choices=("parquet", "csv"), default=None)
    p.add_argument("--no-progress", action="store_true", help="no progress bar and no epoch lines")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    seen: dict[str, str] = {}
    for name, t in sorted(games.items()):
        for opt, text in t.options.items():
            seen.setdefault(opt, f"{name}: {text}")
    g = p.add_argument_group("data options of the games")
    for opt, text in seen.items():
        g.add_argument(f"--{opt.replace('_', '-')}", dest=f"data_{opt}", default=None, help=text)
    p.set_defaults(handler=_run, _data_options=tuple(seen))


def _run(args: argparse.Namespace) -> int:
    if args.resume is None and args.game is None:
        raise ValueError("train: name the game (" + ", ".join(sorted(trainers())) +
                         ") or give --resume DIR")
    data = {k: getattr(args, f"data_{k}") for k in args._data_options
            if getattr(args, f"data_{k}") is not None}
    if args.resume is not None:
        given = [o for o, v in (("--seed", args.seed), ("--games", args.games),
                                ("--epochs", args.epochs), ("--hidden", args.hidden),
                                ("--chunk-size", args.chunk_size), ("--batch", args.batch),
                                ("--lr", args.lr), ("--out", args.out)) if v is not None]
        if given or data:
            raise ValueError(f"train --resume takes its settings from the run directory: "
                             f"leave out {', '.join(given + ['--' + k for k in data])}")
    show = not args.no_progress

    def epoch_line(e: int, n: int, row: Any) -> None:
        if show:
            print(f"{PROG} train: epoch {e + 1}/{n}: train loss {row[1]:.4f}, validation "
                  f"margin RMSE {row[2]:.2f} points, win log-loss {row[3]:.4f}",
                  file=sys.stderr, flush=True)

    try:
        with _CliWarnings():
            res = train(args.game, out=args.out, resume=args.resume, seed=args.seed,
                        games=args.games, chunk_size=args.chunk_size, epochs=args.epochs,
                        hidden=args.hidden, batch=args.batch, lr=args.lr, data=data,
                        workers=args.workers, progress=None if show else False,
                        fmt=args.chunk_format, on_epoch=epoch_line)
    except KeyboardInterrupt:
        where = args.resume or args.out
        print(f"{PROG}: interrupted: the finished chunks and epochs are saved in {where}; "
              f"continue with: {PROG} train --resume {where}", file=sys.stderr)
        raise
    if args.json:
        _print_json({"model": str(res.path), "run_dir": str(res.run_dir),
                     "samples": res.samples, "seconds": round(res.seconds, 3),
                     "sha256": res.model.sha256, "training": res.model.meta["training"]})
    else:
        print(res)
    return EXIT_OK
