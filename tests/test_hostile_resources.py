"""Resources: file descriptors, memory, address space.

Each measurement runs in a child process (a clean, quiet process: the
suite's own state would blur the numbers; resource limits stay there) and
prints one JSON line the test checks.

* 15 copies of the 70 test tables (1,050 files): one Tablebase over all 15
  directories, then 15 Tablebases (one per directory) all probed at once so
  that every table any position reaches is mapped in every copy, under an
  RLIMIT_NOFILE of the current descriptors + 24: mapping closes each file's
  descriptor.
* 1,000 cycles of open / probe / close: descriptors, mappings, RSS, VmSize
  and the malloc heap in use before and after.
* RLIMIT_AS just above the current address space, so that mapping a table
  fails: the probe raises TableFileError (an OSError) naming the file, the
  batch probe returns FAILED rows, the process goes on.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
COPIES = 15

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"),
                                reason="measures through /proc (Linux)")

COMMON = textwrap.dedent('''
    import ctypes, gc, json, os, resource, sys
    sys.path.insert(0, %r)
    import chess, pyfathom
    from support.positions import ALL_TABLES, table_sample

    def fds():
        return len(os.listdir("/proc/self/fd"))

    def table_maps(root):
        """Mapped table files under root (one line per mapping)."""
        with open("/proc/self/maps") as f:
            return [line.split()[-1] for line in f
                    if root in line and line.rstrip().endswith((".rtbw", ".rtbz"))]

    def status():
        d = {}
        with open("/proc/self/status") as f:
            for line in f:
                key, value = line.split(":", 1)
                if key in ("VmRSS", "VmSize"):
                    d[key] = int(value.split()[0])
        with open("/proc/self/maps") as f:
            d["maps"] = sum(1 for _ in f)
        d["fds"] = fds()
        try:  # glibc: bytes malloc has handed out and not had back
            class MI(ctypes.Structure):
                _fields_ = [(n, ctypes.c_size_t) for n in (
                    "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                    "fsmblks", "uordblks", "fordblks", "keepcost")]
            mallinfo2 = ctypes.CDLL(None).mallinfo2
            mallinfo2.restype = MI
            mi = mallinfo2()
            d["heap"] = mi.uordblks + mi.hblkhd
        except (AttributeError, OSError):
            pass
        return d
''') % str(TESTS)


def _child(script: str, *args: str, timeout: float = 300) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", COMMON + textwrap.dedent(script), *args],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"child exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr
    result: dict[str, Any] = json.loads(lines[-1])
    return result


# ---- 1,050 table files -------------------------------------------------------

MANY_DIRS = '''
    root, dirs = sys.argv[1], sys.argv[2:]
    boards = [b for key in ALL_TABLES for b in table_sample(key, 12, seed=5)]

    def probe_all(tb):
        for b in boards:
            for fn in (tb.probe_wdl, tb.probe_dtz):
                try:
                    fn(b)
                except pyfathom.InvalidPositionError:
                    pass

    # Reference: how many files these boards map in one instance.
    with pyfathom.open_tablebase(dirs[0]) as tb:
        probe_all(tb)
        per_instance = tb.mapped_count
    gc.collect()
    out = {"per_instance": per_instance, "fds_start": fds()}
    # Any descriptor kept per mapped file would now run out long before the
    # ~1,000 mappings below.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (fds() + 24, hard))
    out["fd_limit"] = fds() + 24

    # One Tablebase over all directories: later copies replace earlier ones.
    one = pyfathom.Tablebase()
    out["found"] = sum(one.add_directory(d) for d in dirs)
    probe_all(one)
    out["one_mapped"] = one.mapped_count
    maps = table_maps(root)
    out["one_maps"] = len(maps)
    out["one_maps_in_last_dir"] = sum(p.startswith(dirs[-1] + "/") for p in maps)
    out["fds_one"] = fds()
    one.close()

    # One Tablebase per directory, all open and probed at once.
    tbs = [pyfathom.open_tablebase(d) for d in dirs]
    for tb in tbs:
        probe_all(tb)
    out["many_mapped"] = [tb.mapped_count for tb in tbs]
    out["many_files_mapped"] = len(set(table_maps(root)))
    out["fds_many"] = fds()
    for tb in tbs:
        tb.close()
    del tb, tbs
    gc.collect()
    out["maps_after_close"] = len(table_maps(root))
    out["fds_end"] = fds()
    print(json.dumps(out))
'''


def test_over_a_thousand_table_files_keep_no_descriptor(syzygy_dir: Path,
                                                        tmp_path: Path) -> None:
    files = sorted(p for p in syzygy_dir.iterdir() if p.suffix in (".rtbw", ".rtbz"))
    assert len(files) == 70
    dirs = []
    for i in range(COPIES):
        d = tmp_path / f"copy{i:02d}"
        d.mkdir()
        for p in files:
            shutil.copyfile(p, d / p.name)
        dirs.append(str(d))
    r = _child(MANY_DIRS, str(tmp_path), *dirs)
    assert r["found"] == COPIES * 70 == 1050
    # All 35 WDL files and the DTZ files that decisive positions need.
    assert r["per_instance"] >= 60
    assert r["one_mapped"] == r["per_instance"]
    assert r["one_maps"] == r["per_instance"] == r["one_maps_in_last_dir"]
    assert r["many_mapped"] == [r["per_instance"]] * COPIES
    assert r["many_files_mapped"] == COPIES * r["per_instance"] >= 900
    # Mapping keeps no descriptor (a few for Python's own use at most).
    assert r["fds_one"] - r["fds_start"] <= 2
    assert r["fds_many"] - r["fds_start"] <= 2
    assert r["maps_after_close"] == 0
    assert r["fds_end"] <= r["fds_start"]


# ---- 1,000 open / probe / close cycles ---------------------------------------

CYCLES = '''
    tables, n = sys.argv[1], int(sys.argv[2])
    boards = [table_sample(key, 1, seed=9)[0]
              for key in ("KBNvK", "KQvKR", "KRPvK", "KPvKP", "KQQvK", "KBvKP")]

    def cycle():
        tb = pyfathom.open_tablebase(tables)
        for b in boards:
            tb.probe_wdl(b)
            tb.probe_dtz(b)
        tb.probe_root(boards[0])
        mapped = tb.mapped_count
        tb.close()
        return mapped

    for _ in range(50):  # warm up: imports, caches, allocator arenas
        cycle()
    gc.collect()
    before = status()
    mapped = sum(cycle() for _ in range(n))
    gc.collect()
    after = status()
    # Where the window grew, a second one: the process may settle once
    # past the warm-up (near cycle 340 on the test machine, one anonymous
    # mapping of about 400 KB of malloc heap, then nothing over the next
    # 4,000 cycles); a leak grows in every window.
    again = None
    if (after["maps"] != before["maps"]
            or after.get("heap", 0) - before.get("heap", 0) >= 64 * 1024):
        for _ in range(n):
            cycle()
        gc.collect()
        again = status()
    print(json.dumps({"before": before, "after": after, "again": again, "mapped": mapped,
                      "left_mapped": len(table_maps(tables))}))
'''


@pytest.mark.measures_memory
def test_open_probe_close_a_thousand_times_leaks_nothing(syzygy_dir: Path) -> None:
    r = _child(CYCLES, str(syzygy_dir), "1000")
    before, after = r["before"], r["after"]
    if r["again"] is not None:  # the first window grew: the second must not
        before, after = after, r["again"]
    assert r["mapped"] >= 1000 * 6  # every cycle mapped tables afresh
    assert r["left_mapped"] == 0
    assert after["fds"] == before["fds"]
    # Every mapping is gone again: not one extra line in /proc/self/maps.
    assert after["maps"] == before["maps"]
    # Tolerances: an instance left open costs about 1 MB of RSS and 1.4 MB of
    # address space in this loop (measured by skipping close()), and one
    # cycle allocates ~11 table structures; unchanged code measured +28 KB
    # RSS, +0 VmSize and +5 KB of malloc heap over the 1,000 cycles.  So
    # 1 MB of RSS and address space catches a leak of 1/1000 of an
    # instance per cycle, and 64 KB of heap a single 64-byte block per cycle.
    assert after["VmRSS"] - before["VmRSS"] < 1024, (before, after)
    assert after["VmSize"] - before["VmSize"] < 1024, (before, after)
    if "heap" in before:
        assert after["heap"] - before["heap"] < 64 * 1024, (before, after)


# ---- address space limit --------------------------------------------------------

ADDRESS_SPACE = '''
    import numpy as np
    tables = sys.argv[1]

    def vmsize():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))

    def needs_dtz_file(b):
        with pyfathom.open_tablebase(tables) as tb:
            tb.probe_wdl(b)
            m = tb.mapped_count
            tb.probe_dtz(b)
            return tb.mapped_count == m + 1

    # A KBNvK win whose DTZ probe maps KBNvK.rtbz (461,840 bytes).
    board = next(b for b in table_sample("KBNvK", 40, seed=1) if needs_dtz_file(b))
    kqk = table_sample("KQvK", 1, seed=1)[0]
    with pyfathom.open_tablebase(tables) as tb:
        want, want_kqk = tb.probe_dtz(board), tb.probe_dtz(kqk)
    margins = [k * 1024 for k in range(0, 641, 16)] + [4 << 20]
    # Instances made and warmed (WDL mapped) before any limit.
    tbs = [pyfathom.open_tablebase(tables) for _ in range(len(margins) + 3)]
    for tb in tbs:
        tb.probe_wdl(board)
        tb.probe_dtz(kqk)
    # The batch path's Python modules (numpy's included) load on its first
    # call: load them now too, the limit is about mapping tables.
    tbs[0].probe_dtz_many([kqk])
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)

    def limited(margin, fn):
        gc.collect()
        resource.setrlimit(resource.RLIMIT_AS, (vmsize() + margin, hard))
        try:
            return ["ok", fn()]
        except BaseException as exc:
            return [type(exc).__name__, isinstance(exc, OSError),
                    getattr(exc, "filename", None), str(exc)]
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))

    out = {"want": want, "sweep": []}
    for margin, tb in zip(margins, tbs):
        out["sweep"].append([margin] + limited(margin, lambda: tb.probe_dtz(board)))
    extra = tbs[len(margins):]
    # 128 KB: room for Python's own allocations, not for the 452 KB mapping.
    out["root"] = limited(128 << 10, lambda: extra[0].probe_root(board).dtz)
    out["batch"] = limited(128 << 10, lambda: extra[1].probe_dtz_many(
        [board, kqk] * 100, threads=4).tolist()[:2])
    out["want_batch"] = [want, want_kqk]
    # After the limit: the process lives and a fresh instance answers.
    with pyfathom.open_tablebase(tables) as tb:
        out["after"] = tb.probe_dtz(board)
    # The instance whose mapping failed tries again once memory is back.
    out["retry"] = limited(8 << 20, lambda: tbs[0].probe_dtz(board))[0]
    print(json.dumps(out))
'''


def test_mapping_failure_under_an_address_space_limit_is_an_error(syzygy_dir: Path) -> None:
    r = _child(ADDRESS_SPACE, str(syzygy_dir))
    want = r["want"]
    rtbz = str(syzygy_dir / "KBNvK.rtbz")
    outcomes = {}
    for margin, kind, *rest in r["sweep"]:
        outcomes[margin] = kind
        if kind == "ok":
            assert rest == [want], (margin, rest)
        elif kind in ("TableFileError", "CorruptTableError"):
            is_oserror, filename, message = rest
            assert is_oserror and filename == rtbz and "KBNvK" in message, (margin, rest)
        else:  # an allocation that failed while parsing the table
            assert kind == "MemoryError", (margin, kind, rest)
    # No room for the mapping: an OSError naming the file.
    assert outcomes[0] == "TableFileError"
    assert all(outcomes[m] == "TableFileError" for m in outcomes if m < 400 * 1024)
    # Room enough: the probe simply works.
    assert outcomes[4 << 20] == "ok"
    kind, is_oserror, filename, _ = r["root"]
    assert kind == "TableFileError" and is_oserror and filename == rtbz
    # Batches fail the row (threads that cannot start run inline), not the call.
    import pyfathom
    assert r["batch"] == ["ok", [pyfathom.FAILED_DTZ, r["want_batch"][1]]]
    assert r["after"] == want
    # A failed mapping is not remembered: the same instance maps it later.
    assert r["retry"] == "ok"

