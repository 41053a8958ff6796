"""``pyfathom annotate``: find the moves of PGN games that threw away a
tablebase win or draw.

For every game, from the first position the tables cover (no more pieces
than the largest table, no castling rights) to the end, each position gets a
result for the side to move that counts the game's own halfmove clock: a win
whose zeroing move lies further away than the 50-move rule allows is a draw
for the game (DTZ plus the clock, as Fathom's root probe counts it).  A move
after which the mover's result is worse (win to draw, win to loss, draw to
loss) gets a NAG and a comment naming the best move; the first position in
the tables gets a comment with its verdict.

The games are split and their headers read by python-chess's PGN reader
(one game at a time, so memory stays flat), their moves replayed and probed
in C by python-chess's rules (python-chess's reader reads any game the
replay is not certain of: see "reading games" below), and they are written
back as they were read, line for line, with the NAGs and comments inserted
after the moves they annotate: headers, comments, clock and eval annotations
and variations are kept byte for byte.

>>> import io
>>> pgn = io.StringIO('[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]\\n\\n1. Rg7 { [%clk 0:00:09] } 1/2-1/2\\n')
>>> out = io.StringIO()
>>> with pyfathom.open_tablebase(TABLES) as tb:
...     summary = annotate_stream(tb, pgn, out)
>>> print(out.getvalue().strip())
[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]
<BLANKLINE>
{TB: White to move: win (DTZ 1)} 1. Rg7?? {TB: win -> draw. Best: Ra8# (DTZ 1)} { [%clk 0:00:09] } 1/2-1/2
>>> summary.games_read, summary.games_in_tables, summary.mistakes
(1, 1, 1)
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from dataclasses import dataclass, field
from typing import IO, Any, Callable, NamedTuple, Optional, Protocol, TextIO, cast

import chess
import chess.pgn

from pyfathom import _lowlevel as _ll
from pyfathom._tablebase import Tablebase
from pyfathom._types import Status

__all__ = [
    "WIN", "DRAW", "LOSS", "Verdict", "verdict", "move_dtz", "Mistake", "GameNotes",
    "Summary", "ReportWriter", "REPORT_FIELDS", "report_row", "annotate_stream",
]

WIN, DRAW, LOSS = 1, 0, -1
"""Results for one side: the game's outcome for it under the 50-move rule."""

RESULT_WORDS = {WIN: "win", DRAW: "draw", LOSS: "loss"}

NAG_MISTAKE = chess.pgn.NAG_MISTAKE      # ``?``: the change rests on a rounded DTZ
NAG_BLUNDER = chess.pgn.NAG_BLUNDER      # ``??``: a certain change of result

_board_dtz = _ll.board_dtz
_FAILED_BELOW = _ll.LEAN_FAILURE_BOUND
_LEAN_FAILED = _ll.LEAN_FAILED


# ---- results ---------------------------------------------------------------------


class Verdict(NamedTuple):
    """The result of one position for the side to move, under the 50-move rule
    counted from the game's halfmove clock.

    ``result`` is WIN, DRAW or LOSS taking the DTZ at its face value (the
    number python-chess returns, which may be one ply short where the table
    rounds: see :attr:`pyfathom.Probe.dtz_precise`).  ``doubt`` is True when
    that rounding decides the result: the zeroing move is exactly at the
    50-move limit by the face value and one ply past it if the DTZ is one
    more, so a WIN (LOSS) may really be a draw.  ``fifty`` is True for a draw
    that the 50-move rule makes of a win or a loss.
    """

    result: int
    doubt: bool
    fifty: bool
    dtz: int
    precise: bool
    clock: int
    mated: bool

    def bounds(self) -> tuple[int, int]:
        """(worst, best) result this verdict allows, for the side to move."""
        if not self.doubt:
            return self.result, self.result
        return (DRAW, WIN) if self.result == WIN else (LOSS, DRAW)


def verdict(dtz: int, precise: bool, clock: int, mated: bool = False) -> Verdict:
    """The :class:`Verdict` of a position with DTZ ``dtz`` (python-chess's
    sign and rounding), ``precise`` its exactness, ``clock`` the halfmove
    clock, ``mated`` True for a checkmate (a loss whatever the clock).

    A win counts when the zeroing move comes within the 50-move rule:
    ``dtz + clock <= 100``; a loss likewise with ``-dtz``.

    >>> verdict(30, True, 70)
    Verdict(result=1, doubt=False, fifty=False, dtz=30, precise=True, clock=70, mated=False)
    >>> verdict(30, False, 70).doubt       # 30 or 31 plies: the 31st is one too many
    True
    >>> verdict(-31, True, 70).result      # the defender reaches the 50-move draw
    0
    """
    if mated:
        return Verdict(LOSS, False, False, dtz, precise, clock, True)
    if dtz == 0:
        return Verdict(DRAW, False, False, dtz, precise, clock, False)
    distance = dtz if dtz > 0 else -dtz
    if distance + clock <= 100:
        return Verdict(WIN if dtz > 0 else LOSS, not precise and distance + clock == 100,
                       False, dtz, precise, clock, False)
    return Verdict(DRAW, False, True, dtz, precise, clock, False)


