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
replay is not certain of: see :mod:`pyfathom.annotate.reading`), and they are written
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

The package, one module per concern, each importing only modules listed before it:
:mod:`~pyfathom.annotate.verdict` (results under the 50-move rule),
:mod:`~pyfathom.annotate.movetext` (the moves in a game's text),
:mod:`~pyfathom.annotate.notation` (FEN and SAN),
:mod:`~pyfathom.annotate.reading` (python-chess's reader),
:mod:`~pyfathom.annotate.replay` (the C replay),
:mod:`~pyfathom.annotate.bestmove` (the best move),
:mod:`~pyfathom.annotate.analysis` (one game's verdicts and mistakes),
:mod:`~pyfathom.annotate.writing` (the annotated text),
:mod:`~pyfathom.annotate.report` (the ``--report`` rows, the summary) and
:mod:`~pyfathom.annotate.stream` (:func:`annotate_stream`, the whole run).
"""

from __future__ import annotations

from pyfathom.annotate.analysis import GameNotes, Mistake
from pyfathom.annotate.report import REPORT_FIELDS, ReportWriter, Summary, report_row
from pyfathom.annotate.stream import annotate_stream
from pyfathom.annotate.verdict import DRAW, LOSS, WIN, Verdict, move_dtz, verdict

__all__ = [
    "WIN", "DRAW", "LOSS", "Verdict", "verdict", "move_dtz", "Mistake", "GameNotes",
    "Summary", "ReportWriter", "REPORT_FIELDS", "report_row", "annotate_stream",
]
