"""Every Python snippet in the README and docs/ runs as pasted.

The ``python`` blocks of one document run one after the other in one fresh process
(later blocks may use names of earlier ones, as a reader pasting them would), in an
empty working directory, as a script file (so what needs ``if __name__ ==
"__main__":`` has it). Blocks written as a session (``>>>``) are checked as doctests.
"""
import doctest
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks(path: Path) -> list[str]:
    return _BLOCK.findall(path.read_text(encoding="utf-8"))


def _scripts(path):
    return [b for b in _blocks(path) if not b.lstrip().startswith(">>>")]


def _sessions(path):
    return [b for b in _blocks(path) if b.lstrip().startswith(">>>")]


#: optional libraries a document's snippets may need (the extras openspiel, pettingzoo)
_OPTIONAL = ("pyspiel", "pettingzoo")


@pytest.mark.parametrize("doc", [d for d in DOCS if _scripts(d)], ids=lambda d: d.name)
def test_script_snippets_run_as_pasted(doc, tmp_path):
    text = "\n".join(_scripts(doc))
    for mod in _OPTIONAL:
        if re.search(rf"^\s*(import|from) {mod}\b", text, re.M):
            pytest.importorskip(mod, reason=f"{doc.name} needs the optional {mod}")
    script = tmp_path / "snippet.py"
    script.write_text("\n".join(_scripts(doc)), encoding="utf-8")
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, f"{doc.name}: the snippets fail:\n{r.stderr[-3000:]}"


@pytest.mark.parametrize("doc", [d for d in DOCS if _sessions(d)], ids=lambda d: d.name)
def test_session_snippets_are_doctests(doc):
    parser = doctest.DocTestParser()
    globs: dict = {}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for i, block in enumerate(_sessions(doc)):
        test = parser.get_doctest(block, globs, f"{doc.name}[{i}]", str(doc), 0)
        runner.run(test, clear_globs=False)
        globs.update(test.globs)   # a later block goes on from an earlier one
    assert runner.failures == 0, f"{doc.name}: {runner.failures} doctest failures (see output)"
