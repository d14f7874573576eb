"""Two house rules a linter does not check, read from the source tree (cheap: text and
``ast`` only, nothing imported):

* no Python function in src/ is longer than ``MAX_FUNCTION_LINES`` lines (ruff's C901 and
  PLR0915 in pyproject.toml bound its branches and statements, not its length);
* src/, docs/ and the README say what a feature is, not which ticket asked for it: no
  "issue N" (CHANGELOG.md and bench/log/ may keep them).
"""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

needs_tree = pytest.mark.skipif(not SRC.is_dir(), reason="no src/ beside tests/ (a run against "
                                                         "an installed wheel)")

MAX_FUNCTION_LINES = 120

# text files a reader of the sources or the docs sees (generated .c/.html are not tracked)
TEXT_SUFFIXES = {".py", ".pyi", ".pyx", ".pxd", ".pxi", ".md", ".txt", ".yml", ".yaml",
                 ".toml", ".cfg", ".css", ".js", ".html", ".json"}
TICKET = re.compile(r"\bissues?\s*#?\s*\d+", re.IGNORECASE)


def _functions(tree: ast.AST):
    """(qualified name, first line, lines) of every function and method, nested ones too."""
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _long_functions(files, root=ROOT, limit=MAX_FUNCTION_LINES):
    found = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, line, n in _functions(tree):
            if n > limit:
                found.append(f"{path.relative_to(root)}:{line}: {name} is {n} lines "
                             f"(at most {limit})")
    return found


@needs_tree
def test_no_python_function_in_src_is_over_120_lines():
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 50  # the walk found the package
    found = _long_functions(files)
    assert not found, "functions too long (split them):\n" + "\n".join(found)


def test_the_size_check_names_a_long_function(tmp_path):
    # the check itself can fail, and names the function (a method here) and its line
    body = "\n".join(f"        x{i} = {i}" for i in range(125))
    f = tmp_path / "m.py"
    f.write_text(f"class C:\n    def short(self):\n        pass\n\n    def long(self):\n{body}\n",
                 encoding="utf-8")
    found = _long_functions([f], root=tmp_path)
    assert found == ["m.py:5: C.long is 126 lines (at most 120)"]


def _ticket_lines(files):
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            m = TICKET.search(line)
            if m:
                found.append(f"{path.relative_to(ROOT)}:{i}: {m.group(0)!r} in {line.strip()[:100]!r}")
    return found


@needs_tree
def test_no_issue_numbers_in_src_docs_or_readme():
    files = [p for d in (SRC, ROOT / "docs") if d.is_dir() for p in sorted(d.rglob("*"))
             if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts]
    files.append(ROOT / "README.md")
    assert len(files) > 100
    found = _ticket_lines(files)
    assert not found, ("say what the feature is, not which ticket asked for it (CHANGELOG.md "
                       "may name issues):\n" + "\n".join(found))


@pytest.mark.parametrize("text", ["as issue 13 asked", "Issue 29's target", "issues 26-28",
                                  "see issue #7", "ISSUE\t3"])
def test_the_ticket_check_finds(text):
    assert TICKET.search(text)


@pytest.mark.parametrize("text", ["no issue here", "tissue 3", "an issue: 3 players",
                                  "reissued 4 times"])
def test_the_ticket_check_passes(text):
    assert not TICKET.search(text)