def move_dtz(child_dtz: int, zeroing: bool, mates: bool) -> int:
    """The DTZ of a move from the mover's point of view, counted from the
    position before it (as ``pyfathom probe`` lists moves): the position's
    own DTZ when the move keeps it.  ``child_dtz`` is the DTZ of the
    position after the move (for the opponent)."""
    if mates:
        return 1
    if child_dtz == 0:
        return 0
    if zeroing:
        magnitude = 1 if -100 <= child_dtz <= 100 else 101
        return magnitude if child_dtz < 0 else -magnitude
    return -child_dtz + 1 if child_dtz < 0 else -child_dtz - 1


def _dtz_text(dtz: int, precise: bool) -> str:
    if precise or dtz == 0:
        return str(dtz)
    return f"{dtz} or {dtz + 1 if dtz > 0 else dtz - 1}"


def _move_rank(result: int, dtz: int) -> tuple[int, int, int]:
    """Sort key of a move, higher is better: its result, then the fastest
    win / the longest loss; among draws, one the 50-move rule saves the
    opponent from (a win or loss beyond the limit) before a plain draw."""
    if result == DRAW:
        side = (dtz > 0) - (dtz < 0)
        return (DRAW, side, -abs(dtz) if side > 0 else abs(dtz))
    return (result, 0, -dtz)


# ---- reading games -----------------------------------------------------------------
#
# Each game is split off and its headers read by python-chess's reader, which
# is told to skip the movetext (its fast path).  The mainline's SAN tokens are
# then found in the game's text (:func:`_mainline_spans`, python-chess's own
# tokens) and replayed in C (:func:`_replay`), which also probes the positions
# in the tables.  A game the replay does not take as certain (an illegal or
# ambiguous move, a null move, Chess960, a FEN it does not follow, ...) is read
# again, from the same lines, by python-chess's reader with :class:`_GameReader`,
# which gives python-chess's own answer and errors.


class _LineRecorder:
    """A text handle for python-chess's reader that keeps every line read
    since the last :meth:`take`, so each game is written back as it was."""

    __slots__ = ("_handle", "lines", "chars")

    def __init__(self, handle: IO[str]) -> None:
        self._handle = handle
        self.lines: list[str] = []
        self.chars = 0

    def readline(self) -> str:
        line = self._handle.readline()
        if line:
            self.lines.append(line)
            self.chars += len(line)
        return line

    def take(self) -> list[str]:
        lines = self.lines
        self.lines = []
        return lines


class _LinesAgain:
    """The lines of one game as a text handle, to read them a second time
    exactly as python-chess's reader split them the first time."""

    __slots__ = ("_lines", "_next")

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self._next = 0

    def readline(self) -> str:
        if self._next >= len(self._lines):
            return ""
        self._next += 1
        return self._lines[self._next - 1]


class _Probed(NamedTuple):
    dtz: int
    precise: bool
    clock: int


class _Game:
    """One game's mainline as :func:`analyse` sees it, however it was read:
    the probes from the first position the tables cover, and the boards and
    moves at given positions (a position's index is the number of moves
    played before it)."""

    headers: dict[str, str]
    tokens: list[str]
    """The mainline's SAN tokens, as python-chess's reader met them."""
    count: int
    """Moves in the mainline."""
    first: int
    """Index of the first covered position (-1: none)."""
    probes: list[Optional[_Probed]]
    """One per position from ``first`` on (None where the probe failed)."""
    failures: list[tuple[int, int]]
    """(position index, status) of the failed probes."""
    errors: list[str]
    skip_reason: Optional[str]

    def board_at(self, index: int) -> chess.Board:
        """The position before move ``index`` (a covered one), with no move
        stack, as python-chess's board was there."""
        raise NotImplementedError

    def move_at(self, index: int) -> chess.Move:
        """The mainline move made from position ``index``."""
        raise NotImplementedError

    def turn_at(self, index: int) -> chess.Color:
        """The side to move at position ``index`` (a covered one)."""
        raise NotImplementedError

    def text_spans(self, lines: list[str]) -> Optional[tuple[int, _Spans]]:
        """Where the mainline's moves are in the game's lines, as
        :func:`_mainline_spans` finds them; None when there is no movetext
        or the scan does not find the tokens python-chess's reader parsed."""
        start, spans = _mainline_spans(lines)
        if start < 0 or [s.token for s in spans] != self.tokens:
            return None
        return start, spans


