"""One batch probe in a process of its own, for ``tests/test_read_ahead.py``.

    python tests/support/cold_batch.py TABLES ROWS.npz KIND MODE THREADS

Opens TABLES with ``Tablebase.read_ahead = MODE``, probes the rows of
ROWS.npz (the arrays of ``support.positions.to_arrays``) with
``probe_wdl_bitboards`` or ``probe_dtz_bitboards`` (KIND) on THREADS
threads, and prints one JSON object: the values, the status array and the
major page faults the probe took (getrusage, the whole process: every
batch thread's waits on the disk).  A fresh process maps nothing yet, so
the caller's dropping of the tables' pages makes the run cold.
"""

from __future__ import annotations

import json
import resource
import sys

import numpy as np

import pyfathom


def main(argv: list[str]) -> int:
    tables, rows_path, kind, mode, threads = argv
    rows = np.load(rows_path)
    names = ["white", "black", "kings", "queens", "rooks", "bishops", "knights", "pawns",
             "ep", "turn"]
    columns = [rows[name] for name in names]
    status = np.zeros(len(columns[0]), dtype=np.uint8)
    with pyfathom.open_tablebase(tables) as tb:
        tb.read_ahead = mode
        probe = tb.probe_dtz_bitboards if kind == "dtz" else tb.probe_wdl_bitboards
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        values = probe(*columns, threads=int(threads), status=status)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before
    print(json.dumps({"values": [int(v) for v in values], "status": [int(s) for s in status],
                      "major_faults": faults}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
