"""The same hostile lines through every entry point that reads a position
(issue 42 point 5): ``pyfathom probe``, ``pyfathom batch`` on a file holding
them, the server as a live process on 127.0.0.1 and pyfathom.fen's
helpers give each line the same verdict: the same position and the same
WDL and DTZ, or a refusal.  python-chess 1.11.2 is the oracle for a token
after the sixth field (``chess.Board(fen)`` refuses it).  The grammar is
pyfathom/fen.py's; the C parser that batch reads with first must agree
with it.  About 5 s (one server, one batch run, ~60 probes)."""

from __future__ import annotations

import csv
import io
import json
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

import chess
import pytest

from pyfathom.cli import main
from pyfathom.fen import MAX_CLOCK, FenError, parse_board, split_position
from support.live_server import Server, serving

KRK = "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"  # black to move loses (DTZ -32)
PLACEMENT = KRK.split()[0]

# (line, what it is).  None of them is blank or a comment (batch skips those
# without a row) or holds a newline (batch reads lines).
HOSTILE: list[tuple[str, str]] = [
    (KRK, "the plain FEN"),
    # trailing garbage
    (KRK + " garbage", "a token after the sixth field"),
    (KRK + " 7", "a seventh number"),
    (KRK + " bm Kc3;", "EPD operations after the clocks (only after four fields)"),
    (PLACEMENT + " b - - 0 garbage", "a word as the fullmove number"),
    (PLACEMENT + " b - - garbage", "a bare EPD opcode"),
    (PLACEMENT + ' b - - id "x";; bm Kc3;', "an empty EPD operation"),
    (PLACEMENT + ' b - - id "unterminated', "an unterminated quoted operand"),
    (PLACEMENT + " b - - ;", "an operation without an opcode"),
    (PLACEMENT + " b - - 9bm Kc3;", "an opcode starting with a digit"),
    (PLACEMENT + " b - - -x", "an opcode starting with a dash"),
    (PLACEMENT + " b - - bm " + "x" * 22 + '"', "a long operand before a stray quote"),
    (PLACEMENT + ' b - - id "a_b c"; bm Kc3;', "an underscore in a quoted operand"),
    (PLACEMENT + ' b - - c0 "x\x00y";', "a NUL in a quoted operand"),
    (PLACEMENT + ' b - - c0 "caf\u00e9";', "a non-ASCII quoted operand"),
    # extra spaces
    ("   " + KRK.replace(" ", "    ") + "    ", "runs of blanks"),
    (KRK.replace(" ", "\t"), "tabs"),
    (KRK.replace(" ", " \t "), "mixed blanks"),
    (KRK.replace(" ", "_"), "underscores for blanks"),
    (KRK.replace(" ", "_", 2), "underscores and blanks mixed"),
    # missing fields
    (PLACEMENT, "no side to move"),
    (PLACEMENT + " b", "two fields"),
    (PLACEMENT + " b -", "three fields"),
    (PLACEMENT + " b - -", "four fields"),
    (PLACEMENT + " b - - 0", "five fields"),
    ("8/8/8/8/8/8/2Rk4 b - - 0 1", "seven ranks"),
    ("8/8/8/8/8/8/2Rk4/1K6/8 b - - 0 1", "nine ranks"),
    ("8/8/8/8/8/8/2Rk4/1K5 b - - 0 1", "a rank of seven files"),
    ("b - - 0 1", "no placement"),
    # bad castling (fields the grammar refuses as text)
    (PLACEMENT + " b XY - 0 1", "castling letters that are no castling"),
    (PLACEMENT + " b KQkqK - 0 1", "five castling letters"),
    (PLACEMENT + " b KK - 0 1", "a castling letter twice"),
    (PLACEMENT + " b -- - 0 1", "two dashes"),
    # bad en passant
    (PLACEMENT + " b - e9 0 1", "no such square"),
    (PLACEMENT + " b - e - 0 1", "half a square"),
    # huge move numbers
    (PLACEMENT + " b - - 0 65535", "fullmove 65,535"),
    (PLACEMENT + " b - - 65535 1", "halfmove 65,535"),
    (PLACEMENT + " b - - 0 70000", "fullmove past the C parser's 16 bits"),
    (PLACEMENT + f" b - - 0 {MAX_CLOCK}", "fullmove at the grammar's limit"),
    (PLACEMENT + f" b - - 0 {MAX_CLOCK + 1}", "fullmove past the grammar's limit"),
    (PLACEMENT + f" b - - {MAX_CLOCK + 1} 1", "halfmove past the grammar's limit"),
    (PLACEMENT + " b - - 0 " + "9" * 400, "a 400-digit move number"),
    (PLACEMENT + " b - - -1 1", "a negative halfmove clock"),
    (PLACEMENT + " b - - 0 +1", "a signed move number"),
    # NUL bytes and control characters
    (KRK + "\x00", "a NUL after the FEN"),
    (PLACEMENT + "\x00b - - 0 1", "a NUL for a blank"),
    ("8/8/8/8/\x008/8/2Rk4/1K6 b - - 0 1", "a NUL in the placement"),
    (PLACEMENT + " b\x00 - - 0 1", "a NUL after the side to move"),
    (PLACEMENT + " b - - 0 1\x1b[2J", "an escape sequence after the FEN"),
    # non-ASCII
    (PLACEMENT + "\u00a0b - - 0 1", "a no-break space for a blank"),
    (PLACEMENT + "\u3000b - - 0 1", "an ideographic space for a blank"),
    ("\uff18/8/8/8/8/8/2Rk4/1K6 b - - 0 1", "a full-width digit"),
    (PLACEMENT + " \u0432 - - 0 1", "a Cyrillic letter for the side to move"),
    (KRK + " \u00e9", "a non-ASCII token after the FEN"),
    (PLACEMENT + " b - - \u00e9", "a non-ASCII EPD opcode"),
    # very long lines
    (KRK + " " * 3000, "3,000 trailing blanks"),
    (" " * 3000 + KRK, "3,000 leading blanks"),
    (KRK.replace(" ", " " * 600), "600 blanks between fields"),
    ("8/" * 2000 + "8 b - - 0 1", "2,000 ranks"),
    (KRK + " x" * 2000, "2,000 trailing tokens"),
]

