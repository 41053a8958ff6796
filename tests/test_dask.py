"""pyfathom.dask on a real dask.distributed LocalCluster (issue 15): two
worker processes on 127.0.0.1, a million positions equal row for row to the
single-process batch, one tablebase opened per worker process, a worker
killed mid-run without changing the result, and errors that name the worker
and the table path."""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest

from support.positions import ALL_TABLES, table_sample, to_arrays

pa = pytest.importorskip("pyarrow", reason="needs the [dask] extra (pyarrow)")
pq = pytest.importorskip("pyarrow.parquet", reason="needs the [dask] extra (pyarrow)")
dd = pytest.importorskip("dask.dataframe", reason="needs the [dask] extra (dask[dataframe])")
distributed = pytest.importorskip("distributed", reason="needs the [dask] extra (distributed)")

from pyfathom import columnar  # noqa: E402
from pyfathom import dask as pfdask  # noqa: E402
from pyfathom.cli import main  # noqa: E402

# The fault-injection function below is sent to the workers by value (they
# need not import this test module).
import cloudpickle  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])

BITBOARDS = list(columnar.BITBOARD_COLUMNS)
ROWS = 1_000_000
PARTITIONS = 16
# The million-row tests also run in the sanitized pass (ASan build of the
# core preloaded into every worker): 12-14 s each there, against 7-13 s plain.


@pytest.fixture(scope="module")
def cluster() -> Any:
    """Two worker processes, one thread each, everything bound to 127.0.0.1."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.CRITICAL) as local, \
            distributed.Client(local) as client:
        yield local, client


def pool_tables(seed: int) -> tuple[Any, Any]:
    """A pool of positions of all 35 tables plus ones that cannot be probed
    (5 pieces, no kings, side not to move in check), as bitboard columns and FENs."""
    boards = [b for key in ALL_TABLES for b in table_sample(key, 30, seed=seed, ep_share=0.2)]
    boards += [chess.Board("8/8/8/8/8/8/2Rk4/1K6 w - - 0 1"),  # black in check, white to move
               chess.Board("r3k3/p7/8/8/8/8/P7/4K3 w - - 0 1"),  # 5 pieces
               chess.Board(None)]  # empty
    arrays = to_arrays(boards)
    bitboards = pa.table({name: np.asarray(arrays[name]) for name in BITBOARDS})
    fens = pa.table({"fen": [b.fen() for b in boards[:-1]] + ["not a fen"]})
    return bitboards, fens


def write_dataset(table: Any, directory: Path, parts: int) -> None:
    directory.mkdir()
    step = -(-table.num_rows // parts)
    for i in range(parts):
        pq.write_table(table.slice(i * step, step), directory / f"part-{i:03d}.parquet")


@pytest.fixture(scope="module")
def million(tmp_path_factory: Any, tablebase: Any) -> tuple[Path, Any]:
    """1,000,000 bitboard rows drawn from the pool by numpy, in 16 Parquet
    files, and the single-process batch's results for them."""
    pool, _ = pool_tables(seed=1515)
    index = np.random.default_rng(1515).integers(0, pool.num_rows, ROWS)
    table = pool.take(pa.array(index))
    directory = tmp_path_factory.mktemp("dask") / "million"
    write_dataset(table, directory, PARTITIONS)
    expected = columnar.probe_columns(tablebase, table)
    return directory, expected


def as_codes(frame: Any) -> tuple[np.ndarray, np.ndarray]:
    """(wdl with -128 for null, status names' codes) of a computed result."""
    wdl = frame["wdl"].astype("float").fillna(-128).to_numpy().astype(np.int8)
    return wdl, frame["status"].cat.codes.to_numpy()


def expected_codes(expected: Any) -> tuple[np.ndarray, np.ndarray]:
    wdl = expected.column("wdl").fill_null(-128).to_numpy().astype(np.int8)
    return wdl, expected.column("status").combine_chunks().indices.to_numpy()


def test_million_rows_equal_the_single_process_batch(cluster: Any, million: tuple[Path, Any],
                                                     syzygy_dir: Path) -> None:
    local, client = cluster
    addresses = [local.scheduler_address] + list(client.scheduler_info()["workers"])
    assert len(addresses) == 3 and all(a.startswith("tcp://127.0.0.1:") for a in addresses), addresses
    directory, expected = million
    frame = dd.read_parquet(str(directory))
    assert frame.npartitions == PARTITIONS
    labelled = pfdask.probe_dataframe(frame, str(syzygy_dir))
    # Lazy: nothing has run on the workers yet.
    assert set(client.run(pfdask.partition_count).values()) == {0}
    assert list(labelled.columns) == BITBOARDS + ["wdl", "status"]
    result = labelled[["wdl", "status"]].compute()
    assert len(result) == ROWS
    wdl, status = as_codes(result)
    want_wdl, want_status = expected_codes(expected)
    assert np.array_equal(status, want_status)
    assert np.array_equal(wdl, want_wdl)
    assert (want_status != 0).sum() > 1000 and (want_status == 0).sum() > 900_000
    # Every worker process did several partitions with one tablebase.
    partitions = client.run(pfdask.partition_count)
    assert sum(partitions.values()) == PARTITIONS
    assert all(n >= 2 for n in partitions.values()), partitions
    assert set(client.run(pfdask.open_count).values()) == {1}


