"""Every module of the package whose source holds an example (``>>>``) runs it as a
doctest: the examples in docstrings are part of the documentation and must run as
pasted. Modules are found, not listed, so a new module's examples are run too; a module
whose optional library is missing (the agent doors without ``.[agents]``) is skipped
with the reason."""
from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import rummy51

#: optional libraries a module's import may need (the extras of pyproject.toml)
OPTIONAL = ("gymnasium", "pettingzoo", "pyspiel", "open_spiel", "matplotlib", "openskill", "dask",
            "distributed", "torch", "sb3_contrib", "stable_baselines3")


def _modules_with_examples() -> list[str]:
    names = ["rummy51"] + [m.name for m in pkgutil.walk_packages(rummy51.__path__, "rummy51.")]
    out = []
    for name in names:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec else None
        if origin and origin.endswith(".py") and ">>>" in Path(origin).read_text(encoding="utf-8"):
            out.append(name)
    return out


MODULES = _modules_with_examples()


def test_modules_with_examples_are_found():
    # the walk reaches every room (a broken walk would make every test below vanish)
    rooms = {name.split(".")[1] for name in MODULES if name.count(".") >= 2}
    assert {"r51", "carousel", "envs", "studies"} <= rooms, MODULES
    assert len(MODULES) >= 30, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_run(name):
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        if e.name and e.name.split(".")[0] in OPTIONAL:
            pytest.skip(f"{name} needs {e.name}, not installed")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name}: no example found by doctest although the source holds '>>>'"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (output above)"
