"""Finding the mainline moves in a game's text, as python-chess's reader
tokenises it, for :mod:`pyfathom.annotate` (the annotations are inserted
after those moves, the rest of the text is kept byte for byte)."""

from __future__ import annotations

import re
import sys
from typing import NamedTuple, Protocol

import chess.pgn

# Possessive repeats (Python 3.11 on) spare the regex engine its backtracking
# bookkeeping; they match the same, as the part after them always matches.
_ONCE = "+" if sys.version_info >= (3, 11) else ""

_SKIPPED = (
    # What python-chess's reader passes over without a move: whitespace,
    # comments from "{" to the first "}" (over lines), move numbers and dots
    # (no token fits in them: "0000" needs four zeros), check signs, ";" to
    # the end of the line, "%" escape lines, NAGs and results.  The movetext
    # regex tries its move pattern first, but none of these can start a
    # move, so passing over them first changes nothing; it saves a Python
    # iteration per comment, NAG and result.
    rf"\s*{_ONCE}(?:(?:\{{[^}}]*\}}?|[1-9][0-9]{{0,2}}\.+|[+\#]+|\.+|;[^\n]*|(?m:^%[^\n]*)"
    rf"|\$[0-9]+|[?!]{{1,2}}|\*|1-0|0-1|1/2-1/2)\s*{_ONCE})*{_ONCE}"
)

_TOKENS = re.compile(
    # Then python-chess's own movetext tokens (group 1: a move, 5: "(",
    # 6: ")"; its other groups cannot match after the skipped part), a
    # character matching none of them, or the end.  One of these always
    # matches, so the regex never backtracks into the skipped part and the
    # scan never restarts inside a comment: every match ends where
    # python-chess's reader goes on.
    _SKIPPED + r"(?:" + chess.pgn.MOVETEXT_REGEX.pattern + r"|[\s\S]|\Z)",
    re.DOTALL | re.VERBOSE)


class _Span(NamedTuple):
    start: int
    end: int
    token: str


def _movetext_start(lines: list[str]) -> int:
    """Index of the line where python-chess's reader starts the movetext
    (after leading blank/comment lines and the headers), or -1."""
    n = len(lines)
    if not n:
        return -1
    i = 0
    line = lines[0].lstrip("\ufeff")  # python-chess strips the first line read
    while line.isspace() or line[:1] in _COMMENT_LINES:
        i += 1
        if i == n:
            return -1
        line = lines[i]
    empty = 0
    while True:
        head = line[:1]
        if head == "[":
            empty = 0
        elif head not in _COMMENT_LINES:
            if empty or not line.isspace():
                return i
            empty = 1  # up to one blank line between headers
        i += 1
        if i == n:
            return -1
        line = lines[i]


_COMMENT_LINES = ("%", ";")


def _mainline_spans(lines: list[str]) -> tuple[int, list[_Span]]:
    """Where python-chess's reader finds the mainline moves of a game's
    lines: (offset in ``"".join(lines)`` where the movetext starts, or -1;
    a span per mainline move, as offsets in that text).

    Tokens as the reader splits them (comments, ``%`` lines, variations,
    NAGs, results), so that the n-th span is the token of the n-th mainline
    move.
    """
    base, moves = _mainline_matches(lines)
    return base, [_Span(base + m.start(1), base + m.end(1), m[1]) for m in moves]


def _mainline_matches(lines: list[str]) -> tuple[int, list[re.Match[str]]]:
    """:func:`_mainline_spans` as (offset of the movetext, the matches of
    :data:`_TOKENS` whose group 1 is a mainline move, in the movetext)."""
    first = _movetext_start(lines)
    if first < 0:
        return -1, []
    base = sum(len(line) for line in lines[:first])
    text = "".join(lines[first:])
    if first == 0:  # python-chess strips byte order marks from the first line read
        stripped = text.lstrip("\ufeff")
        base += len(text) - len(stripped)
        text = stripped
    moves: list[re.Match[str]] = []
    skip_depth = 0
    for match in _TOKENS.finditer(text):
        kind = match.lastindex
        if kind == 1:  # a move
            if not skip_depth:
                moves.append(match)
        elif kind == 5:  # "(": python-chess skips variations after the first move
            if skip_depth:
                skip_depth += 1
            elif moves:
                skip_depth = 1
        elif kind == 6 and skip_depth:  # ")"
            skip_depth -= 1
    return base, moves


class _Spans(Protocol):
    """The spans of a game's mainline moves, by move index."""

    def __getitem__(self, index: int) -> _Span: ...


class _MatchSpans:
    """:class:`_Span` s made when asked for, from :func:`_mainline_matches`."""

    __slots__ = ("_base", "_moves")

    def __init__(self, base: int, moves: list[re.Match[str]]) -> None:
        self._base = base
        self._moves = moves

    def __getitem__(self, index: int) -> _Span:
        match = self._moves[index]
        return _Span(self._base + match.start(1), self._base + match.end(1), match[1])