class _GameReader(chess.pgn.BaseVisitor["_GameReader"], _Game):
    """python-chess's reading of a game: visits the mainline (variations are
    skipped), keeps the moves and the move tokens, and probes DTZ of every
    position from the first one the tables cover."""

    def __init__(self, pinned: Any, largest: int) -> None:
        self.pinned = pinned
        self.largest = largest
        self.headers = {}
        self.tokens = []
        self.moves: list[chess.Move] = []
        self.count = 0
        self.first = -1
        self.probes = []
        self.failures = []
        self.errors = []
        self.skip_reason = None
        self.board: Optional[chess.Board] = None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def end_headers(self) -> Optional[chess.pgn.SkipType]:
        self.skip_reason = _variant_skip_reason(self.headers)
        return chess.pgn.SKIP if self.skip_reason else None

    def visit_board(self, board: chess.Board) -> None:
        self.board = board

    def begin_variation(self) -> Optional[chess.pgn.SkipType]:
        return chess.pgn.SKIP

    def begin_parse_san(self, board: chess.Board, san: str) -> Optional[chess.pgn.SkipType]:
        self.tokens.append(san)
        return None

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        moves = self.moves
        moves.append(move)
        if self.first < 0:
            if board.castling_rights or board.occupied.bit_count() > self.largest:
                return
            self.first = len(moves) - 1
        self._probe(board, len(moves) - 1)

    def _probe(self, board: chess.Board, index: int) -> None:
        occ = board.occupied_co
        r = _board_dtz(self.pinned, occ[1], occ[0], board.queens, board.rooks, board.bishops,
                       board.knights, board.pawns, board.ep_square, board.turn)
        if r < _FAILED_BELOW:
            self.failures.append((index, r - _LEAN_FAILED))
            self.probes.append(None)
        else:
            self.probes.append(_Probed(r >> 1, r & 1 == 1, board.halfmove_clock))

    def handle_error(self, error: Exception) -> None:
        self.errors.append(str(error) or type(error).__name__)

    def end_game(self) -> None:
        self.count = len(self.moves)
        board = self.board
        if board is None or self.errors or self.skip_reason:
            return
        if type(board) is not chess.Board:  # pragma: no cover (variants are skipped above)
            self.skip_reason = f"variant {board.uci_variant}"
            return
        if self.first < 0:
            if board.castling_rights or board.occupied.bit_count() > self.largest:
                return
            self.first = len(self.moves)
        self._probe(board, len(self.moves))

    def result(self) -> _GameReader:
        return self

    def board_at(self, index: int) -> chess.Board:
        assert self.board is not None
        return _board_at(self.board, self.count, index)

    def move_at(self, index: int) -> chess.Move:
        return self.moves[index]

    def turn_at(self, index: int) -> chess.Color:
        assert self.board is not None
        turn = self.board.turn
        return turn if (self.count - index) % 2 == 0 else not turn


def _board_at(final: chess.Board, moves: int, index: int) -> chess.Board:
    board = final.copy(stack=moves - index)
    for _ in range(moves - index):
        board.pop()
    return board


def _variant_skip_reason(headers: dict[str, str]) -> Optional[str]:
    """Why a game of another variant is skipped (None: standard chess)."""
    if "Variant" not in headers:
        return None
    try:
        board_class = chess.pgn.Headers(headers).variant()
    except ValueError:
        return f"unknown variant {headers['Variant']!r}"
    if board_class is not chess.Board:
        return f"variant {headers['Variant']!r}: the tables are for standard chess"
    return None


class _HeaderReader(chess.pgn.BaseVisitor["_HeaderReader"]):
    """Keeps a game's headers and has python-chess's reader skip its
    movetext (the reader's fast path: it only looks for the game's end)."""

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}
        self.skip_reason: Optional[str] = None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def end_headers(self) -> chess.pgn.SkipType:
        self.skip_reason = _variant_skip_reason(self.headers)
        return chess.pgn.SKIP

    def result(self) -> _HeaderReader:
        return self


def _record_board(r: Any) -> chess.Board:
    """The python-chess board of a replay's position record."""
    board = chess.Board(None)
    board.pawns, board.knights, board.bishops = r.pawns, r.knights, r.bishops
    board.rooks, board.queens, board.kings = r.rooks, r.queens, r.kings
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = r.white, r.black
    board.occupied = r.white | r.black
    board.promoted = r.promoted
    board.castling_rights = r.castling
    board.turn = r.turn == 1
    board.ep_square = r.ep or None
    board.halfmove_clock = r.halfmove
    board.fullmove_number = r.fullmove
    return board


def _board_start(board: chess.Board) -> Any:
    """A replay's start record for ``board`` (None if it does not fit)."""
    occ = board.occupied_co
    return _ll.game_start(occ[chess.WHITE], occ[chess.BLACK], board.kings, board.queens,
                          board.rooks, board.bishops, board.knights, board.pawns,
                          board.promoted, board.castling_rights, board.ep_square, board.turn,
                          board.halfmove_clock, board.fullmove_number)


_STANDARD_START = _board_start(chess.Board())


def _replay_start(headers: dict[str, str]) -> Any:
    """The start record of a game as python-chess's reader sets its board
    up from the headers; None where the replay must not try (a FEN
    python-chess refuses, Chess960)."""
    fen = headers.get("FEN")
    chess960 = False
    if "Variant" in headers:  # a standard one ("Standard", "From Position", Chess960)
        try:
            chess960 = chess.pgn.Headers(headers).is_chess960()
        except Exception:  # python-chess's reader raises it
            return None
    if not chess960:
        if fen is None:
            return _STANDARD_START
        start = _ll.game_start_from_fen(fen)
        if start is not None:
            return start
    try:
        board = chess.Board(chess.STARTING_FEN if fen is None else fen, chess960=chess960)
    except Exception:  # python-chess's reader reports it (ValueError) or raises it
        return None
    if board.chess960 or board.has_chess960_castling_rights():
        return None
    return _board_start(board)


