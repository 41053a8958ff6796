"""Errors as users meet them (issue 23, findings 4, 10, 11): a damaged
mirror is refused without --checksums, every error is one line naming its
input once, usage errors exit 2 and failed work 1, and annotate exits 0
when it only skipped games it was not asked to handle.  About 4 s."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyfathom", *args], capture_output=True,
                          text=True, timeout=120)


def _one_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pyfathom: "), proc.stderr
    assert "Traceback" not in proc.stderr and "Errno" not in proc.stderr, proc.stderr
    return lines[0]


def test_mirror_refuses_damaged_copies_of_pinned_tables(tmp_path, syzygy_dir):
    source = tmp_path / "mirror"
    source.mkdir()
    for table in sorted(syzygy_dir.glob("*.rtb[wz]")):
        shutil.copy(table, source / table.name)
    damaged = ["KQvK.rtbw", "KRvKP.rtbz", "KBNvK.rtbw"]
    for name in damaged:
        data = bytearray((source / name).read_bytes())
        data[len(data) // 2] ^= 0xFF
        (source / name).write_bytes(bytes(data))
    dest = tmp_path / "dest"
    proc = _cli("download", "--source", str(source), "--dest", str(dest))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "67 fetched, 0 already present, 3 failed" in proc.stdout
    for name in damaged:
        assert f"{name}: sha256" in proc.stderr and "refused" in proc.stderr
        assert not (dest / name).exists()
    assert not list(dest.glob(".*.part"))


def test_os_errors_are_one_line_naming_the_path(tmp_path, syzygy_dir):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = _cli("download", "--dest", str(blocker / "tables"), "--source", str(syzygy_dir))
    assert proc.returncode == 1
    line = _one_line(proc)
    assert str(blocker) in line and "Not a directory" in line


def test_dask_on_text_input_is_a_usage_error(tmp_path):
    source = tmp_path / "big.epd"
    source.write_text("8/8/8/8/8/8/2Rk4/1K6 b - -\n")
    proc = _cli("batch", str(source), "--dask", "tcp://127.0.0.1:1", "-o", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert str(source) in _one_line(proc) and "ArrowInvalid" not in proc.stderr


@pytest.mark.parametrize("args", [["--port", "99999"], ["--port", "0"], ["--workers", "0"]])
def test_serve_option_out_of_range_is_a_usage_error(syzygy_dir, args):
    pytest.importorskip("uvicorn", reason="uvicorn (the [server] extra) is not installed")
    proc = _cli("serve", "--tables", str(syzygy_dir), *args)
    assert proc.returncode == 2
    assert args[0] in _one_line(proc)


def test_annotate_only_skipping_a_variant_game_exits_0(tmp_path, syzygy_dir):
    games = tmp_path / "atomic.pgn"
    games.write_text('[Event "t"]\n[Variant "Atomic"]\n\n1. e4 e5 *\n\n')
    proc = _cli("annotate", str(games), "--tables", str(syzygy_dir))
    assert proc.returncode == 0, proc.stderr
    assert "1 game read," in proc.stderr and "1 games" not in proc.stderr
    assert "of other variants" in proc.stderr and "not a failure" in proc.stderr
    assert proc.stdout.strip() == games.read_text().strip()
