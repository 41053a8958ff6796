"""pyfathom from Python against python-chess and against the C loop, in one
run on the same positions.

    python benchmarks/bench_python.py [--tables DIR] [--positions N]
        [--oracle-positions M] [--runs R] [--batch-lines L] [--json]

Reports (medians of R runs):

* per-board ``probe_wdl`` / ``probe_dtz``: pyfathom and python-chess, us per
  probe, and the ratio (targets: 150x on 1,000 boards, 100x on 10,000): the
  median, and the range, of the ratios of 3R paired rounds (both libraries
  timed back to back), on the first M boards for each size M of
  ``--oracle-positions`` (default 1,000 and 10,000);
* the split of one pyfathom probe: the whole ``Tablebase.probe_wdl(board)``,
  the bare call of the board probe with ready-made integers (so conversion =
  whole - bare), the C core alone (from bench_core.c), and the same C
  function called through cffi (what pyfathom/_c/board_calls.c saves);
* the engines' call, ``pyfathom.fathom.tb_probe_wdl``, over ready-made ints,
  and the same C function through cffi;
* ``probe_wdl_bitboards`` with 1 and 2 threads against the C loop of
  bench_core.c (targets: 1 thread >= 0.8x the C loop, 2 threads >= 1.8x
  one thread);
* ``pyfathom batch`` end to end (FEN file in, CSV out), positions per second.

python-chess is slow (about 0.1 ms per WDL and 1 ms per DTZ probe), so it
runs on the first M positions only, and pyfathom is timed on the same M for
the ratio (10,000 DTZ probes take python-chess about 13 s a round).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

import chess  # noqa: E402
import chess.syzygy  # noqa: E402
import numpy as np  # noqa: E402

import pyfathom  # noqa: E402


def _median_time(fn: Callable[[], object], runs: int, min_seconds: float = 0.0) -> float:
    """Median seconds of one call of fn over `runs` runs (each run repeats
    fn until min_seconds have passed, and is divided by the repeats)."""
    times = []
    for _ in range(runs):
        reps = 0
        start = time.perf_counter()
        while True:
            fn()
            reps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        times.append(elapsed / reps)
    return statistics.median(times)


def _interleaved_samples(fns: list[Callable[[], object]], rounds: int,
                         min_seconds: float) -> list[list[float]]:
    """Seconds per call of each function, one sample of each per round,
    back to back, the order reversed every other round, so that a burst of
    load on the machine hits all of them alike."""
    samples: list[list[float]] = [[] for _ in fns]
    for r in range(rounds):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            samples[i].append(_median_time(fns[i], 1, min_seconds))
    return samples


def _interleaved_medians(fns: list[Callable[[], object]], runs: int,
                         min_seconds: float) -> list[float]:
    """The median of each function's interleaved samples."""
    return [statistics.median(s) for s in _interleaved_samples(fns, runs, min_seconds)]