class _ReplayedGame(_Game):
    """A game whose mainline the C core replayed (:func:`_replay`)."""

    def __init__(self, headers: dict[str, str], start: int, moves: list[re.Match[str]],
                 tokens: list[str], replay: _ll.GameReplay) -> None:
        self.headers = headers
        self.tokens = tokens
        self.count = replay.moves
        self.first = replay.first
        self.errors = []
        self.skip_reason = None
        self._start = start
        self._moves = moves
        self._records = replay.records
        probes: list[Optional[_Probed]] = []
        failures: list[tuple[int, int]] = []
        records = replay.records
        index = replay.first
        for k in range(replay.written):
            r = records[k]
            dtz = r.dtz
            if dtz < _FAILED_BELOW:
                failures.append((index + k, dtz - _LEAN_FAILED))
                probes.append(None)
            else:
                probes.append(_Probed(dtz >> 1, dtz & 1 == 1, r.halfmove))
        self.probes = probes
        self.failures = failures

    def board_at(self, index: int) -> chess.Board:
        return _record_board(self._records[index - self.first])

    def move_at(self, index: int) -> chess.Move:
        code = self._records[index - self.first].move
        return chess.Move(code & 63, (code >> 6) & 63, (code >> 12) or None)

    def turn_at(self, index: int) -> chess.Color:
        return bool(self._records[index - self.first].turn)

    def text_spans(self, lines: list[str]) -> Optional[tuple[int, _Spans]]:
        return None if self._start < 0 else (self._start, _MatchSpans(self._start, self._moves))


def _replay(handle: Any, largest: int, headers: dict[str, str],
            lines: list[str]) -> Optional[_ReplayedGame]:
    """The game replayed in C, or None when python-chess must read it."""
    start = _replay_start(headers)
    if start is None:
        return None
    text_start, moves = _mainline_matches(lines)
    tokens = [m[1] for m in moves]
    if moves and any(line.endswith("\r") for line in lines):
        return None  # a lone "\r" ended a line for python-chess's reader, not for the scan
    replay = _ll.game_replay(handle, start, " ".join(tokens).encode("ascii"), largest)
    if replay.stop != _ll.GAME_DONE:
        return None
    return _ReplayedGame(headers, text_start, moves, tokens, replay)


def _read_with_python_chess(pinned: Any, largest: int, lines: list[str]) -> _GameReader:
    """The game read from its lines by python-chess's reader."""
    reader = _GameReader(pinned, largest)
    try:
        chess.pgn.read_game(cast(TextIO, _LinesAgain(lines)), Visitor=lambda: reader)
    except Exception as e:  # python-chess gave up on this game's text
        reader.errors.append(f"{type(e).__name__}: {e}")
    return reader


_REPLAYS_CHESS = chess.__version__.split(".")[:2] == ["1", "11"]
"""The C replay follows python-chess 1.11's reader and SAN rules (1.11.2 is
the tests' oracle); with any other python-chess, every game is read by it."""


# ---- finding the moves in the text ------------------------------------------------

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


# ---- FEN and SAN of a few pieces ------------------------------------------------

_EMPTY_RUNS = [("1" * n, str(n)) for n in range(8, 1, -1)]


def _fen(board: chess.Board) -> str:
    """``board.fen()``, placing only the pieces there are (python-chess's
    loop asks each of the 64 squares: 30-40 us; this about 7 us on an
    endgame position); the same text."""
    cells = ["1"] * 64
    white = board.occupied_co[chess.WHITE]
    for pieces, letters in ((board.pawns, "Pp"), (board.knights, "Nn"), (board.bishops, "Bb"),
                            (board.rooks, "Rr"), (board.queens, "Qq"), (board.kings, "Kk")):
        while pieces:
            square = (pieces & -pieces).bit_length() - 1
            pieces &= pieces - 1
            cells[square ^ 56] = letters[0] if white >> square & 1 else letters[1]
    placement = "/".join(["".join(cells[i:i + 8]) for i in range(0, 64, 8)])
    for ones, digit in _EMPTY_RUNS:
        if ones in placement:
            placement = placement.replace(ones, digit)
    ep = board.ep_square
    ep_text = chess.SQUARE_NAMES[ep] if ep is not None and board.has_legal_en_passant() else "-"
    castling = board.castling_xfen() if board.castling_rights else "-"
    return (f"{placement} {'w' if board.turn == chess.WHITE else 'b'} {castling} {ep_text} "
            f"{board.halfmove_clock} {board.fullmove_number}")


def _san(board: chess.Board, move: chess.Move) -> str:
    """``board.san(move)``, written by the C core (2 us against python-chess's
    10 us: most of the cost of naming a best move) where it can: positions
    without castling rights; python-chess otherwise."""
    if not board.castling_rights:
        occ = board.occupied_co
        san = _ll.move_san(occ[1], occ[0], board.kings, board.queens, board.rooks,
                           board.bishops, board.knights, board.pawns, board.ep_square or 0,
                           board.turn, move.from_square, move.to_square, move.promotion or 0)
        if san is not None:
            return san
    return board.san(move)


# ---- one game's annotations ------------------------------------------------------


