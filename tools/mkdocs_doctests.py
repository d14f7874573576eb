"""mkdocs hook: the ``>>>`` examples of the docstrings that mkdocstrings renders (and of
the pages) are shown as code blocks, not as Markdown (where ``>>>`` starts a quote and
an output like ``[0.0, 0.28]`` after an input ending in ``]`` reads as a reference link).
"""
from __future__ import annotations

import re

from markdown import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

_FENCE = re.compile(r"^\s*(```|~~~)")
_PROMPT = re.compile(r"^(\s*)>>> ")


class _Doctests(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        in_fence = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if _FENCE.match(line):
                in_fence = not in_fence
            m = None if in_fence else _PROMPT.match(line)
            if m is None:
                out.append(line)
                i += 1
                continue
            indent = m.group(1)
            block = []
            while i < len(lines) and lines[i].strip():   # a doctest ends at a blank line
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            out += ["", indent + "```pycon"] + [indent + b for b in block] + [indent + "```", ""]
        return out


class DoctestExtension(Extension):
    def extendMarkdown(self, md):  # noqa: N802 (Markdown's name)
        md.preprocessors.register(_Doctests(md), "rummy51_doctests", 40)


@event_priority(100)   # before mkdocstrings reads the Markdown extensions
def on_config(config):
    config.markdown_extensions.append(DoctestExtension())
    return config
