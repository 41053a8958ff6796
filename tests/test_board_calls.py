"""The per-board probes written against the CPython API
(``pyfathom/_c/board_calls.c``: ``board_wdl``, ``board_dtz``, ``pin``).

The answers themselves are checked against python-chess through
``Tablebase.probe_wdl`` / ``probe_dtz`` / ``probe`` (test_oracle_*), which
call these.  Here: the same results as the cffi wrappers of the lean probes
on every kind of row (answers and each failure code), and the argument
handling that a cffi call used to do for us (types, None, out-of-range
values, the instance capsule and its lifetime).
"""

from __future__ import annotations

import gc
import os
import random
import shlex
import subprocess
import sys
import sysconfig
import weakref
from pathlib import Path
from typing import Any

import chess
import pytest

from support import positions as P

import pyfathom
from pyfathom import _lowlevel as ll

KQK = chess.Board("8/8/8/8/8/2k5/8/K6Q w - - 0 1")


def _args(board: chess.Board) -> tuple[Any, ...]:
    """The nine board arguments, as Tablebase passes them (ep may be None)."""
    occ = board.occupied_co
    return (occ[chess.WHITE], occ[chess.BLACK], board.queens, board.rooks,
            board.bishops, board.knights, board.pawns, board.ep_square, board.turn)


def _rows(seed: int) -> list[tuple[Any, ...]]:
    """Board arguments of answered and failing probes: random positions of
    every table (some with en passant), five-piece boards, and rows made
    invalid by moving, adding or removing bits, and one of eight pieces."""
    rng = random.Random(seed)
    rows = []
    for key in P.ALL_TABLES:
        for board in P.table_sample(key, 12, seed=seed, ep_share=0.25, push_share=0.25):
            rows.append(_args(board))
    for _ in range(40):
        board = P.random_position(rng, rng.choice(P.TABLES_4))
        board.set_piece_at(rng.choice([s for s in chess.SQUARES if not board.piece_at(s)]),
                           chess.Piece(chess.KNIGHT, rng.random() < 0.5))
        rows.append(_args(board))  # five pieces: answered or a missing table
    rows.append(_args(chess.Board("4k3/pppp4/8/8/8/8/PP6/4K3 w - - 0 1")))  # eight pieces
    for _ in range(200):
        args = list(rng.choice(rows))
        i = rng.randrange(7)
        args[i] ^= 1 << rng.randrange(64)
        rows.append(tuple(args))  # a bit too many or too few somewhere
    return rows


@pytest.mark.parametrize("kind", ["wdl", "dtz"])
def test_same_results_as_the_cffi_lean_probes(tablebase: Any, kind: str) -> None:
    """Every row, answered or not, gives the same int as the cffi wrapper of
    fathom_probe_{wdl,dtz}_lean (the same C function): the arguments arrive
    in the right order, with the right values, whatever the row holds."""
    board_call = getattr(ll, f"board_{kind}")
    cffi_call = getattr(ll.lib, f"fathom_probe_{kind}_lean")
    pinned = tablebase._pinned
    handle = tablebase._h
    rows = _rows(seed=7)
    outcomes: dict[str, int] = {}
    bad = []
    for row in rows:
        *bitboards, ep, turn = row
        expected = cffi_call(handle, *bitboards, ep or 0, turn)
        got = board_call(pinned, *row)
        if got != expected:
            bad.append(f"{row}: board_{kind} {got}, cffi {expected}")
        status = 0 if expected >= ll.LEAN_FAILURE_BOUND else expected - ll.LEAN_FAILED
        outcomes[ll.strerror(status)] = outcomes.get(ll.strerror(status), 0) + 1
    assert not bad, P.mismatch_report(f"board_{kind} vs cffi", len(rows), bad)
    # The rows did reach the failure paths, not only answers.
    failures = {ll.strerror(s) for s in (pyfathom.Status.TOO_MANY_PIECES,
                                         pyfathom.Status.INVALID_POSITION,
                                         pyfathom.Status.MISSING_TABLE)}
    assert failures <= outcomes.keys(), outcomes
    assert outcomes[ll.strerror(pyfathom.Status.OK)] > len(P.ALL_TABLES) * 10, outcomes


