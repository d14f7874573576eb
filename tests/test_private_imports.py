"""The layout's rule (docs/architecture.md): no module imports another module's private
names (``from .x import _name``); shared helpers are public names of their module.
The private native modules themselves (``_core``, ``_game``, ``_carousel``) and private
modules (``from ._x import name``) may be imported."""
import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "rummy51"


def _offenders():
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.module is None:
                continue
            last = node.module.rsplit(".", 1)[-1]
            if last.startswith("_"):
                continue        # a private module: its names are for the package
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__") \
                        and alias.name not in ("_core", "_game", "_carousel"):
                    yield f"{path.relative_to(SRC)}:{node.lineno} from {node.module} " \
                          f"import {alias.name}"


def test_no_module_imports_another_modules_private_names():
    assert list(_offenders()) == []
