"""Every Python snippet and every shell command in the README and docs/ runs as pasted;
the docs site holds every page and its API page lists exactly what the package exports.

The ``python`` blocks of one document run one after the other in one fresh process
(later blocks may use names of earlier ones, as a reader pasting them would), in an
empty working directory, as a script file (so what needs ``if __name__ ==
"__main__":`` has it). Blocks written as a session (``>>>``) are checked as doctests.
"""
import contextlib
import doctest
import io
import re
import shlex
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


#: optional libraries a document's snippets may need (the extras agents and train)
_OPTIONAL = ("pyspiel", "pettingzoo", "sb3_contrib")


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


# --------------------------------------------------------------------------- shell commands
#: commands the test does not run: installing (it is installed), the test suite itself
_NOT_RUN = re.compile(r"\bpip install\b|-m pytest\b")
#: sizes scaled down so that the commands run in seconds (the docs show full runs)
_SMALL = {"--games": "2", "--deals": "2000"}
_ANY_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def _commands(path: Path) -> list[str]:
    """The shell commands of a document: every line of its ``bash`` blocks (``\\``
    continuations joined) and the ``$ `` lines of its ``text`` blocks."""
    out = []
    for lang, body in _ANY_BLOCK.findall(path.read_text(encoding="utf-8")):
        if lang == "bash":
            out += [c.strip() for c in body.replace("\\\n", " ").splitlines() if c.strip()]
        elif lang == "text":
            out += [line[2:].strip() for line in body.splitlines() if line.startswith("$ ")]
    return out


def _small(command: str) -> str:
    """``command`` with its sizes scaled down (a study without a size gets a small one)."""
    for flag, value in _SMALL.items():
        command = re.sub(rf"{flag}\s+[\d_,]+", f"{flag} {value}", command)
    code = command.split("#")[0]
    wants = {"simulate openings": "--deals", "simulate games": "--games",
             "carousel simulate": "--games"}
    for cmd, flag in wants.items():
        if cmd in code and flag not in code and "--resume" not in code:
            command = code.rstrip() + f" {flag} {_SMALL[flag]}"
    return command


@pytest.mark.parametrize("doc", [d for d in DOCS if _commands(d)], ids=lambda d: d.name)
def test_shell_commands_run_as_written(doc, tmp_path):
    """Every shell command of a document runs (exit 0) as written, one after the other
    in one fresh directory (a later command may use an earlier one's run directory),
    with the study sizes scaled down."""
    commands = [c for c in _commands(doc) if not _NOT_RUN.search(c)]
    assert commands, f"{doc.name}: only install commands"
    py = sys.executable
    lines = ["set -euo pipefail",
             # `python3 -m rummy51` and `rummy51` are this interpreter's
             f'python() {{ "{py}" "$@"; }}', f'python3() {{ "{py}" "$@"; }}',
             f'rummy51() {{ "{py}" -m rummy51 "$@"; }}']
    for c in commands:
        small = _small(c)
        lines += [f"echo {shlex.quote('$ ' + small)} >&2", small]
    script = tmp_path / "commands.sh"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = subprocess.run(["bash", str(script)], cwd=tmp_path, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, f"{doc.name}: a command fails:\n{r.stderr[-3000:]}"


def test_scaling_keeps_the_command():
    assert _small("rummy51 simulate games --games 100000 --seed 1 --out runs/g") \
        == "rummy51 simulate games --games 2 --seed 1 --out runs/g"
    assert _small("python3 -m rummy51 simulate openings       # the default rules") \
        == "python3 -m rummy51 simulate openings --deals 2000"
    assert _small("rummy51 simulate openings --resume runs/o") == "rummy51 simulate openings --resume runs/o"


def test_inline_commands_parse():
    """Every ``rummy51 ...`` code span in the prose that gives options is a command the
    parser takes (``DIR``, ``HAND`` stand for a value)."""
    from rummy51.cli import build_parser

    bad = []
    for doc in DOCS:
        for span in re.findall(r"`((?:python3? -m )?rummy51 [^`]*--[^`]*)`",
                               doc.read_text(encoding="utf-8")):
            args = shlex.split(span)
            args = args[args.index("rummy51") + 1:]
            parser = build_parser()
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err):
                    parser.parse_args(args)
            except SystemExit:
                bad.append(f"{doc.name}: `{span}`: {err.getvalue().strip().splitlines()[-1]}")
    assert bad == [], "\n".join(bad)


# --------------------------------------------------------------------------- the site
@pytest.mark.skipif(not (ROOT / "mkdocs.yml").is_file(),
                    reason="no mkdocs.yml beside tests/ (a run against an installed wheel)")
def test_mkdocs_nav_holds_every_page():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:", 1)[1]
    nav = re.split(r"\n\S", nav, maxsplit=1)[0]       # up to the next top-level key
    listed = re.findall(r":\s*([\w./-]+\.md)\s*$", nav, re.M)
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert sorted(listed) == pages
    assert len(listed) == len(set(listed))


_API = ROOT / "docs" / "api.md"
_DIRECTIVE = re.compile(r"^::: (\S+)\n((?:[ \t]+.*\n)*)", re.M)


def _api_blocks() -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _DIRECTIVE.finditer(_API.read_text(encoding="utf-8"))}


def _public_packages_and_modules():
    import pkgutil

    import rummy51

    packages, modules = ["rummy51"], []

    def walk(path, prefix):
        for info in pkgutil.iter_modules(path):
            if info.name.startswith("_"):
                continue
            name = prefix + info.name
            if info.ispkg:
                packages.append(name)
                walk([str(Path(path[0]) / info.name)], name + ".")
            else:
                modules.append(name)

    walk(rummy51.__path__, "rummy51.")
    return packages, modules


def test_api_page_lists_exactly_what_the_packages_export():
    """What a user imports is what the package and each room export (``__all__``): the
    API page renders each with exactly those members."""
    import importlib

    blocks = _api_blocks()
    packages, _ = _public_packages_and_modules()
    assert {"rummy51", "rummy51.r51", "rummy51.carousel", "rummy51.envs"} <= set(packages)
    for name in packages:
        assert name in blocks, f"docs/api.md has no '::: {name}'"
        m = re.search(r"members:\s*\[(.*?)\]", blocks[name], re.S)
        assert m, f"docs/api.md: '::: {name}' lists no members"
        listed = [x.strip() for x in m.group(1).replace("\n", " ").split(",") if x.strip()]
        exported = list(importlib.import_module(name).__all__)
        assert len(listed) == len(set(listed)), f"{name}: a member listed twice"
        assert sorted(listed) == sorted(exported), (
            f"docs/api.md's {name} lists {sorted(set(listed) - set(exported))} that it does "
            f"not export and misses {sorted(set(exported) - set(listed))}")


def test_api_page_covers_every_public_module():
    blocks = _api_blocks()
    _, modules = _public_packages_and_modules()
    assert len(modules) > 40
    missing = [m for m in modules if m not in blocks]
    assert missing == [], f"docs/api.md does not cover {missing}"
    assert "rummy51.studies.carousel" in blocks     # simulate_carousel's home