def bench(tables: Path, n: int, sizes: list[int], runs: int, batch_lines: int,
          min_seconds: float) -> dict[str, Any]:
    pos_file = common.make_positions(common.BIN / f"positions-{n}.txt", n)
    fens = common.read_fens(pos_file)
    boards = [chess.Board(f) for f in fens]
    small = boards[:sizes[0]]
    res: dict[str, Any] = {"positions": len(boards), "oracle_positions": len(small), "runs": runs}

    tb = pyfathom.open_tablebase(tables)
    pc = chess.syzygy.open_tablebase(str(tables))
    try:
        # Warm both (tables mapped / opened).
        for b in small:
            tb.probe_dtz(b)
            pc.probe_dtz(b)

        def per_board(probe: Callable[[chess.Board], object], bs: list[chess.Board]) -> Callable[[], None]:
            def run() -> None:
                for b in bs:
                    probe(b)
            return run

        # Paired rounds, in alternating order: each round times both
        # libraries back to back, so a burst of load on the shared machine
        # hits both sides of that round's ratio; the ratio reported is the
        # median over the rounds, with its range.  Once per size: the ratio
        # falls as the boards cycled through outgrow the caches.
        for size in sizes:
            some = boards[:size]
            for b in some[len(small):]:  # warm both on these boards too
                tb.probe_dtz(b)
                pc.probe_dtz(b)
            for kind in ("wdl", "dtz"):
                ours_t, theirs_t = _interleaved_samples(
                    [per_board(getattr(tb, f"probe_{kind}"), some),
                     per_board(getattr(pc, f"probe_{kind}"), some)], 3 * runs, min_seconds / 3)
                ratios = [b / a for a, b in zip(ours_t, theirs_t)]
                # The first size's figures keep their plain keys.
                suffix = "" if size == sizes[0] else f"_{len(some)}"
                res[f"pyfathom_{kind}_us{suffix}"] = statistics.median(ours_t) / len(some) * 1e6
                res[f"python_chess_{kind}_us{suffix}"] = statistics.median(theirs_t) / len(some) * 1e6
                res[f"{kind}_ratio{suffix}"] = statistics.median(ratios)
                res[f"{kind}_ratio{suffix}_min"] = min(ratios)
                res[f"{kind}_ratio{suffix}_max"] = max(ratios)
                res[f"{kind}_rounds"] = len(ratios)
        res["oracle_sizes"] = [len(boards[:size]) for size in sizes]
        # pyfathom on all positions (per board) too.
        for kind in ("wdl", "dtz"):
            t = _median_time(per_board(getattr(tb, f"probe_{kind}"), boards), runs, min_seconds)
            res[f"pyfathom_{kind}_us_all"] = t / len(boards) * 1e6

        # Split of one WDL probe: the whole method vs the bare call of the
        # board probe with the ints read beforehand, and the same C function
        # through cffi (what the per-board probes used before
        # pyfathom/_c/board_calls.c; kept here to show what it saves).
        from pyfathom._bindings import lowlevel as ll

        pinned, handle = getattr(tb, "_pinned"), getattr(tb, "_h")
        args = [(b.occupied_co[1], b.occupied_co[0], b.queens, b.rooks, b.bishops,
                 b.knights, b.pawns, b.ep_square or 0, b.turn) for b in boards]
        board_wdl, cffi_wdl = ll.board_wdl, ll.lib.fathom_probe_wdl_lean

        def bare() -> None:
            for w, bl, q, r, bi, kn, p, ep, turn in args:
                board_wdl(pinned, w, bl, q, r, bi, kn, p, ep, turn)

        def bare_cffi() -> None:
            for w, bl, q, r, bi, kn, p, ep, turn in args:
                cffi_wdl(handle, w, bl, q, r, bi, kn, p, ep, turn)

        whole_t, bare_t, cffi_t = (t / len(boards) * 1e6 for t in _interleaved_medians(
            [per_board(tb.probe_wdl, boards), bare, bare_cffi], runs, min_seconds))
        res["split_whole_wdl_us"] = whole_t
        res["split_call_wdl_us"] = bare_t
        res["split_cffi_call_wdl_us"] = cffi_t
        res["split_conversion_wdl_us"] = whole_t - bare_t

        # C loop (same positions, same machine, same run).
        core = common.run_bench_core(tables, pos_file, runs, min_seconds)
        res["c_wdl_probes_per_sec"] = core["wdl_median_probes_per_sec"]
        res["c_dtz_probes_per_sec"] = core["dtz_median_probes_per_sec"]
        res["split_c_core_wdl_us"] = core["wdl_median_us_per_probe"]
        for key, value in core.items():
            if key.startswith("c_batch_"):
                res[key] = value
        res["split_call_overhead_wdl_us"] = bare_t - core["wdl_median_us_per_probe"]
        res["split_cffi_overhead_wdl_us"] = cffi_t - core["wdl_median_us_per_probe"]

        # The engines' call: Fathom's tb_probe_wdl (12 arguments, default
        # instance) over ints read beforehand, as pyfathom.fathom exposes it
        # and through its cffi wrapper.
        from pyfathom import fathom

        fathom_args = [(w, bl, (w | bl) & ~(q | r | bi | kn | p), q, r, bi, kn, p, 0, 0, ep, turn)
                       for w, bl, q, r, bi, kn, p, ep, turn in args]
        engine_wdl, engine_cffi = fathom.tb_probe_wdl, ll.lib.tb_probe_wdl

        def engine() -> None:
            for a in fathom_args:
                engine_wdl(*a)

        def engine_through_cffi() -> None:
            for a in fathom_args:
                engine_cffi(*a)

        if not fathom.tb_init(str(tables)):
            raise RuntimeError(f"tb_init({tables}) found no tables")
        try:
            engine_t, engine_cffi_t = (t / len(boards) * 1e6 for t in _interleaved_medians(
                [engine, engine_through_cffi], runs, min_seconds))
        finally:
            fathom.tb_free()
        res["fathom_tb_probe_wdl_us"] = engine_t
        res["fathom_tb_probe_wdl_cffi_us"] = engine_cffi_t

        # Batch calls.
        from support import positions as P

        arrays = P.to_arrays(boards)
        names = ["white", "black", "kings", "queens", "rooks", "bishops", "knights",
                 "pawns", "ep", "turn"]
        cols = [arrays[k] for k in names]
        # The batch ratios compare measurements taken at different moments,
        # so on a shared machine they are taken in alternation: each round
        # runs the C loop once (a fresh bench_core, one run) and then the
        # bitboard calls, and the medians over the rounds are compared.
        # The ratios are the medians of each round's own ratios (paired, as
        # the per-board ones), and every other round runs the bitboard calls
        # before the C loop instead of after it.
        samples: dict[str, list[float]] = {}

        def c_loop_round() -> None:
            core_round = common.run_bench_core(tables, pos_file, 1, min_seconds)
            for kind in ("wdl", "dtz"):
                samples.setdefault(f"c_{kind}", []).append(
                    core_round[f"{kind}_median_probes_per_sec"])

        def bitboards_round() -> None:
            for kind in ("wdl", "dtz"):
                fn = getattr(tb, f"probe_{kind}_bitboards")
                for threads in (1, 2):
                    t = _median_time(lambda: fn(*cols, threads=threads), 1, min_seconds)
                    samples.setdefault(f"{kind}_t{threads}", []).append(len(boards) / t)

        for r in range(runs):
            for step in ((c_loop_round, bitboards_round) if r % 2 == 0
                         else (bitboards_round, c_loop_round)):
                step()
        for kind in ("wdl", "dtz"):
            c_loop, t1, t2 = (samples[f"c_{kind}"], samples[f"{kind}_t1"],
                              samples[f"{kind}_t2"])
            res[f"batch_{kind}_c_loop_probes_per_sec"] = statistics.median(c_loop)
            res[f"batch_{kind}_t1_probes_per_sec"] = statistics.median(t1)
            res[f"batch_{kind}_t2_probes_per_sec"] = statistics.median(t2)
            res[f"batch_{kind}_t1_vs_c_loop"] = statistics.median(
                a / c for a, c in zip(t1, c_loop))
            res[f"batch_{kind}_t2_vs_t1"] = statistics.median(b / a for a, b in zip(t1, t2))
        t = _median_time(lambda: tb.probe_wdl_many(boards), runs, min_seconds)
        res["many_wdl_probes_per_sec"] = len(boards) / t
    finally:
        tb.close()
        pc.close()

    # pyfathom batch, end to end.
    if batch_lines > 0:
        res.update(bench_cli(tables, fens, batch_lines))
    return res


