"""A root probe's reads asked for together on cold tables (issue 41,
"reads ahead"; src/fathom/probe/tb_prefetch.c).

Each run is a fresh process (``tests/support/cold_root.py``) that opens
the tables after every table file's pages were dropped from the page
cache and root-probes a list of 6-piece positions with read-ahead
``off``, ``auto`` or ``always``.  Asking ahead may change when pages are
read, never what a root probe answers: every move's values are compared
across the modes, cold and warm.  And it must do what it is for: with the
waves, the probing thread meets a fraction of the major faults it meets
without (the pages of every move's probe were asked for at once).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support import positions
from support.c_programs import CDIR, CORE, FATHOM_BUILD, STRICT, cc, core_files
from support.c_programs import run as run_c
from support.page_drop import drop, drop_tables

CHILD = Path(__file__).resolve().parent / "support" / "cold_root.py"
WRITER = Path(__file__).resolve().parent / "support" / "syzygy_writer.py"
MATERIAL = "KRRvKBN"

pytestmark = pytest.mark.skipif(sys.platform != "linux",
                                reason="page-cache control (posix_fadvise) and fault counts: Linux")


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic 6-piece material and every table its probes reach."""
    folder = tmp_path_factory.mktemp("root-prefetch-tables")
    subprocess.run([sys.executable, str(WRITER), str(folder), MATERIAL], check=True,
                   capture_output=True, timeout=300)
    return folder


@pytest.fixture(scope="module")
def fens(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("root-prefetch-fens") / "fens.txt"
    boards = [positions.random_position(seed, MATERIAL) for seed in range(300)]
    path.write_text("".join(board.fen() + "\n" for board in boards), encoding="ascii")
    return path


def run(tables: Path, fens: Path, mode: str, cold: bool = True, *how: str) -> dict[str, Any]:
    if cold:
        drop_tables(tables)
    proc = subprocess.run([sys.executable, str(CHILD), str(tables), str(fens), mode, *how],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_root_answers_do_not_depend_on_read_ahead(tables: Path, fens: Path) -> None:
    runs = {mode: run(tables, fens, mode) for mode in ("off", "auto", "always")}
    runs["warm"] = run(tables, fens, "always", cold=False)
    first = runs["off"]["answers"]
    answered = [a for a in first if isinstance(a, list)]
    assert len(answered) > len(first) // 2, "the test probes nothing"
    assert sum(len(a[2]) for a in answered) > 10 * len(answered), "roots without moves"
    for name, result in runs.items():
        bad = [i for i, (a, b) in enumerate(zip(first, result["answers"], strict=True)) if a != b]
        assert not bad, f"{name}: {len(bad)} roots differ from read-ahead off, first #{bad[0]}"


def test_waves_take_the_faults_off_the_probing_thread(tables: Path, fens: Path) -> None:
    """Without asking, a cold root probe waits on one read after another
    (a major fault each); with the waves (``always``, and ``auto`` once a
    6-piece root probe took faults) most pages arrive as the probes get to
    them."""
    off, always, auto = (run(tables, fens, mode) for mode in ("off", "always", "auto"))
    assert off["major_faults"] > 1000, f"the cold run was not cold: {off['major_faults']} faults"
    for name, result in (("always", always), ("auto", auto)):
        assert result["major_faults"] < off["major_faults"] // 3, (name, off["major_faults"],
                                                                   result["major_faults"])


def test_read_ahead_moves_before_a_servers_probes(tables: Path, fens: Path) -> None:
    """``Tablebase.read_ahead_moves`` then each move's DTZ, as ``pyfathom
    serve`` answers a position: the same DTZs, with a small fraction of
    the major faults of the probes alone.  Every move's DTZ is asked, a
    capture's too (a root probe ranks a capture by its WDL, the server
    shows its DTZ): asked as a root probe's, the 300 positions here took
    142 major faults against 1,484 without, asked as the server's 8
    against 1,275."""
    off, ahead = (run(tables, fens, mode, True, "moves") for mode in ("off", "auto"))
    assert off["answers"] == ahead["answers"]
    assert sum(len(a) for a in off["answers"]) > 10 * len(off["answers"])
    assert off["major_faults"] > 1000, f"the cold run was not cold: {off['major_faults']} faults"
    assert ahead["major_faults"] < off["major_faults"] // 20, (off["major_faults"],
                                                               ahead["major_faults"])


