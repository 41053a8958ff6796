"""``GET /standard`` with the probes of a position's moves run together
(``together``: ``threads``, the default, and ``batch``) answers exactly as
with one probe after another (``off``).

In one process: :func:`pyfathom.server.lichess.probe_document` with and
without a thread pool (``spread``) and :func:`~pyfathom.server.lichess.probe_documents`
(one batch call) on random positions of a synthetic 6-piece table set
(tests/support/syzygy_writer.py) and of the real KBBBBvK and KNNNNvK of
``../shared/syzygy6``, with lila's precise flags and with pyfathom's,
and random halfmove clocks (so that the 50-move categories appear).  Then
live: three ``pyfathom serve`` processes on the synthetic tables, one per
mode (``PYFATHOM_SERVE_TOGETHER``), give byte-identical answers to the
same requests.
"""

from __future__ import annotations

import os
import random
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Iterator

import chess
import pytest

import pyfathom
from pyfathom.server import app as server_app
from pyfathom.server import lichess
from support import positions, table_cache
from support import syzygy_writer as writer
from support.live_server import q, serving

SYNTHETIC = "KNNvKNN"


@pytest.fixture(scope="module")
def synthetic_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """KNNvKNN and every table its probes reach, synthetic (0.2 s)."""
    folder = tmp_path_factory.mktemp("together-tables")
    for k, name in enumerate(writer.needed_tables([SYNTHETIC])):
        writer.write_tables(writer.Spec(name, seed=k + 1), str(folder))
    return folder


def _boards(key: str, n: int, seed: int) -> Iterator[chess.Board]:
    rng = random.Random(seed)
    made = 0
    while made < n:
        board = positions.random_position(rng, key)
        board.halfmove_clock = rng.choice((0, 0, 20, 60, 95, 99, 100))
        if board.is_valid():
            made += 1
            yield board


def _compare(tb: pyfathom.Tablebase, boards: list[chess.Board]) -> tuple[int, int]:
    """Asserts the three ways agree on every board; returns how many
    documents had a decisive move (so that the test shows it compared
    answers, not only unknowns) and how many the batch call declined.

    The batch call declines (None) a board one of whose probes gives a
    DTZ past int16, which only a damaged table (or a synthetic one, whose
    16-bit maps hold any value) stores: its C loop fails such a row as
    CORRUPT where the per-board probe returns the number; the server then
    answers that board one probe after another (as its batch endpoint
    does), so its answer is still the same."""
    decisive = declined = 0
    with ThreadPoolExecutor(8) as pool:
        for exact in (False, True):
            batch = lichess.probe_documents(tb, boards, threads=1, exact_mates=exact)
            for board, from_batch in zip(boards, batch):
                one_by_one = lichess.probe_document(tb, board, exact_mates=exact)
                together = lichess.probe_document(tb, board, exact_mates=exact, spread=pool)
                assert together == one_by_one, board.fen()
                if from_batch is None:
                    declined += 1
                else:
                    assert from_batch == one_by_one, board.fen()
                decisive += any(m["dtz"] not in (None, 0) for m in one_by_one["moves"])
    return decisive, declined


def test_together_equals_one_by_one_on_synthetic_6_piece_tables(synthetic_tables: Path) -> None:
    boards = list(_boards(SYNTHETIC, 150, seed=41))
    with pyfathom.open_tablebase(synthetic_tables) as tb:
        decisive, declined = _compare(tb, boards)
    assert decisive > 100
    assert declined < len(boards) // 2  # most compared with the batch call too


def test_together_equals_one_by_one_on_real_6_piece_tables(syzygy_dir: Path,
                                                           syzygy5_dir: Path) -> None:
    six = table_cache.shared_folder(table_cache.SYZYGY6, "KBBBBvK.rtbz", "KNNNNvK.rtbz")
    boards = list(_boards("KBBBBvK", 60, seed=42)) + list(_boards("KNNNNvK", 60, seed=43))
    with pyfathom.Tablebase() as tb:
        for folder in (syzygy_dir, syzygy5_dir, six):
            tb.add_directory(str(folder))
        decisive, declined = _compare(tb, boards)
    assert decisive > 60
    assert declined == 0  # real tables stay within int16


def test_together_keeps_a_damaged_table_a_503(tmp_path: Path, synthetic_tables: Path) -> None:
    """A probe that meets a damaged file raises the same error from a
    spread thread as from the request's own (the endpoint's 503)."""
    folder = tmp_path / "damaged"
    folder.mkdir()
    for path in synthetic_tables.iterdir():
        data = path.read_bytes()
        if path.name == f"{SYNTHETIC}.rtbz":
            data = data[:4] + bytes(len(data) - 4)  # right magic, nonsense after
        (folder / path.name).write_bytes(data)
    board = next(b for b in _boards(SYNTHETIC, 50, seed=44) if b.legal_moves.count() > 5)
    with pyfathom.open_tablebase(folder) as tb, ThreadPoolExecutor(4) as pool:
        with pytest.raises(OSError) as one_by_one:
            lichess.probe_document(tb, board)
        with pytest.raises(OSError) as together:
            lichess.probe_document(tb, board, spread=pool)
    assert type(together.value) is type(one_by_one.value)
    assert str(together.value) == str(one_by_one.value)  # the same probe's error


def test_unknown_together_mode_is_refused(synthetic_tables: Path) -> None:
    with pytest.raises(ValueError, match="together must be one of"):
        server_app.create_app([str(synthetic_tables)], together="sometimes")


