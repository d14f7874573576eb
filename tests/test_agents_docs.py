"""Every Python example of docs/agents.md runs as pasted (each in a fresh namespace).

The OpenSpiel, PettingZoo and Gymnasium examples are skipped when their library is missing.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "agents.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def _needs(code: str) -> list[str]:
    return [m for m, marks in (("pyspiel", ("pyspiel", "envs.openspiel")),
                               ("pettingzoo", ("envs.pettingzoo",)),
                               ("gymnasium", ("gymnasium",)),
                               ("sb3_contrib", ("sb3_contrib",)))
            if any(x in code for x in marks)]


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 9


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_example_runs(code):
    for mod in _needs(code):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed")
    exec(compile(code, str(DOC), "exec"), {"__name__": "__agents_doc__"})


MODULES = [("rummy51.carousel.codec", None), ("rummy51.carousel.agent", None),
           ("rummy51.carousel.chance", None), ("rummy51.r51.infostate", None),
           ("rummy51.envs.llm_carousel", None), ("rummy51.envs.gym", "gymnasium"),
           ("rummy51.envs.openspiel_carousel", "pyspiel"), ("rummy51.r51.policy", None),
           ("rummy51.carousel.policy", None), ("rummy51.envs.openspiel_eval", "pyspiel")]


@pytest.mark.parametrize("name, needs", MODULES, ids=[m for m, _ in MODULES])
def test_module_docstring_examples(name, needs):
    import doctest
    import importlib

    if needs and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{needs} is not installed")
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0 or name == "rummy51.r51.infostate"