@dataclass
class Mistake:
    """One move that made the mover's result worse."""

    game: int
    """1-based index of the game in the file."""
    headers: dict[str, str]
    ply: int
    """python-chess's ply of the position before the move."""
    move_index: int
    """0-based index of the move in the mainline."""
    board: chess.Board = field(repr=False)
    """The position before the move."""
    move: chess.Move
    before: Verdict
    after: Verdict
    """The verdict of the position after the move (for the opponent)."""
    nag: int
    best_san: str
    """The best move's SAN; empty when no move's table could be probed."""
    best_dtz: int
    best_precise: bool

    @property
    def san(self) -> str:
        return _san(self.board, self.move)

    @property
    def label(self) -> str:
        """The move with its number, e.g. ``41... Kd3``."""
        number = self.board.fullmove_number
        return f"{number}. {self.san}" if self.board.turn == chess.WHITE else f"{number}... {self.san}"

    @property
    def fen(self) -> str:
        """FEN of the position before the move."""
        return _fen(self.board)

    @property
    def result_before(self) -> int:
        return self.before.result

    @property
    def result_after(self) -> int:
        """The mover's result after the move."""
        return -self.after.result

    @property
    def kind(self) -> str:
        return f"{RESULT_WORDS[self.result_before]} -> {RESULT_WORDS[self.result_after]}"

    def comment(self) -> str:
        notes = []
        if self.after.fifty or self.before.fifty:
            notes.append(f"50-move rule, halfmove clock {self.after.clock}")
        if self.nag == NAG_MISTAKE:
            notes.append("DTZ rounding leaves doubt")
        text = f"TB: {self.kind}"
        if notes:
            text += f" ({'; '.join(notes)})"
        if not self.best_san:  # no move's table could be probed
            return text
        return f"{text}. Best: {self.best_san} (DTZ {_dtz_text(self.best_dtz, self.best_precise)})"


@dataclass
class GameNotes:
    """What the annotator found in one game."""

    first: int = -1
    """Index of the first position probed (-1: the game never reaches the tables)."""
    first_verdict: Optional[Verdict] = None
    first_turn: bool = chess.WHITE
    mistakes: list[Mistake] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """Probes that failed (a missing or damaged table), with the reason."""


def verdict_comment(v: Verdict, turn: bool) -> str:
    """The comment on the first position in the tables, e.g.
    ``TB: White to move: win (DTZ 23)``."""
    side = "White" if turn == chess.WHITE else "Black"
    if v.mated:
        return f"TB: {side} is checkmated"
    word = RESULT_WORDS[v.result]
    if v.dtz == 0:
        return f"TB: {side} to move: {word}"
    dtz = _dtz_text(v.dtz, v.precise)
    if v.fifty:
        return f"TB: {side} to move: {word} by the 50-move rule (DTZ {dtz}, halfmove clock {v.clock})"
    if v.doubt:
        return (f"TB: {side} to move: {word}, or a draw by the 50-move rule if the DTZ is one "
                f"more (DTZ {dtz}, halfmove clock {v.clock})")
    if v.clock:
        return f"TB: {side} to move: {word} (DTZ {dtz}, halfmove clock {v.clock})"
    return f"TB: {side} to move: {word} (DTZ {dtz})"


def _position_verdict(reader: _Game, index: int, probed: _Probed) -> Verdict:
    mated = probed.dtz == -1 and probed.clock >= 100 and reader.board_at(index).is_checkmate()
    return verdict(probed.dtz, probed.precise, probed.clock, mated)


def _best_move(tb: Tablebase, board: chess.Board, dtz_hint: int = 0
               ) -> Optional[tuple[chess.Move, int, bool, int]]:
    """(move, its DTZ from the mover's side, exact?, result) of the best
    legal move by :func:`_move_rank`; None if no move can be probed.

    One C call (``fathom_best_move``) ranks the moves as
    :meth:`Tablebase.probe_root` would list them, with a WDL probe of every
    move and a DTZ probe only of the quiet moves that can still be best
    (about a third of them on the benchmark's mistakes; ``dtz_hint``, the
    position's DTZ when known, lets it drop slower wins sooner and does not
    change the answer).  Where a move that can be best has a rounded DTZ on
    the 50-move edge, :func:`_best_move_by_root` ranks them (the root probe
    settles such moves by a search); where a table some move needs is
    missing, :func:`_best_move_by_children` probes the moves one by one and
    skips those that cannot be probed.
    """
    occ = board.occupied_co
    found = _ll.best_move(tb._h, occ[1], occ[0], board.kings, board.queens, board.rooks,
                          board.bishops, board.knights, board.pawns, board.ep_square or 0,
                          board.turn, board.halfmove_clock, dtz_hint)
    if found.status != Status.OK:
        return _best_move_by_children(tb, board)
    if found.on_edge:
        return _best_move_by_root(tb, board)
    if found.move is None:
        return None
    start, to, promotion = found.move
    return (chess.Move(start, to, promotion or None), found.dtz, found.dtz_precise,
            found.result)


