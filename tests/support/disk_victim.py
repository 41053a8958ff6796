"""A process whose table file is cut short while it is mapped, for
``tests/test_disk_survival.py``.

    python tests/support/disk_victim.py CASE TABLES VICTIM_FILE [ARGS...]

Opens TABLES, probes WARM_FEN (a position of VICTIM_FILE's material, so
that the file is mapped and read), truncates VICTIM_FILE to one page
(``os.truncate``: the pages past it are gone from under the mapping; or
makes its reads fail, see :func:`cut`), then
runs CASE and prints one JSON object per line: what each probe answered
(``["value", ...]``) or raised (``["error", class name, filename,
message]``).  Until the fault guard, the first read past the cut killed
the process with SIGBUS (exit 135); the test checks that it exits 0 and
what it printed.

CASE ``cli``: ARGS are a ``pyfathom`` command line, run in this process
after the probe method the command uses (``--hook METHOD`` first) has been
wrapped so that its first call maps and cuts the file before going on:
the command meets the damage exactly as it would if the disk failed then.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable

import chess

import pyfathom

PAGE = 4096


def outcome(fn: Callable[[], Any]) -> list[Any]:
    try:
        return ["value", fn()]
    except Exception as e:  # every kind is reported, the test decides
        return ["error", type(e).__name__, getattr(e, "filename", None), str(e)]


def emit(**row: Any) -> None:
    print(json.dumps(row), flush=True)


FAIL_FLAG_ENV = "DISK_VICTIM_FAIL_FLAG"
"""Where set, the damage is a disk error instead of a cut: the victim
file is served by ``tests/support/eio_fs.py``, whose reads of it fail once
this flag file exists."""


def cut(path: str) -> None:
    """Damage *path* under its mapping: truncate it to one page, or (with
    :data:`FAIL_FLAG_ENV` set) make its reads fail with EIO and drop the
    pages not mapped yet, so that the next probe reading them meets the
    error, as on a disk that fails while the process runs."""
    flag = os.environ.get(FAIL_FLAG_ENV)
    if not flag:
        os.truncate(path, PAGE)
        return
    with open(flag, "w"):
        pass
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main(argv: list[str]) -> int:
    case, tables, victim = argv[:3]
    rest = argv[3:]
    if case == "cli":
        return run_cli(tables, victim, rest)
    spec = json.loads(sys.stdin.read())
    if spec.get("no_guard"):
        from pyfathom._bindings.lowlevel import lib

        lib.fathom_set_fault_guard(0)
    tb = pyfathom.open_tablebase(tables)
    spec.update(tables=tables, victim=victim)
    if case != "fathom":
        warm = chess.Board(spec["warm_fen"])
        emit(warm=outcome(lambda: int(tb.probe_dtz(warm) if spec["dtz"] else tb.probe_wdl(warm))))
        cut(victim)
    boards = [chess.Board(f) for f in spec["fens"]]
    CASES[case](tb, boards, spec)
    emit(done=True)
    return 0


def per_position(tb: Any, boards: list[chess.Board], spec: dict[str, Any]) -> None:
    probe = tb.probe_dtz if spec["dtz"] else tb.probe_wdl
    emit(rows=[outcome(lambda b=b: int(probe(b))) for b in boards])


def root(tb: Any, boards: list[chess.Board], spec: dict[str, Any]) -> None:
    def ranked(b: chess.Board) -> list[Any]:
        r = tb.probe_root(b)
        return [[m.move.uci(), int(m.wdl), int(m.dtz)] for m in r.moves]

    emit(rows=[outcome(lambda b=b: ranked(b)) for b in boards])


def fathom_api(tb: Any, boards: list[chess.Board], spec: dict[str, Any]) -> None:
    """pyfathom.fathom, the Fathom-compatible calls, on their own default
    instance: tb_init over the same folder, warmed and cut in turn
    (main() leaves the file alone for this case).  Fathom's API has no
    error detail: a failed probe is TB_RESULT_FAILED."""
    from pyfathom import fathom

    fathom.tb_init(spec["tables"])

    def wdl(b: chess.Board) -> int:
        return int(fathom.tb_probe_wdl(
            b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK], b.kings, b.queens,
            b.rooks, b.bishops, b.knights, b.pawns, 0, 0, b.ep_square or 0,
            b.turn == chess.WHITE))

    first = outcome(lambda: wdl(chess.Board(spec["warm_fen"])))
    cut(spec["victim"])
    emit(warm_fathom=first, failed=int(fathom.TB_RESULT_FAILED),
         rows=[outcome(lambda b=b: wdl(b)) for b in boards])


def bitboards(tb: Any, boards: list[chess.Board], spec: dict[str, Any]) -> None:
    import numpy as np

    cols = [np.array([getattr(b, a) if isinstance(a, str) else a(b) for b in boards],
                     dtype=np.uint64)
            for a in (lambda b: b.occupied_co[chess.WHITE], lambda b: b.occupied_co[chess.BLACK],
                      "kings", "queens", "rooks", "bishops", "knights", "pawns")]
    ep = np.array([b.ep_square or 0 for b in boards], dtype=np.uint8)
    turn = np.array([b.turn for b in boards], dtype=np.uint8)
    status = np.zeros(len(boards), dtype=np.uint8)
    probe = tb.probe_dtz_bitboards if spec["dtz"] else tb.probe_wdl_bitboards
    values = probe(*cols, ep, turn, threads=spec.get("threads", 2), status=status)
    emit(values=[int(v) for v in values], status=[int(s) for s in status],
         error=outcome(lambda: tb.probe_dtz(boards[int(np.flatnonzero(status)[0])])
                       if spec["dtz"] and status.any() else
                       tb.probe_wdl(boards[int(np.flatnonzero(status)[0])]) if status.any()
                       else None))


def many(tb: Any, boards: list[chess.Board], spec: dict[str, Any]) -> None:
    import numpy as np

    status = np.zeros(len(boards), dtype=np.uint8)
    values = tb.probe_wdl_many(boards, threads=2, status=status)
    failed = np.flatnonzero(status)
    emit(values=[int(v) for v in values], status=[int(s) for s in status],
         error=outcome(lambda: tb.probe_wdl(boards[int(failed[0])])) if len(failed) else None)


def columnar(tb: Any, boards: list[chess.Board], spec: dict[str, Any]) -> None:
    import pyarrow as pa

    from pyfathom.columnar import probe_columns

    out = probe_columns(tb, pa.table({"fen": [b.fen() for b in boards]}), dtz=spec["dtz"])
    emit(status=[str(s) for s in out.column("status").to_pylist()],
         values=out.column("dtz" if spec["dtz"] else "wdl").to_pylist())


CASES: dict[str, Callable[[Any, list[chess.Board], dict[str, Any]], None]] = {
    "per_position": per_position,
    "root": root,
    "fathom": fathom_api,
    "bitboards": bitboards,
    "many": many,
    "columnar": columnar,
}


def run_cli(tables: str, victim: str, argv: list[str]) -> int:
    """Run a pyfathom command whose tablebase loses VICTIM_FILE's pages
    just before its first probe through HOOK (after mapping it there)."""
    assert argv[0] == "--hook"
    hook, warm_fen = argv[1], argv[2]
    from pyfathom.cli import main as cli_main

    original = getattr(pyfathom.Tablebase, hook)
    armed = [True]

    def cut_first(self: Any, *args: Any, **kwargs: Any) -> Any:
        if armed[0]:
            armed[0] = False
            self.probe_wdl(chess.Board(warm_fen))  # maps and reads the file
            cut(victim)
        return original(self, *args, **kwargs)

    setattr(pyfathom.Tablebase, hook, cut_first)
    return int(cli_main(argv[3:]) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
