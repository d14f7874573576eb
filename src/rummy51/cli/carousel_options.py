"""The Carousel rule flags, generated from ``CarouselRules``: one flag per field (but
``players``, which each command sets its own way), with help from the dataclass's
docstring, so a new field gets its flag in ``carousel best``, ``simulate`` and ``play``
at once.

* ``add_rule_options(parser)`` adds ``--rules NAME`` (a preset) and the flags
  (``--knock-limit 3``, ``--no-ace-high``, ``--max-jokers-per-meld any``, ...);
* ``rules_from_args(args, players)`` makes the ``CarouselRules`` of the flags given
  (``--decks D`` without ``--jokers`` takes D jokers: the source's table);
* ``flag_words(msg)`` says a library message in flag words (``CarouselRules.knock_limit``
  -> ``--knock-limit``);
* ``int_option(flag)`` is the argparse type of a whole number (``any`` too: ``ANY``);
  ``RULE_FLAGS`` lists ``(field, flag)``.
"""
from __future__ import annotations

import argparse
import dataclasses
import enum
import re
import sys
import typing
from typing import Any, Optional

from ..carousel import rules as _rules_module
from ..carousel.presets import PRESETS, preset
from ..carousel.rules import CarouselRules

__all__ = ["add_rule_options", "rules_from_args", "flag_words", "rule_flag", "int_option",
           "ANY", "RULE_FLAGS"]

#: Fields a command sets its own way (``--players``: the table size), not as a rule flag.
_OWN_FLAGS = ("players",)
#: Extra spellings kept from before the flags were generated.
_ALIASES = {"target_score": ("--target",)}
_DEST = "rule_"


def rule_flag(name: str) -> str:
    """The flag of a ``CarouselRules`` field: ``knock_limit`` -> ``--knock-limit``."""
    return "--" + name.replace("_", "-")


_flag = rule_flag


#: Help where the docstring's bullet reads badly as a flag's help (a field not here, a
#: new one included, takes its bullet's text).
_HELP = {
    "decks": "52-card decks, 1 or 2 (the source: 1 for two players, 2 for more)",
    "jokers": "jokers in the deck, 0..4 (the source: 1 for two players, 2 for more)",
    "ace_value": "points of an ace left in hand",
    "face_value": "points of a J, Q or K left in hand",
    "joker_value": "points of a joker left in hand",
    "undercut_bonus": "bonus of a winner who undercut the knocker",
    "going_out_bonus": "bonus for going out (every card melded)",
    "target_score": "the game ends when a player's total reaches this",
    "game_bonus": "bonus at the end of the game for each player who reached the target",
    "round_won_bonus": "bonus at the end of the game per round won",
}


def _field_docs(cls=CarouselRules) -> dict[str, str]:
    """Each field's description from the bullets of ``CarouselRules``' docstring
    (``* ``name`` (default): text``; a bullet naming several fields gives each the text)."""
    out: dict[str, str] = {}
    doc = cls.__doc__ or ""
    for bullet in re.findall(r"^\s*\* (.*?)(?=^\s*\*|^\s*$|\Z)", doc, re.S | re.M):
        bullet = " ".join(bullet.split())
        head = re.match(r"((?:``\w+`` \([^)]*\)(?:, )?)+):?\s*(.*)", bullet)
        if not head:
            continue
        names = re.findall(r"``(\w+)``", head.group(1))
        text = head.group(2).strip(" .").replace("``", "")
        for n in names:
            words = n.replace("_", " ")
            out[n] = (f"{words}: {text}" if len(names) > 1 and text else text) or words
    return out


def _choices(name: str, default, module) -> Optional[tuple]:
    """The values of a text field: a tuple of strings in the rules' module holding its
    default (``GAME_TIES`` for ``game_tie``), or the values of an Enum field."""
    if isinstance(default, enum.Enum):
        return tuple(m.value for m in type(default))
    if not isinstance(default, str):
        return None
    listed = getattr(module, "_CHOICE_FIELDS", None)
    if isinstance(listed, dict) and name in listed:
        return tuple(listed[name])
    for value in vars(module).values():
        if (isinstance(value, tuple) and value and all(isinstance(v, str) for v in value)
                and default in value):
            return value
    return None


class _Any:
    """``--max-jokers-per-meld any``: the field's None, told apart from a flag not given."""

    def __repr__(self) -> str:
        return "any"


#: The value of an optional-number flag given as ``any`` (the field's None).
ANY = _Any()