def _best_move_by_root(tb: Tablebase, board: chess.Board
                       ) -> Optional[tuple[chess.Move, int, bool, int]]:
    """:func:`_best_move` from a root probe.

    One root probe ranks every move in C (:meth:`Tablebase.probe_root`,
    whose move DTZ is :func:`move_dtz`'s, or on the 50-move edge the exact
    value its search settles); where it fails (a table some move
    needs is missing), :func:`_best_move_by_children` probes the moves one
    by one and skips those that cannot be probed.
    """
    try:
        root = tb.probe_root(board)
    except (KeyError, ValueError, OSError):
        return _best_move_by_children(tb, board)
    clock = board.halfmove_clock
    best: Optional[tuple[tuple[int, int, int], chess.Move, int, bool, int]] = None
    for rm in root.moves:
        zeroing = board.is_zeroing(rm.move)
        if rm.dtz == 1 and not zeroing:
            result = WIN  # only a mate wins in one ply without zeroing
        elif zeroing:
            # The clock restarts: the table's result is the game's.
            result = (WIN if rm.wdl > 0 else LOSS) if abs(rm.wdl) == 2 else DRAW
        elif rm.dtz and abs(rm.dtz) + clock <= 100:
            # The position after the move has DTZ |dtz| - 1 and clock + 1.
            result = WIN if rm.dtz > 0 else LOSS
        else:
            result = DRAW
        key = _move_rank(result, rm.dtz)
        if best is None or key > best[0]:
            best = (key, rm.move, rm.dtz, zeroing, result)
    if best is None:
        return None
    _, move, dtz, zeroing, result = best
    precise = True
    if not zeroing and dtz not in (0, 1):
        # The move's DTZ is as exact as that of the position it leads to.
        board.push(move)
        try:
            occ = board.occupied_co
            r = _board_dtz(tb._pinned, occ[1], occ[0], board.queens, board.rooks,
                           board.bishops, board.knights, board.pawns, board.ep_square,
                           board.turn)
        finally:
            board.pop()
        precise = r >= _FAILED_BELOW and r & 1 == 1
        if r >= _FAILED_BELOW and abs(dtz) == abs(r >> 1) + 2:
            # One ply longer than the position's rounded DTZ says: the root
            # probe's search settled the move on the 50-move edge, exactly.
            precise = True
    return move, dtz, precise, result


def _best_move_by_children(tb: Tablebase, board: chess.Board
                           ) -> Optional[tuple[chess.Move, int, bool, int]]:
    """:func:`_best_move` probing each move's position, skipping those that
    cannot be probed."""
    pinned = tb._pinned
    best: Optional[tuple[tuple[int, int, int], chess.Move, int, bool, int]] = None
    for move in board.legal_moves:
        zeroing = board.is_zeroing(move)
        board.push(move)
        try:
            occ = board.occupied_co
            r = _board_dtz(pinned, occ[1], occ[0], board.queens, board.rooks, board.bishops,
                           board.knights, board.pawns, board.ep_square, board.turn)
            if r < _FAILED_BELOW:
                continue  # a missing table (say a DTZ table after a promotion)
            child_dtz, precise = r >> 1, r & 1 == 1
            mates = child_dtz == -1 and board.is_checkmate()
            child = verdict(child_dtz, precise, board.halfmove_clock, mates)
        finally:
            board.pop()
        dtz = move_dtz(child_dtz, zeroing, mates)
        key = _move_rank(-child.result, dtz)
        if best is None or key > best[0]:
            best = (key, move, dtz, precise or zeroing or mates, -child.result)
    if best is None:
        return None
    return best[1], best[2], best[3], best[4]


def analyse(tb: Tablebase, reader: _Game, game_index: int) -> GameNotes:
    """The verdicts and mistakes of a game read by :func:`_replay` or
    :class:`_GameReader`."""
    notes = GameNotes()
    if reader.first < 0:
        return notes
    first = reader.first
    probes = reader.probes
    for index, status in reader.failures:
        board = reader.board_at(index)
        notes.failures.append(_failure_text(tb, board, status))
    # The first position actually probed carries the verdict comment.
    start = next((i for i, p in enumerate(probes) if p is not None), -1)
    if start < 0:
        return notes
    notes.first = first + start
    last_index = first + len(probes) - 1
    verdicts: list[Optional[Verdict]] = []
    for offset, probed in enumerate(probes):
        if probed is None:
            verdicts.append(None)
        elif first + offset == last_index:
            verdicts.append(_position_verdict(reader, last_index, probed))
        else:
            verdicts.append(verdict(probed.dtz, probed.precise, probed.clock))
    first_verdict = verdicts[start]
    assert first_verdict is not None
    notes.first_verdict = first_verdict
    notes.first_turn = reader.turn_at(notes.first)
    for offset in range(start, len(probes) - 1):
        before, after = verdicts[offset], verdicts[offset + 1]
        if before is None or after is None:
            continue
        if -after.result >= before.result:
            continue
        lo_before = before.bounds()[0]
        hi_after = -after.bounds()[0]
        nag = NAG_BLUNDER if hi_after < lo_before else NAG_MISTAKE
        index = first + offset
        board = reader.board_at(index)
        move = reader.move_at(index)
        best = _best_move(tb, board, before.dtz)
        best_san, best_dtz, best_precise = "", 0, True
        if best is not None:
            best_san, best_dtz, best_precise = _san(board, best[0]), best[1], best[2]
        notes.mistakes.append(Mistake(
            game=game_index, headers=reader.headers, ply=board.ply(), move_index=index,
            board=board, move=move, before=before,
            after=after, nag=nag, best_san=best_san, best_dtz=best_dtz,
            best_precise=best_precise))
    return notes


def _failure_text(tb: Tablebase, board: chess.Board, status: int) -> str:
    try:
        tb.probe(board)
    except (KeyError, ValueError, OSError) as e:
        return str(e.args[0]) if e.args else str(e)
    return f"{_ll.strerror(status)}: {board.fen()}"  # pragma: no cover (the probe failed once)


# ---- writing -------------------------------------------------------------------------


def _nag_text(nag: int) -> str:
    return "??" if nag == NAG_BLUNDER else "?"


