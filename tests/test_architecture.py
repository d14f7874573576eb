"""The house's arrows (docs/architecture.md): imports run one way.

* import-linter's contracts (``[tool.importlinter]`` in pyproject.toml: the layers of the
  picture in docs/architecture.md) are kept;
* the module import graph of ``rummy51`` has no cycle, imports inside functions
  included (only ``if TYPE_CHECKING:`` imports are exempt);
* nothing inside the package imports the package root (which imports every room) but
  for the compiled modules (``_core``, ``_game``, ``_carousel``), which the checkers
  cannot see and read as imports of the root;
* the picture in docs/architecture.md draws the layers in the contract's order.
"""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rummy51

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGE = Path(rummy51.__file__).resolve().parent
NATIVE = {"_core", "_game", "_carousel", "_net"}

importlinter = pytest.importorskip(
    "importlinter", reason="import-linter is not installed (it is in the test extra: "
                           "pip install -e '.[test]')")
grimp = pytest.importorskip("grimp", reason="grimp (import-linter's graph) is not installed")

needs_pyproject = pytest.mark.skipif(
    not PYPROJECT.is_file(), reason="no pyproject.toml beside tests/ (a run against an "
                                    "installed wheel): the contracts live there")


def _toml():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml on 3.10 needs tomli")
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- contracts
@needs_pyproject
def test_import_linter_contracts_are_kept():
    # in a process of its own: import-linter's console writes to the stdout it found
    # first, which an earlier test's capture may have closed since
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         f"sys.exit(lint_imports(config_filename={str(PYPROJECT)!r}, no_cache=True, "
         "no_logo=True))"],
        capture_output=True, text=True, cwd=ROOT, timeout=300)
    code, out = run.returncode, run.stdout + run.stderr
    assert code == 0, f"import-linter: a contract is broken\n{out}"
    assert "0 broken" in out and "BROKEN" not in out


# --------------------------------------------------------------------------- cycles
def _module_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _root_imports():
    """Every ``from <package root> import name`` inside the package, outside ``if
    TYPE_CHECKING:``: ``(module, line, name)``."""
    for path in sorted(PACKAGE.rglob("*.py")):
        mod = _module_of(path)
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        skip = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skip.update(id(n) for b in node.body for n in ast.walk(b))
        for node in ast.walk(tree):
            if id(node) in skip or mod == "rummy51":
                continue
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name == "rummy51":
                        yield mod, node.lineno, "import rummy51"
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module
                if target == "rummy51":
                    for a in node.names:
                        yield mod, node.lineno, a.name


def test_the_package_root_is_imported_only_for_its_native_modules():
    submodules = {p.stem if p.suffix == ".py" else p.name
                  for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    bad = [f"{mod}:{line} imports {name} from the package root"
           for mod, line, name in _root_imports() if name not in NATIVE | submodules]
    assert bad == [], "\n".join(bad)


def _cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _import_graph() -> dict[str, set[str]]:
    g = grimp.build_graph("rummy51", include_external_packages=False,
                          exclude_type_checking_imports=True)
    graph = {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}
    # ``from .. import _core`` reads as an import of the root (the compiled modules are
    # invisible to grimp); the test above checks that those are all such imports
    for m in graph:
        if m != "rummy51":
            graph[m].discard("rummy51")
    return graph


def test_the_import_graph_has_no_cycle():
    graph = _import_graph()
    assert len(graph) > 50   # the graph really was read
    cycles = _cycles(graph)
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_lazy_imports_count():
    # an import inside a function is an edge of the graph: studies.games imports the
    # ratings only inside GameStudy.ratings / paired
    assert "rummy51.ratings" in _import_graph()["rummy51.studies.games"]


# --------------------------------------------------------------------------- the picture
def _picture_lines() -> list[str]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = re.search(r"^```\n(.*?)^```", text, re.S | re.M)
    assert block, "docs/architecture.md has no picture (a plain ``` block)"
    return block.group(1).splitlines()


def _drawn_as(name: str) -> re.Pattern:
    if name == "__main__":
        return re.compile(r"__main__\.py")
    # a room is drawn as "cli/", a module as "stats.py"
    return re.compile(rf"(?<![\w.]){re.escape(name)}(/|\.py\b)")


@needs_pyproject
def test_the_architecture_picture_draws_the_contract_layers_in_order():
    (layers_contract,) = [c for c in _toml()["tool"]["importlinter"]["contracts"]
                          if c["type"] == "layers"]
    lines = _picture_lines()
    previous_bottom = -1
    for layer in layers_contract["layers"]:
        names = [n.strip().strip("()") for n in re.split(r"[|:]", layer)]
        rows = []
        for n in names:
            found = [i for i, line in enumerate(lines) if _drawn_as(n).search(line)]
            assert found, f"docs/architecture.md's picture does not draw {n!r} (layer {layer!r})"
            rows.append(found[0])
        assert min(rows) > previous_bottom, (
            f"the picture draws layer {layer!r} (lines {rows}) above a layer the contract puts "
            f"over it")
        previous_bottom = max(rows)