def test_live_servers_answer_alike_in_every_mode(synthetic_tables: Path) -> None:
    fens = [b.fen() for b in _boards(SYNTHETIC, 40, seed=45)]
    answers: dict[str, list[bytes]] = {}
    saved = os.environ.get(server_app.ENV_TOGETHER)
    try:
        with ExitStack() as stack:
            servers = {}
            for mode in server_app.TOGETHER_MODES:
                os.environ[server_app.ENV_TOGETHER] = mode  # serving() hands os.environ on
                servers[mode] = stack.enter_context(serving(synthetic_tables, "--cache", "0"))
            for mode, server in servers.items():
                got = []
                for fen in fens:
                    for flag in ("false", "true"):
                        status, _, body = server.request(
                            "GET", f"/standard?fen={q(fen)}&exact_mates={flag}")
                        assert status == 200, body
                        got.append(body)
                answers[mode] = got
    finally:
        if saved is None:
            os.environ.pop(server_app.ENV_TOGETHER, None)
        else:
            os.environ[server_app.ENV_TOGETHER] = saved
    assert answers["threads"] == answers["off"]
    assert answers["batch"] == answers["off"]


def test_bench_server_cold_runs(synthetic_tables: Path, tmp_path: Path) -> None:
    """benchmarks/bench_server_cold.py runs (tiny tables, a few requests;
    speed is measured there, never asserted here): every field of its
    report is there, and its cold and warm replays, in both modes, gave
    the same answers (it fails otherwise)."""
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    log = tmp_path / "log.jsonl"
    cmd = [sys.executable, str(root / "benchmarks" / "bench_server_cold.py"),
           "--tables", str(synthetic_tables), "--materials", SYNTHETIC, "--requests", "12",
           "--batch-every", "4", "--batch-size", "3", "--clients", "4", "--workers", "1",
           "--rounds", "1", "--log", str(log), "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["answers_identical"] is True
    assert result["requests"] == 12 and result["batch_requests"] == 3
    for mode in ("off", "threads"):
        for phase in ("cold", "warm"):
            for endpoint in ("standard", "batch"):
                figures = result["summary"][mode][phase][endpoint]
                assert set(figures) == {"p50_ms", "p90_ms", "p99_ms", "max_ms"}
                assert 0 < figures["p50_ms"]["median"] <= figures["max_ms"]["median"]
    assert set(result["summary"]["off_over_threads_cold"]) == {"standard", "batch"}
    # The log is recorded once and replayed as it is.
    recorded = log.read_text()
    proc = subprocess.run(cmd[:-1] + ["--modes", "threads"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "answers identical cold/warm and across modes: True" in proc.stdout
    assert log.read_text() == recorded


def test_bench_server_cold_never_overwrites_another_log(synthetic_tables: Path,
                                                         tmp_path: Path) -> None:
    """A --log file recorded with other options (or not a log at all) is an
    error naming it, exit 2, and the file is left as it was: a recorded
    log is what later runs are compared on."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    bench = str(root / "benchmarks" / "bench_server_cold.py")
    log = tmp_path / "log.jsonl"
    common = ["--tables", str(synthetic_tables), "--materials", SYNTHETIC, "--batch-every", "0",
              "--clients", "1", "--workers", "1", "--rounds", "1", "--modes", "off",
              "--log", str(log), "--json"]
    proc = subprocess.run([sys.executable, bench, "--requests", "3", *common],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    recorded = log.read_bytes()
    proc = subprocess.run([sys.executable, bench, "--requests", "4", *common],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert str(log) in proc.stderr and '"requests": 3' in proc.stderr
    assert "Traceback" not in proc.stderr
    assert log.read_bytes() == recorded
    other = tmp_path / "notes.txt"
    other.write_text("not a log\n")
    proc = subprocess.run([sys.executable, bench, "--requests", "3", *common[:-2],
                           str(other), "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "not a request log" in proc.stderr, proc.stderr
    assert other.read_text() == "not a log\n"


def test_bench_server_alone_runs(synthetic_tables: Path, tmp_path: Path) -> None:
    """benchmarks/bench_server_alone.py runs (tiny tables, a few requests,
    the device's rates given; speed is measured there, never asserted
    here): every figure of its report is there for each mode, the bytes it
    counts come from the server's cold answers, and every answer was
    identical in its three passes and in every mode (it fails otherwise)."""
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    cmd = [sys.executable, str(root / "benchmarks" / "bench_server_alone.py"),
           "--tables", str(synthetic_tables), "--materials", SYNTHETIC, "--requests", "10",
           "--rounds", "2", "--modes", "threads,off,threads+index", "--rates", "16000,80000",
           "--log", str(tmp_path / "log.jsonl"), "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["answers_identical"] is True
    assert result["requests"] == 9  # the tenth request of the log is a batch
    assert result["rate1"] == 16000 and result["rate32"] == 80000
    for mode in ("threads", "off", "threads+index"):
        assert len(result["runs"][mode]) == 2
        row = result["summary"][mode]
        assert set(row) == {"ratio_p50", "ratio_p90", "control_p50", "control_p90",
                            "cold_p50_ms", "cold_p99_ms", "warm_p50_ms", "extra_sum_ms",
                            "read_mb"}
        assert 0 < row["cold_p50_ms"]["median"] <= row["cold_p99_ms"]["median"]
        assert row["ratio_p50"]["median"] <= row["ratio_p90"]["median"]
        if mode != "threads+index":  # (index parts read back: little else may be left)
            assert row["read_mb"]["min"] > 0, row  # the pages were dropped: read cold
    proc = subprocess.run(cmd[:-1] + ["--modes", "threads,nonsense"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2 and "--modes" in proc.stderr, proc.stderr
