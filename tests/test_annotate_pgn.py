"""annotate's output is PGN other readers take (issue 23, finding 3): a
check sign stays on its move (``Rd7+?? {...}``, not ``Rd7?? {...}+``), also
after an existing ``!``/``?``; pgn-extract reads the output without a
diagnostic and gives back the same moves, NAGs and comments, and python-chess
reads it back to the input's games plus the notes.  About 6 s.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest

from support import pgn_games

PGN_EXTRACT = shutil.which("pgn-extract") or shutil.which("pgn-extract", path="/usr/games")


def _games(text: str) -> list[chess.pgn.Game]:
    games = []
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


def _moves(game: chess.pgn.Game) -> list[tuple[str, frozenset[int], str]]:
    """(SAN, NAGs, comment with blanks folded) of each mainline move."""
    out = []
    for node in game.mainline():
        out.append((node.san(), frozenset(node.nags), " ".join(node.comment.split())))
    return out


_MOVE = re.compile(r"(?<![.\w])([NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](?:=[NBRQ])?[+#]?)(?=\s|$)")


def _with_glued_annotations(text: str) -> str:
    """The games with ``!?`` glued to every move token (after any check
    sign), on the movetext lines (the generated comments hold no SAN)."""
    return "".join(line if line.startswith("[") else _MOVE.sub(r"\1!?", line)
                   for line in text.splitlines(keepends=True))


@pytest.fixture(scope="module")
def annotated(tmp_path_factory, syzygy_dir) -> list[tuple[Path, Path]]:
    """(input, annotate's output) for generated games, plain and with glued annotations."""
    folder = tmp_path_factory.mktemp("annotate_pgn")
    plain = pgn_games.generated_pgn(40, seed=23)
    pairs = []
    for name, text in (("plain", plain), ("glued", _with_glued_annotations(plain))):
        source, out = folder / f"{name}.pgn", folder / f"{name}.out.pgn"
        source.write_text(text)
        proc = subprocess.run([sys.executable, "-m", "pyfathom", "annotate", str(source),
                               "--tables", str(syzygy_dir), "-o", str(out)],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        pairs.append((source, out))
    return pairs


def test_check_signs_stay_on_their_moves(annotated):
    checking_mistakes = 0
    for source, out in annotated:
        text = out.read_text()
        assert not re.search(r"\}[+#]", text), "a check sign was cut off its move"
        checking_mistakes += len(re.findall(r"[+#](?:!\?)?(?:\?\?|\?| \$[24]) \{TB:", text))
    assert checking_mistakes > 0, "no mistake was a checking move: the games test nothing"


def test_python_chess_reads_back_the_games_plus_the_notes(annotated):
    for source, out in annotated:
        before, after = _games(source.read_text()), _games(out.read_text())
        assert len(before) == len(after)
        notes = 0
        for old, new in zip(before, after):
            for (san, nags, comment), (san2, nags2, comment2) in zip(_moves(old), _moves(new)):
                assert san == san2
                assert nags <= nags2 and len(nags2 - nags) <= 1
                if nags2 != nags:
                    notes += 1
                    assert (nags2 - nags) <= {chess.pgn.NAG_MISTAKE, chess.pgn.NAG_BLUNDER}
                    assert comment2.startswith("TB: ")
            assert len(_moves(old)) == len(_moves(new))
        assert notes > 0


def _one_movetext_block(text: str) -> str:
    """pgn-extract's output with each game's movetext on one block: it puts
    a blank line after a comment before the first move, at which python-chess's
    reader ends the game; the PGN tokens are left as pgn-extract wrote them."""
    games = []
    for game in re.split(r"\n(?=\[Event )", text.strip()):
        headers, _, movetext = game.partition("\n\n")
        games.append(headers + "\n\n" + " ".join(movetext.split()) + "\n\n")
    return "".join(games)


@pytest.mark.skipif(PGN_EXTRACT is None,
                    reason="pgn-extract is not installed (Debian package pgn-extract; "
                           "tests/system_packages.sh)")
def test_pgn_extract_reads_the_output_unchanged(annotated, tmp_path):
    assert PGN_EXTRACT is not None
    for source, out in annotated:
        extracted = tmp_path / (out.stem + ".extracted.pgn")
        proc = subprocess.run([PGN_EXTRACT, "-s", f"-o{extracted}", str(out)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr[:2000]
        ours, theirs = _games(out.read_text()), _games(_one_movetext_block(extracted.read_text()))
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert _moves(a) == _moves(b)
