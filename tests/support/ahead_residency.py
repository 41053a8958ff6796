"""Child process of tests/test_root_prefetch.py: what
``Tablebase.read_ahead_moves`` asks for once the tables were in memory and
then left it.  Prints one JSON object: ``{"growth": [...]}``, the bytes of
the table files that each call brought into the page cache.

    python ahead_residency.py TABLE_DIR FEN_FILE MODE WARM_CALLS

In a fresh process: the tables opened with read-ahead MODE, every table
file read whole (all in memory), ``read_ahead_moves`` on the first
WARM_CALLS positions, then every table file's pages dropped (those this
process mapped stay: the head, index and block-length entries the calls
read), then ``read_ahead_moves`` on each further position, the files'
resident bytes counted (mincore) before and after each call.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import chess

import pyfathom
from pyfathom import tables as table_tools

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.page_drop import drop_tables  # noqa: E402


def resident(files: list[Path]) -> int:
    return sum(table_tools.residency(path).resident for path in files)


def main() -> int:
    folder, fens, mode, warm_calls = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    boards = [chess.Board(line) for line in fens.read_text().splitlines() if line]
    files = sorted(p for p in folder.iterdir() if p.suffix in (".rtbw", ".rtbz"))
    with pyfathom.open_tablebase(folder) as tb:
        tb.read_ahead = mode
        table_tools.warm(files, "all")
        for board in boards[:warm_calls]:
            tb.read_ahead_moves(board)
        drop_tables(folder)
        growth = []
        for board in boards[warm_calls:]:
            before = resident(files)
            tb.read_ahead_moves(board)
            growth.append(resident(files) - before)
    print(json.dumps({"growth": growth}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
