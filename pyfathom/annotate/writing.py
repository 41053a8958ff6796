"""Writing an annotated game for :mod:`pyfathom.annotate`: the game's own
text with the NAGs and comments inserted, or python-chess's export of it
where its moves cannot be located in the text."""

from __future__ import annotations

import io
from typing import Optional

import chess.pgn

from pyfathom.annotate.analysis import GameNotes, verdict_comment
from pyfathom.annotate.reading import _Game
from pyfathom.annotate.verdict import NAG_BLUNDER

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
