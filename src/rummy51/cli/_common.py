"""What the subcommands share (a private module made for sharing): the parser class and exit
codes, argument types, the rule options, hands from the command line or stdin, the output
formats, text tables, warnings, and the run-directory options of the studies.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

from ..cards import MAX_TEXT, parse_cards, shown
from ..rules import PRESETS, RuleSet

PROG = "rummy51"
EXIT_OK = 0
EXIT_USAGE = 2          # bad input of any kind, as argparse does
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells do
EXIT_FAILED = 1         # the run could not go on (its Dask scheduler went away): resume it


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line: ``rummy51: error: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{PROG}: error: {message} (see '{self.prog} --help')\n")


# --------------------------------------------------------------------------- argument types
def _int(text: str) -> int:
    """argparse type: a whole number, with a message that says so."""
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _count(text: str) -> int:
    """argparse type: a whole number >= 0."""
    n = _int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative: give a whole number >= 0")
    return n


# --------------------------------------------------------------------------- rule options
#: The rule options ``add_rule_options`` adds, each as (RuleSet field, help). The
#: option is ``--`` plus the field with ``-`` for ``_``; its dest is the field name.
RULE_OPTIONS: tuple[tuple[str, str], ...] = (
    ("decks", "52-card decks in the game: 1 or 2"),
    ("jokers", "jokers in the deck"),
    ("threshold", "least total meld value that opens"),
    ("ace_low_value", "value of an ace at the low end of a run (A-2-3); some tables use 1"),
    ("ace_value", "value of an ace anywhere else (high in a run, in a set, in hand)"),
    ("max_jokers_per_meld", "jokers one meld may hold: 0..2"),
    ("joker_penalty", "points for a joker left in hand (deadwood)"),
)


def add_rule_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Add the rule options to ``parser`` (as an argument group) and return the group.

    ``--rules NAME`` picks a preset from ``rummy51.PRESETS``; then ``--decks``,
    ``--jokers``, ``--threshold``, ``--ace-low-value``, ``--ace-value``,
    ``--ace-high/--no-ace-high``, ``--max-jokers-per-meld`` and ``--joker-penalty``
    override single fields. Every option defaults to ``None`` (= keep the preset's
    value); ``rules_from_args`` builds the ``RuleSet``. A subcommand that needs more
    fields (say ``--hand-size``) adds an option whose dest is the field name and
    ``rules_from_args`` picks it up.
    """
    group = parser.add_argument_group(
        "rules", "A preset, then single overrides (only the options given change the preset)."
    )
    group.add_argument(
        "--rules", metavar="NAME", default=None,
        help=f"rule preset: {', '.join(PRESETS)} (default: default)",
    )
    for field, help_text in RULE_OPTIONS:
        group.add_argument(
            "--" + field.replace("_", "-"), dest=field, type=_int, metavar="N", default=None,
            help=help_text,
        )
    group.add_argument(
        "--ace-high", dest="ace_high", action=argparse.BooleanOptionalAction, default=None,
        help="whether the ace may follow the king (Q-K-A)",
    )
    return group


_RULE_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))


def rules_from_args(args: argparse.Namespace) -> RuleSet:
    """The ``RuleSet`` the options of ``add_rule_options`` describe.

    Starts from the preset ``args.rules`` (``"default"`` when absent or None) and
    replaces every ``RuleSet`` field whose same-named attribute of ``args`` is not
    None. Raises ``ValueError`` naming the option when a preset is unknown or a value
    is out of range (``--decks must be 1..2, got 3``).
    """
    name = getattr(args, "rules", None) or "default"
    base = RuleSet.preset(name)
    changes = {f: getattr(args, f) for f in _RULE_FIELDS if getattr(args, f, None) is not None}
    if not changes:
        return base
    try:
        return base.replace(**changes)
    except (ValueError, TypeError) as e:
        msg = str(e)
        for f in changes:
            msg = msg.replace(f"rules.{f}", "--" + f.replace("_", "-"))
        raise type(e)(msg) from None


