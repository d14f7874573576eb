"""Bots by name, for every game: a game keeps a registry (``BOTS``: name -> class); these
find a registry's key from the way a user spells it, import a bot class named
``"module:Class"`` and make fresh bots of a class with or without a seed."""
from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = ["spelling", "registry_key", "import_bot", "class_name", "bot_factory"]


def spelling(name: str) -> str:
    """A bot name as compared: case, ``-``, ``_`` and spaces do not count
    (``Hand_Hunter`` is ``hand-hunter``).

    >>> spelling(" Hand_Hunter ")
    'handhunter'
    """
    return name.strip().lower().replace("-", "").replace("_", "").replace(" ", "")


def registry_key(name: str, registry: Iterable[str]) -> str | None:
    """The key of ``registry`` that ``name`` spells (``spelling``), or None."""
    want = spelling(name)
    for key in registry:
        if spelling(key) == want:
            return key
    return None


def import_bot(name: str, check: bool = True) -> Any:
    """The bot class ``"module:Class"`` names, imported; ``check``: a ``ValueError``
    naming it when it cannot be imported or is not callable (otherwise None)."""
    mod, _, qual = name.partition(":")
    try:
        obj: Any = importlib.import_module(mod)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError, ValueError) as e:
        if not check:
            return None
        raise ValueError(f"bots: cannot import {name!r} ({e})") from None
    if check and not callable(obj):
        raise ValueError(f"bots: {name!r} is not a bot class")
    return obj


def class_name(cls: type) -> str:
    """``"module:Class"`` of a bot class that can be imported by that name (worker
    processes import it so); a ``ValueError`` otherwise."""
    name = f"{cls.__module__}:{cls.__qualname__}"
    if import_bot(name, check=False) is not cls:
        raise ValueError(f"bots: class {cls.__qualname__} cannot be imported by name as "
                         f"{name!r}: define it at module level of an importable module")
    return name


def bot_factory(cls: Callable[..., Any]) -> Callable[[np.random.SeedSequence], Any]:
    """``make(seed) -> bot``: a fresh bot of ``cls``; ``seed`` goes to a class whose
    constructor takes one."""
    try:
        takes_seed = "seed" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        takes_seed = False
    return (lambda ss: cls(seed=ss)) if takes_seed else (lambda ss: cls())
