"""``pyfathom probe FEN ...``: WDL, DTZ and every legal move ranked."""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from pyfathom.fen import FenError, parse_board, position_error

from ._common import (EXIT_FAIL, EXIT_OK, CliError, add_tables_argument, add_variant_argument,
                      err, open_tables)

_WDL_WORDS = {-2: "loss", -1: "blessed loss", 0: "draw", 1: "cursed win", 2: "win"}


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("probe", help="WDL, DTZ and every legal move ranked",
                              description="Probe positions: WDL and DTZ of the side to move, and every "
                                          "legal move ranked best first with its WDL and DTZ (a move's "
                                          "DTZ counts the plies from this position, the move included; "
                                          "the explorer page's 'DTZ after' counts from the position the "
                                          "move leads to). Positions are read as pyfathom.fen documents "
                                          "(2 to 6 fields, EPD operations, _ for blanks). With WDL "
                                          "tables only (no DTZ table for the position), the WDL of the "
                                          "position and of each move, and DTZ unavailable.")
    p.add_argument("fens", nargs="+", metavar="FEN")
    add_tables_argument(p)
    p.add_argument("--json", action="store_true", help="print a JSON array, one object per FEN")
    add_variant_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    tb = open_tables(args.tables, getattr(args, "variant", None), args.hot_prefix)
    status = EXIT_OK
    results: list[dict[str, Any]] = []
    try:
        for i, fen in enumerate(args.fens):
            try:
                result = probe_one(tb, fen)
            except CliError as e:
                err(str(e))
                status = EXIT_FAIL
                if args.json:
                    results.append({"fen": fen, "error": str(e)})
                continue
            if args.json:
                results.append(result)
            else:
                if i:
                    sys.stdout.write("\n")
                print_probe(result, sys.stdout)
    finally:
        tb.close()
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return status


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"


def _dtz_text(dtz: int, precise: bool | None) -> str:
    if precise is False and dtz != 0:
        # A rounded value may be one ply short: n or n+1 (away from zero).
        other = dtz + 1 if dtz > 0 else dtz - 1
        return f"{dtz} or {other}"
    return str(dtz)


def _move_dtz_precise(tb: Any, board: Any, move: Any) -> bool | None:
    """Whether a root move's DTZ is exact: a zeroing move's is (1 ply);
    otherwise it is as exact as the DTZ of the position the move leads to
    (None: that position's table is missing).  A table that fails to read
    there is the command's error (CliError, naming the position), not a
    silent None."""
    from pyfathom import FathomError

    if board.is_zeroing(move):
        return True
    child = board.copy(stack=False)
    child.push(move)
    if child.is_checkmate() or child.is_stalemate():
        return True
    try:
        return bool(tb.probe(child).dtz_precise)
    except KeyError:  # MissingTableError: the child's table is not there
        return None
    except (FathomError, ValueError, OSError) as e:  # a damaged or unreadable table
        raise CliError(position_error(child.fen(), e)) from None


def probe_one(tb: Any, fen: str) -> dict[str, Any]:
    """Probe a FEN; return a JSON-ready dict (raises CliError)."""
    import chess

    import pyfathom

    try:
        board = parse_board(fen, getattr(tb, "variant", chess.Board))
    except FenError as e:
        raise CliError(str(e)) from None
    try:
        probe = tb.probe(board)
        root = tb.probe_root(board)
    except pyfathom.MissingTableError as e:
        if e.metric != "dtz":
            raise CliError(position_error(fen, e)) from None
        return _probe_wdl_only(tb, board, e.table, fen)
    except (pyfathom.FathomError, KeyError, ValueError, OSError) as e:
        raise CliError(position_error(fen, e)) from None
    moves = []
    for rm in root.moves:
        precise = _move_dtz_precise(tb, board, rm.move)
        moves.append({
            "uci": rm.move.uci(),
            "san": board.san(rm.move),
            "wdl": int(rm.wdl),
            "dtz": int(rm.dtz),
            "dtz_precise": None if precise is None else bool(precise),
            "rank": int(rm.rank),
        })
    if board.is_checkmate():
        state = "checkmate"
    elif board.is_stalemate():
        state = "stalemate"
    else:
        state = None
    return {
        "fen": board.fen(),
        "turn": "white" if board.turn else "black",
        "wdl": int(probe.wdl),
        "dtz": int(probe.dtz),
        "dtz_precise": bool(probe.dtz_precise),
        "wdl_50": int(root.wdl),
        "halfmove_clock": board.halfmove_clock,
        "state": state,
        "best_move": root.best_move.uci() if root.best_move is not None else None,
        "best_move_san": board.san(root.best_move) if root.best_move is not None else None,
        "moves": moves,
    }


