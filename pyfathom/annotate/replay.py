"""A game's mainline replayed and probed in C, for :mod:`pyfathom.annotate`
(python-chess's rules; :mod:`pyfathom.annotate.reading` reads the games it
does not take as certain)."""

from __future__ import annotations

import re
from typing import Any, Optional

import chess
import chess.pgn

from pyfathom._bindings import lowlevel_helpers as _helpers
from pyfathom.annotate.movetext import _mainline_matches, _MatchSpans, _Spans
from pyfathom.annotate.reading import _FAILED_BELOW, _LEAN_FAILED, _Game, _Probed

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
    return _helpers.game_start(occ[chess.WHITE], occ[chess.BLACK], board.kings, board.queens,
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
        start = _helpers.game_start_from_fen(fen)
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
                 tokens: list[str], replay: _helpers.GameReplay) -> None:
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
    replay = _helpers.game_replay(handle, start, " ".join(tokens).encode("ascii"), largest)
    if replay.stop != _helpers.GAME_DONE:
        return None
    return _ReplayedGame(headers, text_start, moves, tokens, replay)
