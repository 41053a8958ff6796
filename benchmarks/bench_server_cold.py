"""``pyfathom serve`` on cold tables: a recorded request log replayed by
parallel clients, latency distributions of the cold and the warm replay,
with the probes of a position's moves run together and one after another.

As lichess measured its tablebase server (requests recorded once, then
replayed identically by parallel clients against each configuration, and
the distributions of response times compared), on this machine:

- tables: synthetic 6-7-piece tables (tests/support/syzygy_writer.py:
  ``KQRBvKQR`` and ``KRPvKRP`` with every table their probes reach, about
  0.9 GB, written once into ``benchmarks/bin/cold-tables/``), or
  ``--tables DIR`` with ``--materials`` naming what it holds;
- the log: ``--requests`` requests, written once (seeded) to
  ``benchmarks/bin/`` (or ``--log FILE``; a file of other options is an
  error, never overwritten) and replayed as it is: one
  ``GET /standard`` per distinct random position of the materials, and
  every ``--batch-every``-th request a ``POST /standard/batch`` of
  ``--batch-size`` other distinct positions;
- per round and per mode (``PYFATHOM_SERVE_TOGETHER``: ``off``, one probe
  after another, the default; ``threads``, the probes of a position's
  moves together on a thread pool, the default until 2026-12-07;
  ``batch`` on request), alternated:
  the tables' cached pages dropped (``posix_fadvise(DONTNEED)``, with no
  server running, so nothing has them mapped), ``pyfathom serve
  --workers W --cache 0`` started, its batch processes started by
  requests that read no table (:func:`start_up`: a process start is not
  a cold table), the log replayed over ``--clients`` keep-alive
  connections (cold), then replayed again (warm), the server stopped.  The bytes the server's processes read from disk during each
  replay come from ``/proc/PID/io`` (what shows the cold replay was cold).

Every answer must be a 200, the cold and warm replays' answers must be
byte-identical, and so must every mode's (the benchmark fails otherwise).
Printed: p50 / p90 / p99 / max per endpoint, phase and mode (median and
range over the rounds), and the ratio off / threads of the cold p50 and
p99, paired by round.

Run from the repository root after ``pip install -e '.[test,server]'``::

    python benchmarks/bench_server_cold.py                 # 300 requests, 10 clients, 3 rounds
    python benchmarks/bench_server_cold.py --rounds 1 --requests 100 --json
    python benchmarks/bench_server_cold.py --modes off,threads,batch
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402  (puts tests/ on the path)
import server_common as sc  # noqa: E402

from support import positions  # noqa: E402
from support import syzygy_writer as writer  # noqa: E402

DEFAULT_MATERIALS = ("KQRBvKQR", "KRPvKRP")
MODES = ("off", "threads", "batch", "threads+prefix", "threads+index", "threads+noahead",
         "off+noahead")
"""The ``PYFATHOM_SERVE_TOGETHER`` modes; ``threads+noahead`` and ``off+noahead``: those
without asking for a position's moves' reads together first
(``PYFATHOM_SERVE_READ_AHEAD=off``, as before); ``threads+prefix``: threads,
with ``--hot-prefix`` over lila-tablebase prefix files of every table
(written once beside the tables' folder, see :func:`prefix_folder`),
whose pages are not dropped: a table's head on storage that stays fast,
as lichess keeps it on NVMe; and ``threads+index``: threads, with every
table's index parts read back into the page cache after the drop
(``pyfathom warm --what index``), the rest cold."""
ENV_TOGETHER = "PYFATHOM_SERVE_TOGETHER"  # pyfathom.server.app.ENV_TOGETHER
ENV_READ_AHEAD = "PYFATHOM_SERVE_READ_AHEAD"  # pyfathom.server.app.ENV_READ_AHEAD


# --- tables and the request log ------------------------------------------------------


def make_tables(materials: Sequence[str], folder: Optional[Path] = None) -> Path:
    """The materials' synthetic tables and every table their probes reach,
    written once (a ``complete`` marker says the folder is whole)."""
    folder = folder or common.BIN / "cold-tables" / "-".join(materials)
    marker = folder / "complete"
    if marker.is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for k, name in enumerate(writer.needed_tables(list(materials))):
        writer.write_tables(writer.Spec(name, seed=k + 1), str(folder))
    marker.write_text(f"{' '.join(materials)}: {time.perf_counter() - start:.1f} s\n")
    return folder


def table_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in (".rtbw", ".rtbz"))


def _positions(materials: Sequence[str], n: int, rng: random.Random) -> list[str]:
    """``n`` distinct valid positions with legal moves, materials in turn."""
    fens: list[str] = []
    seen: set[str] = set()
    while len(fens) < n:
        board = positions.random_position(rng, materials[len(fens) % len(materials)])
        fen = board.fen()
        if fen in seen or not board.is_valid() or board.is_game_over():
            continue
        seen.add(fen)
        fens.append(fen)
    return fens


class LogMismatch(Exception):
    """A request log file that holds another log than the one asked for."""


def make_log(path: Path, materials: Sequence[str], requests: int, batch_every: int,
             batch_size: int, seed: int = 41) -> list[dict[str, Any]]:
    """The request log (one JSON object a line: ``{"kind": "standard",
    "fen": ...}`` or ``{"kind": "batch", "fens": [...]}``), written once:
    read back as it is when it exists with the same parameters.

    :raises LogMismatch: ``path`` exists and is not a log of these
        parameters (it is left as it is: a recorded log is never
        overwritten)."""
    header = {"materials": list(materials), "requests": requests, "batch_every": batch_every,
              "batch_size": batch_size, "seed": seed}
    if path.exists():
        try:
            lines = path.read_text().splitlines()
            recorded = json.loads(lines[0]) if lines else None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise LogMismatch(f"{path}: not a request log ({exc})") from None
        if recorded != header:
            raise LogMismatch(f"{path} records {json.dumps(recorded)}, not "
                              f"{json.dumps(header)}: give other options or another --log")
        return [json.loads(line) for line in lines[1:]]
    batches = requests // batch_every if batch_every else 0
    rng = random.Random(seed)
    fens = iter(_positions(materials, requests - batches + batches * batch_size, rng))
    log: list[dict[str, Any]] = []
    for i in range(requests):
        if batch_every and i % batch_every == batch_every - 1:
            log.append({"kind": "batch", "fens": [next(fens) for _ in range(batch_size)]})
        else:
            log.append({"kind": "standard", "fen": next(fens)})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(item) + "\n" for item in [header, *log]))
    os.replace(tmp, path)
    return log


def _raw(item: dict[str, Any]) -> bytes:
    if item["kind"] == "batch":
        return sc.batch_request(item["fens"])
    return sc.get_request(item["fen"])


# --- the server's disk reads -----------------------------------------------------------


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (uvicorn's workers, their batch processes)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                pass
    return out


def read_bytes(pid: int) -> Optional[int]:
    """Bytes the process tree of ``pid`` has read from storage so far
    (``/proc/PID/io`` read_bytes; page faults on a mapped table count);
    None where /proc does not say."""
    total, seen = 0, False
    for p in _tree(pid):
        try:
            for line in Path(f"/proc/{p}/io").read_text().splitlines():
                if line.startswith("read_bytes:"):
                    total += int(line.split()[1])
                    seen = True
        except OSError:
            pass
    return total if seen else None


# --- one measurement ---------------------------------------------------------------------


def _figures(replies: sc.Replies, kinds: Sequence[str], kind: str) -> dict[str, float]:
    latencies = [t for t, k in zip(replies.latency, kinds) if k == kind]
    figures = sc.percentiles(latencies)
    figures["max_ms"] = round(max(latencies) * 1000, 2)
    return figures


START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
"""A position no table answers (castling rights; 32 pieces after each
move): its requests read no table."""


def start_up(port: int, workers: int) -> None:
    """Start what a server starts on its first requests and that is no
    disk read of a table: each worker's batch processes (started on their
    first job, a spawn and an import of a few hundred milliseconds), by
    as many concurrent batches of :data:`START_FEN` as there could be
    such processes, twice, and a GET of it on each connection."""
    connections = 4 * workers
    requests = [sc.batch_request([START_FEN]), sc.get_request(START_FEN)] * connections
    for _ in range(2):
        replies = sc.replay(port, requests, connections)
        if replies.failures:
            raise RuntimeError(f"start-up requests failed: {replies.failures}")


def prefix_folder(tables: Path) -> Path:
    """The prefix files of every table of ``tables`` (``pyfathom.tables.
    write_prefix``, lila's ``--block-lengths`` layout), written once into
    ``TABLES-prefix`` beside it."""
    from pyfathom import tables as table_tools

    folder = tables.parent / (tables.name + "-prefix")
    if not folder.is_dir():
        work = tables.parent / (tables.name + "-prefix.part")
        work.mkdir(exist_ok=True)
        for path in table_files(tables):
            table_tools.write_prefix(path, work)
        work.rename(folder)
    return folder


def start_cold(mode: str, tables: Path, workers: int) -> tuple[subprocess.Popen[bytes], int]:
    """Drop the tables' pages (the index parts read back for ``+index``)
    and start ``pyfathom serve`` in ``mode``: (the process, its port)."""
    together, _, option = mode.partition("+")
    extra = ("--hot-prefix", str(prefix_folder(tables))) if option == "prefix" else ()
    sc.drop_page_cache(table_files(tables))
    if option == "index":
        subprocess.run([sys.executable, "-m", "pyfathom", "warm", "--tables", str(tables),
                        "--what", "index"], check=True, stdout=subprocess.DEVNULL)
    port = sc.free_port()
    env = dict(os.environ, **{ENV_TOGETHER: together,
                              ENV_READ_AHEAD: "off" if option == "noahead" else "auto"})
    proc = sc.start(sc.pyfathom_command(tables, port, workers, *extra), port, env,
                    f"pyfathom serve ({mode})")
    return proc, port


def measure(mode: str, tables: Path, log: list[dict[str, Any]], clients: int,
            workers: int) -> dict[str, Any]:
    """Drop the tables' pages, start the server in ``mode``, replay the log
    cold and then warm: figures per phase and endpoint, and the answers."""
    proc, port = start_cold(mode, tables, workers)
    requests = [_raw(item) for item in log]
    kinds = [item["kind"] for item in log]
    out: dict[str, Any] = {}
    try:
        start_up(port, workers)
        for phase in ("cold", "warm"):
            before = read_bytes(proc.pid)
            replies = sc.replay(port, requests, clients, keep_bodies=True)
            after = read_bytes(proc.pid)
            if replies.failures:
                first = replies.failures[0]
                raise RuntimeError(f"{mode} {phase}: {len(replies.failures)} answers were not "
                                   f"200, e.g. {replies.status[first]} "
                                   f"{replies.body[first][:200]!r}")
            out[phase] = {kind: _figures(replies, kinds, kind) for kind in sorted(set(kinds))}
            out[phase]["seconds"] = round(replies.seconds, 3)
            if before is not None and after is not None:
                out[phase]["disk_mb"] = round((after - before) / 1e6, 2)
            out[phase + "_bodies"] = replies.body
    finally:
        sc.stop(proc)
    return out


# --- the report ------------------------------------------------------------------------


def _summary(runs: dict[str, list[dict[str, Any]]], kinds: Sequence[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for mode, got in runs.items():
        summary[mode] = {}
        for phase in ("cold", "warm"):
            summary[mode][phase] = {
                kind: {key: sc.spread([r[phase][kind][key] for r in got])
                       for key in ("p50_ms", "p90_ms", "p99_ms", "max_ms")}
                for kind in kinds}
            if all("disk_mb" in r[phase] for r in got):
                summary[mode][phase]["disk_mb"] = sc.spread([r[phase]["disk_mb"] for r in got])
    if "off" in runs and "threads" in runs:
        summary["off_over_threads_cold"] = {
            kind: {key: sc.spread([o["cold"][kind][key] / t["cold"][kind][key]
                                   for o, t in zip(runs["off"], runs["threads"])])
                   for key in ("p50_ms", "p99_ms")}
            for kind in kinds}
    return summary


def _print(result: dict[str, Any]) -> None:
    print(f"pyfathom serve on cold tables: {result['requests']} recorded requests "
          f"({result['batch_requests']} batches of {result['batch_size']}) over "
          f"{result['clients']} clients, {result['workers']} workers, {result['cpus']} CPUs, "
          f"{result['rounds']} rounds; tables {result['materials']} ({result['tables_mb']} MB)")
    print("median [min-max] over the rounds, ms")
    print(f"{'mode':<15}{'phase':<6}{'endpoint':<10}{'p50':>22}{'p90':>22}{'p99':>22}"
          f"{'max':>22}")
    for mode in result["modes"]:
        for phase in ("cold", "warm"):
            for kind in result["endpoints"]:
                row = result["summary"][mode][phase][kind]
                cells = "".join(f"{row[k]['median']:>9.1f} [{row[k]['min']:.1f}-{row[k]['max']:.1f}]"
                                .rjust(22) for k in ("p50_ms", "p90_ms", "p99_ms", "max_ms"))
                print(f"{mode:<15}{phase:<6}{kind:<10}{cells}")
            disk = result["summary"][mode][phase].get("disk_mb")
            if disk:
                print(f"{'':<15}{phase:<6}read from disk: {disk['median']} MB "
                      f"[{disk['min']}-{disk['max']}]")
    ratios = result["summary"].get("off_over_threads_cold")
    if ratios:
        for kind, row in ratios.items():
            print(f"cold {kind}, off / threads (paired by round): p50 {row['p50_ms']['median']}x "
                  f"[{row['p50_ms']['min']}-{row['p50_ms']['max']}], p99 "
                  f"{row['p99_ms']['median']}x [{row['p99_ms']['min']}-{row['p99_ms']['max']}]")
    print(f"answers identical cold/warm and across modes: {result['answers_identical']}")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=Path,
                        help="table directory holding --materials (default: synthetic, "
                             "written once into benchmarks/bin/cold-tables/)")
    parser.add_argument("--materials", default=",".join(DEFAULT_MATERIALS),
                        help=f"materials of the positions (default {','.join(DEFAULT_MATERIALS)})")
    parser.add_argument("--requests", type=int, default=300, help="requests in the log (default 300)")
    parser.add_argument("--batch-every", type=int, default=10,
                        help="every N-th request is a batch (default 10; 0: none)")
    parser.add_argument("--batch-size", type=int, default=20, help="FENs per batch (default 20)")
    parser.add_argument("--clients", type=int, default=10,
                        help="parallel clients (keep-alive connections; default 10)")
    parser.add_argument("--workers", type=int, default=2, help="server workers (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--modes", default="off,threads",
                        help=f"PYFATHOM_SERVE_TOGETHER modes, from {', '.join(MODES)} "
                             "(default off,threads)")
    parser.add_argument("--log", type=Path, help="the request log (default: in benchmarks/bin/)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    materials = [m for m in args.materials.split(",") if m]
    modes = [m for m in args.modes.split(",") if m]
    if not materials or any(m not in MODES for m in modes) or not modes:
        parser.error(f"--modes: a comma-separated list of {', '.join(MODES)}; "
                     "--materials: at least one")
    tables = args.tables or make_tables(materials)
    log_path = args.log or common.BIN / (f"cold-log-{'-'.join(materials)}-{args.requests}-"
                                         f"{args.batch_every}x{args.batch_size}.jsonl")
    try:
        log = make_log(log_path, materials, args.requests, args.batch_every, args.batch_size)
    except LogMismatch as exc:
        parser.error(str(exc))
    kinds = sorted({item["kind"] for item in log})
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
    reference: Optional[list[bytes]] = None
    identical = True
    for round_number in range(args.rounds):
        order = modes if round_number % 2 == 0 else modes[::-1]
        for mode in order:
            got = measure(mode, tables, log, args.clients, args.workers)
            cold, warm = got.pop("cold_bodies"), got.pop("warm_bodies")
            if reference is None:
                reference = cold
            if cold != warm or cold != reference:
                identical = False
                bad = next(i for i, (c, w, r) in enumerate(zip(cold, warm, reference))
                           if not c == w == r)
                raise RuntimeError(f"{mode}: request {bad} ({log[bad]}) answered differently "
                                   "cold, warm or in another mode")
            runs[mode].append(got)
    result: dict[str, Any] = {
        "materials": materials, "tables": str(tables),
        "tables_mb": round(sum(p.stat().st_size for p in table_files(tables)) / 1e6),
        "log": str(log_path), "requests": len(log),
        "batch_requests": sum(item["kind"] == "batch" for item in log),
        "batch_size": args.batch_size, "clients": args.clients, "workers": args.workers,
        "cpus": os.cpu_count(), "rounds": args.rounds, "modes": modes, "endpoints": kinds,
        "summary": _summary(runs, kinds), "runs": runs, "answers_identical": identical,
    }
    if args.json:
        print(json.dumps(result))
    else:
        _print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