# --------------------------------------------------------------------------- hands and output
def add_hand_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the positional ``HAND ...`` arguments (``-`` reads hands from stdin)."""
    parser.add_argument(
        "hands", nargs="+", metavar="HAND",
        help='a hand as text in one argument, like "7S 8S 9S JK 10D"; '
             "'-' reads hands from stdin, one per line (blank lines and # comments skipped)",
    )


def read_hands(args: argparse.Namespace, stdin: TextIO | None = None,
               each: bool = False) -> list[tuple[str, list[int] | ValueError]]:
    """The hands of ``args.hands`` as (label, card codes), in order.

    The label names where the hand came from (``hand 2``, ``stdin line 5``) for error
    messages. ``-`` is replaced by the hands read from ``stdin`` (default
    ``sys.stdin``), one per line. Each hand is parsed here, so a bad card is
    reported with the hand it is in (``hand 2 '7S 11H': '11H' is not a card: ...``).
    Card counts are checked against the rules by the solver.
    """
    out: list[tuple[str, list[int] | ValueError]] = []
    for i, text in enumerate(args.hands, 1):
        if text == "-":
            stream = sys.stdin if stdin is None else stdin
            got = 0
            for lineno, line in enumerate(stream, 1):
                line = line.split("#", 1)[0].strip()
                if line:
                    out.append(_parse_or_keep(f"stdin line {lineno}", line, each))
                    got += 1
            if not got:
                raise ValueError("no hands on stdin: give one hand per line")
        else:
            out.append(_parse_or_keep(f"hand {i}", text, each))
    return out


def _parse_or_keep(label: str, text: str, each: bool) -> tuple[str, list[int] | ValueError]:
    """``_parse_hand``; with ``each`` a bad hand comes back as ``(label, error)`` so the
    caller can answer the good ones and report each bad one."""
    if not each:
        return _parse_hand(label, text)
    try:
        return _parse_hand(label, text)
    except ValueError as e:
        return label, e         # the message already names the hand


def _parse_hand(label: str, text: str) -> tuple[str, list[int]]:
    try:
        codes = parse_cards(text)
    except ValueError as e:
        raise ValueError(f"{label} {text.strip()!r}: {e}") from None
    if not codes:
        raise ValueError(f"{label} is empty: give cards like \"7S 8S 9S\"")
    return label, codes


def add_format_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--json`` (one JSON object per line) and ``--unicode`` (♠♥♦♣ suits)."""
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object per hand (one per line)")
    parser.add_argument("--unicode", action="store_true", help="write suits as ♠ ♥ ♦ ♣")


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


# --------------------------------------------------------------------------- list options
def _positive(text: str) -> int:
    """argparse type: a whole number >= 1."""
    n = _int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 1")
    return n


