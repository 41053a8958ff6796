"""Child process of tests/test_root_prefetch.py: ``pyfathom serve``'s
probes of each position (``Tablebase.read_ahead_moves``, then each move's
DTZ) from every table page out, counting the major faults of the probes
alone.  Prints one JSON object: ``{"answers": [...], "faults": [...]}``.

    python every_page_out.py TABLE_DIR FEN_FILE MODE

The tables are opened and every position probed once first (the tables
its probes reach mapped, as in a running server); then, for each
position: every page of the table files paged out (page_drop's
page_out_mappings) and the files' headers read back (a few KB a table,
which a server's probes keep in memory), ``read_ahead_moves`` unless
MODE is ``off``, and the moves' DTZs, whose major faults are counted:
the reads the waves did not ask for, or asked too late.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path

import chess

import pyfathom
from pyfathom import tables as table_tools

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.cold_root import moves_dtz_as_stored as dtzs  # noqa: E402
from support.page_drop import page_out_mappings  # noqa: E402


def main() -> int:
    folder, fens, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    boards = [chess.Board(line) for line in fens.read_text().splitlines() if line]
    files = sorted(p for p in folder.iterdir() if p.suffix in (".rtbw", ".rtbz"))
    headers = {path: [(part.offset, part.length) for part in table_tools.layout(path)
                      if part.kind == "header"] for path in files}
    for path in files:  # written back: paging out leaves dirty pages (tables just written)
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    answers, faults = [], []
    with pyfathom.open_tablebase(folder) as tb:
        tb.read_ahead = "off" if mode == "off" else "always"
        for board in boards:
            dtzs(tb, board)
        for board in boards:
            if not page_out_mappings(folder):
                raise SystemExit("no table file is mapped: nothing to page out")
            for path, parts in headers.items():
                with path.open("rb") as handle:
                    for offset, length in parts:
                        handle.seek(offset)
                        handle.read(length)
            if mode != "off":
                tb.read_ahead_moves(board)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
            answers.append(dtzs(tb, board))
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before)
    print(json.dumps({"answers": answers, "faults": faults}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
