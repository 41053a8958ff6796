"""A disk that fails under a running process: reads of a mapped table
file that start returning EIO (issue 41, "survive the disk": "unreadable
while in use").

test_disk_survival.py cuts a file short; here the file keeps its size and
its reads fail, as a bad sector does.  The tables are served by a FUSE
filesystem (``tests/support/eio_fs.py``) whose reads of KPvKP's file fail
once a flag file exists; the victim process (``tests/support/disk_victim.py``)
maps and reads the file, sets the flag, drops the file's unmapped pages and
probes on.  The kernel answers the next fault on the lost pages with
SIGBUS, which killed the process before the fault guard; now those probes
fail with :class:`pyfathom.TableFileError` naming the file (batch rows:
``Status.IO``), and every other row is python-chess's answer.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterator

import chess
import pytest

from support import disk_victim, fuse_mount
from support.disk_damage import (DAMAGED, board_key, boards,  # noqa: F401 (a fixture)
                                 check_batch_rows, check_outcomes, oracle_values, rows_of, run_victim,
                                 spec_for)


pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="FUSE test filesystem: Linux only")


@pytest.fixture()
def failing_disk(syzygy_dir: Path, tmp_path: Path, request: pytest.FixtureRequest,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Path]]:
    """The 3-4-piece tables on a FUSE mount whose reads of KPvKP's files
    fail once ``flag`` exists; the victim sets it (DISK_VICTIM_FAIL_FLAG)."""
    fuse_mount.fuse_ready()
    source, flag = tmp_path / "disk", tmp_path / "failing"
    shutil.copytree(syzygy_dir, source, ignore=shutil.ignore_patterns("*.epd"))
    # The file the test damages: DTZ tests name "dtz" in their id.
    failing = DAMAGED + (".rtbz" if "dtz" in request.node.name else ".rtbw")
    with fuse_mount.mounted(source, tmp_path / "mnt", failing, str(flag)) as mount:
        monkeypatch.setenv(disk_victim.FAIL_FLAG_ENV, str(flag))
        yield {"tables": mount, "flag": flag}


def _check_the_disk_really_fails(victim: Path, flag: Path) -> None:
    """The filesystem does what the test claims: with the flag set, a
    positional read of the file fails with EIO (so the probes below met a
    real read error, not a cut)."""
    flag.touch()
    try:
        fd = os.open(victim, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            with pytest.raises(OSError) as raised:
                os.pread(fd, 4096, 0)
            assert raised.value.errno == 5, raised.value
        finally:
            os.close(fd)
    finally:
        flag.unlink()


@pytest.mark.parametrize("dtz", [False, True], ids=["wdl", "dtz"])
def test_per_position(syzygy_dir: Path, failing_disk: dict[str, Path],
                      boards: dict[str, Any], dtz: bool) -> None:
    tables = failing_disk["tables"]
    victim = tables / (DAMAGED + (".rtbz" if dtz else ".rtbw"))
    _check_the_disk_really_fails(victim, failing_disk["flag"])
    mixed = boards["mixed"]
    out = rows_of(run_victim("per_position", tables, victim, spec_for(mixed, dtz)))
    assert out["warm"][0] == "value"
    assert failing_disk["flag"].exists(), "the victim never damaged the disk"
    check_outcomes(out["rows"], oracle_values(syzygy_dir, mixed, dtz), mixed, victim)


def test_batch_wdl(syzygy_dir: Path, failing_disk: dict[str, Path],
                   boards: dict[str, Any]) -> None:
    """Two threads: the rows that met the error are Status.IO, every other
    row answered; the first failed row alone names the file."""
    tables = failing_disk["tables"]
    victim = tables / (DAMAGED + ".rtbw")
    mixed = boards["mixed"]
    out = rows_of(run_victim("bitboards", tables, victim, spec_for(mixed, False, threads=2)))
    check_batch_rows(out, oracle_values(syzygy_dir, mixed, False), mixed, victim)


def test_cli_batch_wdl(syzygy_dir: Path, failing_disk: dict[str, Path],
                       boards: dict[str, Any], tmp_path: Path) -> None:
    """``pyfathom batch``: every row written, the failed ones marked, one
    line on stderr, exit 1."""
    tables = failing_disk["tables"]
    victim = tables / (DAMAGED + ".rtbw")
    mixed = boards["mixed"]
    src = tmp_path / "positions.epd"
    src.write_text("".join(b.fen() + "\n" for b in mixed))
    out_file = tmp_path / "out.jsonl"
    warm = spec_for(mixed, False)["warm_fen"]
    proc = run_victim("cli", tables, victim,
                      args=("--hook", "probe_wdl_bitboards", warm, "batch", "--tables",
                            str(tables), "--threads", "2", "-o", str(out_file), str(src)))
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and str(victim) in proc.stderr, proc.stderr
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(rows) == len(mixed)
    failed = [r for r in rows if r["status"] != "ok"]
    assert failed and all(board_key(chess.Board(r["fen"])) == DAMAGED
                          for r in failed)
    for row, want in zip(rows, oracle_values(syzygy_dir, mixed, False), strict=True):
        if row["status"] == "ok":
            assert row["wdl"] == want, row


ROOT_FEN = "8/8/8/8/8/2k5/8/R3K3 w - - 0 1"  # KRvK: quiet moves, whose DTZ precision is probed


class _FailingChildren:
    """A tablebase whose probes of any position but the root raise *error*."""

    def __init__(self, tablebase: Any, error: Exception) -> None:
        self._tb, self._error = tablebase, error

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tb, name)

    def probe(self, board: chess.Board) -> Any:
        if board.fen() != ROOT_FEN:
            raise self._error
        return self._tb.probe(board)


def test_cli_probe_a_moves_table_failing_is_the_commands_error(tablebase: Any) -> None:
    """`pyfathom probe`: when a root move's position fails to read after the
    root's own probes succeeded, the command fails with one line naming that
    position and the file (it printed ``"dtz_precise": null`` before); a
    missing table there still gives null."""
    import pyfathom
    from pyfathom.cli._common import CliError
    from pyfathom.cli.probe import probe_one

    assert probe_one(tablebase, ROOT_FEN)["moves"]  # the real tables answer
    failing = _FailingChildren(tablebase, pyfathom.TableFileError("reading /t/KRvK.rtbz failed"))
    with pytest.raises(CliError) as raised:
        probe_one(failing, ROOT_FEN)
    message = str(raised.value)
    assert "KRvK.rtbz" in message and "\n" not in message
    assert " b - - 1 1" in message and ROOT_FEN not in message  # the move's position
    missing = _FailingChildren(tablebase, pyfathom.MissingTableError("KRvK.rtbz missing"))
    moves = probe_one(missing, ROOT_FEN)["moves"]
    assert moves and all(m["dtz_precise"] is None or m["dtz_precise"] is True for m in moves)
