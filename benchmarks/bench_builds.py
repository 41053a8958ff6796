"""Two builds of the C core in one process: per-position WDL and DTZ
probes, paired rounds.

    python benchmarks/bench_builds.py [BASE] [NEW] [--set 3-4|5]
        [--positions N] [--rounds R] [--min-seconds S] [--json]

BASE and NEW are git revisions, or ``.`` for the working tree (defaults:
``HEAD`` and ``.``: what the uncommitted changes to ``src/fathom`` do).
Each one's ``src/fathom`` is amalgamated (``amalgamate.sh``) and compiled
as a shared library with the Python module's flags (``-O3``, no
``-march``), in a temporary folder; bench_builds.c loads both with
``dlopen``, checks that they answer every position alike, and times them
back to back on the same positions, the order alternating from round to
round.  The figure is the median of the per-round ratios (BASE time / NEW
time: above 1, NEW is faster) and their range, on the wall clock and on
the timing thread's CPU time (which leaves out the time another tenant
had the core).

Why one process: on this shared machine two processes, even alternated,
scatter more than most changes to the probe differ (see README.md, "Where
the time goes"); two builds timed within milliseconds of each other see
the same machine.  Its floor, measured with HEAD against HEAD (2026-12-03,
eight runs of 16-160 rounds): medians 0.97x-1.04x on either clock, single
rounds 0.7x-1.5x; a change has to move the median by more than about 4%,
in repeated runs, to be told from the machine.

``--set 3-4``: the 35 3-4-piece test tables and positions over them;
``--set 5`` (default): the 5-piece tables of ``../shared/syzygy5`` that
have a DTZ file (as bench_5piece.py), the 3-4-piece tables beside them
for the captures.  The builds must share ``fathom.h``'s board layout
(every revision since the instance API).  POSIX only (dlopen).
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

KINDS = ("wdl", "dtz")


def core_sources(revision: str, into: Path) -> Path:
    """``src/fathom`` of *revision* (``.``: the working tree) under *into*."""
    target = into / "src" / "fathom"
    if revision.startswith("-"):
        raise SystemExit(f"bench_builds: {revision!r} is not a revision")
    if revision == ".":
        shutil.copytree(common.CORE, target)
        return target
    archive = subprocess.run(["git", "-C", str(common.ROOT), "archive", "--format=tar",
                              revision, "src/fathom"], capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"bench_builds: no src/fathom at {revision!r}: "
                         f"{archive.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # a Python before extraction filters; the archive is git's own
            tar.extractall(into)
    return target


def build_library(revision: str, work: Path) -> Path:
    """The amalgamated core of *revision* as a shared library in *work*."""
    work.mkdir(parents=True)
    core = core_sources(revision, work)
    out = work / "amalgamation"
    subprocess.run(["sh", str(core / "amalgamate.sh"), str(out)], check=True,
                   capture_output=True)
    lib = work / "libfathom-core.so"
    # The module's flags (build_ffi.py), default visibility so that dlsym
    # finds the fathom_* functions; the amalgamation keeps the rest static.
    subprocess.run([*common.cc(), "-std=c99", "-O3", "-fPIC", "-shared", "-pthread",
                    f"-I{out}", str(out / "tbprobe.c"), "-o", str(lib)], check=True)
    return lib


def compare(base: str, new: str, tables: str, positions: Path, rounds: int,
            min_seconds: float) -> dict[str, float]:
    """Build both revisions and run the harness; its ``key value`` lines."""
    # The harness needs fathom.h's types only: the builds bring the core.
    exe = common.build_bench_core("bench_builds", with_core=False, libs=("-ldl",))
    with tempfile.TemporaryDirectory(prefix="pyfathom-builds-") as tmp:
        libs = [build_library(rev, Path(tmp) / name)
                for rev, name in ((base, "base"), (new, "new"))]
        proc = subprocess.run([str(exe), *map(str, libs), tables, str(positions),
                               str(rounds), str(min_seconds)],
                              capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench_builds: {proc.stderr.strip()}")
    result: dict[str, float] = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        result[key] = float(value)
    return result


def report(base: str, new: str, res: dict[str, float]) -> str:
    lines = [f"{base} (base) against {new} (new), {res['positions']:.0f} positions, "
             f"{res['rounds']:.0f} paired rounds in one process:"]
    for kind in KINDS:
        lines.append(f"  {kind.upper()}: answers differing: {res[f'{kind}_differing']:.0f}")
        for clock, key in (("wall", kind), ("cpu", f"{kind}_cpu")):
            lines.append(
                f"    {clock}: base {res[f'{key}_base_ns']:.0f} ns, new "
                f"{res[f'{key}_new_ns']:.0f} ns per probe; base/new "
                f"{res[f'{key}_ratio_median']:.3f}x (rounds {res[f'{key}_ratio_min']:.3f}x-"
                f"{res[f'{key}_ratio_max']:.3f}x)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?", default="HEAD", help="git revision or . (HEAD)")
    parser.add_argument("new", nargs="?", default=".", help="git revision or . (the working tree)")
    parser.add_argument("--set", choices=["3-4", "5"], default="5", dest="which")
    parser.add_argument("--tables", type=Path, help="3-4-piece tables (default: the test tables)")
    parser.add_argument("--tables5", type=Path, default=common.SYZYGY5)
    parser.add_argument("--positions", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--min-seconds", type=float, default=0.05,
                        help="length of one timing of one build")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    tables = args.tables or common.default_tables()
    if args.which == "5":
        if not (args.tables5 / "KBBvKN.rtbz").exists():
            print(f"bench_builds: no 5-piece tables in {args.tables5} (--tables5)",
                  file=sys.stderr)
            return 2
        dirs, keys, name = f"{tables}:{args.tables5}", common.MATERIALS_5_WITH_DTZ, "5"
    else:
        dirs, keys, name = str(tables), None, "34"
    positions = common.make_positions(common.BIN / f"positions-{name}-{args.positions}.txt",
                                      args.positions, keys=keys)
    res = compare(args.base, args.new, dirs, positions, args.rounds, args.min_seconds)
    print(json.dumps(res, indent=1) if args.json else report(args.base, args.new, res))
    differing = sum(res[f"{kind}_differing"] for kind in KINDS)
    if differing:
        print(f"bench_builds: the builds answer {differing:.0f} probes differently",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
