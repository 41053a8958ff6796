"""Parquet and Arrow in and out of ``pyfathom batch``, and the Arrow/pandas
API (issue 15): the same values and statuses as the text batch on the same
positions, bad rows included; the input's columns kept; bitboard columns;
clear errors; outputs written whole or not at all."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest

from support.batch_input import BAD_LINES, make_batch_input
from support.positions import ALL_TABLES, table_sample, to_arrays

pa = pytest.importorskip("pyarrow", reason="needs pyarrow: the [arrow] extra")
pq = pytest.importorskip("pyarrow.parquet", reason="needs pyarrow: the [arrow] extra")
pd = pytest.importorskip("pandas", reason="needs pandas (with the [dask] extra)")

from pyfathom import batch_files, columnar  # noqa: E402
from pyfathom.cli import main  # noqa: E402

BITBOARDS = list(columnar.BITBOARD_COLUMNS)

# Bad rows beyond the text batch's: an overlong line and a FEN of a missing table.
EXTRA_BAD = {2200: "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1" + " " * (batch_files.MAX_LINE + 10) + "x"}


def run(args: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def text_batch(src: Path, syzygy_dir: Path, tmp_path: Path, capsys: Any, dtz: bool = True) -> list[list[str]]:
    out = tmp_path / "text.csv"
    run(["batch", str(src), "--tables", str(syzygy_dir), "-o", str(out)] + (["--dtz"] if dtz else []),
        capsys)
    with open(out, newline="") as f:
        return list(csv.reader(f))[1:]


def as_rows(table: Any, dtz: bool = True) -> list[list[str]]:
    """wdl, dtz, status of an output table as the text batch writes them."""
    data = table.to_pydict()
    dtzs = data["dtz"] if dtz else [None] * table.num_rows
    return [["" if w is None else str(w), "" if d is None else str(d), s]
            for w, d, s in zip(data["wdl"], dtzs, data["status"])]


@pytest.fixture(scope="module")
def batch_lines(tmp_path_factory: Any) -> tuple[Path, list[str]]:
    src = tmp_path_factory.mktemp("columnar") / "in.epd"
    lines = make_batch_input(src, 2500, {**BAD_LINES, **EXTRA_BAD}, seed=15)
    return src, lines


def read_output(path: Path) -> Any:
    if path.suffix == ".parquet":
        return pq.read_table(path)
    if path.suffix == ".arrows":
        return pa.ipc.open_stream(pa.OSFile(str(path))).read_all()
    return pa.ipc.open_file(pa.OSFile(str(path))).read_all()


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".arrows"])
def test_round_trip_equals_the_text_batch(suffix: str, batch_lines: tuple[Path, list[str]],
                                          syzygy_dir: Path, tmp_path: Path, capsys: Any) -> None:
    src, lines = batch_lines
    expected = text_batch(src, syzygy_dir, tmp_path, capsys)
    assert len(expected) == len(lines) == 2500 + len(BAD_LINES) + len(EXTRA_BAD)
    assert {r[3] for r in expected} >= {"ok", "invalid_fen", "castling", "too_many_pieces",
                                        "invalid_position", "line_too_long"}
    # The same lines as a column (one of them null instead of empty), beside
    # an id column, in small row groups / record batches.
    fens = [None if line == "" else line for line in lines]
    table = pa.table({"id": np.arange(len(lines), dtype=np.int64), "fen": fens})
    inp = tmp_path / f"in{suffix}"
    if suffix == ".parquet":
        pq.write_table(table, inp, row_group_size=300)
    else:
        with pa.OSFile(str(inp), "wb") as sink:
            new = pa.ipc.new_stream if suffix == ".arrows" else pa.ipc.new_file
            with new(sink, table.schema) as writer:
                for batch in table.to_batches(max_chunksize=300):
                    writer.write_batch(batch)
    out = tmp_path / f"out{suffix}"
    code, stdout, err = run(["batch", str(inp), "--tables", str(syzygy_dir), "--dtz", "-o", str(out)],
                            capsys)
    assert code == 1 and stdout == ""
    bad_numbers = [n for n in range(1, len(lines) + 1) if n in BAD_LINES or n in EXTRA_BAD]
    for number in bad_numbers:
        assert f"{inp}: row {number - 1}:" in err, number
    assert err.count(f"{inp}: row ") == len(bad_numbers)
    assert f"{len(lines)} rows: {len(lines) - len(bad_numbers)} probed, {len(bad_numbers)} bad" in err
    result = read_output(out)
    assert result.column_names == ["id", "fen", "wdl", "dtz", "status"]
    assert result.column("id").to_pylist() == list(range(len(lines)))
    assert result.column("fen").to_pylist() == fens
    assert as_rows(result) == [r[1:] for r in expected]
    assert [p for p in os.listdir(tmp_path) if p.endswith(".part")] == []


def test_small_slices_and_wdl_only(batch_lines: tuple[Path, list[str]], syzygy_dir: Path,
                                   tablebase: Any, tmp_path: Path, capsys: Any) -> None:
    """Slices of 7 rows (across row groups) give the same file as whole ones."""
    src, lines = batch_lines
    expected = text_batch(src, syzygy_dir, tmp_path, capsys, dtz=False)
    inp = tmp_path / "in.parquet"
    pq.write_table(pa.table({"fen": lines}), inp, row_group_size=500)
    results = []
    for rows in (7, batch_files.CHUNK_LINES):
        out = tmp_path / f"out{rows}.parquet"
        stats = columnar.run_columnar_batch(tablebase, str(inp), str(out), input_format="parquet",
                                            output_format="parquet", threads=1, batch_rows=rows)
        assert stats.lines == len(lines)
        table = pq.read_table(out)
        assert table.column_names == ["fen", "wdl", "status"]
        results.append(table)
    assert results[0].equals(results[1])
    assert as_rows(results[0], dtz=False) == [[r[1], "", r[3]] for r in expected]


def bitboard_table(boards: list[chess.Board]) -> Any:
    arrays = to_arrays(boards)
    return pa.table({name: np.asarray(arrays[name]) for name in BITBOARDS})


@pytest.fixture(scope="module")
def sample_boards() -> list[chess.Board]:
    return [b for key in ALL_TABLES for b in table_sample(key, 40, seed=151, ep_share=0.2)]


def test_bitboard_columns(sample_boards: list[chess.Board], syzygy_dir: Path, tablebase: Any,
                          tmp_path: Path, capsys: Any) -> None:
    """The bitboard layout equals the bitboard batch calls; rows with a null
    or an out-of-range ep / turn are invalid_position, not an error."""
    good = bitboard_table(sample_boards)
    bad = {name: [0, 0, None] for name in BITBOARDS}
    bad["white"] = [int(x) for x in good.column("white").to_numpy()[:3]]
    for name in BITBOARDS[1:8]:
        bad[name] = [int(x) for x in good.column(name).to_numpy()[:3]]
    bad["ep"] = [70, 0, 0]
    bad["turn"] = [0, 3, None]
    bad_table = pa.table({name: pa.array(bad[name], type=good.schema.field(name).type)
                          for name in BITBOARDS})
    table = pa.concat_tables([good, bad_table])
    inp = tmp_path / "bitboards.parquet"
    pq.write_table(table, inp)
    out = tmp_path / "out.arrow"
    code, _, err = run(["batch", str(inp), "--tables", str(syzygy_dir), "--dtz", "-o", str(out)], capsys)
    assert code == 1
    n = len(sample_boards)
    for row, reason in ((n, "ep 70 is not in 0..63"), (n + 1, "turn 3 is not in 0..1"),
                        (n + 2, "turn is null")):
        assert f"row {row}: {reason}" in err
    assert "'ep=70 turn=0 white=0x" in err and "'ep=0 turn=None white=0x" in err  # the rows as given
    result = read_output(out)
    arrays = to_arrays(sample_boards)
    wdl = tablebase.probe_wdl_bitboards(*(arrays[c] for c in BITBOARDS))
    dtz = tablebase.probe_dtz_bitboards(*(arrays[c] for c in BITBOARDS))
    assert result.column("wdl").to_pylist() == [int(w) for w in wdl] + [None] * 3
    assert result.column("dtz").to_pylist() == [int(d) for d in dtz] + [None] * 3
    assert result.column("status").to_pylist() == ["ok"] * n + ["invalid_position"] * 3
    # The same boards as FENs give the same results.
    fens = pa.table({"fen": [b.fen() for b in sample_boards]})
    by_fen = columnar.probe_columns(tablebase, fens, dtz=True)
    assert by_fen.column("wdl").to_pylist() == result.column("wdl").to_pylist()[:n]
    assert by_fen.column("dtz").to_pylist() == result.column("dtz").to_pylist()[:n]


def test_probe_columns_api(sample_boards: list[chess.Board], tablebase: Any) -> None:
    """pyarrow Table / RecordBatch / Array, pandas DataFrame / Series: the
    same results, the pandas index kept; over 65,536 rows (record batches of
    at most CHUNK_LINES rows: two of them)."""
    fens = [b.fen() for b in sample_boards] + ["bad", "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"]
    reps = 70_000 // len(fens) + 1
    fens = (fens * reps)[:70_000]
    table = pa.table({"fen": fens})
    result = columnar.probe_columns(tablebase, table, dtz=True, threads=2)
    assert result.num_rows == len(fens)
    wdl = result.column("wdl").to_pylist()
    status = result.column("status").to_pylist()
    boards = [chess.Board(f) if s == "ok" else None for f, s in zip(fens[:2000], status)]
    assert [w for w, b in zip(wdl, boards) if b is not None] == \
        [int(tablebase.probe_wdl(b)) for b in boards if b is not None]
    assert status[len(sample_boards):len(sample_boards) + 2] == ["invalid_fen", "castling"]
    batch = columnar.probe_columns(tablebase, table.to_batches()[0], dtz=True)
    assert isinstance(batch, pa.RecordBatch)
    assert batch.column(0).to_pylist() == wdl[:batch.num_rows]
    frame = pd.DataFrame({"fen": fens, "other": 1}, index=np.arange(len(fens)) * 3)
    out = columnar.probe_columns(tablebase, frame, dtz=True)
    assert list(out.columns) == ["wdl", "dtz", "status"]
    assert (out.index == frame.index).all()
    assert str(out["wdl"].dtype) == "Int8" and str(out["dtz"].dtype) == "Int16"
    assert out["wdl"].astype("float").fillna(-99).tolist() == [-99 if w is None else w for w in wdl]
    assert out["status"].astype(str).tolist() == status
    series = columnar.probe_columns(tablebase, frame["fen"].astype(object))
    assert series["status"].astype(str).tolist() == status
    array = columnar.probe_columns(tablebase, pa.array(fens[:100]))
    assert array.column("status").to_pylist() == status[:100]
    # A null, an empty string and a "#" string are bad rows here (the text
    # batch skips blank and comment lines; a table keeps every row).
    odd = columnar.probe_columns(tablebase, pa.array([None, "", "# comment", fens[0]]))
    assert odd.column("status").to_pylist() == ["invalid_fen"] * 3 + ["ok"]
    bitboards = pd.DataFrame({name: np.asarray(v) for name, v in to_arrays(sample_boards).items()
                              if name in BITBOARDS})
    by_board = columnar.probe_columns(tablebase, bitboards)
    assert by_board["wdl"].tolist() == wdl[:len(sample_boards)]


def test_errors_are_one_clear_line(tmp_path: Path, syzygy_dir: Path, capsys: Any) -> None:
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"fen": ["8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"]}), good)
    # (Parquet to CSV and text to Parquet work now: tests/test_any_format.py.)
    cases = [
        (["batch", str(tmp_path / "missing.parquet"), "-o", str(tmp_path / "o.parquet")], "no such file"),
        (["batch", str(good), "--fen-column", "position", "-o", str(tmp_path / "o.parquet")],
         "no FEN column 'position'"),
        (["batch", str(good), "-o", str(tmp_path / "no" / "dir" / "o.parquet")], "cannot write"),
    ]
    text = tmp_path / "in.fen"
    text.write_text("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1\n")
    cases += [
        (["batch", str(text), "--input-format", "parquet", "-o", str(tmp_path / "o.parquet")],
         "cannot read"),
    ]
    with_wdl = tmp_path / "labelled.parquet"
    pq.write_table(pa.table({"fen": ["x"], "wdl": [1]}), with_wdl)
    cases.append((["batch", str(with_wdl), "-o", str(tmp_path / "o2.parquet")], "already has a column 'wdl'"))
    floats = tmp_path / "floats.parquet"
    pq.write_table(pa.table({"fen": [1.5]}), floats)
    cases.append((["batch", str(floats), "-o", str(tmp_path / "o3.parquet")], "not strings of FENs"))
    # The output is the input: a usage error (exit 2), as for text files.
    code, out, err = run(["batch", str(good), "-o", str(good), "--tables", str(syzygy_dir)], capsys)
    assert code == 2 and err.count("\n") == 1 and "is the input" in err, err
    assert pq.read_table(good).num_rows == 1
    for args, words in cases:
        code, out, err = run(args + ["--tables", str(syzygy_dir)], capsys)
        assert code == 1, args
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err, (args, err)
        assert words in err, (args, err)
    assert not list(tmp_path.glob("o*.parquet"))
    assert not list(tmp_path.glob(".*.part"))


def test_strict_and_interrupted_runs(batch_lines: tuple[Path, list[str]], syzygy_dir: Path,
                                     tablebase: Any, tmp_path: Path, capsys: Any,
                                     monkeypatch: Any) -> None:
    src, lines = batch_lines
    inp = tmp_path / "in.parquet"
    pq.write_table(pa.table({"fen": lines}), inp)
    out = tmp_path / "out.parquet"
    code, _, err = run(["batch", str(inp), "--tables", str(syzygy_dir), "--strict", "-o", str(out)], capsys)
    assert code == 1 and "stopped at the first bad row" in err
    first_bad = min(BAD_LINES) - 1
    result = pq.read_table(out)
    assert result.num_rows == first_bad
    assert set(result.column("status").to_pylist()) == {"ok"}
    # A failure mid-run leaves the previous output as it was, and no temporary file.
    before = out.read_bytes()
    calls = 0
    real = columnar._probe_batch

    def fail_second(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise MemoryError("injected")
        return real(*args, **kwargs)

    monkeypatch.setattr(columnar, "_probe_batch", fail_second)
    with pytest.raises(MemoryError):
        columnar.run_columnar_batch(tablebase, str(inp), str(out), input_format="parquet",
                                    output_format="parquet", batch_rows=100)
    assert out.read_bytes() == before
    assert not list(tmp_path.glob(".*.part"))


def test_without_pyarrow_the_message_names_the_extra(tmp_path: Path, syzygy_dir: Path) -> None:
    inp = tmp_path / "in.parquet"
    pq.write_table(pa.table({"fen": ["8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"]}), inp)
    code = ("import sys\n"
            "sys.modules['pyarrow'] = None  # as if not installed\n"
            "from pyfathom.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", code, "batch", str(inp), "-o", str(tmp_path / "o.parquet"),
                           "--tables", str(syzygy_dir)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert 'pip install "pyfathom-syzygy[arrow]"' in proc.stderr
    # Without Dask, --dask names its extra.
    no_dask = code.replace("sys.modules['pyarrow'] = None", "sys.modules['dask'] = None")
    proc = subprocess.run([sys.executable, "-c", no_dask, "batch", str(inp), "--dask", "tcp://127.0.0.1:1",
                           "-o", str(tmp_path / "out"), "--tables", str(syzygy_dir)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert 'pip install "pyfathom-syzygy[dask]"' in proc.stderr
    # The text batch does not need it.
    text = tmp_path / "in.fen"
    text.write_text("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1\n")
    proc = subprocess.run([sys.executable, "-c", code, "batch", str(text), "--tables", str(syzygy_dir)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1].endswith(",-2,,ok")


# Runs the CLI and prints its peak RSS.  VmHWM, not getrusage's ru_maxrss:
# a child's ru_maxrss keeps the RSS it had as a copy of the parent before
# exec, here the whole pytest process with its test data.
PEAK_RSS_CODE = (
    "import sys\n"
    "from pyfathom.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
    "print('maxrss_kb', hwm[0], file=sys.stderr)\n"
    "import pyarrow\n"
    "print('arrow_max', pyarrow.default_memory_pool().max_memory(), file=sys.stderr)\n"
    "sys.exit(rc)\n"
)


@pytest.mark.measures_memory
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads VmHWM from /proc/self/status")
def test_million_row_parquet_flat_memory(tmp_path: Path, syzygy_dir: Path) -> None:
    """1,000,000 rows of distinct FENs in ten row groups: one output row per
    input row, Arrow's memory bounded by a few row groups (reading the whole
    file with one iter_batches kept ~25 bytes a row: 29 MB here, 212 MB for
    ten million),
    and a peak RSS under 250 MB (pyarrow's own import is ~70 MB of it)."""
    import pyarrow.compute as pc

    prefixes = [" ".join(b.fen().split()[:4]) for key in ("KQvKR", "KPvKP", "KRPvK", "KBNvK")
                for b in table_sample(key, 25, seed=9)]
    pool = pa.array(prefixes + ["bad"], type=pa.string())
    rng = np.random.default_rng(15)
    index = rng.integers(0, len(pool), 1_000_000)
    counters = [pc.cast(pa.array(rng.integers(low, high, 1_000_000)), pa.string())
                for low, high in ((0, 100), (1, 60_000))]
    fens = pc.binary_join_element_wise(pool.take(pa.array(index)), *counters, " ")
    inp = tmp_path / "million.parquet"
    pq.write_table(pa.table({"fen": fens}), inp, row_group_size=100_000)
    out = tmp_path / "million_out.parquet"
    proc = subprocess.run([sys.executable, "-c", PEAK_RSS_CODE, "batch", str(inp), "--tables", str(syzygy_dir),
                           "-o", str(out)], capture_output=True, text=True, timeout=600)
    bad = int((index == len(pool) - 1).sum())
    assert proc.returncode == 1, proc.stderr
    assert f"1000000 rows: {1_000_000 - bad} probed, {bad} bad" in proc.stderr
    arrow_mb = int(proc.stderr.split("arrow_max ")[1].split()[0]) / 2**20
    assert arrow_mb < 20, f"Arrow memory peaked at {arrow_mb:.0f} MB"
    maxrss_mb = int(proc.stderr.split("maxrss_kb ")[1].split()[0]) / 1024
    assert maxrss_mb < 250, f"peak RSS {maxrss_mb:.0f} MB"
    assert pq.ParquetFile(out).metadata.num_rows == 1_000_000


def test_text_output_format_follows_the_suffix(tmp_path: Path, syzygy_dir: Path, capsys: Any) -> None:
    """-o X.jsonl writes JSON lines without --format; --format still wins."""
    src = tmp_path / "in.fen"
    src.write_text("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1\n")
    out = tmp_path / "out.jsonl"
    code, _, err = run(["batch", str(src), "--tables", str(syzygy_dir), "-o", str(out)], capsys)
    assert code == 0, err
    assert out.read_text() == '{"fen": "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1", "wdl": -2, "dtz": null, "status": "ok"}\n'
    code, _, err = run(["batch", str(src), "--tables", str(syzygy_dir), "-o", str(out), "--format", "csv"], capsys)
    assert code == 0 and out.read_text().startswith("fen,wdl,dtz,status\n")