def annotated_text(lines: list[str], reader: _Game, notes: GameNotes) -> Optional[str]:
    """The game's text with the notes inserted, or None when the moves
    cannot be located in the text (the caller then rewrites the game)."""
    located = reader.text_spans(lines)
    if located is None:
        return None
    start, spans = located
    text = "".join(lines)
    inserts: list[tuple[int, str]] = []
    if notes.first_verdict is not None:
        comment = "{" + verdict_comment(notes.first_verdict, notes.first_turn) + "}"
        if notes.first == 0:
            inserts.append((start, comment + " "))
        else:
            inserts.append((_after_suffix(text, spans[notes.first - 1].end), " " + comment))
    for mistake in notes.mistakes:
        span = spans[mistake.move_index]
        end = _after_suffix(text, span.end)
        glued = text[span.end:end]
        # A glued "?"/"!" is a NAG already: ours goes after it as "$n".
        nag = f" ${mistake.nag}" if "?" in glued or "!" in glued else _nag_text(mistake.nag)
        inserts.append((end, f"{nag} {{{mistake.comment()}}}"))
    # Inserts at one place keep their order (the verdict, then a mistake).
    pieces = []
    done = 0
    for at, piece in sorted(inserts, key=lambda item: item[0]):
        pieces.append(text[done:at])
        pieces.append(piece)
        done = at
    pieces.append(text[done:])
    return "".join(pieces)


def _after_suffix(text: str, end: int) -> int:
    """Past the check sign and ``!``/``?`` annotation glued to a move token
    (python-chess's move token stops before them: an insert there would cut
    ``Rd7+`` into ``Rd7?? {...}+``)."""
    while end < len(text) and text[end] in "+#!?":
        end += 1
    return end


def rebuilt_game(lines: list[str], notes: GameNotes) -> str:
    """The game rewritten by python-chess's exporter, with the notes: the
    fallback when the moves cannot be located in the original text."""
    game = chess.pgn.read_game(io.StringIO("".join(lines)))
    assert game is not None
    nodes = list(game.mainline())
    if notes.first_verdict is not None:
        comment = verdict_comment(notes.first_verdict, notes.first_turn)
        node: chess.pgn.GameNode = game if notes.first == 0 else nodes[notes.first - 1]
        node.comment = " ".join(filter(None, [comment, node.comment]))
    for mistake in notes.mistakes:
        node = nodes[mistake.move_index]
        node.nags.add(mistake.nag)
        node.comment = " ".join(filter(None, [mistake.comment(), node.comment]))
    return str(game) + "\n\n"


# ---- the report -----------------------------------------------------------------------

REPORT_HEADERS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
REPORT_FIELDS = ("game", *(h.lower() for h in REPORT_HEADERS), "ply", "move", "side", "nag",
                 "before", "after", "fifty_move", "doubt", "dtz_before", "dtz_after",
                 "halfmove_clock", "best_move", "best_dtz", "fen")


def report_row(m: Mistake) -> dict[str, Any]:
    """One report row (the keys are :data:`REPORT_FIELDS`)."""
    row: dict[str, Any] = {"game": m.game}
    for name in REPORT_HEADERS:
        row[name.lower()] = m.headers.get(name, "")
    row.update({
        "ply": m.ply,
        "move": m.label,
        "side": "white" if m.board.turn == chess.WHITE else "black",
        "nag": _nag_text(m.nag),
        "before": RESULT_WORDS[m.result_before],
        "after": RESULT_WORDS[m.result_after],
        "fifty_move": m.before.fifty or m.after.fifty,
        "doubt": m.nag == NAG_MISTAKE,
        "dtz_before": _dtz_text(m.before.dtz, m.before.precise),
        "dtz_after": _dtz_text(m.after.dtz, m.after.precise),
        "halfmove_clock": m.before.clock,
        "best_move": m.best_san,
        "best_dtz": _dtz_text(m.best_dtz, m.best_precise),
        "fen": m.fen,
    })
    return row


class ReportWriter:
    """The ``--report`` file: one row per :class:`Mistake` (:data:`REPORT_FIELDS`),
    then the :class:`Summary` (a ``# summary: ...`` line in CSV, an object
    ``{"summary": ...}`` in JSONL)."""

    def __init__(self, handle: IO[str], fmt: str) -> None:
        if fmt not in ("csv", "jsonl"):
            raise ValueError(f"report format must be csv or jsonl, not {fmt!r}")
        self.handle = handle
        self.fmt = fmt
        self.csv: Any = None
        if fmt == "csv":
            self.csv = csv.DictWriter(handle, fieldnames=REPORT_FIELDS, lineterminator="\n")
            self.csv.writeheader()

    def row(self, m: Mistake) -> None:
        if self.csv is not None:
            self.csv.writerow(report_row(m))
        else:
            self.handle.write(json.dumps(report_row(m)) + "\n")

    def summary(self, s: Summary) -> None:
        if self.csv is not None:
            self.handle.write(f"# summary: {s.text()}\n")
        else:
            self.handle.write(json.dumps({"summary": s.as_dict()}) + "\n")


# ---- the whole stream ---------------------------------------------------------------