def test_ep_and_turn_are_read_as_python_chess_writes_them(tablebase: Any) -> None:
    """ep_square None and 0 both mean none (a1 is never an en-passant
    square); a square that is no square (negative, 64 or past any C long)
    makes the position invalid instead of raising; turn is read for its
    truth value, as a bool or anything else."""
    pinned = tablebase._pinned
    bitboards = _args(KQK)[:7]
    answer = ll.board_wdl(pinned, *bitboards, None, True)
    assert answer == pyfathom.WDL.WIN + 2
    assert ll.board_wdl(pinned, *bitboards, 0, True) == answer
    assert ll.board_wdl(pinned, *bitboards, None, 1) == answer
    assert ll.board_wdl(pinned, *bitboards, None, False) == ll.board_wdl(pinned, *bitboards, None, 0)
    invalid = ll.LEAN_FAILED + pyfathom.Status.INVALID_POSITION
    for ep in (-1, 64, 2**31, 2**70, -(2**70)):
        assert ll.board_wdl(pinned, *bitboards, ep, True) == invalid, ep
        assert ll.board_dtz(pinned, *bitboards, ep, True) == invalid, ep


def test_bitboards_are_read_modulo_2_64(tablebase: Any) -> None:
    """A bitboard is any int, read as its low 64 bits (python-chess keeps
    them in 0 .. 2**64 - 1); the core validates what that makes."""
    pinned = tablebase._pinned
    white, black, queens, *rest = _args(KQK)
    answer = ll.board_wdl(pinned, white, black, queens, *rest)
    assert ll.board_wdl(pinned, white + 2**64, black, queens + 2**65, *rest) == answer
    # -1 is every square: 64 pieces.
    assert (ll.board_wdl(pinned, -1, black, queens, *rest)
            == ll.LEAN_FAILED + pyfathom.Status.TOO_MANY_PIECES)


@pytest.mark.parametrize("bad", [1.5, "1", None, b"\x01", [1]])
def test_a_bitboard_that_is_no_int_is_a_type_error(tablebase: Any, bad: object) -> None:
    args = list(_args(KQK))
    for i in range(7):
        row = args.copy()
        row[i] = bad
        with pytest.raises(TypeError):
            ll.board_wdl(tablebase._pinned, *row)
    row = args.copy()
    row[7] = bad
    if bad is not None:  # None is "no en-passant square"
        with pytest.raises(TypeError):
            ll.board_dtz(tablebase._pinned, *row)


def test_the_argument_count_is_checked(tablebase: Any) -> None:
    args = _args(KQK)
    for call, name in ((ll.board_wdl, "board_wdl"), (ll.board_dtz, "board_dtz")):
        with pytest.raises(TypeError, match=rf"{name}\(\) takes 10 or 13 arguments \(9 given\)"):
            call(tablebase._pinned, *args[:-1])
        for extra in (1, 2, 4):
            with pytest.raises(TypeError, match=rf"takes 10 or 13 arguments \({10 + extra} given\)"):
                call(tablebase._pinned, *args, *[0] * extra)
    with pytest.raises(TypeError, match=r"pin\(\) takes 2 arguments"):
        ll._core.pin(tablebase._h)


def test_the_checked_form_probes_only_plain_boards(tablebase: Any) -> None:
    """board_wdl / board_dtz(..., castling_rights, board, variant), as
    Tablebase's probes call them: the probe's answer when type(board) is
    variant exactly and castling_rights is false (0, or anything false);
    BOARD_UNCHECKED, with nothing probed, for castling rights, a subclass,
    another variant's board or another object; the instance is still
    checked first, and castling_rights read for its truth value."""
    import chess.variant

    class Subclass(chess.Board):
        pass

    pinned, args = tablebase._pinned, _args(KQK)
    unchecked = ll.BOARD_UNCHECKED
    assert unchecked < ll.LEAN_FAILED < ll.LEAN_FAILURE_BOUND
    for call in (ll.board_wdl, ll.board_dtz):
        answer = call(pinned, *args)
        assert answer >= ll.LEAN_FAILURE_BOUND
        for castling in (0, False, None, ""):
            assert call(pinned, *args, castling, KQK, chess.Board) == answer
        assert call(None, *args, 0, KQK, chess.Board) == ll.LEAN_FAILED + pyfathom.Status.ARGUMENT
        for castling, board, variant in (
                (chess.BB_H1, KQK, chess.Board), (1, KQK, chess.Board),
                (0, Subclass(KQK.fen()), chess.Board), (0, KQK, Subclass),
                (0, chess.variant.AtomicBoard(KQK.fen()), chess.Board),
                (0, KQK.fen(), chess.Board), (0, KQK, None)):
            assert call(pinned, *args, castling, board, variant) == unchecked, (castling, board)
        # Unchecked boards are not probed: not even their bitboards are read.
        assert call(pinned, "x", *args[1:], 1, KQK, chess.Board) == unchecked
        with pytest.raises(TypeError):
            call(pinned, "x", *args[1:], 0, KQK, chess.Board)
        with pytest.raises(ValueError, match="invalid PyCapsule"):
            call("tb", *args, 1, KQK, chess.Board)

        class NoTruth:
            def __bool__(self) -> bool:
                raise ZeroDivisionError("no truth value")

        with pytest.raises(ZeroDivisionError, match="no truth value"):
            call(pinned, *args, NoTruth(), KQK, chess.Board)


