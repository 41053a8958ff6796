"""A table file cut short while it is mapped (issue 41, "survive the disk").

Each test copies the 3-4-piece tables to a temporary folder, lets a child
process (``tests/support/disk_victim.py``, or ``pyfathom serve``, or a Dask
worker) map and read KPvKP's file, truncates that file to one page under
it, and probes on.  Before the fault guard (src/fathom/tb_platform.c) the
first read past the cut killed the process with SIGBUS (exit 135); now the
probes that read the file fail with :class:`pyfathom.TableFileError`
naming it (batch rows: status ``Status.IO``), the process lives on, and
every other table still answers exactly as python-chess does.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import chess.syzygy
import pytest

from support import positions
from support.disk_damage import (DAMAGED, board_key, boards,  # noqa: F401 (a fixture)
                                 check_batch_rows, check_outcomes, oracle_values, rows_of, run_victim,
                                 spec_for)
from support.live_server import q, serving


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fault guard is POSIX-only")


@pytest.fixture()
def tables(syzygy_dir: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "tables"
    shutil.copytree(syzygy_dir, folder, ignore=shutil.ignore_patterns("*.epd"))
    return folder


@pytest.mark.parametrize("dtz", [False, True], ids=["wdl", "dtz"])
def test_per_position(syzygy_dir: Path, tables: Path, boards: dict[str, Any], dtz: bool) -> None:
    victim = tables / (DAMAGED + (".rtbz" if dtz else ".rtbw"))
    mixed = boards["mixed"]
    proc = run_victim("per_position", tables, victim, spec_for(mixed, dtz))
    out = rows_of(proc)
    assert out["warm"][0] == "value"
    check_outcomes(out["rows"], oracle_values(syzygy_dir, mixed, dtz), mixed, victim)
    assert os.path.getsize(victim) == 4096


def test_without_the_guard_the_process_dies(tables: Path, boards: dict[str, Any]) -> None:
    """fathom_set_fault_guard(0) (an embedder's opt-out): the old behaviour,
    SIGBUS; this is what the tests above would see without the guard."""
    victim = tables / (DAMAGED + ".rtbw")
    proc = run_victim("per_position", tables, victim,
                      spec_for(boards["damaged"], False, no_guard=True))
    if os.environ.get("PYFATHOM_SANITIZED") and "AddressSanitizer:DEADLYSIGNAL" in proc.stderr:
        return  # the fault went on to ASan's handler, which aborts (abort_on_error=1)
    assert proc.returncode in (-signal.SIGBUS, 128 + signal.SIGBUS), (proc.returncode, proc.stderr)


def test_root_probes(syzygy_dir: Path, tables: Path, boards: dict[str, Any]) -> None:
    victim = tables / (DAMAGED + ".rtbz")
    sample = boards["damaged"][:12] + boards["others"][::12]
    out = rows_of(run_victim("root", tables, victim, spec_for(sample, True)))
    failures = 0
    with chess.syzygy.open_tablebase(str(syzygy_dir)) as oracle:
        for board, outcome in zip(sample, out["rows"], strict=True):
            if outcome[0] == "error":
                assert board_key(board) == DAMAGED or any(
                    board_key(child) == DAMAGED for child in _children(board)), board.fen()
                assert outcome[1] == "TableFileError" and outcome[2] == str(victim), outcome
                failures += 1
                continue
            for uci, wdl, dtz in outcome[1]:
                child = board.copy()
                child.push_uci(uci)
                assert wdl == -oracle.probe_wdl(child), (board.fen(), uci)
    assert failures


def _children(board: chess.Board) -> list[chess.Board]:
    out = []
    for move in board.legal_moves:
        child = board.copy()
        child.push(move)
        out.append(child)
    return out


def test_fathom_api(syzygy_dir: Path, tables: Path, boards: dict[str, Any]) -> None:
    """pyfathom.fathom (Fathom's calls, its own default instance): a failed
    probe is TB_RESULT_FAILED, as Fathom's API has no error detail; the
    process lives and other tables answer."""
    victim = tables / (DAMAGED + ".rtbw")
    mixed = boards["mixed"]
    out = rows_of(run_victim("fathom", tables, victim, spec_for(mixed, False)))
    expected = oracle_values(syzygy_dir, mixed, False)
    failed = 0
    for board, outcome, want in zip(mixed, out["rows"], expected, strict=True):
        assert outcome[0] == "value"
        if outcome[1] == out["failed"]:
            assert board_key(board) == DAMAGED, board.fen()
            failed += 1
        else:
            assert outcome[1] == want + 2, board.fen()  # Fathom's 0..4
    assert failed


@pytest.mark.parametrize("case,dtz", [("bitboards", False), ("bitboards", True),
                                      ("many", False)],
                         ids=["bitboards-wdl", "bitboards-dtz", "probe_wdl_many"])
def test_batch(syzygy_dir: Path, tables: Path, boards: dict[str, Any], case: str,
               dtz: bool) -> None:
    """Two threads: failed rows are Status.IO (and FAILED), every other row
    answered; the first failed row probed alone names the file."""
    victim = tables / (DAMAGED + (".rtbz" if dtz else ".rtbw"))
    mixed = boards["mixed"]
    out = rows_of(run_victim(case, tables, victim, spec_for(mixed, dtz, threads=2)))
    check_batch_rows(out, oracle_values(syzygy_dir, mixed, dtz), mixed, victim)


def test_columnar(syzygy_dir: Path, tables: Path, boards: dict[str, Any]) -> None:
    pytest.importorskip("pyarrow")
    victim = tables / (DAMAGED + ".rtbw")
    mixed = boards["mixed"]
    out = rows_of(run_victim("columnar", tables, victim, spec_for(mixed, False)))
    expected = oracle_values(syzygy_dir, mixed, False)
    failed = 0
    for board, status, value, want in zip(mixed, out["status"], out["values"], expected,
                                          strict=True):
        if status != "ok":
            assert board_key(board) == DAMAGED and value is None, (board.fen(), status)
            failed += 1
        else:
            assert value == want, board.fen()
    assert failed
    assert len(set(s for s in out["status"] if s != "ok")) == 1, set(out["status"])


def cli(tables: Path, victim: Path, hook: str, *argv: str) -> subprocess.CompletedProcess[str]:
    warm = positions.table_sample(DAMAGED, 1, seed=7)[0].fen()
    return run_victim("cli", tables, victim, args=("--hook", hook, warm, *argv))


def test_cli_probe(tables: Path, boards: dict[str, Any]) -> None:
    """One line naming the file, exit 1, no traceback."""
    victim = tables / (DAMAGED + ".rtbw")
    fen = boards["damaged"][3].fen()
    proc = cli(tables, victim, "probe", "probe", "--tables", str(tables), fen)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and str(victim) in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_batch(syzygy_dir: Path, tables: Path, boards: dict[str, Any],
                   tmp_path: Path) -> None:
    """A batch file: every row written, the failed ones marked, exit 1."""
    victim = tables / (DAMAGED + ".rtbw")
    mixed = boards["mixed"]
    src = tmp_path / "positions.epd"
    src.write_text("".join(b.fen() + "\n" for b in mixed))
    out_file = tmp_path / "out.jsonl"
    proc = cli(tables, victim, "probe_wdl_bitboards", "batch", "--tables", str(tables),
               "--threads", "2", "-o", str(out_file), str(src))
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    expected = oracle_values(syzygy_dir, mixed, False)
    assert len(rows) == len(mixed)
    failed = [r for r in rows if r["status"] != "ok"]
    assert failed and all(board_key(chess.Board(r["fen"])) == DAMAGED for r in failed)
    for row, want in zip(rows, expected, strict=True):
        if row["status"] == "ok":
            assert row["wdl"] == want, row


def test_server(syzygy_dir: Path, tables: Path, boards: dict[str, Any]) -> None:
    """A live server: a 503 error document naming the file for the damaged
    table (also on later requests), every other request still answered."""
    victim = tables / (DAMAGED + ".rtbw")
    damaged = boards["damaged"]
    with chess.syzygy.open_tablebase(str(syzygy_dir)) as oracle, serving(tables) as server:
        status, doc = server.get_json("/standard?fen=" + q(damaged[0].fen()))
        assert status == 200, doc
        os.truncate(victim, 4096)
        errors = 0
        for board in damaged[1:13]:
            status, doc = server.get_json("/standard?fen=" + q(board.fen()))
            if status != 200:
                assert status == 503 and str(victim) in doc["error"], (status, doc)
                errors += 1
        assert errors
        for board in boards["others"][::8]:
            status, doc = server.get_json("/standard?fen=" + q(board.fen()))
            assert status == 200, (board.fen(), doc)
            assert doc["dtz"] == oracle.probe_dtz(board), board.fen()
        assert server.proc.poll() is None


def test_dask_partition(syzygy_dir: Path, tables: Path, boards: dict[str, Any]) -> None:
    """A real LocalCluster (one worker process): after the cut, the rows
    of the damaged table are marked failed in their partition, the worker
    lives on (same process) and answers the next partitions right."""
    pytest.importorskip("distributed")
    pd = pytest.importorskip("pandas")
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from pyfathom.dask import probe_dataframe

    victim = tables / (DAMAGED + ".rtbw")
    first = pd.DataFrame({"fen": [b.fen() for b in boards["damaged"][:4]]})
    mixed = boards["mixed"]
    later = pd.DataFrame({"fen": [b.fen() for b in mixed]})
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        pid = list(client.run(os.getpid).values())
        warm = probe_dataframe(dd.from_pandas(first, npartitions=1), tables=str(tables)).compute()
        assert list(warm["status"]) == ["ok"] * 4
        os.truncate(victim, 4096)
        result = probe_dataframe(dd.from_pandas(later, npartitions=3), tables=str(tables))
        try:
            frame = result.compute()
        except OSError as e:  # a partition that fails as a whole names the file
            assert str(victim) in str(e), e
            frame = None
        if frame is not None:
            expected = oracle_values(syzygy_dir, mixed, False)
            failed = 0
            for board, status, wdl, want in zip(mixed, frame["status"], frame["wdl"], expected,
                                                strict=True):
                if status != "ok":
                    assert board_key(board) == DAMAGED, board.fen()
                    failed += 1
                else:
                    assert int(wdl) == want, board.fen()
            assert failed
        assert list(client.run(os.getpid).values()) == pid
