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
                               ("gymnasium", ("gymnasium",)))
            if any(x in code for x in marks)]


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 9


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_example_runs(code):
    for mod in _needs(code):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed")
    exec(compile(code, str(DOC), "exec"), {"__name__": "__agents_doc__"})
