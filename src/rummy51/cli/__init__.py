"""The ``rummy51`` command line.

Usage::

    rummy51 best "6S 7S 8S 10D 10C 10H 2C"
    rummy51 best --json --rules gin --keep 0 "AS 2S 3S 4S 4H 4D 9C 10C JC QC"
    rummy51 best - < hands.txt          # one hand per line
    rummy51 simulate openings           # P(can open): 1 M deals on every core
    rummy51 simulate openings --deals 10000000 --seed 2026 --out runs/openings-10M
    rummy51 simulate openings --jokers 2,4 --players 2,4,6      # a sweep
    rummy51 simulate openings --resume runs/openings-10M
    rummy51 odds "6S 7S 8S 10D 10C 2H 3D 5C 9H KS QD 4C 8H AH" --seen "10H JK" --draws 5
    rummy51 --version

Layout, so that more subcommands slot in (``simulate``, ``odds``, ``report``):

* one module per subcommand (``best``, ``simulate``, ``odds``, ``report``), each with
  ``add_parser(subparsers)``, which calls ``set_defaults(handler=...)``; the handler
  ``(args) -> int`` does the work and returns the exit code;
* ``build_parser()`` makes the top-level parser and one subparser per subcommand;
* ``main(argv=None) -> int`` parses, dispatches, and turns bad input into one line
  on stderr (``rummy51: error: ...``) and exit code 2; Ctrl-C exits 130 quietly; a
  run whose Dask scheduler went away says how to resume it in one line, exit code 1.

Shared helpers for subcommands: ``add_rule_options(parser)`` with
``rules_from_args(args)`` (rule options -> ``RuleSet``), ``add_hand_arguments(parser)``
with ``read_hands(args)`` (hands from the command line or stdin), and
``add_format_options(parser)`` (``--json``, ``--unicode``). Library code raises
``ValueError``/``TypeError`` with a message that names the input; a command only
has to let them propagate (or re-raise with more context) and ``main`` prints them.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence

from .._version import __version__
from ..runs.executors import SchedulerLost
from ..runs.signals import EXIT_TERMINATED, Terminated
from . import analyse, best, carousel, odds, play, report, rules, simulate, train
from ._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    PROG,
    RULE_OPTIONS,
    _Parser,
    add_format_options,
    add_hand_arguments,
    add_rule_options,
    in_option_words,
    read_hands,
    rules_from_args,
)

__all__ = [
    "main",
    "build_parser",
    "add_rule_options",
    "rules_from_args",
    "add_hand_arguments",
    "read_hands",
    "add_format_options",
    "RULE_OPTIONS",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_INTERRUPTED",
    "EXIT_FAILED",
]


# --------------------------------------------------------------------------- parser and main
def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per subcommand.

    To add a subcommand ``foo``: write ``rummy51/cli/foo.py`` with ``add_parser(subparsers)``
    (which calls ``subparsers.add_parser("foo", ...)``, the shared helpers of
    ``cli._common`` as needed, and ``set_defaults(handler=...)``) and its handler
    ``(args) -> int``, then call ``foo.add_parser(subparsers)`` below.
    """
    parser = _Parser(
        prog=PROG,
        description="Rummy 51: exact best openings, going out at once, deadwood.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    best.add_parser(subparsers)
    simulate.add_parser(subparsers)
    odds.add_parser(subparsers)
    report.add_parser(subparsers)
    play.add_parser(subparsers)
    rules.add_parser(subparsers)
    analyse.add_parser(subparsers)
    carousel.add_parser(subparsers)   # best, simulate, play, rules
    train.add_parser(subparsers)
    return parser


def _exit_code(code: object) -> int:
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # SystemExit("message"): print it like Python does
    return 1


def _quiet_dask_logs() -> None:
    """Dask logs a lost scheduler as tracebacks on stderr; the command says it in
    one line instead (``SchedulerLost``). Set after dask's import, which sets them."""
    import logging

    try:
        import distributed  # noqa: F401  (its import configures its loggers)
    except ImportError:
        return
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def _resume_hint(args: argparse.Namespace, argv: Sequence[str] | None) -> str:
    """How to continue a run that lost its Dask scheduler: ``--resume DIR`` with the
    same command words (the settings come from the run directory)."""
    where = getattr(args, "resume", None) or getattr(args, "out", None)
    if not where:
        return "nothing was kept (no --out DIR): run it again, with --out DIR to keep finished chunks"
    words = list(sys.argv[1:] if argv is None else argv)
    head = []
    for w in words:
        if w.startswith("-"):
            break
        head.append(w)
    return (f"the finished chunks are saved in {where}; continue with: "
            f"{PROG} {' '.join(head + ['--resume', shlex.quote(where)])} "
            f"(add --scheduler ADDR to use a cluster again)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code.

    Bad input (usage errors, and ``ValueError``/``TypeError`` from the library) gives
    one line ``rummy51: error: <reason>`` on stderr and exit code 2, never a
    traceback; Ctrl-C gives exit code 130, SIGTERM during a run 143; a run whose Dask
    scheduler went away gives one line saying how to resume it and exit code 1.
    """
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help, --version, usage errors
            return _exit_code(e.code)
        args._argv = None if argv is None else list(argv)
        if getattr(args, "scheduler", None) or getattr(args, "backend", None) == "dask":
            _quiet_dask_logs()
        try:
            return int(args.handler(args))
        except SchedulerLost as e:
            print(f"{PROG}: error: {e}; {_resume_hint(args, argv)}", file=sys.stderr)
            return EXIT_FAILED
    except Terminated:
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except (ValueError, TypeError) as e:
        msg = in_option_words(" ".join(str(e).split()) or type(e).__name__)
        if len(msg) > 500:      # one line, never a wall of echoed input
            msg = msg[:400] + f" ... ({len(msg):,} characters)"
        print(f"{PROG}: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (``rummy51 best - < big.txt | head``): stop quietly,
        # and point stdout at devnull so the interpreter's final flush does not complain
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except OSError as e:
        # a file the command reads or writes (a report, a hand file): one line, exit 2
        where = f" {e.filename}" if e.filename else ""
        print(f"{PROG}: error: cannot use{where}: {e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
