"""Importing an optional library with a one-line message naming the extra that installs it."""
from __future__ import annotations

import importlib
from types import ModuleType

#: the extras of one door each; the message names ``agents``, which installs every door
_DOOR_EXTRAS = ("openspiel", "pettingzoo", "gymnasium")


def need(module: str, extra: str) -> ModuleType:
    """``importlib.import_module(module)``, or an ImportError saying what to install (from
    a clone of the repository, as the README installs it)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if extra in _DOOR_EXTRAS:
            extra = "agents"
        raise ImportError(f"{module} is needed here ({e}); install it from a clone of rummy51 "
                          f"with pip install \".[{extra}]\"", name=e.name or module) from None