def bench_cli(tables: Path, fens: list[str], lines: int) -> dict[str, Any]:
    """Time ``python -m pyfathom batch`` on a FEN file of `lines` lines."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.fen"
        with src.open("w") as f:
            for i in range(lines):
                f.write(fens[i % len(fens)] + "\n")
        # A regular file of our own: never the machine's /dev/null (written
        # directly now, but a benchmark has no business touching it).
        result = Path(tmp) / "out.csv"
        for dtz in (False, True):
            cmd = [sys.executable, "-m", "pyfathom", "batch", str(src), "--tables", str(tables),
                   "-o", str(result)] + (["--dtz"] if dtz else [])
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            key = "cli_batch_dtz" if dtz else "cli_batch_wdl"
            if proc.returncode not in (0,):
                out[key + "_error"] = proc.stderr.strip()[-500:]
                continue
            out[key + "_lines"] = lines
            out[key + "_positions_per_sec"] = lines / elapsed
    return out


def report(res: dict[str, Any]) -> str:
    r = res
    lines = [
        f"positions: {r['positions']} (3-4 pieces); python-chess compared on the first"
        f" {' and '.join(f'{n:,}' for n in r['oracle_sizes'])};"
        f" medians of {r['runs']} runs",
        "",
        f"per-board probes (us/probe)        pyfathom  python-chess   ratio (target >= 150x on 1,000"
        f" boards, 100x on 10,000;"
        f" median and range of {r['wdl_rounds']} paired rounds)",
        *(f"  probe_{kind} ({size:,} boards){' ' * (16 - len(f'{size:,}') - len(kind))}"
          f"{r[f'pyfathom_{kind}_us{sfx}']:9.3f}  {r[f'python_chess_{kind}_us{sfx}']:12.1f}"
          f"   {r[f'{kind}_ratio{sfx}']:6.0f}x  ({r[f'{kind}_ratio{sfx}_min']:.0f}-"
          f"{r[f'{kind}_ratio{sfx}_max']:.0f}x)"
          for i, size in enumerate(r["oracle_sizes"]) for sfx in ["" if i == 0 else f"_{size}"]
          for kind in ("wdl", "dtz")),
        "",
        "split of one probe_wdl (us, all positions)",
        f"  whole Tablebase.probe_wdl     {r['split_whole_wdl_us']:.3f}",
        f"  bare board_wdl (ints ready)   {r['split_call_wdl_us']:.3f}",
        f"  -> Python-side conversion     {r['split_conversion_wdl_us']:.3f}",
        f"  C core alone (bench_core)     {r['split_c_core_wdl_us']:.3f}",
        f"  -> call overhead              {r['split_call_overhead_wdl_us']:.3f}",
        f"  (same C through cffi          {r['split_cffi_call_wdl_us']:.3f}"
        f", overhead {r['split_cffi_overhead_wdl_us']:.3f})",
        "",
        "engines' call (us, all positions, ints ready)",
        f"  pyfathom.fathom.tb_probe_wdl  {r['fathom_tb_probe_wdl_us']:.3f}",
        f"  the same through cffi         {r['fathom_tb_probe_wdl_cffi_us']:.3f}",
        "",
        "batch (probes/s)                 WDL            DTZ",
        f"  C loop (bench_core, alternated){r['batch_wdl_c_loop_probes_per_sec']:11,.0f}   "
        f"{r['batch_dtz_c_loop_probes_per_sec']:12,.0f}",
        f"  *_bitboards, 1 thread         {r['batch_wdl_t1_probes_per_sec']:12,.0f}   "
        f"{r['batch_dtz_t1_probes_per_sec']:12,.0f}",
        f"  *_bitboards, 2 threads        {r['batch_wdl_t2_probes_per_sec']:12,.0f}   "
        f"{r['batch_dtz_t2_probes_per_sec']:12,.0f}",
        f"  1 thread / C loop             {r['batch_wdl_t1_vs_c_loop']:12.2f}   "
        f"{r['batch_dtz_t1_vs_c_loop']:12.2f}   (target >= 0.8)",
        f"  2 threads / 1 thread          {r['batch_wdl_t2_vs_t1']:12.2f}   "
        f"{r['batch_dtz_t2_vs_t1']:12.2f}   (target >= 1.8)",
        f"  C batch call, 1 thread        {r['c_batch_wdl_t1_median_probes_per_sec']:12,.0f}   "
        f"{r['c_batch_dtz_t1_median_probes_per_sec']:12,.0f}",
        f"  C batch call, 2 threads       {r['c_batch_wdl_t2_median_probes_per_sec']:12,.0f}   "
        f"{r['c_batch_dtz_t2_median_probes_per_sec']:12,.0f}",
        f"  probe_wdl_many (boards)       {r['many_wdl_probes_per_sec']:12,.0f}",
    ]
    for kind in ("wdl", "dtz"):
        key = f"cli_batch_{kind}"
        if key + "_positions_per_sec" in r:
            lines.append(f"  pyfathom batch{' --dtz' if kind == 'dtz' else '      '} (end to end) "
                         f"{r[key + '_positions_per_sec']:10,.0f} positions/s "
                         f"({r[key + '_lines']:,} lines)")
        elif key + "_error" in r:
            lines.append(f"  pyfathom batch ({kind}) failed: {r[key + '_error']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, help="table directory (default: the test tables)")
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--oracle-positions", default="1000,10000",
                        help="how many positions python-chess probes for the ratios: one "
                             "size or several, comma-separated, each a ratio of its own "
                             "(default 1000,10000: about 5 minutes on a quiet machine)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=0.3)
    parser.add_argument("--batch-lines", type=int, default=200_000,
                        help="lines for the `pyfathom batch` run (0: skip)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    tables = args.tables or common.default_tables()
    sizes = sorted({min(int(size), args.positions) for size in args.oracle_positions.split(",")})
    res = bench(tables, args.positions, sizes, args.runs, args.batch_lines, args.min_seconds)
    print(json.dumps(res, indent=2) if args.json else report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
