"""One position grammar (issue 23, findings 7 and 8): probe, batch, the
server's FEN parsing and pyfathom.fen.parse_board accept the same texts
(2 to 6 fields, EPD operations, "_" for blanks) as the same position, refuse
the same texts, and name the input once, as given.  About 2 s."""

from __future__ import annotations

import csv
import io
import json

import chess
import pytest

from pyfathom.cli import main
from pyfathom.fen import FenError, parse_board, split_position

KRK = "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"
ACCEPTED = [
    ("8/8/8/8/8/8/2Rk4/1K6 b", KRK),
    ("8/8/8/8/8/8/2Rk4/1K6 b -", KRK),
    ("8/8/8/8/8/8/2Rk4/1K6 b - -", KRK),
    ("8/8/8/8/8/8/2Rk4/1K6 b - - 7", "8/8/8/8/8/8/2Rk4/1K6 b - - 7 1"),
    ("8/8/8/8/8/8/2Rk4/1K6 b - - 7 40", "8/8/8/8/8/8/2Rk4/1K6 b - - 7 40"),
    ("8/8/8/8/8/8/2Rk4/1K6_b_-_-_0_1", KRK),
    ("8/8/8/8/8/8/2Rk4/1K6_b", KRK),
    ('8/8/8/8/8/8/2Rk4/1K6 b - - id "krk_1"; bm Kc3;', KRK),
    ("  8/8/8/8/8/8/2Rk4/1K6   b  ", KRK),
    ("8/8/8/8/8/8/2Rk4/1K6 b - - noop", KRK),  # the last operation's ";" may be left out
]
REFUSED = ["", "8/8/8/8/8/8/2Rk4/1K6",
           "8/8/8/8/8/8/2Rk4/1K6 x", "8/8/8/8/8/8/2Rk4/1K6 b XY -", "xyz"]


@pytest.mark.parametrize("text,fen", ACCEPTED)
def test_every_reader_takes_the_same_position(text, fen, syzygy_dir, tmp_path, capsys):
    assert parse_board(text).fen() == fen
    assert split_position(text)[0] == fen
    lichess = pytest.importorskip("pyfathom.server.lichess",
                                  reason="the [server] extra is not installed")
    assert lichess.parse_fen(text).fen() == fen
    assert main(["probe", text, "--tables", str(syzygy_dir), "--json"]) == 0
    probed = json.loads(capsys.readouterr().out)[0]
    assert probed["fen"] == fen and probed["wdl"] == -2
    source = tmp_path / "in.epd"
    source.write_text(text + "\n")
    assert main(["batch", str(source), "--tables", str(syzygy_dir), "--dtz"]) == 0
    row = next(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert (row["status"], row["wdl"]) == ("ok", "-2")
    # The FEN as written (an EPD line's operations are not part of it).
    assert row["fen"] == (text.strip() if len(text.split()) < 5 else " ".join(text.split()[:4])
                          if not text.split()[4].isdigit() else text.strip())


@pytest.mark.parametrize("text", REFUSED)
def test_every_reader_refuses_the_same_texts(text, syzygy_dir, tmp_path, capsys):
    with pytest.raises(FenError):
        parse_board(text)
    lichess = pytest.importorskip("pyfathom.server.lichess",
                                  reason="the [server] extra is not installed")
    with pytest.raises(lichess.BadRequest):
        lichess.parse_fen(text)
    if text:
        assert main(["probe", text, "--tables", str(syzygy_dir)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.count(repr(text)) == 1, err
        source = tmp_path / "in.epd"
        source.write_text(text + "\n")
        assert main(["batch", str(source), "--tables", str(syzygy_dir)]) == 1
        assert next(csv.DictReader(io.StringIO(capsys.readouterr().out)))["status"] == "invalid_fen"


def test_probe_error_names_the_fen_once_as_given(syzygy_dir, capsys):
    text = "r3k3/8/8/8/4Pp2/8/8/4K3 b q e3 0 1"
    assert main(["probe", text, "--tables", str(syzygy_dir)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.count("r3k3/8/8/8/4Pp2/8/8/4K3") == 1, err
    assert f"'{text}'" in err and "castling" in err
