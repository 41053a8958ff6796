"""What batch and annotate read (issue 23, findings 5 and 6): gzip, bzip2
and xz inputs read as the text they hold (by their first bytes, whatever the
name), archives and binary files refused with one line and no output, and
EPD opcodes and line numbers carried to the output with --carry.  About 4 s."""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import subprocess
import sys
import tarfile

import pytest

LINES = ['8/8/8/8/8/8/2Rk4/1K6 b - - id "first, one"; bm Kb3;', "# a comment",
         "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1", "not a position"]
TEXT = "\n".join(LINES) + "\n"
COMPRESSORS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "pyfathom", *args], capture_output=True,
                          input=stdin, timeout=120)


@pytest.fixture
def run(capsys):
    """The command line in this process (child processes cost a second each
    on a loaded machine): (exit status, stdout, stderr) as bytes."""
    from pyfathom.cli import main

    def call(*args: str) -> subprocess.CompletedProcess[bytes]:
        code = main(list(args))
        captured = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, captured.out.encode(), captured.err.encode())

    return call


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
@pytest.mark.parametrize("named", [True, False])
def test_compressed_input_is_read_as_its_text(tmp_path, syzygy_dir, kind, named, run):
    plain = tmp_path / "in.epd"
    plain.write_text(TEXT)
    packed = tmp_path / (f"in.epd.{kind}" if named else "renamed.epd")
    packed.write_bytes(COMPRESSORS[kind](TEXT.encode()))
    expected = run("batch", str(plain), "--tables", str(syzygy_dir))
    got = run("batch", str(packed), "--tables", str(syzygy_dir))
    assert got.returncode == expected.returncode == 1  # the bad line
    assert got.stdout == expected.stdout and got.stdout.count(b"\n") == 4
    if kind == "gz" and not named:
        piped = _cli("batch", "-", "--tables", str(syzygy_dir), stdin=packed.read_bytes())
        assert piped.stdout == expected.stdout


def test_annotate_reads_compressed_pgn(tmp_path, syzygy_dir, run):
    games = ('[Event "t"]\n[FEN "8/8/8/8/8/2k5/1p6/3K4 b - - 0 1"]\n[SetUp "1"]\n\n'
             '1... Kd3 2. Ke1 b1=Q+ *\n\n')
    plain, packed = tmp_path / "g.pgn", tmp_path / "g.pgn.xz"
    plain.write_text(games)
    packed.write_bytes(lzma.compress(games.encode()))
    expected = run("annotate", str(plain), "--tables", str(syzygy_dir))
    got = run("annotate", str(packed), "--tables", str(syzygy_dir))
    assert got.returncode == expected.returncode == 0, got.stderr
    assert got.stdout == expected.stdout and b"TB:" in got.stdout


def _tar_gz(tmp_path):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        member = tmp_path / "in.epd"
        member.write_text(TEXT)
        tar.add(member, arcname="in.epd")
    return data.getvalue()


@pytest.mark.parametrize("kind", ["tar.gz", "zip", "random"])
def test_binary_input_is_refused(tmp_path, syzygy_dir, kind, run):
    import random
    import zipfile

    path = tmp_path / f"positions.{kind}"
    if kind == "tar.gz":
        path.write_bytes(_tar_gz(tmp_path))
    elif kind == "zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("in.epd", TEXT)
    else:
        path.write_bytes(random.Random(23).randbytes(50_000))
    out = tmp_path / "out.csv"
    for command in (["batch", str(path), "-o", str(out)], ["annotate", str(path)]):
        proc = run(*command, "--tables", str(syzygy_dir))
        assert proc.returncode == 1
        lines = proc.stderr.decode().splitlines()
        assert len(lines) == 1 and str(path) in lines[0] and "not " in lines[0], lines
        assert proc.stdout == b"" and not out.exists()


def test_carry_line_and_id(tmp_path, syzygy_dir, run):
    path = tmp_path / "in.epd"
    path.write_text(TEXT)
    proc = run("batch", str(path), "--tables", str(syzygy_dir), "--carry", "line,id,bm")
    rows = list(csv.DictReader(io.StringIO(proc.stdout.decode())))
    assert [r["line"] for r in rows] == ["1", "3", "4"]
    assert [r["id"] for r in rows] == ["first, one", "", ""]
    assert rows[0]["bm"] == "Kb3" and rows[0]["status"] == "ok"
    proc = run("batch", str(path), "--tables", str(syzygy_dir), "--carry", "id,line",
                "--format", "jsonl")
    rows = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [(r["line"], r["id"]) for r in rows] == [(1, "first, one"), (3, None), (4, None)]
    assert list(rows[0]) == ["fen", "wdl", "dtz", "status", "id", "line"]


@pytest.mark.parametrize("value", ["", "line,line", "wdl", "1x"])
def test_carry_bad_names_are_usage_errors(tmp_path, syzygy_dir, value, run):
    path = tmp_path / "in.epd"
    path.write_text(TEXT)
    proc = run("batch", str(path), "--tables", str(syzygy_dir), "--carry", value)
    assert proc.returncode == 2 and proc.stderr.decode().count("\n") == 1
