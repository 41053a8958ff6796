"""The whole run of ``pyfathom annotate``: every game of a PGN stream read,
annotated and written, one at a time (:func:`annotate_stream`)."""

from __future__ import annotations

from typing import IO, Any, Callable, Optional, TextIO, cast

import chess.pgn

from pyfathom._tablebase.tablebase import Tablebase
from pyfathom.annotate.analysis import GameNotes, Mistake, analyse
from pyfathom.annotate.reading import (_REPLAYS_CHESS, _Game, _GameReader, _HeaderReader,
                                       _LineRecorder, _read_with_python_chess)
from pyfathom.annotate.replay import _replay
from pyfathom.annotate.report import Summary
from pyfathom.annotate.verdict import NAG_MISTAKE
from pyfathom.annotate.writing import annotated_text, rebuilt_game

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

    core = tb._core_access()
    pinned = core.pinned
    handle = core.handle
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