def test_probes_of_boards_left_to_python(tablebase: Any) -> None:
    """What the checked call leaves to Python gives what it gave before the
    check moved into C: a subclass is probed (and answers as its base
    class), castling rights and another variant's board raise, named; an
    attribute that is no int is a TypeError; eight pieces and an invalid
    board raise as ever (a closed tablebase: test_a_pinned_instance_outlives_close)."""
    import chess.variant

    class Subclass(chess.Board):
        pass

    fen = "8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"
    board, sub = chess.Board(fen), Subclass(fen)
    assert tablebase.probe_wdl(sub) == tablebase.probe_wdl(board) == pyfathom.WDL.LOSS
    assert tablebase.probe_dtz(sub) == tablebase.probe_dtz(board) == -53
    assert tablebase.probe(sub) == tablebase.probe(board)
    castling = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    for probe in (tablebase.probe_wdl, tablebase.probe_dtz, tablebase.probe):
        for b in (castling, Subclass(castling.fen())):
            with pytest.raises(pyfathom.CastlingRightsError, match="castling rights: 4k3/"):
                probe(b)
        with pytest.raises(pyfathom.UnsupportedPositionError,
                           match="tables for standard chess, probed with atomic"):
            probe(chess.variant.AtomicBoard(fen))
        with pytest.raises(pyfathom.TooManyPiecesError, match="up to 7 pieces, not 8"):
            probe(chess.Board("4k3/pppp4/8/8/8/8/PP6/4K3 w - - 0 1"))
        with pytest.raises(pyfathom.InvalidPositionError, match="invalid position"):
            probe(chess.Board("8/8/8/8/8/2k5/8/K1k4Q w - - 0 1"))
        odd = chess.Board(fen)
        odd.queens = "none"  # type: ignore[assignment]
        with pytest.raises(TypeError):
            probe(odd)
        sub.pawns = 1.5  # type: ignore[assignment]
        with pytest.raises(TypeError):
            probe(sub)
        sub.pawns = 0
    assert tablebase.get_wdl(castling) is None and tablebase.get_dtz(castling, 7) == 7


def test_the_instance_must_be_a_pinned_capsule_or_none(tablebase: Any) -> None:
    """The instance argument is not an address: only a capsule made by pin()
    gets through (a capsule of another name, an int, the cffi cdata are
    refused before any C runs); None is answered FATHOM_ERR_ARGUMENT."""
    args = _args(KQK)
    for wrong in (int(ll.ffi.cast("uintptr_t", tablebase._h)), tablebase._h, "tb",
                  _foreign_capsule()):
        with pytest.raises((TypeError, ValueError)):
            ll.board_wdl(wrong, *args)
    assert ll.board_wdl(None, *args) == ll.LEAN_FAILED + pyfathom.Status.ARGUMENT
    assert ll.board_dtz(None, *args) == ll.LEAN_FAILED + pyfathom.Status.ARGUMENT
    with pytest.raises(ValueError, match="NULL instance"):
        ll._core.pin(tablebase._h, 0)


def _foreign_capsule() -> object:
    """A capsule of someone else's (the datetime C API's)."""
    import datetime  # noqa: F401 (its capsule is created on import)

    return __import__("_datetime").datetime_CAPI


def test_a_pinned_instance_outlives_close(syzygy_dir: Path) -> None:
    """A probe that has read ``_pinned`` before a concurrent close() still
    probes a live instance: the capsule holds the cdata that owns it.  Made
    deterministic here by keeping the capsule across close(); the instance
    is freed once the capsule goes (the sanitized run checks the accesses)."""
    tb = pyfathom.open_tablebase(syzygy_dir)
    expected = tb.probe_wdl(KQK)
    pinned = tb._pinned
    owner = weakref.ref(tb._h)
    tb.close()
    assert tb._pinned is not pinned
    gc.collect()
    assert owner() is not None, "the capsule must keep the instance's cdata alive"
    assert ll.board_wdl(pinned, *_args(KQK)) == int(expected) + 2
    with pytest.raises(pyfathom.MissingTableError):  # closed: an empty tablebase
        tb.probe_wdl(KQK)
    del pinned
    gc.collect()
    assert owner() is None, "the instance must be freed with its last capsule"


