"""The layout's rule (docs/architecture.md): no module imports another module's private
names, nor writes another module's private fields; shared helpers are public names of
their module, and a state changes through its own methods.

* ``from .x import _name`` and ``from . import _name`` (a private name of a package's
  ``__init__``): refused, but for private *modules* (``from ._x import name``,
  ``from . import _x``: modules made to be shared) and the native modules (``_core``,
  ``_game``, ``_carousel``, ``_net``);
* ``obj._field = ...`` (and ``obj._field[k] = ...``, ``obj._field += ...``, ``del
  obj._field``) in a module that is not the home of ``_field``: the private fields a
  module's classes set on ``self`` are its own; another module writing them (a state's
  stock, its RNG, its caches) is refused. A field that no class of the package owns
  (an ``argparse.Namespace``'s, say) is no one's private field.
"""
import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rummy51"
# the rule reads the source tree: a run against an installed wheel (CI copies tests/
# alone) has none to read
pytestmark = pytest.mark.skipif(not SRC.is_dir(), reason="no src/ beside tests/ (a run "
                                "against the installed package)")
NATIVE = ("_core", "_game", "_carousel", "_net")
#: an import the rule refuses, kept until its owner changes it (reason given): none but
#: envs/gym.py's, which another branch rewrites (it should import ``register_gym``)
KNOWN: set[str] = {"envs/gym.py from . import _register_gym"}


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"), str(p))) for p in sorted(SRC.rglob("*.py"))]


def _package_dir(path: Path, level: int) -> Path:
    base = path.parent
    for _ in range(level - 1):
        base = base.parent
    return base


def _is_module(pkg: Path, name: str) -> bool:
    return (pkg / f"{name}.py").exists() or (pkg / name / "__init__.py").exists() \
        or name in NATIVE


def _import_offenders(modules):
    for path, tree in modules:
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.module is not None:
                last = node.module.rsplit(".", 1)[-1]
                if last.startswith("_"):
                    continue        # a private module: its names are for the package
                pkg = None
            else:
                pkg = _package_dir(path, node.level)   # from . import x: x of that package
            for alias in node.names:
                name = alias.name
                if not name.startswith("_") or name.startswith("__") or name in NATIVE:
                    continue
                if pkg is not None and _is_module(pkg, name):
                    continue        # a private module of the package, imported whole
                where = f"{path.relative_to(SRC)} from {'.' * node.level}{node.module or ''} " \
                        f"import {name}"
                yield where


def _owned(tree: ast.Module) -> set[str]:
    """The private fields this module's classes own: set on ``self`` or ``cls``, listed
    in ``__slots__`` or annotated in a class body."""
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in ("self", "cls") and node.attr.startswith("_"):
            own.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    own.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    for t in item.targets:
                        if isinstance(t, ast.Name) and t.id == "__slots__" and \
                                isinstance(item.value, (ast.Tuple, ast.List)):
                            own.update(e.value for e in item.value.elts
                                       if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return {f for f in own if f.startswith("_") and not f.startswith("__")}


def _written(target: ast.AST):
    """The ``(object, field)`` attribute writes of an assignment target."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for t in target.elts:
            yield from _written(t)
    elif isinstance(target, ast.Starred):
        yield from _written(target.value)
    elif isinstance(target, ast.Subscript):
        yield from _written(target.value)       # obj._field[k] = v writes obj._field
    elif isinstance(target, ast.Attribute):
        yield target.value, target.attr


def _write_offenders(modules):
    owners: dict[str, set[Path]] = {}
    owned = {}
    for path, tree in modules:
        owned[path] = _owned(tree)
        for f in owned[path]:
            owners.setdefault(f, set()).add(path)
    for path, tree in modules:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            else:
                continue
            for t in targets:
                for obj, field in _written(t):
                    if not field.startswith("_") or field.startswith("__"):
                        continue
                    if isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
                        continue
                    if field in owned[path] or field not in owners:
                        continue    # its own field, or no class's private field
                    homes = ", ".join(sorted(str(p.relative_to(SRC)) for p in owners[field]))
                    yield (f"{path.relative_to(SRC)}:{node.lineno} writes "
                           f"{ast.unparse(obj)}.{field} (a private field of {homes})")


def test_no_module_imports_another_modules_private_names():
    found = list(_import_offenders(_modules()))
    assert [f for f in found if f not in KNOWN] == []
    assert KNOWN <= set(found) or not KNOWN, "a KNOWN exception is gone: remove it"


def test_no_module_writes_another_modules_private_fields():
    assert list(_write_offenders(_modules())) == []


def test_the_checks_find_what_they_look_for(tmp_path):
    home = ast.parse("class State:\n    def __init__(self):\n        self._stock = []\n")
    other = ast.parse("def f(s):\n    s._stock = [1]\n    s._stock[0] = 2\n    s._cache = {}\n"
                      "    t.x = 1\n")
    mods = [(SRC / "a.py", home), (SRC / "b.py", other)]
    found = list(_write_offenders(mods))
    assert len(found) == 2 and all("_stock" in f for f in found)     # _cache: no one's
    imp = ast.parse("from . import _helper\nfrom . import _core\nfrom .x import _y\n")
    names = [w.rsplit(" ", 1)[-1] for w in _import_offenders([(SRC / "z.py", imp)])]
    assert names == ["_helper", "_y"]