def test_root_wdl_probes_read_ahead(tables: Path, fens: Path) -> None:
    """``fathom_probe_root_wdl`` (Fathom's ``tb_probe_root_wdl``) asks for
    its moves' WDL reads together: the same answers in every mode, cold
    and warm, and a fraction of the faults of the probes one after another."""
    runs = {mode: run(tables, fens, mode, True, "wdl") for mode in ("off", "auto", "always")}
    runs["warm"] = run(tables, fens, "always", False, "wdl")
    first = runs["off"]
    answered = [a for a in first["answers"] if isinstance(a, list)]
    assert len(answered) > len(first["answers"]) // 2, "the test probes nothing"
    assert sum(len(a[1]) for a in answered) > 10 * len(answered), "roots without moves"
    for name, result in runs.items():
        assert result["answers"] == first["answers"], name
    assert first["major_faults"] > 500, f"the cold run was not cold: {first['major_faults']} faults"
    for name in ("always", "auto"):
        assert runs[name]["major_faults"] < first["major_faults"] // 3, (
            name, first["major_faults"], runs[name]["major_faults"])


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Games as ``pyfathom annotate`` reads them: from random 6-piece
    positions, up to 30 random quiet moves (a capture would leave the
    6-piece table after the first one), one ``FEN;SAN ...`` a line."""
    path = tmp_path_factory.mktemp("replay-prefetch-games") / "games.txt"
    lines = []
    for seed in range(120):
        board = positions.random_position(1000 + seed, MATERIAL)
        pick = random.Random(seed)
        start, sans = board.fen(), []
        for _ in range(30):
            quiet = [m for m in board.legal_moves if not board.is_capture(m)]
            if not quiet:
                break
            move = pick.choice(quiet)
            sans.append(board.san(move))
            board.push(move)
        if sans:
            lines.append(f"{start};{' '.join(sans)}")
    path.write_text("".join(line + "\n" for line in lines), encoding="ascii")
    return path


def test_game_replays_read_ahead(tables: Path, games: Path) -> None:
    """``pyfathom annotate``'s replay (fathom_game_replay) probes the DTZ
    of every position of a game from the first one in the tables: the
    same DTZs, and the same annotated text, in every mode, cold and warm;
    with the game's reads asked for together first (``always``, and
    ``auto`` once a 6-piece probe took faults), a fraction of the major
    faults of the probes one after another."""
    runs = {mode: run(tables, games, mode, True, "replay") for mode in ("off", "auto", "always")}
    runs["warm"] = run(tables, games, "always", False, "replay")
    first = runs["off"]["answers"]
    probed = sum(len(dtzs) for _, dtzs in first[:-1])
    assert probed > 20 * (len(first) - 1), f"only {probed} positions probed: the test probes nothing"
    assert "TB:" in first[-1], "annotate wrote no verdict"
    for name, result in runs.items():
        assert result["answers"] == first, f"{name}: the replays' answers differ from off"
    off = runs["off"]["major_faults"]
    assert off > 1000, f"the cold run was not cold: {off} faults"
    for name in ("always", "auto"):
        assert runs[name]["major_faults"] < off // 3, (name, off, runs[name]["major_faults"])


@pytest.mark.plain_pass_only("a C program of its own, counting its page faults (sanitizers' allocators ignore mallopt)")
def test_warm_root_probes_asked_ahead_take_no_faults(tables: Path, fens: Path,
                                                     tmp_path: Path) -> None:
    """A read-ahead wave's memory (128 KB, tb_prefetch.c) is kept in the
    instance for the next root probe: on warm tables, root probes that ask
    ahead take no page faults, under an allocator that gives every block of
    64 KB or more back to the system (tests/c/wave_memory.c).  Memory
    allocated per probe would bring fresh pages each time (about 11 faults
    a probe, measured), and AUTO, which counts them, would take the warm
    tables for cold ones and go on asking."""
    exe = tmp_path / "wave_memory"
    run_c([*cc(), *STRICT, f"-I{CORE}", str(CDIR / "wave_memory.c"),
           *map(str, core_files(*FATHOM_BUILD)), "-pthread", "-o", str(exe)])
    out = run_c([str(exe), str(tables)], stdin=fens.open()).stdout
    found = re.fullmatch(r"probed (\d+) minor (\d+)\n", out)
    assert found, out
    assert int(found[1]) > 150, f"the test probes too little: {out}"
    assert int(found[2]) < 20, f"warm root probes asked ahead took page faults: {out}"


# A fresh process: the first probe of a table opens it (tb_table_open).
FIRST_PROBE = """
import resource, sys, chess, pyfathom
tb = pyfathom.open_tablebase(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
wdl = tb.probe_wdl(chess.Board(sys.argv[2]))
print(wdl, resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before)
"""
NO_CAPTURES = "7r/8/8/3k4/8/1R6/1P6/4K3 w - - 0 1"  # KRPvKR: its probe opens KRPvKR.rtbw alone


def test_a_cold_tables_head_comes_in_one_read(syzygy5_dir: Path, tmp_path: Path) -> None:
    """Opening a table parses its head, the header and every stream's
    symbol tables: 98,642 bytes of the real KRPvKR.rtbw (4 files, 2
    sides).  Read as the parser comes to it, that was one major fault
    after another (the first WDL and DTZ probes of a cold KRPvKR took 28
    together); the core asks for the file's first 128 KiB at once when it
    maps it, so the head costs about one read (tb_table_open)."""
    import chess
    import chess.syzygy

    from pyfathom._bindings.lowlevel import file_resident

    def resident() -> int:  # mincore alone (pyfathom.tables.residency reads the header)
        status, counts = file_resident(str(table), [(0, table.stat().st_size)])
        assert status == 0
        return counts[0]

    table = tmp_path / "KRPvKR.rtbw"
    shutil.copyfile(syzygy5_dir / "KRPvKR.rtbw", table)
    drop(table)
    assert resident() == 0, "the copy's pages were not dropped: not a cold test"
    proc = subprocess.run([sys.executable, "-c", FIRST_PROBE, str(tmp_path), NO_CAPTURES],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    wdl, faults = map(int, proc.stdout.split())
    with chess.syzygy.open_tablebase(str(syzygy5_dir)) as oracle:
        assert wdl == oracle.probe_wdl(chess.Board(NO_CAPTURES))
    assert resident() > 98_642, "the head was not read"
    assert faults <= 4, f"the first probe of a cold table took {faults} major faults"


EVERY_PAGE_OUT = Path(__file__).resolve().parent / "support" / "every_page_out.py"


def test_waves_ask_the_captures_of_captures(tables: Path, fens: Path) -> None:
    """A WDL probe tries its captures first, and each capture's probe its
    own, down to the small tables: the waves ask for those reads three
    plies of captures deep (tb_prefetch.c, PREFETCH_CAPTURE_DEPTH), so the
    probes of ``pyfathom serve`` find them in memory even where the
    smaller tables are not.  tests/support/every_page_out.py: each
    position's move DTZs from every table page out (the headers read
    back), with ``read_ahead_moves`` first and without.  Here the probes
    alone took 29,604 major faults; after the waves 1,174 with one ply of
    captures asked, 8 with three (KQRBvKQR, 270 recorded requests: 6,514
    and 33)."""
    def faults(mode: str) -> tuple[list[object], int]:
        proc = subprocess.run([sys.executable, str(EVERY_PAGE_OUT), str(tables), str(fens), mode],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        got = json.loads(proc.stdout)
        return got["answers"], sum(got["faults"])

    (off_answers, off), (answers, ahead) = faults("off"), faults("always")
    assert answers == off_answers
    assert sum(len(a) for a in answers) > 10 * len(answers), "positions without moves"
    assert off > 10_000, f"the probes alone took {off} major faults: the pages were not out"
    assert ahead <= off // 100, (off, ahead)


AHEAD_RESIDENCY = Path(__file__).resolve().parent / "support" / "ahead_residency.py"


def test_read_ahead_moves_stops_asking_on_tables_in_memory(tables: Path, fens: Path) -> None:
    """``read_ahead_moves`` in ``"auto"`` asks nothing while the pages it
    would ask for are in memory (on warm tables asking is a system call
    per page for nothing: 0.39 ms of a warm server request), and asks
    again once they have left it; ``"always"`` asks every time.

    tests/support/ahead_residency.py: every table file read whole, 70
    calls, every file's pages dropped, then 40 more calls on other
    positions, counting the bytes each call brought into memory.  In
    ``"auto"`` one call in 16 looks at the pages (tb_prefetch.c,
    MOVES_CHECK_EVERY); after 4 such looks in a row found every page in
    memory the calls between looks ask nothing: the calls after the drop
    bring nothing until the next look (call 80: the first ten), which
    finds pages missing, and from then on each call asks again."""
    def growth(mode: str) -> list[int]:
        proc = subprocess.run([sys.executable, str(AHEAD_RESIDENCY), str(tables), str(fens),
                               mode, "70"], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        got: list[int] = json.loads(proc.stdout)["growth"]
        assert len(got) == 230
        return got[:40]

    always, auto = growth("always"), growth("auto")
    # Asking brings in the pages of most new positions (fewer as the small
    # synthetic tables fill up: 29 of the 40 calls here).  A call brings
    # nothing where an earlier call's reads already did (the kernel reads
    # around each page asked: the first call here brought 14,160 bytes,
    # 182,096 in a CI run, whose next two calls then brought none): 9 of
    # the first ten calls here (31 pages), 7 in that run (over 160).
    assert sum(g > 0 for g in always[:10]) >= 5 and sum(always[:10]) >= 16 * 4096, always
    # Auto: the calls before the next look bring nothing (at most a page:
    # the kernel once finished a read of its own meanwhile, 976 bytes of
    # a file's last page under the first call, in CI)...
    assert sum(g > 0 for g in auto[:10]) <= 1 and sum(auto[:10]) <= 4096, auto
    assert auto[10] > 0, auto
    # ...and from the look on, they ask as "always" does (26 of 30 calls
    # bring pages here; the same margin as above for the kernel's reads).
    assert sum(g > 0 for g in auto[10:]) >= 12 and sum(auto[10:]) >= 32 * 4096, auto


SEARCH_MATERIAL = "KRPvKR"


@pytest.fixture(scope="module")
def search_tables(tmp_path_factory: pytest.TempPathFactory, syzygy_dir: Path,
                  syzygy5_dir: Path) -> Path:
    """KRPvKR (real, ../shared/syzygy5) and the 3-4-piece tables its
    captures reach, in one folder (links)."""
    folder = tmp_path_factory.mktemp("search-targets")
    for path in [*syzygy_dir.glob("*.rtb?"), *syzygy5_dir.glob(f"{SEARCH_MATERIAL}.rtb?")]:
        (folder / path.name).symlink_to(path)
    return folder


def test_read_ahead_asks_no_search_a_capture_settles(search_tables: Path) -> None:
    """The waves ask for a position's one-ply DTZ search (its quiet
    children's values) only where its probe will search: not where one of
    its captures reaches its value and at least a draw, by the values the
    waves asked first (the probe then takes the capture's value and neither
    reads DTZ nor searches: python-chess's probe_ab "success" 2, or a
    draw).  tests/c/raw_read.c counts the targets with the captures'
    values counted as asked (three plies of captures, as the waves ask
    them: a capture with captures of its own is bounded by theirs) and
    not, on 3,000 random KRPvKR positions; python-chess 1.11.2 says which
    probes search.  Of 270 recorded cold 7-piece /standard requests, those
    whose moves all capture to win asked 131-363 pages for the 15-31 their
    probes read."""
    import chess.syzygy
    import numpy as np

    from pyfathom._core import ffi, lib
    from support.raw_decoder import board_arrays, decoder

    rng = random.Random(41)
    boards = [positions.random_position(rng, SEARCH_MATERIAL) for _ in range(3000)]
    rows, turns = board_arrays(boards)
    asked, unasked, captures = (np.zeros(len(boards), dtype=np.uint32) for _ in range(3))
    rc = decoder().pyfathom_test_search_targets(
        str(search_tables).encode(), len(boards), ffi.from_buffer("uint64_t[]", rows),
        ffi.from_buffer("uint8_t[]", turns), ffi.from_buffer("uint32_t[]", asked),
        ffi.from_buffer("uint32_t[]", unasked), ffi.from_buffer("uint32_t[]", captures))
    assert rc == lib.FATHOM_OK
    dropped = settled = searches = 0
    with chess.syzygy.open_tablebase(str(search_tables)) as theirs:
        for i, board in enumerate(boards):
            if unasked[i] == captures[i]:
                assert asked[i] == unasked[i], board.fen()
                continue  # no search asked either way (a draw, or DTZ stored)
            searches += 1
            value, success = theirs.probe_ab(board, -2, 2)
            settled += value == 0 or success == 2
            if asked[i] == captures[i]:
                dropped += 1
                assert value == 0 or success == 2, (
                    f"a search its probe makes was not asked: {board.fen()}")
            else:
                assert asked[i] == unasked[i], board.fen()
    print(f"\nsearches asked {searches}, settled by a capture {settled}, dropped {dropped}")
    # Not every one: a capture whose child has captures of its own is not
    # trusted (a table may store any value where a capture is best).
    assert searches > 500 and dropped > settled // 2, (searches, settled, dropped)