def _int_list(text: str) -> tuple[int, ...]:
    """argparse type: one whole number or a comma list (``2,3,4``) for a sweep."""
    items = [t.strip() for t in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of whole numbers")
    out = []
    for t in items:
        try:
            out.append(int(t, 10))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{t!r} in {text!r} is not a whole number") from None
    return tuple(out)


def _name_list(text: str) -> tuple[str, ...]:
    """argparse type: a name or a comma list of names."""
    items = tuple(t.strip() for t in text.split(","))
    if not all(items):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of names")
    return items


def _sweep_from_args(args: argparse.Namespace) -> dict[str, RuleSet] | None:
    """The labelled rule sets of ``--rules``/``--jokers``/``--threshold`` (comma lists,
    every combination) and the single rule options; None when no rule option is given."""
    from ..studies.openings import rule_sweep

    presets = getattr(args, "rules", None)
    fields = {f: getattr(args, f) for f in _RULE_FIELDS if getattr(args, f, None) is not None}
    if not presets and not fields:
        return None
    try:
        return rule_sweep(list(presets) if presets else None, **fields)
    except (ValueError, TypeError) as e:
        msg = str(e)
        for f in fields:
            msg = msg.replace(f"rules.{f}", "--" + f.replace("_", "-"))
        swept = any(len(v) > 1 for v in fields.values() if isinstance(v, tuple)) or (
            presets is not None and len(presets) > 1)
        if not swept:   # one configuration: no word of a sweep nobody asked for
            msg = re.sub(r"^rule sweep '[^']*': ", "", msg)
        raise type(e)(msg) from None


# --------------------------------------------------------------------------- text tables
def _fmt_table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain text table: the first ``left`` columns left-aligned, the others right."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for r in [headers, *rows]:
        cells = [str(c).ljust(w) if i < left else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _decimals(lo: float, hi: float) -> int:
    import math

    width = (hi - lo) * 100  # in percentage points: show two digits of it
    if not width > 0:
        return 2
    return max(1, min(4, 1 - math.floor(math.log10(width))))


def _dec2(x: float) -> int:
    """Decimals that show two significant digits of ``x`` (> 0)."""
    import math

    return max(0, 1 - math.floor(math.log10(x))) if x > 0 else 0


def _sig2(x: float) -> str:
    return f"{x:.{_dec2(x)}f}"


def _pct(p: float, lo: float, hi: float, sign: str = "%") -> str:
    """``'36.41% [36.32, 36.51]'``: a probability in percent with its interval."""
    if p is None or p != p:
        return "-"
    if p == 0:      # no hit: the interval's upper end says how rare it can still be
        return f"0{sign} [0, {_sig2(100 * hi)}]"
    if p == 1:
        return f"100{sign} [{100 - float(_sig2(100 - 100 * lo)):.{_dec2(100 - 100 * lo)}f}, 100]"
    d = _decimals(lo, hi)
    return f"{100 * p:.{d}f}{sign} [{100 * lo:.{d}f}, {100 * hi:.{d}f}]"


def _mean(m: float, se: float) -> str:
    if m != m:
        return "-"
    if se != se:
        return f"{m:.2f}"
    return f"{m:.2f} ± {1.959963984540054 * se:.2f}"


def _rules_text(rules: RuleSet) -> str:
    return (f"{rules.decks} deck{'s' if rules.decks > 1 else ''}, {rules.jokers} jokers, "
            f"threshold {rules.threshold}, {rules.hand_size}-card hands")


class _CliWarnings:
    """Show library warnings (a damaged chunk re-run) as ``rummy51: warning: ...`` lines."""

    def __enter__(self) -> _CliWarnings:
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("always")
        warnings.showwarning = self._show
        return self

    @staticmethod
    def _show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
              file: TextIO | None = None, line: str | None = None) -> None:
        print(f"{PROG}: warning: {message}", file=sys.stderr)

    def __exit__(self, *exc: Any) -> None:
        return self._cm.__exit__(*exc)



_API_NAMES = ("deals", "players", "turns", "turn_deals", "chunk_size", "turn_chunk_size",
              "hands", "threads", "workers", "seed", "draws", "samples")


def _option_names(e: Exception) -> Exception:
    """``players must be 1..6`` -> ``--players must be 1..6``: the library names its
    parameters, the command line its options."""
    import re

    msg = re.sub(rf"^({'|'.join(_API_NAMES)})\b",
                 lambda m: "--" + m.group(1).replace("_", "-"), str(e))
    return type(e)(msg)


def _quote(a: str) -> str:
    import shlex

    return shlex.quote(a)


def _say_saved_chunks(args: argparse.Namespace, study: str,
                      read_manifest: Callable[[str], dict]) -> None:
    """After Ctrl-C: how many chunks the run directory keeps, and how to continue."""
    where = args.resume or args.out
    if not where:
        return
    try:
        m = read_manifest(where)
        done, total = m["chunks"]["done_count"], m["chunks"]["total"]
        print(f"{PROG}: interrupted: {done} of {total} chunks are saved in {where}; "
              f"continue with: {PROG} simulate {study} --resume {where}", file=sys.stderr)
    except (ValueError, KeyError, TypeError):
        pass


def run_study(args: argparse.Namespace, study: str, run: Callable[[str, str], Any],
              text: Callable[[Any], str], read_manifest: Callable[[str], dict],
              option_names: Callable[[Exception], Exception] | None = None) -> int:
    """Run one study command the way every ``simulate`` command does: the backend from
    ``--backend`` / ``--scheduler``, the command line recorded in the manifest, warnings
    as one line each, library errors renamed to options (``option_names``), Ctrl-C
    telling what the run directory keeps; then ``--json`` or the tables (``text``).
    ``run(backend, command)`` calls the study function and returns the study."""
    backend = args.backend or ("dask" if args.scheduler else "local")
    if args.scheduler and backend != "dask":
        raise ValueError("--scheduler needs --backend dask")
    argv = sys.argv[1:] if getattr(args, "_argv", None) is None else args._argv
    command = " ".join([PROG] + [_quote(a) for a in argv])
    try:
        with _CliWarnings():
            result = run(backend, command)
    except (ValueError, TypeError) as e:
        raise (option_names or _option_names)(e) from None
    except KeyboardInterrupt:
        _say_saved_chunks(args, study, read_manifest)
        raise
    if args.json:
        _print_json(result.to_dict())
    else:
        print(text(result))
    return EXIT_OK


def _add_run_options(p: argparse.ArgumentParser, e: argparse._ArgumentGroup, *, local: str, out_holds: str,
                     chunk_files: str) -> None:
    """The execution options every study shares: backend, scheduler, run directory,
    resume, chunk format, progress, JSON output."""
    e.add_argument("--backend", choices=("local", "dask"), default=None,
                   help=f"{local}, or a Dask cluster (default local; dask when "
                        "--scheduler is given)")
    e.add_argument("--scheduler", metavar="ADDR", default=None,
                   help="Dask scheduler address tcp://HOST:PORT (default with --backend dask: "
                        "start a local cluster)")
    e.add_argument("--out", metavar="DIR", default=None,
                   help=f"write a run directory (manifest, one file per chunk, {out_holds})")
    e.add_argument("--resume", metavar="DIR", default=None,
                   help="continue the run in DIR (its settings unless given; given ones must match)")
    e.add_argument("--chunk-format", choices=("parquet", "csv"), default=None,
                   help=f"{chunk_files} of --out (default parquet; csv for plain text)")
    e.add_argument("--no-progress", action="store_true",
                   help="no progress bar (shown on stderr only when it is a terminal)")
    p.add_argument("--json", action="store_true",
                   help="print the results as one JSON object instead of tables")


#: rule fields that are command-line options: an error naming ``rules.jokers`` says ``--jokers``
_OPTION_FIELDS = ("decks", "jokers", "threshold", "ace_low_value", "ace_value", "ace_high",
                  "max_jokers_per_meld", "joker_penalty", "max_turns")
#: library words in messages, as the command line says them
_LIBRARY_WORDS = (
    ("give either out (a new run directory) or resume (an existing one)",
     "give either --out (a new run directory) or --resume (an existing one)"),
    (", or load it with partial=True", ""),
    ("chunk format 'parquet'", "--chunk-format parquet"),
)


def in_option_words(msg: str) -> str:
    """A library error as the command line says it: option names, not field names."""
    import re

    msg = re.sub(r"\brules\.(" + "|".join(_OPTION_FIELDS) + r")\b",
                 lambda m: "--" + m.group(1).replace("_", "-"), msg)
    for a, b in _LIBRARY_WORDS:
        msg = msg.replace(a, b)
    return msg


def plural(n: int, word: str) -> str:
    """``1 chunk``, ``2 chunks``, ``25,000 deals``."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def read_capped_line(echo: bool) -> tuple[str | None, bool]:
    """One line of standard input for the play commands, stripped, and whether it was
    too long: ``(None, False)`` at the end of input; a line of more than
    ``cards.MAX_TEXT`` characters is skipped to its end unread and comes back as
    ``("", True)`` (the caller says so). With ``echo`` the line is printed as ``> line``
    (cut to 200 characters, a refused one to 80), so a piped session reads as played."""
    line = sys.stdin.readline(MAX_TEXT + 1)
    if not line:
        return None, False
    if len(line) > MAX_TEXT and not line.endswith("\n"):
        while True:                          # skip the rest of the line
            more = sys.stdin.readline(1 << 16)
            if not more or more.endswith("\n"):
                break
        if echo:
            print(f"> {shown(line, 80, quote=False)}")
        return "", True
    line = line.strip()
    if echo:
        print(f"> {shown(line, 200, quote=False)}")
    return line, False
