"""``rummy51 rules``: the named rule presets, what each is and the source it follows; for one
preset every field that differs from the default (docs/rules.md)."""
from __future__ import annotations

import argparse
import dataclasses

from ..rules import PRESET_NOTES, PRESETS, RuleSet
from ._common import EXIT_OK


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "rules",
        help="the rule presets (--rules NAME) with their sources",
        description="List the named rule presets that --rules NAME takes, each with a one-line "
                    "description and the rule text it follows; with NAME, every RuleSet field "
                    "in which that preset differs from the default (docs/rules.md).",
        epilog="example: rummy51 rules remik",
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="a preset to show field by field")
    p.set_defaults(handler=_cmd_rules)


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.name is None:
        for name in PRESETS:
            note = PRESET_NOTES[name]
            print(f"{name}\n  {note.description}\n  source: {note.source}")
        return EXIT_OK
    rules = RuleSet.preset(args.name)  # a ValueError naming the presets if unknown
    note = PRESET_NOTES[args.name]
    print(f"{args.name}: {note.description}\nsource: {note.source}")
    default = RuleSet()
    diff = [(f.name, getattr(default, f.name), getattr(rules, f.name))
            for f in dataclasses.fields(RuleSet) if getattr(rules, f.name) != getattr(default, f.name)]
    if not diff:
        print("every field is the default")
        return EXIT_OK
    width = max(len(n) for n, _, _ in diff)
    print(f"{'field':<{width}}  {'preset':>10}  default")
    for name, d, v in diff:
        print(f"{name:<{width}}  {v!s:>10}  {d}")
    return EXIT_OK
