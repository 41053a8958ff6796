"""The one refusal to write an output over the input
(:func:`pyfathom._files.output.output_over_input`): what counts as the input (the
same name, a symbolic link, a hard link, standard input, a directory; not a
FIFO, not a file that does not exist yet), and every caller giving its
message before anything is written: ``annotate -o`` and ``--report``,
``batch -o`` on text and on Parquet, the columnar API and the Dask one.
In process: about 2 s of checks, plus importing pyarrow and dask where the
suite has not yet (10 s alone on a loaded machine); the Parquet and Dask
cases skip without their extras."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pyfathom._files.output import output_over_input
from pyfathom.cli import main

FEN = "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1\n"
PGN = ('[Event "t"]\n[FEN "8/8/8/8/8/2k5/1p6/3K4 b - - 0 1"]\n[SetUp "1"]\n\n'
       '1... Kd3 2. Ke1 b1=Q+ *\n')


def _refusal(label: str, output: Path | str, input_file: Path | str) -> str:
    return (f"{label} {output} is the input file {input_file}: writing it would destroy "
            "the input; choose another output")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "in.epd"
    path.write_text(FEN)
    return path


@pytest.mark.parametrize("how", ["same name", "symlink", "hard link"])
def test_the_input_under_another_name(tmp_path: Path, source: Path, how: str) -> None:
    output = source
    if how == "symlink":
        output = tmp_path / "link.epd"
        output.symlink_to(source)
    elif how == "hard link":
        output = tmp_path / "hard.epd"
        os.link(source, output)
    assert output_over_input(str(source), str(output), "-o") == _refusal("-o", output, source)
    assert output_over_input(str(output), str(source), "-o") == _refusal("-o", source, output)


def test_what_is_not_the_input(tmp_path: Path, source: Path) -> None:
    other = tmp_path / "other.epd"
    other.write_text(FEN)
    assert output_over_input(str(source), str(other), "-o") is None
    assert output_over_input(str(source), str(tmp_path / "new.csv"), "-o") is None
    assert output_over_input(str(source), "-", "-o") is None  # standard output
    assert output_over_input(str(tmp_path / "missing"), str(tmp_path / "missing"), "-o") is None
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert output_over_input(str(fifo), str(fifo), "-o") is None  # nothing stored to lose


def test_a_directory_is_the_input(tmp_path: Path) -> None:
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    assert output_over_input(str(dataset), str(dataset), "the output") == \
        _refusal("the output", dataset, dataset)


def test_standard_input(monkeypatch: pytest.MonkeyPatch, source: Path) -> None:
    with open(source) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        assert output_over_input("-", str(source), "-o") == (
            f"-o {source} is standard input: writing it would destroy the input; "
            "choose another output")
    monkeypatch.setattr(sys, "stdin", io.StringIO(FEN))  # no descriptor: nothing to compare
    assert output_over_input("-", str(source), "-o") is None
    monkeypatch.setattr(sys, "stdin", None)
    assert output_over_input("-", str(source), "-o") is None


def _refused(args: list[str], capsys: pytest.CaptureFixture[str], message: str) -> None:
    """A usage error (exit 2) of one line: the message and the --help hint."""
    assert main(args) == 2
    assert capsys.readouterr().err == f"pyfathom: {message} (see pyfathom {args[0]} --help)\n"


def test_annotate_refuses_both_of_its_outputs(tmp_path: Path, syzygy_dir: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    games = tmp_path / "games.pgn"
    games.write_text(PGN)
    link = tmp_path / "games-link.pgn"
    link.symlink_to(games)
    tables = ["--tables", str(syzygy_dir)]
    _refused(["annotate", str(games), "-o", str(link), *tables], capsys,
             _refusal("-o", link, games))
    report = tmp_path / "games.csv"
    os.link(games, report)
    _refused(["annotate", str(games), "--report", str(report), *tables], capsys,
             _refusal("--report", report, games))
    with open(games) as stdin:  # read from standard input: it was not checked before
        monkeypatch.setattr(sys, "stdin", stdin)
        _refused(["annotate", "-", "-o", str(games), *tables], capsys,
                 f"-o {games} is standard input: writing it would destroy the input; "
                 "choose another output")
    assert games.read_text() == PGN
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games-link.pgn", "games.csv",
                                                          "games.pgn"]


def test_batch_refuses_it_on_text(tmp_path: Path, source: Path, syzygy_dir: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "out.csv"
    link.symlink_to(source)
    _refused(["batch", str(source), "-o", str(link), "--tables", str(syzygy_dir)], capsys,
             _refusal("-o", link, source))
    assert source.read_text() == FEN


def _parquet(tmp_path: Path) -> Path:
    pa = pytest.importorskip("pyarrow", reason="needs pyarrow: the [arrow] extra")
    pq = pytest.importorskip("pyarrow.parquet", reason="needs pyarrow: the [arrow] extra")
    path = tmp_path / "in.parquet"
    pq.write_table(pa.table({"fen": [FEN.strip()]}), path)
    return path


def test_batch_and_the_columnar_api_refuse_it_on_parquet(tmp_path: Path, syzygy_dir: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = _parquet(tmp_path)
    before = path.read_bytes()
    _refused(["batch", str(path), "-o", str(path), "--tables", str(syzygy_dir)], capsys,
             _refusal("-o", path, path))
    from pyfathom.columnar import ColumnarError, run_columnar_batch

    tb: Any = None  # refused before the tables are needed
    with pytest.raises(ColumnarError) as caught:
        run_columnar_batch(tb, str(path), str(path), input_format="parquet",
                           output_format="parquet")
    assert str(caught.value) == _refusal("the output", path, path)
    assert path.read_bytes() == before


def test_the_dask_api_refuses_it(tmp_path: Path) -> None:
    path = _parquet(tmp_path)
    pytest.importorskip("dask.dataframe", reason="needs dask: the [dask] extra")
    pytest.importorskip("distributed", reason="needs distributed: the [dask] extra")
    from pyfathom.columnar import ColumnarError
    from pyfathom.dask import probe_parquet_dataset

    with pytest.raises(ColumnarError) as caught:  # refused before any scheduler is asked
        probe_parquet_dataset("tcp://127.0.0.1:9", str(path), str(path))
    assert str(caught.value) == _refusal("the output", path, path)
