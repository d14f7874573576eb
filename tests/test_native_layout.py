"""The native sources stay split by concern, and every included file rebuilds its extension.

Each extension module (``_core``, ``_game``, ``_carousel``) is one ``.pyx`` that
includes its concerns as ``.pxi`` files (issue 26). Two things keep that layout honest:
no ``.pyx``/``.pxi`` grows past ``MAX_LINES`` (split it by concern instead), and every
file a ``.pyx`` includes is listed in ``setup.py``'s ``_INCLUDES`` (the extension's
``depends``), so editing it rebuilds the extension instead of leaving a stale one.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

MAX_LINES = 1200

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "rummy51"
SETUP = ROOT / "setup.py"

_INCLUDE = re.compile(r'^\s*include\s+"([^"]+)"', re.MULTILINE)

pytestmark = pytest.mark.skipif(not (SRC / "_core.pyx").exists() or not SETUP.exists(),
                                reason="needs the source tree (src/rummy51, setup.py)")


def _native_sources() -> list[Path]:
    return sorted([*SRC.glob("*.pyx"), *SRC.glob("*.pxi")])


def _includes_of(path: Path, seen: tuple[str, ...] = ()) -> list[str]:
    """The files ``path`` includes, directly or through an included file, in order."""
    out: list[str] = []
    for name in _INCLUDE.findall(path.read_text()):
        assert name not in seen, f"{path.name}: include cycle through {name}"
        assert (SRC / name).exists(), f"{path.name} includes {name}, which does not exist"
        out.append(name)
        out += _includes_of(SRC / name, (*seen, name))
    return out


def _setup_includes() -> dict[str, tuple[str, ...]]:
    """``_INCLUDES`` of setup.py, read without running setup.py."""
    for node in ast.parse(SETUP.read_text()).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "_INCLUDES" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no _INCLUDES = {...}")


def test_the_native_sources_are_found():
    names = {p.name for p in _native_sources()}
    assert {"_core.pyx", "_game.pyx", "_carousel.pyx"} <= names
    assert any(n.endswith(".pxi") for n in names)


@pytest.mark.parametrize("path", _native_sources(), ids=lambda p: p.name)
def test_no_native_source_over_max_lines(path):
    n = len(path.read_text().splitlines())
    assert n <= MAX_LINES, (
        f"{path.name} has {n} lines (at most {MAX_LINES}): split it by concern into "
        f"an included .pxi and list that in setup.py's _INCLUDES")


@pytest.mark.parametrize("module", ["_core", "_game", "_carousel"])
def test_every_included_file_is_a_dependency_in_setup(module):
    included = _includes_of(SRC / f"{module}.pyx")
    listed = _setup_includes().get(module, ())
    missing = [n for n in included if n not in listed]
    assert not missing, f"setup.py's _INCLUDES[{module!r}] lacks {missing} (included by {module}.pyx)"
    stale = [n for n in listed if n not in included]
    assert not stale, f"setup.py's _INCLUDES[{module!r}] lists {stale}, which {module}.pyx does not include"


def test_setup_passes_the_includes_as_depends():
    text = SETUP.read_text()
    assert re.search(r"depends\s*=\s*\[[^\]]*_INCLUDES", text), \
        "setup.py should build each Extension's depends from _INCLUDES"


def test_every_pxi_belongs_to_one_extension():
    owners: dict[str, list[str]] = {}
    for pyx in SRC.glob("*.pyx"):
        for name in _includes_of(pyx):
            owners.setdefault(name, []).append(pyx.name)
    for pxi in SRC.glob("*.pxi"):
        assert len(owners.get(pxi.name, [])) == 1, \
            f"{pxi.name} is included by {owners.get(pxi.name, [])} (expected exactly one .pyx)"


def test_each_pxi_says_what_it_holds():
    for pxi in SRC.glob("*.pxi"):
        first = pxi.read_text().splitlines()[0]
        assert first.startswith("#"), f"{pxi.name}: no header comment saying what it holds"