def _probe_wdl_only(tb: Any, board: Any, dtz_table: str, fen: str) -> dict[str, Any]:
    """:func:`probe_one` where a DTZ table is missing (a WDL-only set): the
    position's WDL, and each legal move's WDL for the side playing it
    (ranked best first), with DTZ null and ``dtz_missing`` naming the table."""
    import pyfathom

    try:
        wdl = int(tb.probe_wdl(board))
        moves = []
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            if child.is_checkmate():
                move_wdl = 2
            elif child.is_stalemate():
                move_wdl = 0
            else:
                move_wdl = -int(tb.probe_wdl(child))
            moves.append({"uci": move.uci(), "san": board.san(move), "wdl": move_wdl,
                          "dtz": None, "dtz_precise": None, "rank": None})
    except pyfathom.FathomError as e:
        raise CliError(position_error(fen, e)) from None
    moves.sort(key=lambda m: -m["wdl"])  # stable: the move order of python-chess within a class
    best = moves[0] if moves else None
    return {
        "fen": board.fen(),
        "turn": "white" if board.turn else "black",
        "wdl": wdl,
        "dtz": None,
        "dtz_precise": None,
        "dtz_missing": dtz_table,
        "wdl_50": wdl,
        "halfmove_clock": board.halfmove_clock,
        "state": "checkmate" if board.is_checkmate() else "stalemate" if board.is_stalemate() else None,
        "best_move": best["uci"] if best else None,
        "best_move_san": best["san"] if best else None,
        "moves": moves,
    }


def print_probe(result: dict[str, Any], out: IO[str]) -> None:
    """Write :func:`probe_one`'s result as text: the position's outcome, then
    a table of the moves."""
    wdl = result["wdl"]
    lines = [result["fen"]]
    if result["dtz"] is None:  # a WDL-only set
        lines.append(f"  {result['turn']} to move: {_WDL_WORDS[wdl]} (WDL {_signed(wdl)}), "
                     f"DTZ unavailable (no DTZ table {result['dtz_missing']}; "
                     f"moves ranked by WDL only)")
    else:
        head = (f"  {result['turn']} to move: {_WDL_WORDS[wdl]} (WDL {_signed(wdl)}), "
                f"DTZ {_dtz_text(result['dtz'], result['dtz_precise'])}")
        if not result["dtz_precise"] and result["dtz"] != 0:
            head += " (DTZ stored rounded to moves: may be one ply more)"
        lines.append(head)
    if result["wdl_50"] != wdl:
        lines.append(f"  with the halfmove clock at {result['halfmove_clock']}: "
                     f"{_WDL_WORDS[result['wdl_50']]} under the 50-move rule")
    if result["state"] == "checkmate":
        lines.append(f"  checkmate: {result['turn']} is mated")
    elif result["state"] == "stalemate":
        lines.append("  stalemate")
    if result["moves"]:
        rows = [("move", "result", "WDL", "DTZ")]
        for m in result["moves"]:
            dtz = "-" if m["dtz"] is None else _dtz_text(m["dtz"], m["dtz_precise"])
            rows.append((m["san"], _WDL_WORDS[m["wdl"]], _signed(m["wdl"]), dtz))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        for r in rows:
            lines.append("  " + "  ".join([
                r[0].ljust(widths[0]), r[1].ljust(widths[1]),
                r[2].rjust(widths[2]), r[3].rjust(widths[3]),
            ]).rstrip())
    out.write("\n".join(lines) + "\n")
