"""Every input format to every output format (issue 23, finding 9): FEN/EPD
text, Parquet and Arrow in; CSV, JSON lines, Parquet and Arrow out, with the
same results; without pyarrow, a clear error naming the extra.  About 3 s."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from pyfathom.cli import main

pa = pytest.importorskip("pyarrow", reason="pyarrow (the [arrow] extra) is not installed")
import pyarrow.feather  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

FENS = ["8/8/8/8/8/8/2Rk4/1K6 b - - 0 1", "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1",
        "8/8/8/8/8/2k5/1p6/3K4 b - - 0 1", "not a position"]
EXPECTED = [("-2", "ok"), ("2", "ok"), ("2", "ok"), ("", "invalid_fen")]


def _inputs(tmp_path):
    text = tmp_path / "in.epd.gz"
    import gzip

    text.write_bytes(gzip.compress(("\n".join(FENS) + "\n").encode()))
    table = pa.table({"fen": FENS, "id": [f"p{i}" for i in range(len(FENS))]})
    parquet, arrow = tmp_path / "in.parquet", tmp_path / "in.arrow"
    pq.write_table(table, parquet)
    pyarrow.feather.write_feather(table, arrow, compression="uncompressed")
    return {"text": text, "parquet": parquet, "arrow": arrow}


def _read(path, fmt):
    """(wdl as text, status) per row of an output."""
    if fmt == "csv":
        return [(r["wdl"], r["status"]) for r in csv.DictReader(io.StringIO(path.read_text()))]
    if fmt == "jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        return [("" if r["wdl"] is None else str(r["wdl"]), r["status"]) for r in rows]
    table = pq.read_table(path) if fmt == "parquet" else pyarrow.feather.read_table(path)
    return [("" if w is None else str(w), s) for w, s in
            zip(table.column("wdl").to_pylist(), table.column("status").to_pylist())]


@pytest.mark.parametrize("out_fmt", ["csv", "jsonl", "parquet", "arrow"])
@pytest.mark.parametrize("in_fmt", ["text", "parquet", "arrow"])
def test_any_input_to_any_output(tmp_path, syzygy_dir, capsys, in_fmt, out_fmt):
    source = _inputs(tmp_path)[in_fmt]
    out = tmp_path / f"out.{out_fmt}"
    code = main(["batch", str(source), "--tables", str(syzygy_dir), "-o", str(out)])
    assert code == 1, capsys.readouterr().err  # the bad row
    err = capsys.readouterr().err
    assert "invalid_fen" in err and "Traceback" not in err
    assert _read(out, out_fmt) == EXPECTED
    if in_fmt != "text" and out_fmt in ("csv", "jsonl"):  # the input's columns come along
        assert "p3" in out.read_text()


def test_without_pyarrow_the_error_names_the_extra(tmp_path, syzygy_dir):
    source = tmp_path / "in.fen"
    source.write_text("\n".join(FENS[:2]) + "\n")
    code = ("import sys; sys.modules['pyarrow'] = None\n"
            "from pyfathom.cli import main\nsys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "batch", str(source), "--tables",
                           str(syzygy_dir), "-o", str(tmp_path / "out.parquet")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "pyfathom-syzygy[arrow]" in proc.stderr, proc.stderr
    assert not (tmp_path / "out.parquet").exists()
