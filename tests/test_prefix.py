"""Prefix files (lila-tablebase's --hot-prefix layout) read as the tables
themselves: the same answers row by row, the head read from the prefix
file and never from the table file, a bad prefix an error naming it.
On the real 6-piece KBBBBvK in ../shared."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import chess
import pytest

import pyfathom
from pyfathom import tables
from support.page_drop import drop
from support.table_cache import tables_dir as tables_dir34

SIX = Path(__file__).resolve().parent.parent.parent / "shared" / "syzygy6"
NAMES = ["KBBBBvK.rtbw", "KBBBBvK.rtbz"]

pytestmark = pytest.mark.skipif(not all((SIX / n).exists() for n in NAMES + ["KNNNNvK.rtbw"]),
                                reason="../shared/syzygy6 holds no KBBBBvK/KNNNNvK")


def positions(n: int, seed: int) -> list[chess.Board]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        board = chess.Board(None)
        squares = rng.sample(range(64), 6)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for sq in squares[2:]:
            board.set_piece_at(sq, chess.Piece(chess.BISHOP, chess.WHITE))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid():
            out.append(board)
    return out


@pytest.fixture()
def copied(tmp_path: Path) -> tuple[Path, Path]:
    tables_dir, hot = tmp_path / "tables", tmp_path / "hot"
    tables_dir.mkdir()
    hot.mkdir()
    for name in NAMES:
        shutil.copyfile(SIX / name, tables_dir / name)
        # Written back, or dropping the pages later leaves them (dirty).
        fd = os.open(tables_dir / name, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return tables_dir, hot


def answers(tables_dir: Path, hot: Path | None, boards: list[chess.Board]) -> list[tuple]:
    # The subtables captures lead to first, the copies (replacing nothing) last.
    dirs = [str(tables_dir34()), str(SIX.parent / "syzygy5"), str(tables_dir)]
    with pyfathom.open_tablebase(dirs) as tb:
        if hot is not None:
            assert tb.add_prefix_directory(hot) == len(os.listdir(hot))
        return [(tb.probe_wdl(b), tb.probe_dtz(b)) for b in boards]


def test_prefix_length_and_name_follow_lilas_script():
    for name in NAMES:
        parts = tables.layout(SIX / name)
        data = next(p.offset for p in parts if p.kind == "data")
        lengths = next(p.offset for p in parts if p.kind == "block lengths")
        n = tables.prefix_length(SIX / name)
        assert n % 16384 == 0 and data <= n < data + 16384
        m = tables.prefix_length(SIX / name, "sparse-index")
        assert m % 16384 == 0 and lengths <= m < lengths + 16384


@pytest.mark.parametrize("upto", ["block-lengths", "sparse-index"])
def test_prefixed_tables_answer_as_without(copied, upto):
    tables_dir, hot = copied
    for name in NAMES:
        written = tables.write_prefix(tables_dir / name, hot, upto)
        prefix = hot / (name + ".prefix")
        assert prefix.stat().st_size == written
        assert tables.prefix_matches(prefix, tables_dir / name)
    boards = positions(300, 7)
    plain = answers(tables_dir, None, boards)
    for name in NAMES:
        drop(tables_dir / name)
    assert answers(tables_dir, hot, boards) == plain
    # The table file's head was never paged in: the prefix served it
    # (whole pages below the prefix's size).
    for name in NAMES:
        size = (hot / (name + ".prefix")).stat().st_size
        assert resident_below(tables_dir / name, size) == 0
    # Control: the same probes without the prefix files do read the head.
    for name in NAMES:
        drop(tables_dir / name)
    answers(tables_dir, None, boards)
    assert all(resident_below(tables_dir / name, 4096) > 0 for name in NAMES)


def resident_below(path: Path, size: int) -> int:
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "warm_helpers", Path(__file__).with_name("test_warm.py"))
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    return mod.resident_by_test(path, 0, size)


def test_prefix_of_another_table_is_an_error_naming_it(copied):
    tables_dir, hot = copied
    other = hot / "KBBBBvK.rtbw.prefix"
    with open(SIX / "KNNNNvK.rtbw", "rb") as f:
        other.write_bytes(f.read(16384))
    board = positions(1, 3)[0]
    with pyfathom.open_tablebase(str(tables_dir)) as tb:
        tb.add_prefix_directory(hot)
        with pytest.raises(Exception) as info:
            tb.probe_wdl(board)
    assert str(other) in str(info.value)


def test_prefix_longer_than_table_is_an_error(copied):
    tables_dir, hot = copied
    data = (tables_dir / "KBBBBvK.rtbw").read_bytes()
    (hot / "KBBBBvK.rtbw.prefix").write_bytes(data + b"\0" * 64)
    with pyfathom.open_tablebase(str(tables_dir)) as tb:
        tb.add_prefix_directory(hot)
        with pytest.raises(Exception) as info:
            tb.probe_wdl(positions(1, 4)[0])
    assert "KBBBBvK.rtbw.prefix" in str(info.value)


def test_missing_prefix_directory_is_an_error(tmp_path):
    with pyfathom.open_tablebase(str(SIX)) as tb:
        with pytest.raises(FileNotFoundError):
            tb.add_prefix_directory(tmp_path / "none")


def test_cli_hot_prefix_same_answers_and_bad_prefix_named(copied):
    import subprocess
    import sys
    tables_dir, hot = copied
    for name in NAMES:
        tables.write_prefix(tables_dir / name, hot)
    bad = tables_dir.parent / "bad"
    bad.mkdir()
    with open(SIX / "KNNNNvK.rtbw", "rb") as f:
        (bad / "KBBBBvK.rtbw.prefix").write_bytes(f.read(16384))
    fen = positions(1, 5)[0].fen()
    base = [sys.executable, "-m", "pyfathom", "probe", "--tables", str(tables_dir34()),
            "--tables", str(SIX.parent / "syzygy5"), "--tables", str(tables_dir)]

    def run(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(base + list(extra) + [fen], capture_output=True, text=True,
                              timeout=120)

    plain, prefixed, wrong = run(), run("--hot-prefix", str(hot)), run("--hot-prefix", str(bad))
    assert plain.returncode == 0 and prefixed.returncode == 0
    assert prefixed.stdout == plain.stdout
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert str(bad / "KBBBBvK.rtbw.prefix") in wrong.stderr


GUARD_SCRIPT = r"""
import os, sys
sys.path.insert(0, sys.argv[4])
import pyfathom
from test_prefix import positions
dirs, hot, prefix = sys.argv[1].split(os.pathsep), sys.argv[2], sys.argv[3]
with pyfathom.open_tablebase(dirs) as tb:
    tb.add_prefix_directory(hot)
    boards = positions(200, 11)
    tb.probe_dtz(boards[0])          # mapped, its head from the prefix file
    os.truncate(prefix, 0)           # the prefix pages are lost under the map
    errors = 0
    for b in boards[1:]:
        try:
            tb.probe_dtz(b)
        except OSError as e:
            errors += 1
    print(errors)