def _query(line: str) -> str:
    return "/standard?fen=" + urllib.parse.quote(line, safe="/_-")


def _server_only_refusal(line: str) -> Optional[str]:
    """Why the server refuses *line* by lila-tablebase's rules, before the
    grammar reads it (pyfathom/server/: lila answers 414 to a query past
    2,048 bytes, and takes printable ASCII FENs of at most 256 characters
    once blanks are squeezed), or None."""
    squeezed = " ".join(line.replace("_", " ").split())
    if len(_query(line)) > 2048:
        return "a query past 2,048 bytes"
    if len(squeezed) > 256:
        return "a FEN past 256 characters"
    if not (squeezed.isascii() and squeezed.isprintable()):
        return "a character that is not printable ASCII"
    return None


def _grammar(line: str) -> Optional[str]:
    """pyfathom.fen's verdict: the board's FEN, or None (refused, the
    message naming the line once, as given)."""
    try:
        board = parse_board(line)
    except FenError as e:
        assert str(e).count(repr(line)) == 1, str(e)
        return None
    assert split_position(line)[0].split()[:4] == board.fen().split()[:4]
    return board.fen()


def _probe(line: str, tables: Path, capsys: pytest.CaptureFixture[str]) -> Optional[tuple[int, int]]:
    """``pyfathom probe``'s (wdl, dtz), or None (refused with one error line)."""
    code = main(["probe", line, "--tables", str(tables), "--json"])
    out, err = capsys.readouterr()
    if code != 0:
        assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, (line, err)
        return None
    result = json.loads(out)[0]
    return result["wdl"], result["dtz"]


