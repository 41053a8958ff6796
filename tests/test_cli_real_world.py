"""The command line with files, tables and inputs as people have them:
``batch -o`` never destroys data, messy input files, nested table folders,
WDL-only sets, ``info --check`` on damaged downloads."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import chess.syzygy
import pytest

from pyfathom.cli import main

KRK = "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"
KPK = "8/4k3/8/4K3/4P3/8/8/8 b - - 0 1"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("pyfathom: ") and "Traceback" not in err
    return err


# ---- batch -o is never the input ---------------------------------------------------

@pytest.mark.parametrize("how", ["same name", "other spelling", "symlink", "hard link", "stdin"])
def test_output_that_is_the_input_is_refused(tmp_path: Path, syzygy_dir: Path, how: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "positions.txt"
    src.write_text(f"{KRK}\n{KPK}\n")
    before = src.read_bytes()
    out = {"same name": src, "other spelling": tmp_path / "." / "positions.txt",
           "symlink": tmp_path / "link.txt", "hard link": tmp_path / "hard.txt",
           "stdin": src}[how]
    if how == "symlink":
        out.symlink_to(src)
    elif how == "hard link":
        os.link(src, out)
    if how == "stdin":
        with open(src, "rb") as stdin:
            proc = subprocess.run([sys.executable, "-m", "pyfathom", "batch", "-", "-o", str(out),
                                   "--tables", str(syzygy_dir)], stdin=stdin,
                                  capture_output=True, text=True, timeout=120)
        code, err = proc.returncode, proc.stderr
    else:
        code, _, err = run(["batch", str(src), "-o", str(out), "--tables", str(syzygy_dir)], capsys)
    assert code == 2
    assert "is the input" in one_line(err) or "is standard input" in err
    assert src.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_output_is_replaced_whole(tmp_path: Path, syzygy_dir: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.txt"
    src.write_text(f"{KRK}\n")
    out = tmp_path / "out.csv"
    out.write_text("old results\n")
    code, _, err = run(["batch", str(src), "-o", str(out), "--tables", str(syzygy_dir)], capsys)
    assert code == 0, err
    assert out.read_text().splitlines() == ["fen,wdl,dtz,status", f"{KRK},-2,,ok"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.csv"]
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def test_output_through_a_link_and_a_directory(tmp_path: Path, syzygy_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.txt"
    src.write_text(f"{KRK}\n")
    target = tmp_path / "results" / "krk.csv"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "latest.csv"
    link.symlink_to(target)
    code, _, err = run(["batch", str(src), "-o", str(link), "--tables", str(syzygy_dir)], capsys)
    assert code == 0, err
    assert link.is_symlink() and target.read_text().startswith("fen,wdl,dtz,status\n")
    code, _, err = run(["batch", str(src), "-o", str(tmp_path), "--tables", str(syzygy_dir)],
                       capsys)
    assert code == 1 and "it is a directory" in one_line(err)
    assert not [p for p in tmp_path.rglob("*.part")]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

def _default_signals() -> None:
    """In the child before it runs: SIGINT as a terminal would deliver it.  A
    suite started in the background by a shell without job control inherits
    SIGINT ignored, and Python then keeps ignoring it (the signal would be
    lost and the run finish normally)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_batch_leaves_no_partial_output(tmp_path: Path, syzygy_dir: Path,
                                                    sig: signal.Signals) -> None:
    """Killed mid-run, the batch leaves OUT as it was (here: an older file),
    never truncated rows under OUT's name.

    The input is a pipe the test keeps open, so the run cannot end before the
    signal: a file of fixed size once ran out first on a fast machine (the
    batch renamed its complete output over OUT, and the test saw that)."""
    out = tmp_path / "out.csv"
    out.write_text("previous results\n")
    proc = subprocess.Popen([sys.executable, "-m", "pyfathom", "batch", "-", "-o", str(out),
                             "--tables", str(syzygy_dir)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_default_signals)
    assert proc.stdin is not None
    try:
        # Several of the reader's 4 MiB blocks: the batch probes and writes the
        # first chunks while it waits for the rest, which never comes.
        proc.stdin.write(f"{KRK}\n{KPK}\n".encode() * 250_000)
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until rows are being written
            parts = [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
            if parts and parts[0].stat().st_size > 1 << 20:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        else:
            pytest.fail("the batch wrote no rows in 120 s")
        assert parts[0].name.startswith(".out.csv.")
        assert proc.poll() is None, "the batch ended with its input still open"
        proc.send_signal(sig)
        _, raw_err = proc.communicate(timeout=120)  # closes the input only now
        err = raw_err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    kept = out.read_text()
    # (The first line only: a complete output is 500,000 lines.)
    assert kept == "previous results\n", (
        f"OUT was replaced ({len(kept)} bytes, first line {kept.splitlines()[0]!r}), "
        f"exit {proc.returncode}: {err[-500:]}")
    left = [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")]
    if sig == signal.SIGINT:
        assert proc.returncode == 130, err
        assert "interrupted" in err and "Traceback" not in err
        assert left == []          # removed on the way out
    else:
        assert proc.returncode == -signal.SIGKILL
        assert len(left) == 1      # only the hidden temporary file, never OUT


# ---- inputs as they come -------------------------------------------------------------

MESSY = (b"\xef\xbb\xbf" + KRK.encode() + b"\n"   # a BOM before line 1
         + b"\n"                                   # blank
         + b"# positions from the club\n"          # comment
         + b"   \t\r\n"                            # blanks and CR
         + b"  # indented comment\r\n"
         + KPK.encode() + b"\r\n"                  # CRLF
         + b"caf\xe9 \x00 not, a \"fen\"\n"        # Latin-1, NUL, comma, quotes
         + b"\xff\xfe\x00\x00\n"                   # not UTF-8 at all
         + b"8/8/8/8/8/2k5/1p6/3K4 b - - 0 1")     # no final newline


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_messy_input_gives_valid_output(tmp_path: Path, syzygy_dir: Path, fmt: str,
                                        oracle: chess.syzygy.Tablebase,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "messy.txt"
    src.write_bytes(MESSY)
    out = tmp_path / f"out.{fmt}"
    code, _, err = run(["batch", str(src), "-o", str(out), "--format", fmt,
                        "--tables", str(syzygy_dir)], capsys)
    assert code == 1
    assert "9 lines: 3 probed, 2 bad (2 invalid_fen), 4 skipped (blank or comment)" in err
    assert f"{src}:7:" in err and f"{src}:8:" in err and f"{src}:2:" not in err
    raw = out.read_bytes()
    assert b"\x00" not in raw
    text = raw.decode("utf-8")  # valid UTF-8
    if fmt == "csv":
        with open(out, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    else:
        rows = [json.loads(line) for line in text.splitlines()]
    assert [r["status"] for r in rows] == ["ok", "ok", "invalid_fen", "invalid_fen", "ok"]
    good = [r for r in rows if r["status"] == "ok"]
    assert [r["fen"] for r in good] == [KRK, KPK, "8/8/8/8/8/2k5/1p6/3K4 b - - 0 1"]
    for r in good:
        assert int(r["wdl"]) == oracle.probe_wdl(chess.Board(r["fen"]))
    bad = [r["fen"] for r in rows if r["status"] != "ok"]
    if fmt == "csv":
        assert bad[0] == 'caf\ufffd \ufffd not, a "fen"'
    else:
        assert bad[0] == 'caf\ufffd \x00 not, a "fen"'  # escaped as \u0000 in the file
        assert "\\u0000" in text
    assert "\ufffd" in bad[1]


def test_threads_and_error_limit(tmp_path: Path, syzygy_dir: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.txt"
    src.write_text("".join(f"bad line {i}\n" for i in range(5)) + KRK + "\n")
    limit = 4 * (os.cpu_count() or 1)
    for threads in ("0", "-1", str(limit + 1)):
        code, _, err = run(["batch", str(src), "--threads", threads, "--tables", str(syzygy_dir)],
                           capsys)
        assert code == 2, threads
        assert f"--threads must be between 1 and {limit}" in one_line(err)
    code, out, err = run(["batch", str(src), "--threads", str(limit), "--max-errors", "2",
                          "--tables", str(syzygy_dir)], capsys)
    assert code == 1
    lines = err.splitlines()
    assert [line for line in lines if f"{src}:" in line] == [
        f"pyfathom: {src}:1: 'line' is not a side to move (w or b): 'bad line 0'",
        f"pyfathom: {src}:2: 'line' is not a side to move (w or b): 'bad line 1'"]
    assert "more bad lines not shown (--max-errors 2" in err
    assert "6 lines: 1 probed, 5 bad" in err
    code, out, err = run(["batch", str(src), "--max-errors", "0", "--tables", str(syzygy_dir)],
                         capsys)
    assert one_line(err).startswith("pyfathom: 6 lines: 1 probed, 5 bad")


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_help_documents_inputs(capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "10000")  # no line breaks inside a phrase ("byte-/order")
    assert main(["batch", "--help"]) == 0
    text = _flat(capsys.readouterr().out)
    for phrase in ("Blank lines and comment lines", "byte-order mark", "U+FFFD",
                   "--max-errors", "renamed to OUT"):
        assert phrase in text, phrase


# ---- table folders as people keep them ----------------------------------------------------

def _nested(syzygy_dir: Path, root: Path) -> Path:
    for name in sorted(p.name for p in syzygy_dir.glob("*.rtb?")):
        sub = "3-4-wdl" if name.endswith(".rtbw") else "3-4-dtz"
        (root / sub).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(syzygy_dir / name, root / sub / name)
    (root / "README.txt").write_text("downloaded 2026-11-30\n")
    return root


@pytest.mark.parametrize("via", ["--tables", "SYZYGY_PATH"])
def test_nested_folders_are_found(tmp_path: Path, syzygy_dir: Path, via: str,
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = _nested(syzygy_dir, tmp_path / "syzygy")
    monkeypatch.delenv("SYZYGY_PATH", raising=False)
    tables = ["--tables", str(root)]
    if via == "SYZYGY_PATH":
        monkeypatch.setenv("SYZYGY_PATH", f"{tmp_path / 'elsewhere'}{os.pathsep}{root}")
        tables = []
    code, out, err = run(["probe", KRK, *tables], capsys)
    assert code == 0, err
    assert "black to move: loss (WDL -2), DTZ -32 or -33" in out
    code, out, err = run(["info", "KRvKP", *tables], capsys)
    assert code == 0, err
    assert f"tables found in: {root / '3-4-dtz'}{os.pathsep}{root / '3-4-wdl'}\n" in out
    assert "4-piece tables: 30 WDL, 30 DTZ" in out


def test_missing_tables_folder_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["probe", KRK, "--tables", str(tmp_path / "typo")], capsys)
    assert code == 1
    assert one_line(err) == f"pyfathom: --tables {tmp_path / 'typo'}: no such directory\n"
    assert "download" not in err


def test_wdl_only_set(tmp_path: Path, syzygy_dir: Path, oracle: chess.syzygy.Tablebase,
                      capsys: pytest.CaptureFixture[str]) -> None:
    wdl_only = tmp_path / "wdl"
    wdl_only.mkdir()
    for p in syzygy_dir.glob("*.rtbw"):
        shutil.copyfile(p, wdl_only / p.name)
    code, out, err = run(["probe", KRK, "--tables", str(wdl_only)], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1] == ("  black to move: loss (WDL -2), DTZ unavailable "
                        "(no DTZ table KRvK; moves ranked by WDL only)")
    assert lines[2].split() == ["move", "result", "WDL", "DTZ"]
    assert {line.split()[0] for line in lines[3:]} == {"Kd1", "Kd3", "Ke1", "Ke3"}
    assert all(line.split()[1:] == ["loss", "-2", "-"] for line in lines[3:])

    code, out, err = run(["probe", "8/8/8/8/8/2k5/1p6/3K4 b - - 0 1", "--json",
                          "--tables", str(wdl_only)], capsys)
    assert code == 0, err
    (result,) = json.loads(out)
    board = chess.Board(result["fen"])
    assert result["wdl"] == oracle.probe_wdl(board)
    assert result["dtz"] is None and result["dtz_missing"]
    for move in result["moves"]:
        child = board.copy()
        child.push_uci(move["uci"])
        assert move["wdl"] == -oracle.probe_wdl(child), move
        assert move["dtz"] is None
    assert [m["wdl"] for m in result["moves"]] == sorted((m["wdl"] for m in result["moves"]),
                                                         reverse=True)
    assert result["best_move"] == result["moves"][0]["uci"]


# ---- info ------------------------------------------------------------------------------------

def test_info_materials(syzygy_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["info", "KvK", "--tables", str(syzygy_dir)], capsys)
    assert code == 0 and "KvK: no table needed (always a draw)" in out
    code, out, _ = run(["info", "KQRRBBNvK", "--tables", str(syzygy_dir)], capsys)
    assert code == 1 and "KQRRBBNvK: 8 pieces; Syzygy tables stop at 7" in out


def test_info_check_finds_damaged_files(tmp_path: Path, syzygy_dir: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "download"
    shutil.copytree(syzygy_dir, d, ignore=shutil.ignore_patterns("*.epd"))
    code, out, err = run(["info", "--check", "--tables", str(d)], capsys)
    assert code == 0, err
    assert "checked 70 files" in out and "none damaged" in out

    size = (d / "KRvKP.rtbz").stat().st_size
    with open(d / "KRvKP.rtbz", "r+b") as f:           # truncated
        f.truncate(size - 1000)
    (d / "KQvKR.rtbw").write_bytes(b"")                 # zero length
    data = bytearray((d / "KBNvK.rtbz").read_bytes())   # a bit flipped in the data
    data[len(data) // 2] ^= 0x04
    (d / "KBNvK.rtbz").write_bytes(bytes(data))
    code, out, err = run(["info", "--check", "--tables", str(d)], capsys)
    assert code == 1, err
    damaged = sorted(line.split("damaged: ", 1)[1] for line in out.splitlines()
                     if line.startswith("  damaged: "))
    assert [line.split(":")[0] for line in damaged] == [
        str(d / "KBNvK.rtbz"), str(d / "KQvKR.rtbw"), str(d / "KRvKP.rtbz")]
    assert f"{d / 'KQvKR.rtbw'}: empty file" in damaged
    assert f"{d / 'KRvKP.rtbz'}: {size - 1000} bytes: not a whole table" in damaged[2]
    assert "checked 70 files" in out and ": 3 damaged" in out

    code, _, err = run(["info", "--checksums", "x", "--tables", str(d)], capsys)
    assert code == 2 and "--checksums needs --check" in one_line(err)


def test_info_check_with_a_checksums_file(tmp_path: Path, syzygy_dir: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A set without published checksums in pyfathom (here a 5-piece one,
    or any file renamed out of the 3-4-piece set) is compared with the
    user's sha256sum file."""
    import hashlib

    d = tmp_path / "six"
    d.mkdir()
    shutil.copyfile(syzygy_dir / "KRvKP.rtbw", d / "KRvKP.rtbw")
    sums = tmp_path / "sums.sha256"
    sums.write_text(f"{hashlib.sha256(b'other content').hexdigest()}  6-WDL/KRvKP.rtbw\n")
    code, out, _ = run(["info", "--check", "--checksums", str(sums), "--tables", str(d)], capsys)
    assert code == 1
    assert "is not the published" in out
