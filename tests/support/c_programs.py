"""Building and running the suite's own C programs (the engine drop-in
tests, the old and Pyrrhic headers, the cross builds): where the core's
sources are, the strict flags, the compiler, a checked run, and the
positions the engine programs are asked about."""

from __future__ import annotations

import os
import random
import shlex
import subprocess
from pathlib import Path
from typing import Any

import chess

from support.expected import engine_boards

ROOT = Path(__file__).resolve().parent.parent.parent
CORE = ROOT / "src" / "fathom"
"""The C core's sources (``make -C`` here builds the library, the
amalgamation and the Pyrrhic facade)."""
FATHOM_BUILD = ("core", "fathom-api", "fathom-instance")
"""The roles of src/fathom/sources.txt in the Python module's build (and the
Fathom single file's): every C file but Pyrrhic's facade."""
FUZZ_BUILD = ("core", "fathom-api")
"""The fuzz targets' build: no Fathom facade instance (they make their own)."""


def core_files(*roles: str) -> list[Path]:
    """The files of src/fathom/sources.txt, the one list of the core's files
    (build_ffi.py reads it too), with one of *roles* (every file when none
    is given), in the list's order."""
    rows = [line.split() for line in (CORE / "sources.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    return [CORE / path for path, role in rows if not roles or role in roles]


CDIR = ROOT / "tests" / "c"
"""The test programs' C sources."""
STRICT = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"]
"""How an engine that treats warnings as errors compiles against us."""


def cc() -> list[str]:
    """The C compiler: ``$CC`` (split as a shell would), else ``cc``."""
    return shlex.split(os.environ.get("CC", "cc"))


def run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` with text output captured; fail the test with the command
    line and the ends of both outputs unless it exits 0."""
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, \
        f"{' '.join(map(str, cmd))}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc


def _stale_ep(board: chess.Board, rng: random.Random) -> int | None:
    """A square on the side to move's en-passant rank that no pawn of its
    attacks: what an engine that forgets to clear the square passes.
    Fathom never looks at such a square."""
    rank = 5 if board.turn == chess.WHITE else 2
    movers = board.pawns & board.occupied_co[board.turn]
    free = [sq for sq in chess.SQUARES if chess.square_rank(sq) == rank
            and not chess.BB_PAWN_ATTACKS[not board.turn][sq] & movers]
    return rng.choice(free) if free else None


def engine_positions() -> list[tuple[chess.Board, int, int]]:
    """(board, clock, ep square as the engine passes it): the engine
    programs' questions, the same on every run."""
    rng = random.Random("engine-dropin")
    out = []
    for board in engine_boards():  # ENGINE_PER_TABLE of each table
        ep = board.ep_square
        if ep is None and rng.random() < 0.15:
            ep = _stale_ep(board, rng)
        out.append((board, rng.randrange(100), ep or 0))
    return out