"""


def test_fault_guard_covers_prefix_pages(copied):
    """A prefix file cut short while mapped: probes answer an I/O error
    instead of the process dying of SIGBUS."""
    import subprocess
    import sys
    tables_dir, hot = copied
    tables.write_prefix(tables_dir / "KBBBBvK.rtbz", hot)
    dirs = os.pathsep.join([str(tables_dir34()), str(SIX.parent / "syzygy5"), str(tables_dir)])
    done = subprocess.run([sys.executable, "-c", GUARD_SCRIPT, dirs, str(hot),
                           str(hot / "KBBBBvK.rtbz.prefix"), str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0


def test_info_resident_shows_residency(copied):
    import subprocess
    import sys
    tables_dir, _hot = copied
    for name in NAMES:
        drop(tables_dir / name)
    tables.warm([tables_dir / "KBBBBvK.rtbw"], "all")
    done = subprocess.run([sys.executable, "-m", "pyfathom", "info", "--tables", str(tables_dir),
                           "--resident"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = {line.split(":")[0]: line for line in done.stdout.splitlines()}
    assert "(100%), index parts" in lines["KBBBBvK.rtbw"]
    assert "(100%)" not in lines["KBBBBvK.rtbz"].split(", index")[0]


def test_cli_prefix_writes_what_write_prefix_writes(copied, tmp_path):
    """``pyfathom prefix OUTDIR MATERIAL``: lila's names, write_prefix's
    bytes (the table's head), and the tables then answer the same through
    ``--hot-prefix``; bad requests get one line and exit 1."""
    import subprocess
    import sys
    tables_dir, _ = copied
    out, want = tmp_path / "fast" / "prefixes", tmp_path / "want"
    want.mkdir()

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pyfathom", "prefix", *args],
                              capture_output=True, text=True, timeout=120)

    proc = cli(str(out), "KBBBBvK", "--tables", str(tables_dir), "--upto", "sparse-index")
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out)) == [n + ".prefix" for n in NAMES]
    for name in NAMES:
        tables.write_prefix(tables_dir / name, want, upto="sparse-index")
        got = (out / (name + ".prefix")).read_bytes()
        assert got == (want / (name + ".prefix")).read_bytes()
        assert got == (tables_dir / name).read_bytes()[:len(got)] and len(got) % 16384 == 0
        assert f"{name}.prefix" in proc.stdout
    boards = positions(40, 9)
    assert answers(tables_dir, out, boards) == answers(tables_dir, None, boards)
    not_a_dir = tmp_path / "a-file"
    not_a_dir.write_text("")
    for args, words in [((str(not_a_dir / "x"), "--tables", str(tables_dir)), "cannot make"),
                        ((str(tmp_path / "o"), "KQvK", "--tables", str(tables_dir)),
                         "no table files for KQvK"),
                        ((str(tables_dir), "--tables", str(tables_dir)), "holds the tables"),
                        ((str(tmp_path / "o"), "--tables", str(tables_dir), "--upto", "all"),
                         "--upto")]:
        bad = cli(*args)
        assert bad.returncode == 1 and "Traceback" not in bad.stderr, bad.stderr
        assert words in bad.stderr and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_serve_hot_prefix(copied, tmp_path):
    """``pyfathom serve --hot-prefix``, a live server: with good prefix
    files the same documents as without (``/standard`` in the worker, the
    batch endpoint in its heavy child processes); with another table's
    head as KBBBBvK's prefix, an error document naming the prefix file (so
    the server did read the folder), and the server lives on."""
    import json

    from support.live_server import q, serving
    tables_dir, hot = copied
    for name in NAMES:
        tables.write_prefix(tables_dir / name, hot)
    bad = tmp_path / "bad"
    bad.mkdir()
    with open(SIX / "KNNNNvK.rtbw", "rb") as f:
        (bad / "KBBBBvK.rtbw.prefix").write_bytes(f.read(16384))
    subtables = ("--tables", str(SIX.parent / "syzygy5"), "--tables", str(tables_dir34()))
    fens = [b.fen() for b in positions(6, 21)]

    def documents(*extra: str) -> tuple[list, list, int]:
        with serving(tables_dir, *subtables, *extra) as server:
            singles = [server.get_json("/standard?fen=" + q(fen)) for fen in fens]
            status, _, body = server.request("POST", "/standard/batch", json.dumps(fens).encode(),
                                             {"Content-Type": "application/json"})
            assert status == 200, body[:300]
            alive = server.get_json("/standard?fen=8/8/8/8/8/8/2Rk4/1K6_b")[0]
            return singles, json.loads(body), alive

    plain, prefixed = documents(), documents("--hot-prefix", str(hot))
    assert all(status == 200 for status, _ in plain[0])
    assert prefixed == plain
    wrong_singles, _, alive = documents("--hot-prefix", str(bad))
    assert alive == 200
    for status, doc in wrong_singles:
        assert status == 503 and str(bad / "KBBBBvK.rtbw.prefix") in doc["error"], (status, doc)
