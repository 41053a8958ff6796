"""The per-board probes written against the CPython API
(``pyfathom/_c/board_calls.c``: ``board_wdl``, ``board_dtz``, the answer
calls ``wdl_answer``, ``dtz_answer``, ``probe_answer`` with ``probe_record``,
and ``pin``).

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
from pyfathom._bindings import lowlevel as ll

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
        with pytest.raises(TypeError, match=rf"{name}\(\) takes 10 arguments \(9 given\)"):
            call(tablebase._pinned, *args[:-1])
        for extra in (1, 3):
            with pytest.raises(TypeError, match=rf"takes 10 arguments \({10 + extra} given\)"):
                call(tablebase._pinned, *args, *[0] * extra)
    answer_args = _answer_args(args)
    for call in _ANSWERS:
        for wrong in (answer_args[:-1], (*answer_args, chess.Board)):
            with pytest.raises(TypeError, match=rf"{call.__name__}\(\) takes 11 arguments "
                                                rf"\({len(wrong) + 1} given\)"):
                call(tablebase._pinned, *wrong)
    with pytest.raises(TypeError, match=r"probe_record\(\) takes 2 arguments"):
        ll.probe_record(tablebase._pinned)
    with pytest.raises(TypeError, match=r"pin\(\) takes 6 arguments"):
        ll._core.pin(tablebase._h)


_ANSWERS = (ll.wdl_answer, ll.dtz_answer, ll.probe_answer)


def _answer_args(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """An answer call's board arguments for a row of _args (occupied_co
    as python-chess holds it, [black, white]), castling_rights 0 and a
    plain chess.Board, whose bitboards the call does not read."""
    white, black, *rest = row
    return ([black, white], *rest, 0, KQK)


def _expected_answer(call: Any, pinned: Any, lean: int) -> Any:
    """What an answer call gives for the lean result of the same probe."""
    if call is ll.wdl_answer:
        return pyfathom.WDL(lean - 2)
    if call is ll.dtz_answer:
        return lean >> 1
    return ll.probe_record(pinned, lean)


def test_the_answer_calls_answer_what_the_lean_probes_answer(tablebase: Any) -> None:
    """On every row of _rows: the final object for an answer (the WDL
    member itself, the DTZ, the Probe fields with python-chess's WDL of the
    DTZ), Deferred carrying the very lean result for a failure."""
    pinned = tablebase._pinned
    bad = []
    deferred = answered = 0
    for row in _rows(seed=5):
        for call in _ANSWERS:
            lean = (ll.board_wdl if call is ll.wdl_answer else ll.board_dtz)(pinned, *row)
            try:
                got = call(pinned, *_answer_args(row))
            except ll.Deferred as exc:
                deferred += 1
                if lean >= ll.LEAN_FAILURE_BOUND or exc.args != (lean,):
                    bad.append(f"{row}: {call.__name__} deferred {exc.args}, lean {lean}")
                continue
            answered += 1
            expected = _expected_answer(call, pinned, lean)
            if lean < ll.LEAN_FAILURE_BOUND or got != expected or type(got) is not type(expected):
                bad.append(f"{row}: {call.__name__} {got!r}, lean {lean}")
    assert not bad, P.mismatch_report("answer calls vs lean", deferred + answered, bad)
    assert deferred > 100 and answered > len(P.ALL_TABLES) * 10 * 3, (deferred, answered)
    # The WDL members are the enum's own, not equal ints.
    assert ll.wdl_answer(pinned, *_answer_args(_args(KQK))) is pyfathom.WDL.WIN


def test_probe_records_follow_python_chess_table(tablebase: Any) -> None:
    """A Probe record: the WDL of a DTZ, python-chess's table, at each edge; precise is the
    low bit; a lean failure is refused."""
    pinned = tablebase._pinned
    W = pyfathom.WDL
    for dtz, wdl in ((1, W.WIN), (100, W.WIN), (101, W.CURSED_WIN), (0, W.DRAW),
                     (-1, W.LOSS), (-100, W.LOSS), (-101, W.BLESSED_LOSS)):
        for precise in (0, 1):
            fields = ll.probe_record(pinned, dtz * 2 + precise)
            assert fields == (wdl, dtz, bool(precise)) and fields[0] is wdl, (dtz, precise)
            assert type(fields) is pyfathom.Probe and type(fields[2]) is bool
    with pytest.raises(ValueError, match="not a DTZ answer"):
        ll.probe_record(pinned, ll.LEAN_FAILED + pyfathom.Status.MISSING_TABLE)
    with pytest.raises(ValueError, match="not a DTZ answer"):
        ll.probe_record(pinned, 2**40)
    with pytest.raises(ValueError):
        ll.probe_record("tb", 0)


def test_the_answer_calls_probe_only_plain_boards(tablebase: Any) -> None:
    """An answer call probes a board only when type(board) is the pinned
    class exactly, castling_rights is false (0, or anything false) and
    occupied_co a list of two exact ints; anything else raises Deferred
    with BOARD_UNCHECKED, with nothing probed; the instance is still
    checked first, and castling_rights read for its truth value."""
    import chess.variant

    class Subclass(chess.Board):
        pass

    pinned = tablebase._pinned
    occ, *pieces = _answer_args(_args(KQK))[:-2]
    unchecked = ll.BOARD_UNCHECKED
    assert unchecked < ll.LEAN_FAILED < ll.LEAN_FAILURE_BOUND
    for call in _ANSWERS:
        answer = call(pinned, occ, *pieces, 0, KQK)
        for castling in (0, False, None, "", 2**70 - 2**70):
            assert call(pinned, occ, *pieces, castling, KQK) == answer
        for castling, board, colours in (
                (chess.BB_H1, KQK, occ), (1, KQK, occ), (0, Subclass(KQK.fen()), occ),
                (0, chess.variant.AtomicBoard(KQK.fen()), occ), (0, KQK.fen(), occ),
                (0, KQK, tuple(occ)), (0, KQK, occ[:1]), (0, KQK, [*occ, 0]),
                (0, KQK, [occ[0], True]), (0, KQK, [occ[0], float(occ[1])]),
                (0, KQK, None)):
            with pytest.raises(ll.Deferred) as deferred:
                call(pinned, colours, *pieces, castling, board)
            assert deferred.value.args == (unchecked,), (castling, board, colours)
        # Unchecked boards are not probed: not even their bitboards are read.
        with pytest.raises(ll.Deferred):
            call(pinned, occ, "x", *pieces[1:], 1, KQK)
        with pytest.raises(TypeError):
            call(pinned, occ, "x", *pieces[1:], 0, KQK)
        with pytest.raises(ValueError, match="invalid PyCapsule"):
            call("tb", occ, *pieces, 0, KQK)
        for wrong in (None, _foreign_capsule(), tablebase._h):
            with pytest.raises((TypeError, ValueError)):
                call(wrong, occ, *pieces, 0, KQK)

        class NoTruth:
            def __bool__(self) -> bool:
                raise ZeroDivisionError("no truth value")

        with pytest.raises(ZeroDivisionError, match="no truth value"):
            call(pinned, occ, *pieces, NoTruth(), KQK)


def test_an_answer_call_probes_only_the_pinned_class(syzygy_dir: Path) -> None:
    """The board class is the pinned one's: a capsule pinned for another
    class defers chess.Board itself (as a closed tablebase's, pinned anew
    for its class)."""
    tb = pyfathom.open_tablebase(syzygy_dir)

    class Subclass(chess.Board):
        pass

    pinned = ll.pin(tb._h, Subclass)
    args = _answer_args(_args(KQK))
    with pytest.raises(ll.Deferred):
        ll.wdl_answer(pinned, *args)
    assert ll.wdl_answer(pinned, *args[:-1], Subclass(KQK.fen())) is pyfathom.WDL.WIN
    address = int(ll.ffi.cast("uintptr_t", tb._h))
    wdls = tuple(pyfathom.WDL)
    for wrong in ((tb._h, 0, chess.Board, wdls, ll.Deferred, pyfathom.Probe),
                  (tb._h, address, chess.Board, (1, 2), ll.Deferred, pyfathom.Probe),
                  (tb._h, address, chess.Board, wdls, KeyError("no class"), pyfathom.Probe),
                  (tb._h, address, chess.Board, wdls, ll.Deferred, list)):
        with pytest.raises((TypeError, ValueError)):
            ll._core.pin(*wrong)
    tb.close()


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


class _ColoursAsTuple(chess.Board):
    """A board whose occupied_co is no list (set per instance below)."""


def test_an_occupied_co_that_is_no_list_of_two_ints_is_read_in_python(tablebase: Any) -> None:
    """The answer calls read occupied_co only as python-chess holds it (a
    list of two ints); any other value goes to the slow path, which reads
    occ[1] and occ[0] as the methods always did: a tuple or int subclasses
    answer the same, a longer list uses its first two items, something
    that is no sequence raises the TypeError Python raises for it."""
    fen = "8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"
    board = chess.Board(fen)
    expected = [probe(board) for probe in (tablebase.probe_wdl, tablebase.probe_dtz,
                                           tablebase.probe)]
    assert expected[:2] == [pyfathom.WDL.LOSS, -53]
    black, white = board.occupied_co
    class Bits(int):
        pass

    for occ in ((black, white), [black, white, 7], [black, Bits(white)], [Bits(black), white]):
        odd = chess.Board(fen)
        odd.occupied_co = occ  # type: ignore[assignment]
        got = [probe(odd) for probe in (tablebase.probe_wdl, tablebase.probe_dtz, tablebase.probe)]
        assert got == expected, occ
        assert type(got[0]) is pyfathom.WDL and type(got[2]) is pyfathom.Probe
    for occ, error in ((None, "'NoneType' object is not subscriptable"),
                       ([black], "list index out of range"),
                       ([black, "w"], None)):
        odd = chess.Board(fen)
        odd.occupied_co = occ  # type: ignore[assignment]
        for probe in (tablebase.probe_wdl, tablebase.probe_dtz, tablebase.probe,
                      tablebase.get_wdl, tablebase.get_dtz):
            with pytest.raises((TypeError, IndexError), match=error):
                probe(odd)


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
        ll._core.pin(tablebase._h, 0, chess.Board, tuple(pyfathom.WDL), ll.Deferred,
                     pyfathom.Probe)


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
    assert ll.wdl_answer(pinned, *_answer_args(_args(KQK))) is expected
    for probe in (tb.probe_wdl, tb.probe_dtz, tb.probe):  # closed: an empty tablebase
        with pytest.raises(pyfathom.MissingTableError, match="KQvK"):
            probe(KQK)
    assert tb.get_wdl(KQK, 5) == 5 and tb.probe_wdl(chess.Board("8/8/8/8/8/2k5/8/K7 w - - 0 1")) == 0
    del pinned
    gc.collect()
    assert owner() is None, "the instance must be freed with its last capsule"


def test_pin_holds_exactly_one_reference(syzygy_dir: Path) -> None:
    """pin() holds one reference to the cdata, the class, each WDL member
    and the exception class, dropped with the capsule; 1,000 calls of each
    kind, answered or deferred (with castling rights, a subclass, a failed
    probe), through the calls and through Tablebase, keep no reference to
    anything they were given or returned."""
    tb = pyfathom.open_tablebase(syzygy_dir)
    handle = tb._h

    class Subclass(chess.Board):
        pass

    held = (handle, Subclass, *pyfathom.WDL, ll.Deferred)
    before = [sys.getrefcount(x) for x in held]
    pinned = ll.pin(handle, Subclass)
    assert [sys.getrefcount(x) for x in held] == [n + 1 for n in before]
    castling = chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    missing = chess.Board("7k/8/8/8/8/8/8/KQQQ4 b - - 0 1")  # no KQQQvK table
    boards = (KQK, castling, missing, Subclass(KQK.fen()), Subclass(missing.fen()))
    watched = (*boards, chess.Board, Subclass, *pyfathom.WDL, ll.Deferred, *KQK.occupied_co)
    counts = [sys.getrefcount(x) for x in watched]
    for i in range(1000):
        ll.board_wdl(pinned, *_args(KQK))
        for board in boards:
            args = (board.occupied_co, *_args(board)[2:], board.castling_rights, board)
            for call in _ANSWERS:
                try:
                    call(pinned, *args)
                except ll.Deferred:
                    pass
        # Tablebase's slow paths format a FEN and raise: 100 of each suffice.
        for board in boards if i % 10 == 0 else boards[::3]:
            for probe in (tb.probe_wdl, tb.probe_dtz, tb.probe):
                try:
                    probe(board)
                except KeyError:
                    pass
    del board, args
    assert [sys.getrefcount(x) for x in watched] == counts
    del pinned, watched, boards
    assert [sys.getrefcount(x) for x in held] == before
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