def test_pin_holds_exactly_one_reference(syzygy_dir: Path) -> None:
    tb = pyfathom.open_tablebase(syzygy_dir)
    handle = tb._h
    before = sys.getrefcount(handle)
    pinned = ll.pin(handle)
    assert sys.getrefcount(handle) == before + 1
    for _ in range(1000):
        ll.board_wdl(pinned, *_args(KQK))
    assert sys.getrefcount(handle) == before + 1
    # The checked form keeps no reference to the board or its class either.
    castling = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    counts = [sys.getrefcount(x) for x in (KQK, castling, chess.Board)]
    for _ in range(1000):
        ll.board_wdl(pinned, *_args(KQK), 0, KQK, chess.Board)
        ll.board_dtz(pinned, *_args(castling), castling.castling_rights, castling, chess.Board)
    assert [sys.getrefcount(x) for x in (KQK, castling, chess.Board)] == counts
    del pinned
    assert sys.getrefcount(handle) == before
    tb.close()


def test_fathom_tb_probe_wdl_is_the_cffi_call_without_cffi(syzygy_dir: Path) -> None:
    """pyfathom.fathom.tb_probe_wdl (this module's adapter) returns what
    Fathom's tb_probe_wdl returns through cffi on every row, with and without
    a 50-move clock or castling rights (both fail, as in Fathom); arguments
    cffi would refuse (negative or past 32 bits) fail the probe instead."""
    from pyfathom import fathom

    assert fathom.tb_probe_wdl is ll.fathom_tb_probe_wdl
    assert fathom.tb_init(str(syzygy_dir))
    try:
        bad = []
        answered = 0
        rows = _rows(seed=11)
        for row in rows:
            white, black, queens, rooks, bishops, knights, pawns, ep, turn = row
            kings = (white | black) & ~(queens | rooks | bishops | knights | pawns)
            bitboards = (white, black, kings, queens, rooks, bishops, knights, pawns)
            for rule50, castling in ((0, 0), (1, 0), (0, fathom.TB_CASTLING_K)):
                expected = ll.lib.tb_probe_wdl(*bitboards, rule50, castling, ep or 0, turn)
                got = fathom.tb_probe_wdl(*bitboards, rule50, castling, ep or 0, turn)
                if got != expected:
                    bad.append(f"{row} rule50={rule50} castling={castling}: {got}, cffi {expected}")
                answered += expected != fathom.TB_RESULT_FAILED
        assert not bad, P.mismatch_report("tb_probe_wdl vs cffi", 3 * len(rows), bad)
        assert answered > len(P.ALL_TABLES) * 10

        bitboards = (KQK.occupied_co[chess.WHITE], KQK.occupied_co[chess.BLACK], KQK.kings,
                     KQK.queens, KQK.rooks, KQK.bishops, KQK.knights, KQK.pawns)
        assert fathom.tb_probe_wdl(*bitboards, 0, 0, 0, True) == fathom.TB_WIN
        assert fathom.tb_probe_wdl(*bitboards, 0, 0, None, True) == fathom.TB_WIN
        for i, value in ((8, -1), (9, -1), (10, -1), (8, 2**40), (10, 2**80)):
            args: list[Any] = [*bitboards, 0, 0, 0, True]
            args[i] = value
            assert fathom.tb_probe_wdl(*args) == fathom.TB_RESULT_FAILED, (i, value)
        with pytest.raises(TypeError, match=r"tb_probe_wdl\(\) takes 12 arguments \(11 given\)"):
            fathom.tb_probe_wdl(*bitboards, 0, 0, 0)
        with pytest.raises(TypeError):
            fathom.tb_probe_wdl(*bitboards[:-1], 1.0, 0, 0, 0, True)
    finally:
        fathom.tb_free()
    # Without tables (after tb_free) every probe fails, as in Fathom.
    assert fathom.tb_probe_wdl(*bitboards, 0, 0, 0, True) == fathom.TB_RESULT_FAILED


def test_compiles_warning_free_with_the_core_flags(tmp_path: Path) -> None:
    """The adapter is held to the core's standard: C99, -Wall -Wextra,
    no warning (the module build itself does not stop on warnings)."""
    root = Path(__file__).resolve().parent.parent
    cc = shlex.split(os.environ.get("CC", "cc"))
    cmd = [*cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC",
           f"-I{sysconfig.get_paths()['include']}", f"-I{root / 'src' / 'fathom'}",
           "-c", str(root / "pyfathom" / "_c" / "board_calls.c"), "-o", str(tmp_path / "bc.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"


def test_tb_probe_wdl_shows_its_signature() -> None:
    """help(pyfathom.fathom.tb_probe_wdl) shows Fathom's twelve arguments
    (the C function's text signature), not just ``tb_probe_wdl(...)``."""
    import inspect

    from pyfathom import fathom

    params = list(inspect.signature(fathom.tb_probe_wdl).parameters)
    assert params == ["white", "black", "kings", "queens", "rooks", "bishops", "knights",
                      "pawns", "rule50", "castling", "ep", "turn"]
    assert "TB_RESULT_FAILED" in (fathom.tb_probe_wdl.__doc__ or "")