def _batch(lines: list[str], tables: Path, folder: Path,
           capsys: pytest.CaptureFixture[str]) -> list[Optional[tuple[int, int]]]:
    """``pyfathom batch --dtz``'s (wdl, dtz) of each line of one file, or
    None where it refused the line as a position."""
    source = folder / "hostile.epd"
    source.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
    main(["batch", str(source), "--tables", str(tables), "--dtz"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == len(lines), (len(rows), len(lines))
    answers: list[Optional[tuple[int, int]]] = []
    for row in rows:
        if row["status"] == "ok":
            answers.append((int(row["wdl"]), int(row["dtz"])))
        else:
            assert row["status"] in ("invalid_fen", "line_too_long"), row
            answers.append(None)
    return answers


def _server(line: str, server: Server) -> Optional[int]:
    """The server's DTZ of the line as a ``fen`` query value, or None (a
    JSON 400)."""
    status, doc = server.get_json(_query(line))
    if status != 200:
        assert status in (400, 414) and "error" in doc, (line, status, doc)
        return None
    dtz: int = doc["dtz"]
    return dtz


@pytest.fixture(scope="module")
def server(syzygy_dir: Path) -> Iterator[Server]:
    pytest.importorskip("pyfathom.server.app", reason="the [server] extra is not installed")
    with serving(syzygy_dir) as s:
        yield s
    assert "Traceback" not in s.log, s.log[-3000:]


def test_every_entry_point_gives_a_hostile_line_the_same_verdict(
        server: Server, syzygy_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [line for line, _ in HOSTILE]
    batch = _batch(lines, syzygy_dir, tmp_path, capsys)
    differ, server_only = [], []
    for (line, what), in_batch in zip(HOSTILE, batch):
        fen = _grammar(line)
        probed = _probe(line, syzygy_dir, capsys)
        served = _server(line, server)
        if fen is not None:
            # Every accepted line here is the KRK position.
            assert fen.split()[:4] == KRK.split()[:4], (what, fen)
        verdicts = {"grammar": fen is not None, "probe": probed is not None,
                    "batch": in_batch is not None}
        if _server_only_refusal(line) is None:
            verdicts["server"] = served is not None
        else:  # lila's limits: refused whatever the grammar says
            assert served is None, (what, served)
            server_only.append(what)
        if len(set(verdicts.values())) != 1:
            differ.append((what, line[:80], verdicts))
        elif fen is not None:
            assert probed is not None and in_batch is not None
            assert probed == in_batch == (-2, -32), (what, probed, in_batch)
            assert served is None or served == probed[1], (what, served)
    assert not differ, differ
    # lila's limits leave most lines to the comparison with the server.
    assert len(server_only) < len(HOSTILE) // 3, server_only
    accepted = sum(b is not None for b in batch)
    assert 10 < accepted < len(lines) - 20, accepted  # both verdicts are exercised


def test_python_chess_refuses_a_token_after_the_sixth_field() -> None:
    """The oracle for the grammar's choice: chess.Board(fen) refuses what
    follows the six fields, as the grammar does (and as the C parser does
    now, with or without its EPD flag)."""
    for tail in (" garbage", " 7", " bm Kc3;"):
        with pytest.raises(ValueError, match="more parts than expected"):
            chess.Board(KRK + tail)
        with pytest.raises(FenError, match="is not a FEN field"):
            split_position(KRK + tail)
    assert chess.Board(KRK).fen() == split_position(KRK)[0]


def test_the_same_lines_in_batch_mixed_with_good_ones(
        syzygy_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hostile line between good ones does not change the good ones' rows
    (the C parser's lines and the grammar's second reading stay in order)."""
    lines = []
    for line, _ in HOSTILE:
        lines += [KRK, line]
    batch = _batch(lines, syzygy_dir, tmp_path, capsys)
    assert batch[0::2] == [(-2, -32)] * len(HOSTILE)
    alone = _batch([line for line, _ in HOSTILE], syzygy_dir, tmp_path, capsys)
    assert batch[1::2] == alone


def test_a_refused_operation_is_refused_in_linear_time() -> None:
    """An EPD operand that runs into a stray quote: the operations' regex
    once tried every way of cutting the operand before it gave up (2^n
    tries: 0.2 s for 20 characters, 7 s for 25, on the shared machine), a
    hang for probe, batch and the server alike."""
    for n in (24, 1_000, 60_000):
        line = PLACEMENT + " b - - bm " + "x" * n + '"'
        started = time.perf_counter()
        with pytest.raises(FenError):
            split_position(line)
        assert time.perf_counter() - started < 0.1, n
