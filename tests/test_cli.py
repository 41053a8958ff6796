"""The ``pyfathom`` command line: probe, info, batch, table lookup, errors.

Expected answers come from python-chess's own prober (the ``oracle``
fixture) on the same tables, never from pyfathom.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import chess.syzygy
import pytest

from support.batch_input import BAD_LINES, make_batch_input
from support.positions import enumerate_positions, table_sample
from pyfathom import batch_files
from pyfathom._files import line_chunks
from pyfathom.cli import main
from pyfathom.cli.info import needed_materials, normalize_material

KRK = "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"  # black to move, lost
KPK_WIN = "8/8/8/8/8/1k6/3P4/3K4 w - - 0 1"
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
CHECKMATE = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No ambient tables: SYZYGY_PATH unset, the default dir empty."""
    monkeypatch.delenv("SYZYGY_PATH", raising=False)
    monkeypatch.setenv("PYFATHOM_HOME", str(tmp_path / "pyfathom-home"))


def run(args, capsys):
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(err: str) -> None:
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("pyfathom: ")
    assert "Traceback" not in err


# --- help ---------------------------------------------------------------------------


def test_python_m_pyfathom_help():
    proc = subprocess.run([sys.executable, "-m", "pyfathom", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: pyfathom")
    for command in ("download", "probe", "info", "batch"):
        assert command in proc.stdout
    for command in ("download", "probe", "info", "batch"):
        proc = subprocess.run([sys.executable, "-m", "pyfathom", command, "--help"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout.startswith(f"usage: pyfathom {command}")


def test_usage_errors(capsys):
    code, _, err = run([], capsys)
    assert code == 2 and "a command is required" in err
    assert_one_line_error(err)
    code, _, err = run(["probe"], capsys)
    assert code == 2 and "required: FEN" in err and "pyfathom probe --help" in err
    assert err.count("\n") == 1
    code, _, err = run(["frobnicate"], capsys)
    assert code == 2 and err.count("\n") == 1
    code, _, err = run(["batch", "x", "--threads", "many"], capsys)
    assert code == 2 and "--threads" in err and err.count("\n") == 1


# --- probe ------------------------------------------------------------------------------


def test_probe_text(syzygy_dir, oracle, capsys):
    code, out, err = run(["probe", KRK, "--tables", str(syzygy_dir)], capsys)
    assert code == 0, err
    board = chess.Board(KRK)
    lines = out.splitlines()
    assert lines[0] == KRK
    wdl, dtz = oracle.probe_wdl(board), oracle.probe_dtz(board)
    assert wdl == -2
    assert f"black to move: loss (WDL {wdl:+d}), DTZ {dtz}" in lines[1]
    # A header and one row per legal move, columns aligned.
    table = lines[lines.index(next(l for l in lines if l.strip().startswith("move"))):]
    assert len(table) == 1 + board.legal_moves.count()
    sans = {row.split()[0] for row in table[1:]}
    assert sans == {board.san(m) for m in board.legal_moves}
    assert len({len(row) for row in table}) == 1, "columns are aligned"
    # The first row is the best move: it keeps the longest loss.
    best = chess.Move.from_uci(json.loads(probe_json(syzygy_dir, KRK, capsys))[0]["best_move"])
    assert table[1].split()[0] == board.san(best)


def probe_json(syzygy_dir, fen, capsys) -> str:
    code, out, err = run(["probe", fen, "--tables", str(syzygy_dir), "--json"], capsys)
    assert code == 0, err
    return out


def test_probe_json_matches_python_chess(syzygy_dir, oracle, capsys):
    fens = [KRK, KPK_WIN, "8/8/8/8/8/8/1k6/R3K3 w - - 0 1"]
    rng = random.Random(5)
    for key in ("KQvKR", "KRvKB", "KPvKP", "KBNvK", "KRPvK"):
        fens += [b.fen() for b in table_sample(key, 3, seed=rng.randrange(1000))]
    code, out, err = run(["probe", *fens, "--tables", str(syzygy_dir), "--json"], capsys)
    assert code == 0, err
    results = json.loads(out)
    assert len(results) == len(fens)
    for fen, result in zip(fens, results):
        board = chess.Board(fen)
        assert result["wdl"] == oracle.probe_wdl(board), fen
        assert result["dtz"] == oracle.probe_dtz(board), fen
        assert isinstance(result["dtz_precise"], bool)
        assert {m["uci"] for m in result["moves"]} == {m.uci() for m in board.legal_moves}
        for m in result["moves"]:
            assert m["san"] == board.san(chess.Move.from_uci(m["uci"]))
            assert m["wdl"] in (-2, -1, 0, 1, 2)
        if result["moves"]:
            best = result["moves"][0]
            assert best["uci"] == result["best_move"]
            # The best move keeps the position's outcome (clock 0 here).
            assert best["wdl"] == result["wdl"], fen
            after = board.copy()
            after.push(chess.Move.from_uci(best["uci"]))
            assert -oracle.probe_wdl(after) == best["wdl"] or after.is_checkmate(), fen


def test_probe_rounded_dtz_says_n_or_n_plus_1(syzygy_dir, capsys, tablebase, oracle):
    """A DTZ the table stores rounded to moves is printed as "n or n+1".
    The position is the first such one of KRvK in enumeration order (the
    same every run), whose DTZ python-chess confirms."""
    board = next((b for b in enumerate_positions("KRvK")
                  if tablebase.probe(b).dtz != 0 and not tablebase.probe(b).dtz_precise), None)
    assert board is not None, "KRvK has no position with a rounded DTZ"
    probe = tablebase.probe(board)
    assert probe.dtz == oracle.probe_dtz(board)
    code, out, _ = run(["probe", board.fen(), "--tables", str(syzygy_dir)], capsys)
    assert code == 0
    other = probe.dtz + 1 if probe.dtz > 0 else probe.dtz - 1
    assert f"DTZ {probe.dtz} or {other}" in out
    assert "(DTZ stored rounded to moves: may be one ply more)" in out


def test_probe_mate_and_stalemate(syzygy_dir, capsys):
    assert chess.Board(CHECKMATE).is_checkmate() and chess.Board(STALEMATE).is_stalemate()
    code, out, err = run(["probe", CHECKMATE, STALEMATE, "--tables", str(syzygy_dir)], capsys)
    assert code == 0, err
    assert "checkmate: black is mated" in out
    assert "loss (WDL -2), DTZ -1" in out
    assert "stalemate" in out and "draw (WDL 0), DTZ 0" in out
    code, out, _ = run(["probe", CHECKMATE, "--tables", str(syzygy_dir), "--json"], capsys)
    result = json.loads(out)[0]
    assert (result["state"], result["best_move"], result["moves"]) == ("checkmate", None, [])


@pytest.mark.parametrize("fen,words", [
    ("not a fen", "invalid FEN"),
    ("8/8/8/8/8/8/8/8 w - - 0 1", "8/8/8/8/8/8/8/8"),  # no kings: invalid position
    ("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "castling"),
    ("r3k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1", "piece"),
])
def test_probe_bad_positions_one_line(syzygy_dir, capsys, fen, words):
    code, out, err = run(["probe", fen, "--tables", str(syzygy_dir)], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert words.lower() in err.lower()
    assert out == ""


def test_probe_continues_after_a_bad_fen(syzygy_dir, capsys):
    code, out, err = run(["probe", "bad fen", KRK, "--tables", str(syzygy_dir), "--json"], capsys)
    assert code == 1
    assert_one_line_error(err)
    results = json.loads(out)
    assert "error" in results[0] and results[1]["wdl"] == -2


def test_probe_missing_table_one_line(tmp_path, syzygy_dir, capsys):
    only = tmp_path / "only"
    only.mkdir()
    for name in ("KQvK.rtbw", "KQvK.rtbz"):
        shutil.copy(syzygy_dir / name, only / name)
    code, _, err = run(["probe", KRK, "--tables", str(only)], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert "KRvK" in err


# --- where tables come from -------------------------------------------------------------


def test_no_tables_tells_the_exact_command(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(["probe", KRK, "--tables", str(empty)], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert err.rstrip().endswith(f"run: pyfathom download --dest {empty}")
    # Default directory: the plain command fills it.
    code, _, err = run(["probe", KRK], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert err.rstrip().endswith("run: pyfathom download")
    assert str(tmp_path / "pyfathom-home" / "syzygy") in err


def test_lookup_order(tmp_path, syzygy_dir, monkeypatch, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    # $SYZYGY_PATH (a list; empty entries and missing dirs are fine) is used...
    monkeypatch.setenv("SYZYGY_PATH", os.pathsep.join(["", str(tmp_path / "missing"), str(syzygy_dir), ""]))
    code, out, err = run(["probe", KRK], capsys)
    assert code == 0, err
    # ...but --tables wins over it.
    code, _, err = run(["probe", KRK, "--tables", str(empty)], capsys)
    assert code == 1 and "--tables" in err
    # And $SYZYGY_PATH wins over the default directory.
    default = tmp_path / "pyfathom-home" / "syzygy"
    default.mkdir(parents=True)
    for name in os.listdir(syzygy_dir):
        shutil.copy(syzygy_dir / name, default / name)
    monkeypatch.setenv("SYZYGY_PATH", str(empty))
    code, _, err = run(["probe", KRK], capsys)
    assert code == 1 and "SYZYGY_PATH" in err
    monkeypatch.delenv("SYZYGY_PATH")
    code, _, err = run(["probe", KRK], capsys)
    assert code == 0, err


# --- info -----------------------------------------------------------------------------------


def test_info(syzygy_dir, capsys):
    code, out, err = run(["info", "--tables", str(syzygy_dir), "KRvKQ"], capsys)
    assert code == 0, err
    assert "3-piece tables: 5 WDL, 5 DTZ" in out
    assert "4-piece tables: 30 WDL, 30 DTZ" in out
    assert "largest: 4 pieces" in out
    assert "KQvKR: all 3 needed tables present" in out  # itself, KQvK, KRvK
    code, out, _ = run(["info", "--tables", str(syzygy_dir), "KRPvKR"], capsys)
    assert code == 1
    line = next(l for l in out.splitlines() if l.startswith("KRPvKR:"))
    missing = set(line.split(": ", 2)[2].split())
    assert {"KRPvKR.rtbw", "KRPvKR.rtbz", "KRRvKR.rtbw", "KQRvKR.rtbz"} <= missing
    assert not any(m.count("v") and len(m.split(".")[0]) - 1 <= 4 for m in missing), "4-piece ones exist"


def test_info_bad_material_and_no_tables(tmp_path, syzygy_dir, capsys):
    code, _, err = run(["info", "--tables", str(syzygy_dir), "KXvK"], capsys)
    assert code == 1
    assert_one_line_error(err)
    code, _, err = run(["info", "--tables", str(tmp_path)], capsys)
    assert code == 1 and "run: pyfathom download" in err


def test_normalize_material_agrees_with_python_chess():
    rng = random.Random(11)
    for _ in range(500):
        sides = ["K" + "".join(rng.choice("QRBNP") for _ in range(rng.randrange(0, 4))) for _ in range(2)]
        material = "v".join(sides)
        assert normalize_material(material) == chess.syzygy.normalize_tablename(material), material


def test_needed_materials():
    assert needed_materials("KRvK") == ["KRvK"]
    assert needed_materials("KQvKR") == ["KQvKR", "KQvK", "KRvK"]
    needed = needed_materials("KPvK")
    assert set(needed) == {"KPvK", "KQvK", "KRvK", "KBvK", "KNvK"}
    needed = set(needed_materials("KRPvKR"))
    assert {"KRPvKR", "KRvKR", "KRPvK", "KRvKP", "KQRvKR", "KRRvKR", "KRBvKR", "KRNvKR",
            "KRvK", "KPvK", "KQvKR", "KQvK"} <= needed
    assert all(chess.syzygy.normalize_tablename(m) == m for m in needed)
    assert "KvK" not in needed


# --- batch ------------------------------------------------------------------------------------


def test_batch_rows_statuses_and_line_numbers(tmp_path, syzygy_dir, oracle, capsys):
    src = tmp_path / "in.epd"
    lines = make_batch_input(src, 2500, BAD_LINES)
    out = tmp_path / "out.csv"
    code, stdout, err = run(["batch", str(src), "--tables", str(syzygy_dir), "--dtz", "-o", str(out)], capsys)
    assert code == 1
    assert stdout == ""
    for number in BAD_LINES:
        assert f"{src}:{number}:" in err, number
    assert err.count(f"{src}:") == len(BAD_LINES)
    assert f"{len(lines)} lines: {len(lines) - len(BAD_LINES)} probed, {len(BAD_LINES)} bad" in err
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["fen", "wdl", "dtz", "status"]
    rows = rows[1:]
    assert len(rows) == len(lines)
    expect_status = {3: "invalid_fen", 50: "invalid_fen", 777: "castling", 1234: "too_many_pieces",
                     1500: "invalid_fen", 2001: "invalid_position"}
    for number, (line, row) in enumerate(zip(lines, rows), 1):
        fen, wdl, dtz, status = row
        if number in BAD_LINES:
            assert status == expect_status[number], (number, row)
            assert wdl == "" and dtz == ""
            continue
        assert status == "ok", (number, line, row)
        assert fen == " ".join(line.split()[:4] if '"' in line else line.split())
        board = chess.Board(fen) if '"' not in line else chess.Board.from_epd(line)[0]
        if number % 10 == 0:  # the oracle is slow: check every tenth row
            assert int(wdl) == oracle.probe_wdl(board), line
            assert int(dtz) == oracle.probe_dtz(board), line


def test_batch_against_per_board_probes(tmp_path, syzygy_dir, tablebase, capsys):
    """Every row equals the per-board API on the same positions (all 35 tables)."""
    src = tmp_path / "in.fen"
    lines = make_batch_input(src, 3500, {}, seed=2)
    code, out, err = run(["batch", str(src), "--tables", str(syzygy_dir), "--dtz", "--threads", "2"], capsys)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))[1:]
    assert len(rows) == len(lines)
    for line, (fen, wdl, dtz, status) in zip(lines, rows):
        board = chess.Board.from_epd(line)[0] if '"' in line else chess.Board(line)
        assert status == "ok"
        assert (int(wdl), int(dtz)) == (tablebase.probe_wdl(board), tablebase.probe_dtz(board)), line


def test_batch_jsonl_stdin_and_threads(tmp_path, syzygy_dir):
    src = tmp_path / "in.fen"
    lines = make_batch_input(src, 300, {10: "garbage"}, seed=3)
    outputs = []
    for threads in ("1", "2"):
        proc = subprocess.run(
            [sys.executable, "-m", "pyfathom", "batch", "-", "--tables", str(syzygy_dir), "--format", "jsonl",
             "--threads", threads],
            input=src.read_text(), capture_output=True, text=True, timeout=120,
        )
        assert proc.returncode == 1
        assert "-:10:" in proc.stderr and "Traceback" not in proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    rows = [json.loads(line) for line in outputs[0].splitlines()]
    assert len(rows) == len(lines)
    assert rows[9] == {"fen": "garbage", "wdl": None, "dtz": None, "status": "invalid_fen"}
    assert all(r["status"] == "ok" and r["wdl"] in (-2, -1, 0, 1, 2) and r["dtz"] is None
               for i, r in enumerate(rows) if i != 9)


def test_batch_strict_stops_at_first_bad_line(tmp_path, syzygy_dir, capsys):
    src = tmp_path / "in.fen"
    make_batch_input(src, 400, {120: "bad line", 300: "also bad"})
    code, out, err = run(["batch", str(src), "--tables", str(syzygy_dir), "--strict"], capsys)
    assert code == 1
    assert f"{src}:120:" in err and f"{src}:300:" not in err
    rows = list(csv.reader(io.StringIO(out)))[1:]
    assert len(rows) == 119
    assert all(r[3] == "ok" for r in rows)


def test_batch_all_good_exits_zero_and_empty_input(tmp_path, syzygy_dir, capsys):
    src = tmp_path / "in.fen"
    lines = make_batch_input(src, 100, {})
    code, out, err = run(["batch", str(src), "--tables", str(syzygy_dir)], capsys)
    assert code == 0, err
    assert len(out.splitlines()) == len(lines) + 1
    assert "100 lines: 100 probed, 0 bad" in err
    empty = tmp_path / "empty.fen"
    empty.write_text("")
    code, out, err = run(["batch", str(empty), "--tables", str(syzygy_dir)], capsys)
    assert code == 0 and out == "fen,wdl,dtz,status\n"


def test_batch_errors_one_line(tmp_path, syzygy_dir, capsys):
    code, _, err = run(["batch", str(tmp_path / "missing.fen"), "--tables", str(syzygy_dir)], capsys)
    assert code == 1
    assert_one_line_error(err)
    src = tmp_path / "in.fen"
    src.write_text(KRK + "\n")
    (tmp_path / "nothing").mkdir()
    code, _, err = run(["batch", str(src), "--tables", str(tmp_path / "nothing")], capsys)
    assert code == 1
    assert_one_line_error(err)
    assert "run: pyfathom download" in err
    code, _, err = run(["batch", str(src), "--tables", str(syzygy_dir), "-o", str(tmp_path / "no" / "dir.csv")], capsys)
    assert code == 1
    assert_one_line_error(err)


def test_batch_chunking_does_not_change_output(tmp_path, syzygy_dir, tablebase):
    src = tmp_path / "in.fen"
    lines = make_batch_input(src, 500, {1: "x", 64: "y", 65: "", 66: "# z"}, seed=4)
    results = []
    for chunk_lines in (1, 7, 64, batch_files.CHUNK_LINES):
        out = io.StringIO()
        with open(src, "rb") as f:
            stats = batch_files.run_batch(tablebase, f, out, dtz=True, threads=1, chunk_lines=chunk_lines)
        assert (stats.lines, stats.bad, stats.skipped) == (len(lines), 2, 2)
        results.append(out.getvalue())
    assert len(set(results)) == 1


@pytest.mark.parametrize("block", [None, 5, 1000])
def test_read_chunks_line_handling(monkeypatch, block):
    if block is not None:  # small reads: lines cross block boundaries
        monkeypatch.setattr(line_chunks, "_BLOCK", block)
    data = b"a\r\nbb\n\nccc"  # CRLF, empty line, last line without newline
    chunks = list(batch_files.read_chunks(io.BytesIO(data), 2))
    got = [(c.first_line + i, c.data[o:o + n]) for c in chunks
           for i, (o, n) in enumerate(zip(c.offsets.tolist(), c.lengths.tolist()))]
    assert got == [(1, b"a\r"), (2, b"bb"), (3, b""), (4, b"ccc")]
    assert all(len(c) <= 2 for c in chunks)
    assert list(batch_files.read_chunks(io.BytesIO(b""))) == []
    assert sum(c.nbytes for c in chunks) == len(data)
    # An overlong line is one flagged row; its text is cut to MAX_LINE.
    long_line = b"x" * (batch_files.MAX_LINE * 3)
    for tail in (b"\nlast\n", b""):
        chunks = list(batch_files.read_chunks(io.BytesIO(b"first\n" + long_line + tail)))
        rows = [(c.first_line + i, bool(c.too_long[i]), int(c.lengths[i])) for c in chunks for i in range(len(c))]
        expect = [(1, False, 5), (2, True, batch_files.MAX_LINE)] + ([(3, False, 4)] if tail else [])
        assert rows == expect
        assert sum(c.nbytes for c in chunks) == len(b"first\n" + long_line + tail)


def test_batch_output_escaping(tmp_path, syzygy_dir, capsys):
    """Odd bytes in bad lines survive CSV quoting and JSON escaping."""
    src = tmp_path / "odd.txt"
    src.write_bytes(b'a,"b"\n' + KRK.replace(" ", "\t", 1).encode() + b"\n\xff\xfe bad\n" + KRK.encode() + b"\r\n")
    for fmt in ("csv", "jsonl"):
        out = tmp_path / f"out.{fmt}"
        code, _, err = run(["batch", str(src), "--tables", str(syzygy_dir), "--dtz", "--format", fmt,
                            "-o", str(out)], capsys)
        assert code == 1, err
        if fmt == "csv":
            with open(out, newline="", encoding="utf-8") as f:
                rows = list(csv.reader(f))[1:]
            got = [(r[0], r[1], r[3]) for r in rows]
        else:
            rows = [json.loads(l) for l in out.read_text(encoding="utf-8").splitlines()]
            got = [(r["fen"], "" if r["wdl"] is None else str(r["wdl"]), r["status"]) for r in rows]
        assert got == [
            ('a,"b"', "", "invalid_fen"),
            (KRK.replace(" ", "\t", 1), "-2", "ok"),
            ("\ufffd\ufffd bad", "", "invalid_fen"),
            (KRK, "-2", "ok"),
        ], fmt


@pytest.mark.measures_memory
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads VmHWM from /proc/self/status")
def test_batch_million_lines_flat_memory(tmp_path, syzygy_dir):
    """1,000,000 lines: one row per line, bad lines at known numbers, and the
    peak RSS of the process stays far under 200 MB (memory does not grow with
    the input: it is read, parsed and probed in chunks)."""
    fens = [b.fen() for key in ("KQvKR", "KPvKP", "KRPvK", "KBNvK") for b in table_sample(key, 25, seed=9)]
    bad_at = {1: "first bad", 500_000: "8/8/8", 1_000_000: "last bad"}
    src = tmp_path / "million.fen"
    with open(src, "w") as f:
        for number in range(1, 1_000_001):
            f.write((bad_at[number] if number in bad_at else fens[number % len(fens)]) + "\n")
    out = tmp_path / "million.csv"
    # VmHWM, not ru_maxrss: a child's ru_maxrss starts from its parent's RSS
    # at fork (before exec), so a large pytest process would inflate it.
    code = (
        "import sys\n"
        "from pyfathom.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]\n"
        "print('maxrss_kb', hwm, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, "batch", str(src), "--tables", str(syzygy_dir),
                           "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stderr
    for number in bad_at:
        assert f"{src}:{number}:" in proc.stderr
    assert "1000000 lines: 999997 probed, 3 bad" in proc.stderr
    maxrss_mb = int(proc.stderr.split("maxrss_kb ")[1].split()[0]) / 1024
    assert maxrss_mb < 200, f"peak RSS {maxrss_mb:.0f} MB"
    with open(out, "rb") as f:
        assert sum(1 for _ in f) == 1_000_001  # header + one row per line


def test_progress_only_on_a_tty(tmp_path, syzygy_dir, capsys):
    src = tmp_path / "in.fen"
    make_batch_input(src, 200, {})
    code, _, err = run(["batch", str(src), "--tables", str(syzygy_dir)], capsys)
    assert code == 0
    assert "\r" not in err and "\x1b" not in err  # piped: nothing but the summary
    assert err.count("\n") == 1

    from pyfathom.cli._common import ProgressBar

    class FakeTTY(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = FakeTTY()
    bar = ProgressBar("batch", "lines", stream=tty)  # as pyfathom batch makes it
    bar.start -= 10  # ten seconds ago
    bar.update(1_000_000, 4_000_000, count=50_000)  # a quarter of the bytes, in 10 s
    shown = tty.getvalue()
    assert shown.startswith("\rbatch [######")
    assert "25.0%" in shown and "50,000 lines" in shown and "lines/s" in shown and "ETA 30s" in shown
    bar.close()
    assert tty.getvalue().endswith("\r\x1b[K")


def test_batch_says_why_a_probe_failed(tmp_path: Path, syzygy_dir: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Failed rows get the core's reason: a missing table (named, also a
    DTZ table missing where the WDL one is there), a damaged file (named),
    an illegal position."""
    tables = tmp_path / "tables"
    tables.mkdir()
    for name in ("KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw"):
        shutil.copy(syzygy_dir / name, tables / name)
    (tables / "KNvK.rtbw").write_bytes(b"\0" * (64 * 10 + 16))  # no Syzygy magic
    src = tmp_path / "in.fen"
    src.write_text("8/8/8/8/8/2k5/8/KQ6 w - - 0 1\n"
                   "8/8/8/8/8/2k5/8/KR6 w - - 0 1\n"
                   "8/8/8/8/8/2k5/8/KB6 w - - 0 1\n"
                   "8/8/8/8/2k5/8/8/KN6 w - - 0 1\n"
                   "8/8/8/8/8/2k5/8/KN6 w - - 0 1\n")  # the knight gives check
    out = tmp_path / "out.csv"
    code, _, err = run(["batch", str(src), "--tables", str(tables), "--dtz", "-o", str(out)], capsys)
    assert code == 1
    with open(out, newline="") as f:
        rows = list(csv.reader(f))[1:]
    assert [row[3] for row in rows] == ["ok", "missing_table", "missing_table", "corrupt_table",
                                        "invalid_position"]
    assert rows[1][1:3] == ["2", ""]  # the WDL was answered, the DTZ table is missing
    assert f"{src}:2: did not find dtz table KRvK" in err
    assert f"{src}:3: did not find wdl table KBvK" in err
    assert f"{src}:4: invalid magic header" in err and "KNvK.rtbw" in err
    assert f"{src}:5: not a legal position" in err
    assert "(2 missing_table, 1 invalid_position, 1 corrupt_table)" in err
