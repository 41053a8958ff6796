"""Probe damaged tables in a child process and report what happened.

Run as ``python probe_child.py`` with a JSON list of cases on stdin.  Each
case is ``{"name", "dirs", "probes": [[fen, "wdl"|"dtz"], ...]}``, or
``{"name", "dirs", "material", "metrics", "count", "seed"}`` to probe
``count`` random valid positions of ``material`` (half with the colours
swapped) with each metric; plus an optional ``"drop_privileges": true``
and an optional ``"variant"`` (a ``uci_variant`` such as ``"atomic"``: the
boards and the tablebase are of that variant).
For every case a fresh Tablebase is opened over ``dirs`` (later directories
replace earlier files of the same table).  A case may add ``"memory"``:
``{"name": "KQvK.rtbw", "source": path or null, "truncate": n, "xor":
[[offset, byte], ...], "base64": data}`` -- the bytes of ``source`` (or the
decoded ``base64``), cut to ``truncate`` bytes, with the ``xor`` changes --
which are registered from memory (``Tablebase.add_table_bytes``) over the
directories, so no damaged file is written anywhere.  One JSON line is printed per
case, flushed before the next case starts, so a crash names its case by the
last line missing:

    {"name": ..., "probes": [[fen, metric], ...],
     "outcomes": [["value", 2], ["corrupt", "/path"], ...]}

An outcome is ``["value", n]``, ``["corrupt", filename]`` for
CorruptTableError, ``["file", filename]`` for another TableFileError, or
``["other", "Type: message"]`` for anything else (which the tests reject).
"""

from __future__ import annotations

import base64
import json
import os
import random
import sys
from typing import Any

import chess

PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK,
          "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def random_positions(material: str, count: int, seed: int,
                     board_type: type[chess.Board] = chess.Board) -> list[chess.Board]:
    """``count`` valid boards with the material of ``material`` (e.g. KRvKP),
    half of them with the colours swapped, no castling rights."""
    rng = random.Random(seed)
    strong, weak = material.split("v")
    boards: list[chess.Board] = []
    attempts = 0
    while len(boards) < count and attempts < 200 * count + 1000:
        attempts += 1
        swap = len(boards) % 2 == 1
        white, black = (weak, strong) if swap else (strong, weak)
        board = board_type.empty()
        used: set[int] = set()
        ok = True
        for color, letters in ((chess.WHITE, white), (chess.BLACK, black)):
            for letter in letters:
                piece = PIECES[letter]
                squares = [s for s in chess.SQUARES if s not in used and
                           (piece != chess.PAWN or 8 <= s < 56)]
                if not squares:
                    ok = False
                    break
                sq = rng.choice(squares)
                used.add(sq)
                board.set_piece_at(sq, chess.Piece(piece, color))
        if not ok:
            continue
        board.turn = rng.random() < 0.5
        if board.is_valid():
            boards.append(board)
    return boards


def outcome(call: Any, board: chess.Board) -> list[Any]:
    import pyfathom

    try:
        return ["value", int(call(board))]
    except pyfathom.CorruptTableError as exc:
        return ["corrupt", str(exc.filename)]
    except pyfathom.TableFileError as exc:
        return ["file", str(exc.filename)]
    except BaseException as exc:  # noqa: BLE001 - reported, the test rejects it
        return ["other", f"{type(exc).__name__}: {exc}"]


def memory_bytes(spec: dict[str, Any]) -> bytes:
    """The damaged table bytes a case describes (see the module's doc)."""
    if spec.get("source"):
        with open(spec["source"], "rb") as f:
            data = bytearray(f.read())
    else:
        data = bytearray(base64.b64decode(spec.get("base64", "")))
    if "truncate" in spec:
        del data[spec["truncate"]:]
    for offset, value in spec.get("xor", []):
        data[offset] ^= value
    return bytes(data)


def drop_privileges() -> None:
    """Become ``nobody`` so that file permissions apply (tests run as root)."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)


def main() -> None:
    import pyfathom
    # open_tablebase's table lookup imports it (and hashlib) on first use:
    # import it while the interpreter's files (under /root on the test
    # machines) are still readable, before drop_privileges.
    import pyfathom.tables  # noqa: F401

    import chess.variant

    cases = json.load(sys.stdin)
    for case in cases:
        board_type: type[chess.Board] = chess.Board
        if case.get("variant"):
            board_type = chess.variant.find_variant(case["variant"])
        if case.get("drop_privileges"):
            drop_privileges()
        probes = case.get("probes")
        if probes is None:
            boards = random_positions(case["material"], case.get("count", 10),
                                      case.get("seed", 0), board_type)
            probes = [[b.fen(), m] for b in boards for m in case["metrics"]]
        outcomes: list[list[Any]] = []
        try:
            tb = pyfathom.open_tablebase(case["dirs"], VariantBoard=board_type)
            if "memory" in case:
                tb.add_table_bytes(case["memory"]["name"], memory_bytes(case["memory"]))
        except BaseException as exc:  # noqa: BLE001
            outcomes.append(["other", f"open: {type(exc).__name__}: {exc}"])
        else:
            with tb:
                for fen, metric in probes:
                    call = tb.probe_wdl if metric == "wdl" else tb.probe_dtz
                    outcomes.append(outcome(call, board_type(fen)))
        print(json.dumps({"name": case["name"], "probes": probes,
                          "outcomes": outcomes}), flush=True)


if __name__ == "__main__":
    main()