@dataclass
class Summary:
    """Counts over a run."""

    games_read: int = 0
    games_in_tables: int = 0
    positions_probed: int = 0
    broken: int = 0
    variants: int = 0
    failed_probes: int = 0
    mistakes: int = 0
    doubtful: int = 0
    by_kind: dict[str, int] = field(default_factory=lambda: {
        "win -> draw": 0, "win -> loss": 0, "draw -> loss": 0})

    def as_dict(self) -> dict[str, Any]:
        return {"games_read": self.games_read, "games_in_tables": self.games_in_tables,
                "positions_probed": self.positions_probed, "broken_games": self.broken,
                "variant_games": self.variants, "failed_probes": self.failed_probes,
                "mistakes": self.mistakes, "doubtful": self.doubtful,
                "by_kind": dict(self.by_kind)}

    def text(self) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in self.by_kind.items())
        text = (f"{_plural(self.games_read, 'game')} read, {self.games_in_tables} reaching the "
                f"tables, {_plural(self.mistakes, 'mistake')} ({kinds}; {self.doubtful} of them '?': "
                f"DTZ rounding leaves doubt)")
        skipped = []
        if self.broken:
            skipped.append(f"{self.broken} broken")
        if self.variants:
            skipped.append(f"{self.variants} of other variants (written back unchanged; "
                           f"not a failure)")
        if skipped:
            text += f"; skipped {' and '.join(skipped)}"
        if self.failed_probes:
            text += f"; {self.failed_probes} positions could not be probed"
        return text

    @property
    def ok(self) -> bool:
        """True when every game was read and every position in range probed
        (games of other variants are not asked for: skipping them is fine)."""
        return not (self.broken or self.failed_probes)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


MAX_WARNINGS = 100
"""Games reported on stderr one by one by the command line; the rest are
only counted in the summary."""


def _identify(index: int, headers: dict[str, str]) -> str:
    who = f"{headers.get('White', '?')} - {headers.get('Black', '?')}"
    extra = ", ".join(v for v in (headers.get("Date"), headers.get("Site")) if v and "?" not in v)
    return f"game {index} ({who}{', ' + extra if extra else ''})"


def annotate_stream(tb: Tablebase, source: IO[str], out: Optional[IO[str]] = None, *,
                    report: Optional[Callable[[Mistake], None]] = None,
                    warn: Optional[Callable[[str], None]] = None,
                    progress: Optional[Callable[[int, int], None]] = None) -> Summary:
    """Annotate every game of ``source`` into ``out`` (None: no output).

    ``report`` receives each :class:`Mistake`, ``warn`` a line for each game
    skipped or position that could not be probed, ``progress`` (games, chars
    read) after each game.  Games are read and written one at a time.
    """
    summary = Summary()
    recorder = _LineRecorder(source)
    warned = 0
    user_warn = warn

    def warn_capped(text: str) -> None:
        nonlocal warned
        warned += 1
        if user_warn is None:
            return
        if warned <= MAX_WARNINGS:
            user_warn(text)
        elif warned == MAX_WARNINGS + 1:
            user_warn("more games skipped or not probed are not shown (see the summary)")

    pinned = tb._pinned
    handle = tb._handle()
    largest = tb.largest
    say = warn_capped
    while True:
        visitor: Any = _HeaderReader() if _REPLAYS_CHESS else _GameReader(pinned, largest)
        error: Optional[str] = None
        try:
            game = chess.pgn.read_game(cast(TextIO, recorder), Visitor=lambda: visitor)
        except Exception as e:  # python-chess gave up on this game's text
            error = f"{type(e).__name__}: {e}"
            game = visitor
        lines = recorder.take()
        if game is None:
            if lines and out is not None:
                out.write("".join(lines))  # trailing blank lines or comments
            break
        reader: _Game
        if isinstance(visitor, _GameReader):
            reader = visitor
            if error is not None:
                reader.errors.append(error)
        elif error is not None or visitor.skip_reason:
            reader = _GameReader(pinned, largest)
            reader.headers = visitor.headers
            reader.skip_reason = visitor.skip_reason
            reader.errors = [] if error is None else [error]
        else:
            reader = (_replay(handle, largest, visitor.headers, lines)
                      or _read_with_python_chess(pinned, largest, lines))
        summary.games_read += 1
        index = summary.games_read
        notes: Optional[GameNotes] = None
        if reader.errors:
            summary.broken += 1
            say(f"{_identify(index, reader.headers)}: {reader.errors[0]}; skipped")
        elif reader.skip_reason:
            summary.variants += 1
            say(f"{_identify(index, reader.headers)}: {reader.skip_reason}; skipped")
        elif reader.first >= 0:
            notes = analyse(tb, reader, index)
            summary.positions_probed += sum(p is not None for p in reader.probes)
            if notes.failures:
                # One line per game: a missing table fails a run of positions.
                summary.failed_probes += len(notes.failures)
                more = len(notes.failures) - 1
                say(f"{_identify(index, reader.headers)}: {notes.failures[0]}"
                     + (f" (and {more} more positions)" if more else ""))
            if notes.first >= 0:
                summary.games_in_tables += 1
            for m in notes.mistakes:
                summary.mistakes += 1
                summary.doubtful += m.nag == NAG_MISTAKE
                summary.by_kind[m.kind] += 1
                if report is not None:
                    report(m)
        if out is not None:
            if notes is None or notes.first < 0:
                out.write("".join(lines))
            else:
                new = annotated_text(lines, reader, notes)
                out.write(new if new is not None else rebuilt_game(lines, notes))
        if progress is not None:
            progress(summary.games_read, recorder.chars)
    return summary
