"""The one position grammar of pyfathom: what ``probe``, ``batch``, the
server and the Python helpers accept as a position, and its one parser.

A position is written as a FEN or an EPD line:

- the piece placement and the side to move (``w``/``b``) are required;
  castling rights, en-passant square, halfmove clock and fullmove number
  may follow, in that order, and default to ``-``, ``-``, ``0`` and ``1``
  (so 2 to 6 fields: ``8/8/8/8/8/8/2Rk4/1K6 b`` is a position); castling
  rights are ``-`` or distinct letters of ``KQkq`` (no Shredder or X-FEN
  file letters: no table holds a castling position anyway); the clocks
  are numbers from 0 to :data:`MAX_CLOCK`; nothing may follow the sixth
  field (python-chess's ``Board(fen)`` refuses "more parts than expected"
  too);
- after the first four fields, EPD operations may follow (``id "x";``,
  ``bm Kb3;``, ``hmvc 12;``): an opcode (a letter, then letters, digits or
  ``_``), its operands, a ``;`` (optional after the last one); operands in
  double quotes may hold blanks and ``;``.  The position is the four fields (``hmvc``/``fmvn`` do not set
  the clocks: python-chess's ``Board(fen)`` does not read them either);
- in a text without blanks, ``_`` stands for a blank (a position in a URL:
  ``8/8/8/8/8/8/2Rk4/1K6_b``);
- surrounding blanks are ignored; inner blanks of any length separate.

Errors are :class:`FenError` (a ValueError) whose message names the input
once, as it was given: ``invalid fen '8/8/8 w': ...``; the probing errors
of a parsed position name its FEN the same way (:func:`position_error`).

This module is the grammar's one statement.  ``pyfathom batch`` reads lines
with the core's C parser first (one call per chunk, no Python per line);
that parser accepts only what this grammar accepts, and every line it does
not settle alone (refused, or with text after the position's fields) gets
this module's verdict (:func:`settle_by_grammar`).

>>> split_position("8/8/8/8/8/8/2Rk4/1K6_b")
('8/8/8/8/8/8/2Rk4/1K6 b - - 0 1', {})
>>> split_position('8/8/8/8/8/8/2Rk4/1K6 b - - id "KR v K"; bm Kb3;')
('8/8/8/8/8/8/2Rk4/1K6 b - - 0 1', {'id': 'KR v K', 'bm': 'Kb3'})
"""

from __future__ import annotations

import re
from typing import Any, Optional

import chess

from pyfathom._bindings import lowlevel as _lowlevel

__all__ = ["FenError", "split_position", "epd_operations", "parse_board", "position_error"]

MAX_CLOCK = 2**32 - 1
"""Largest halfmove clock and fullmove number of a position: lila-tablebase's
FEN parser holds them in 32 bits and refuses larger ones (the C parser of
``pyfathom batch`` holds 16 bits: :func:`reparse_refused` gives it larger
clocks as 65,535, which the 50-move rule reads the same as any clock past
100)."""

_BLANK_BYTES = b" \t\n\v\f\r"
_DEFAULTS = ("-", "-", "0", "1")  # fields 3 to 6
_FIELD_PATTERNS = (  # fields 3 to 6, to tell a field from an EPD opcode
    re.compile(r"-|(?!.*(.).*\1)[KQkq]{1,4}"),  # distinct letters, as the C parser
    re.compile(r"-|[a-h][1-8]"),
    re.compile(r"[0-9]+"),
    re.compile(r"[0-9]+"),
)
# An opcode and an unquoted operand each end only where their characters
# do (the lookaheads): without that, a long operand that fails to match
# could be cut in exponentially many ways before the regex gives up.
_OPERATION_TEXT = (r'\s*([A-Za-z][A-Za-z0-9_]*(?![A-Za-z0-9_]))'
                   r'((?:\s*(?:"[^"]*"|[^\s;"]+(?![^\s;"])))*)\s*(?:;|$)')
_OPERATION = re.compile(_OPERATION_TEXT)
# A whole text of operations in one match (what epd_operations reads one
# operation at a time): each operation ends at its first ";" outside quotes
# or at the end, so the two cut a text the same way.
_OPERATIONS = re.compile(r"(?:%s)*\s*" % _OPERATION_TEXT)
_OPERAND = re.compile(r'"([^"]*)"|([^\s;"]+)')


