"""One game's annotations for :mod:`pyfathom.annotate`: the verdict of
each position, the moves that made the mover's result worse
(:class:`Mistake`) and the probes that failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import chess

from pyfathom._bindings import lowlevel as _ll
from pyfathom._tablebase.tablebase import Tablebase
from pyfathom.annotate.bestmove import _best_move
from pyfathom.annotate.notation import _fen, _san
from pyfathom.annotate.reading import _Game, _Probed
from pyfathom.annotate.verdict import (NAG_BLUNDER, NAG_MISTAKE, RESULT_WORDS, Verdict,
                                       _dtz_text, verdict)

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