def int_option(flag: str, allow_none: bool = False):
    """argparse type: a whole number (with ``allow_none``, ``any`` too: ``ANY``)."""

    def parse(text: str):
        if allow_none and text.strip().lower() in ("none", "any"):
            return ANY
        try:
            return int(text, 10)
        except ValueError:
            extra = " (or 'any')" if allow_none else ""
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number{extra}") from None
    parse.__name__ = "whole number"
    return parse


def _rule_specs(cls=CarouselRules) -> list[tuple[str, dict[str, Any]]]:
    """``(field, argparse keywords)`` of each rule flag, from the fields of ``cls`` (the
    rules dataclass): the type from the annotation (bool: ``--x/--no-x``; int; optional
    int: a number or ``any``; text: the choices its module lists), the help from the
    docstring, the default from the field."""
    hints = typing.get_type_hints(cls)
    docs = _field_docs(cls)
    module = sys.modules.get(cls.__module__, _rules_module)
    out = []
    for f in dataclasses.fields(cls):
        if f.name in _OWN_FLAGS:
            continue
        hint = hints.get(f.name)
        value = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)
        text = _HELP.get(f.name) or docs.get(f.name, f.name.replace("_", " "))
        kw: dict[str, Any] = {"dest": _DEST + f.name, "default": None}
        shown = value.value if isinstance(value, enum.Enum) else value
        if hint is bool:
            kw["action"] = argparse.BooleanOptionalAction
            text = re.sub(r"\bTrue\b", _flag(f.name), text)
            text = re.sub(r"\bFalse\b", "--no-" + _flag(f.name)[2:], text)
            shown = "on" if value else "off"
        elif hint is int:
            kw.update(type=int_option(_flag(f.name)), metavar="N")
        elif hint == Optional[int]:
            kw.update(type=int_option(_flag(f.name), allow_none=True), metavar="N")
            shown = "any" if value is None else value
            text = re.sub(r"\bNone\b", "any", text)
        else:
            choices = _choices(f.name, value, module)
            if isinstance(value, enum.Enum):
                kw["type"] = type(value)
            if choices:
                kw["choices"] = choices
                kw["type"] = str
            else:
                kw.update(type=str, metavar="VALUE")
        kw["help"] = f"{text} (default {shown})".replace("%", "%%")
        out.append((f.name, kw))
    return out


#: The rule flags, one per ``CarouselRules`` field but ``players``: (field, flag).
RULE_FLAGS: tuple[tuple[str, str], ...] = tuple((n, _flag(n)) for n, _ in _rule_specs())


def add_rule_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Add ``--rules NAME`` and one flag per ``CarouselRules`` field (but ``players``,
    which each command sets its own way) to ``parser``, as the group "rules"."""
    group = parser.add_argument_group(
        "rules", "A preset (--rules), then single fields (only the flags given change it).")
    group.add_argument("--rules", metavar="NAME", default=None, dest="rules_preset",
                       help=f"rule preset: {', '.join(PRESETS)} (default source; "
                            "'rummy51 carousel rules' lists them with their sources)")
    for name, kw in _rule_specs():
        group.add_argument(_flag(name), *_ALIASES.get(name, ()), **kw)
    return group


def _given(args) -> dict[str, Any]:
    """The rule flags given: field -> value (``any`` -> None)."""
    out = {}
    for name, _ in RULE_FLAGS:
        v = getattr(args, _DEST + name, None)
        if v is not None:
            out[name] = None if v is ANY else v
    return out


def rules_from_args(args, players: int, required: bool = True) -> Optional[CarouselRules]:
    """The ``CarouselRules`` of ``--rules`` and the rule flags for ``players`` players
    (None when neither is given and not ``required``). ``--decks D`` without
    ``--jokers`` takes D jokers (the source's table). Errors name flags."""
    name = getattr(args, "rules_preset", None)
    given = _given(args)
    if name is None and not given and not required:
        return None
    if "decks" in given and "jokers" not in given:
        given["jokers"] = given["decks"]
    if name is not None and name not in PRESETS:
        raise ValueError(f"--rules {name!r} is not a Carousel rule preset: choose one of "
                         f"{', '.join(PRESETS)}")
    try:
        return preset(name or "source", players, **given)
    except (ValueError, TypeError) as e:
        raise type(e)(flag_words(str(e))) from None


_FIELDS = tuple(f.name for f in dataclasses.fields(CarouselRules))


def flag_words(msg: str) -> str:
    """A library message as the command line says it: ``CarouselRules.knock_limit`` and
    ``rules.decks`` become ``--knock-limit`` and ``--decks``."""
    return re.sub(r"\b(?:CarouselRules|rules)\.(" + "|".join(_FIELDS) + r")\b",
                  lambda m: _flag(m.group(1)), msg)