class FenError(ValueError):
    """A text that is not a position of the grammar; the message names it once."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"invalid fen {text!r}: {reason}")
        self.text = text
        self.reason = reason


def epd_operations(text: str) -> dict[str, str]:
    """The EPD operations of *text* (what follows a position's fields):
    ``{opcode: operands}``, the operands joined by one blank, without their
    quotes.  Raises ValueError for text that is not operations.

    >>> epd_operations('id "a; b"; c0 "x" "y"; noop;')
    {'id': 'a; b', 'c0': 'x y', 'noop': ''}
    """
    operations: dict[str, str] = {}
    at = 0
    text = text.rstrip()
    while at < len(text):
        match = _OPERATION.match(text, at)
        if match is None:
            raise ValueError(f"not an EPD operation: {text[at:].strip()[:40]!r}")
        operands = [quoted or plain
                    for quoted, plain in _OPERAND.findall(match[2])]
        operations[match[1]] = " ".join(operands)
        at = match.end()
    return operations


def split_position(text: str) -> tuple[str, dict[str, str]]:
    """(the six-field FEN, the EPD operations) of a position written in the
    grammar of this module; raises :class:`FenError` naming *text*."""
    stripped = text.strip()
    # "_" is a blank only in a text without blanks (a URL's form): an EPD
    # line's quoted operands may hold "_" of their own.
    normalized = stripped if any(c.isspace() for c in stripped) else stripped.replace("_", " ")
    tokens = normalized.split()
    if len(tokens) < 2:
        raise FenError(text, "empty" if not tokens else "the side to move (w or b) is missing")
    if tokens[1] not in ("w", "b"):
        raise FenError(text, f"{tokens[1]!r} is not a side to move (w or b)")
    fields, rest = tokens[:2], tokens[2:]
    for pattern in _FIELD_PATTERNS:
        if not rest or not pattern.fullmatch(rest[0]):
            break
        fields.append(rest.pop(0))
    for field, name in zip(fields[4:], ("halfmove clock", "fullmove number")):
        if int(field) > MAX_CLOCK:
            raise FenError(text, f"the {name} is past {MAX_CLOCK}")
    operations: dict[str, str] = {}
    if rest:
        if len(fields) != 4:
            raise FenError(text, f"{rest[0]!r} is not a FEN field"
                           + (" (EPD operations follow the first four fields)" if len(fields) < 4 else ""))
        try:
            operations = epd_operations(_after_fields(normalized, 4))
        except ValueError as e:
            raise FenError(text, str(e)) from None
    fields += _DEFAULTS[len(fields) - 2:]
    return " ".join(fields), operations


def _after_fields(text: str, count: int) -> str:
    """*text* after its first *count* blank-separated fields, as written
    (quoted operands keep their blanks)."""
    match = re.match(r"\s*(?:\S+\s+){%d}" % count, text)
    return text[match.end():] if match else ""


def parse_board(text: str, board_class: Optional[type[chess.Board]] = None) -> chess.Board:
    """The python-chess board of a position in this module's grammar
    (``board_class``: a variant's board class, default ``chess.Board``);
    raises :class:`FenError` naming *text* as given."""
    fen, _ = split_position(text)
    try:
        return (board_class or chess.Board)(fen)
    except ValueError as e:
        raise FenError(text, str(e)) from None


def position_error(text: str, error: BaseException) -> str:
    """A probing error of the position *text* as one message naming it
    once: ``'<text>': <reason>`` with the FEN python-chess appends dropped."""
    reason = str(error.args[0] if isinstance(error, KeyError) and error.args else error)
    for tail in (f": {text}",):
        if reason.endswith(tail):
            reason = reason[: -len(tail)]
    reason = re.sub(r":\s*\S+/\S+/\S+/\S+/\S+/\S+/\S+/\S+(?:\s+[wb](?:\s+\S+){0,4})?$", "", reason)
    return f"{text!r}: {reason}"


def settle_by_grammar(chunk: Any, parsed: Any) -> None:
    """Give this module's verdict to the lines of a batch chunk that the
    core's C parser did not settle alone, updating *parsed* (a
    ``batch_core.Parsed``) in place: the lines it accepted with text after
    the position's fields (EPD operations, which the C parser does not
    read) are refused when the grammar refuses them; the lines it refused
    get a second reading (:func:`reparse_refused`).  Costs nothing for
    lines that end with their position."""
    import numpy as np

    ok = parsed.status == 0
    tail = chunk.lengths.astype(np.intp) - parsed.end.astype(np.intp)
    candidates = np.flatnonzero(ok & (tail > 0))
    if len(candidates):
        data = np.frombuffer(chunk.data, dtype=np.uint8)
        last = data[(chunk.offsets[candidates] + chunk.lengths[candidates] - 1).astype(np.intp)]
        plain_end = (tail[candidates] == 1) & np.isin(last, list(_BLANK_BYTES))
        rows = candidates[~plain_end]
        # The C parser refuses a text after six fields: these are texts after
        # four, which the grammar reads as EPD operations.
        starts = (chunk.offsets[rows] + parsed.end[rows]).tolist()
        stops = (chunk.offsets[rows] + chunk.lengths[rows]).tolist()
        data_bytes = chunk.data
        fullmatch = _OPERATIONS.fullmatch
        for i, lo, hi in zip(rows.tolist(), starts, stops):
            if fullmatch(data_bytes[lo:hi].decode("utf-8", "replace")) is None:
                # Refused as a line of the wrong shape: the row's reason is
                # then the grammar's (batch_core.ProbedChunk.reason).
                parsed.status[i] = _lowlevel.FEN_ERR_FIELD_COUNT
    if (parsed.status != 0).any():
        reparse_refused(chunk, parsed)


def reparse_refused(chunk: Any, parsed: Any) -> None:
    """Give the lines of a batch chunk that the core's C parser refused
    (it reads four or six fields and EPD operations) a second reading by
    this module's grammar: a line it accepts (``8/8/8/8/8/8/2Rk4/1K6 b``,
    five fields, ``_`` for blanks) is parsed again by the C parser as the
    six-field FEN, and its row in *parsed* (a ``batch_files.Parsed``)
    updated in place.  Lines the grammar refuses too keep the C parser's
    status and reason.  Costs nothing when every line was read."""
    import numpy as np

    refused = np.flatnonzero((parsed.status != 0) & ~chunk.too_long).tolist()
    rows: list[int] = []
    texts: list[bytes] = []
    for i in refused:
        off = int(chunk.offsets[i])
        line = chunk.data[off:off + int(chunk.lengths[i])].decode("utf-8", "replace")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            fen, _ = split_position(line)
        except FenError:
            continue
        fields = fen.split(" ")
        fields[4:] = [str(min(int(clock), _lowlevel.FEN_MAX_COUNTER)) for clock in fields[4:]]
        rows.append(i)
        texts.append(" ".join(fields).encode("ascii", "replace"))
    if not rows:
        return
    n = len(rows)
    data = b"".join(texts)
    lengths = np.array([len(t) for t in texts], dtype=np.uintp)
    offsets = (np.cumsum(lengths) - lengths).astype(np.uintp)
    names = list(parsed.masks)
    masks = {name: np.empty(n, dtype=np.uint64) for name in names}
    ep, turn, castling = (np.empty(n, dtype=np.uint8) for _ in range(3))
    begin, end = np.empty(n, dtype=np.uintp), np.empty(n, dtype=np.uintp)
    status = np.empty(n, dtype=np.int8)
    _lowlevel.parse_fen_batch(data, offsets, lengths, _lowlevel.FEN_EPD, [masks[k] for k in names],
                              ep, turn, castling, begin, end, status)
    ok = status == 0
    at = np.array(rows, dtype=np.intp)[ok]
    for name in names:
        parsed.masks[name][at] = masks[name][ok]
    parsed.ep[at], parsed.turn[at], parsed.castling[at] = ep[ok], turn[ok], castling[ok]
    parsed.status[at] = 0
    # The FEN written for such a row is the line as given, blanks around it cut.
    for i in at.tolist():
        off = int(chunk.offsets[i])
        raw = chunk.data[off:off + int(chunk.lengths[i])]
        parsed.begin[i] = len(raw) - len(raw.lstrip())
        parsed.end[i] = len(raw.rstrip())
