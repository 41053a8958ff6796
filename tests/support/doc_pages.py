"""The documentation's pages as the tests read them: the Markdown files of
``docs/`` and README.md, their fenced code blocks, and the text of a section.

Not a test module: used by ``test_docs_examples.py``, ``test_readme.py`` and
the other tests that check what a page says (``test_annotate.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"

_FENCE = re.compile(r"^(`{3,})(\S*)\s*(.*)$")


@dataclass(frozen=True)
class Block:
    """One fenced block: its page, the line its text starts on, the info
    string's language (``sh``, ``pycon``, ``{literalinclude}``, ...), the
    argument after a directive's name, and the text."""

    page: Path
    line: int
    lang: str
    argument: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def pages() -> list[Path]:
    """Every Markdown page of the site."""
    found = sorted(DOCS.glob("*.md"))
    assert found, f"no pages in {DOCS}"
    return found


def read(page: Path | str) -> str:
    """A page's text, by path or by name under docs/ (``"batch.md"``)."""
    path = page if isinstance(page, Path) else DOCS / page
    return path.read_text()


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of one page, in order."""
    lines = page.read_text().split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        fence, lang, argument = match.groups()
        end = i + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        assert end < len(lines), f"{page}:{i + 1}: unclosed code block"
        out.append(Block(page, i + 2, lang, argument, "\n".join(lines[i + 1:end]) + "\n"))
        i = end + 1
    return out


def section(text: str, heading: str) -> str:
    """The text under the Markdown heading ``heading`` (its exact line, say
    ``"## Limits"``), up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.split("\n")
    assert heading in lines, f"no heading {heading!r}"
    start = lines.index(heading) + 1
    out = []
    fenced = False
    for line in lines[start:]:
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and re.match(rf"^#{{1,{level}}} ", line):
            break
        out.append(line)
    return "\n".join(out)
