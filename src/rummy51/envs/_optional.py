"""Importing an optional library with a one-line message naming the extra that installs it."""
from __future__ import annotations

import importlib
from types import ModuleType


def need(module: str, extra: str) -> ModuleType:
    """``importlib.import_module(module)``, or an ImportError saying what to install."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{module} is needed here ({e}); install it with "
                          f"pip install \"rummy51[{extra}]\"") from None