def test_fens_with_dtz_and_the_batch_command(cluster: Any, tmp_path: Path, syzygy_dir: Path,
                                             tablebase: Any, capsys: Any) -> None:
    """A FEN column with DTZ, through the API and through
    ``pyfathom batch --dask``: one Parquet file per partition, the same rows."""
    local, client = cluster
    _, pool = pool_tables(seed=1516)
    index = np.random.default_rng(1516).integers(0, pool.num_rows, 40_000)
    table = pool.take(pa.array(index)).append_column("id", pa.array(np.arange(40_000)))
    directory = tmp_path / "fens"
    write_dataset(table, directory, 4)
    expected = columnar.probe_columns(tablebase, table, dtz=True)
    result = pfdask.probe_dataframe(dd.read_parquet(str(directory)), str(syzygy_dir), dtz=True).compute()
    assert list(result.columns) == ["fen", "id", "wdl", "dtz", "status"]
    assert np.array_equal(result["id"].to_numpy(), np.arange(40_000))
    assert np.array_equal(as_codes(result)[0], expected_codes(expected)[0])
    assert np.array_equal(as_codes(result)[1], expected_codes(expected)[1])
    assert result["dtz"].astype("float").fillna(-32768).astype(int).tolist() == \
        expected.column("dtz").fill_null(-32768).to_pylist()

    out = tmp_path / "labelled"
    code = main(["batch", str(directory), "--dask", local.scheduler_address, "--dtz",
                 "--tables", str(syzygy_dir), "-o", str(out)])
    _, err = capsys.readouterr()
    bad = int((expected_codes(expected)[1] != 0).sum())
    assert code == 1, err
    assert f"40000 rows: {40_000 - bad} probed, {bad} bad" in err and err.count("\n") == 1
    assert len(list(out.glob("*.parquet"))) == 4
    written = pq.read_table(out).sort_by("id")
    assert written.column("fen").to_pylist() == table.column("fen").to_pylist()
    for name in ("wdl", "dtz"):
        assert written.column(name).to_pylist() == expected.column(name).to_pylist()
    assert written.column("status").to_pylist() == expected.column("status").to_pylist()
    assert not list(tmp_path.glob(".labelled.part*"))
    # The output exists now: a second run refuses to overwrite it.
    code = main(["batch", str(directory), "--dask", local.scheduler_address,
                 "--tables", str(syzygy_dir), "-o", str(out)])
    assert code == 1 and "already exists" in capsys.readouterr().err


def test_a_missing_table_path_names_the_worker_and_the_path(cluster: Any, tmp_path: Path,
                                                            capsys: Any) -> None:
    local, client = cluster
    _, pool = pool_tables(seed=1517)
    directory = tmp_path / "small"
    write_dataset(pool, directory, 2)
    missing = tmp_path / "no-tables-here"
    labelled = pfdask.probe_dataframe(dd.read_parquet(str(directory)), str(missing))
    with pytest.raises(pfdask.WorkerTablesError) as info:
        labelled.compute()
    message = str(info.value)
    workers = list(client.scheduler_info()["workers"])
    assert str(missing) in message
    assert any(address in message for address in workers), (message, workers)
    # The command line says it in one line, without a traceback.
    code = main(["batch", str(directory), "--dask", local.scheduler_address, "--tables", str(missing),
                 "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and str(missing) in err and "worker" in err
    assert not (tmp_path / "out").exists()


def die_once(frame: Any, marker: str, partition_info: Any = None) -> Any:
    """Fault injection: the worker that runs partition 9 first is killed
    (SIGKILL, no cleanup); the marker file makes Dask's rerun of it live."""
    if partition_info is not None and partition_info["number"] == 9 and not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return frame


def test_a_worker_killed_mid_run_gives_the_same_result(cluster: Any, million: tuple[Path, Any],
                                                       syzygy_dir: Path, tmp_path: Path) -> None:
    local, client = cluster
    directory, expected = million
    pids_before = set(client.run(os.getpid).values())
    marker = tmp_path / "killed"
    frame = dd.read_parquet(str(directory))
    frame = frame.map_partitions(die_once, str(marker), meta=frame._meta)
    result = pfdask.probe_dataframe(frame, str(syzygy_dir))[["wdl", "status"]].compute()
    assert marker.exists(), "the fault was not injected"
    killed = int(marker.read_text())
    assert killed in pids_before
    wdl, status = as_codes(result)
    want_wdl, want_status = expected_codes(expected)
    assert len(result) == ROWS
    assert np.array_equal(status, want_status) and np.array_equal(wdl, want_wdl)
    client.wait_for_workers(2, timeout=60)
    pids_after = set(client.run(os.getpid).values())
    assert killed not in pids_after and len(pids_after) == 2
    # The restarted worker process opened the tables at most once too.
    assert set(client.run(pfdask.open_count).values()) <= {0, 1}
