"""The result types (WDL, Probe, RootProbe, RootMove) and probe_root's shape,
plus the drop-in promise: code written for chess.syzygy runs unchanged on
pyfathom.open_tablebase and sees the same numbers."""

from __future__ import annotations

import dataclasses
import enum
from pathlib import Path
from typing import Any, Callable

import chess
import chess.syzygy
import pytest

import pyfathom
from pyfathom import WDL, Probe, RootMove, RootProbe


# ---- WDL ---------------------------------------------------------------------

def test_wdl_values() -> None:
    assert issubclass(WDL, enum.IntEnum)
    assert [(m.name, int(m)) for m in WDL] == [
        ("LOSS", -2), ("BLESSED_LOSS", -1), ("DRAW", 0), ("CURSED_WIN", 1), ("WIN", 2)]
    assert WDL.WIN == 2 and -WDL.WIN == -2 and WDL(1) is WDL.CURSED_WIN
    assert repr(WDL.LOSS) == "WDL.LOSS"
    assert pyfathom.FAILED == -128 and pyfathom.FAILED_DTZ == -32768


def test_version() -> None:
    assert isinstance(pyfathom.__version__, str) and pyfathom.__version__.count(".") == 2


# ---- records ---------------------------------------------------------------------

def _records() -> list[Any]:
    move = chess.Move.from_uci("a7a8q")
    rm = RootMove(move, WDL.WIN, 1, 1000)
    return [Probe(WDL.WIN, 1, True), rm, RootProbe(move, WDL.WIN, 1, [rm])]


@pytest.mark.parametrize("record", _records(), ids=lambda r: type(r).__name__)
def test_records_are_immutable(record: Any) -> None:
    field = record._fields[0]
    with pytest.raises(AttributeError):
        setattr(record, field, None)
    with pytest.raises(AttributeError):
        record.extra = 1
    assert not dataclasses.is_dataclass(record) or dataclasses.fields(record)
    assert type(record)(*record) == record
    assert hash(Probe(WDL.WIN, 1, True)) == hash(Probe(WDL.WIN, 1, True))


def test_record_reprs() -> None:
    probe, rm, root = _records()
    assert repr(probe) == "Probe(wdl=WDL.WIN, dtz=1, dtz_precise=True)"
    assert repr(rm) == ("RootMove(move=Move.from_uci('a7a8q'), wdl=WDL.WIN, dtz=1, rank=1000, "
                        "unsettled=False)")
    assert repr(root) == (
        "RootProbe(best_move=Move.from_uci('a7a8q'), wdl=WDL.WIN, dtz=1, "
        "moves=[RootMove(move=Move.from_uci('a7a8q'), wdl=WDL.WIN, dtz=1, rank=1000, "
        "unsettled=False)])")
    assert Probe._fields == ("wdl", "dtz", "dtz_precise")
    # unsettled came last, with a default: older four-field calls still work.
    assert RootMove._fields == ("move", "wdl", "dtz", "rank", "unsettled")
    assert RootProbe._fields == ("best_move", "wdl", "dtz", "moves")


# ---- probe() ----------------------------------------------------------------------

def _epd_boards(endgame_epd: Path) -> list[chess.Board]:
    boards = []
    for line in endgame_epd.read_text().splitlines():
        if line.strip():
            board, _ = chess.Board.from_epd(line)
            boards.append(board)
    return boards


def test_probe_agrees_with_probe_wdl_and_probe_dtz(tablebase: pyfathom.Tablebase,
                                                   endgame_epd: Path) -> None:
    # The WDL of probe() is derived from the DTZ (one C call): check the
    # derivation against the WDL probe on every position of endgame.epd and
    # on every position one move away from them.
    seen = 0
    for root in _epd_boards(endgame_epd):
        for board in [root] + [_after(root, m) for m in root.legal_moves]:
            if chess.popcount(board.occupied) > 4:
                continue
            p = tablebase.probe(board)
            assert type(p) is Probe and type(p.wdl) is WDL and type(p.dtz_precise) is bool
            assert p.wdl == tablebase.probe_wdl(board), board.fen()
            assert p.dtz == tablebase.probe_dtz(board), board.fen()
            seen += 1
    assert seen > 1000


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    child = board.copy(stack=False)
    child.push(move)
    return child


# ---- probe_root -------------------------------------------------------------------

ROOT_FENS = [
    "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1",       # KRvK, black loses
    "4k3/8/4K3/8/8/8/8/7R w - - 0 1",        # mate in one
    "8/8/8/8/8/8/5k2/3K2Q1 b - - 0 1",       # KQvK, Kxg1 draws
    "8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1",     # KBNvK
    "8/4P3/8/8/8/8/1k6/3K4 w - - 0 1",       # promotion
    "8/8/8/8/2pP4/8/8/K1k5 b - d3 0 1",      # en passant available
    "1k6/1P6/1K6/8/8/8/8/8 w - - 0 1",       # KPvK draw
    "8/8/8/8/8/8/8/k1K1B3 w - - 0 1",        # KBvK: all draws
]


@pytest.mark.parametrize("fen", ROOT_FENS)
def test_probe_root_structure(tablebase: pyfathom.Tablebase,
                              oracle: chess.syzygy.Tablebase, fen: str) -> None:
    board = chess.Board(fen)
    assert board.is_valid()
    root = tablebase.probe_root(board)
    assert type(root) is RootProbe and type(root.wdl) is WDL
    assert sorted(m.move.uci() for m in root.moves) == sorted(m.uci() for m in board.legal_moves)
    assert root.best_move == root.moves[0].move
    assert root.wdl == oracle.probe_wdl(board)  # halfmove clock 0
    assert root.dtz == oracle.probe_dtz(board)
    ranks = [m.rank for m in root.moves]
    assert ranks == sorted(ranks, reverse=True), "moves must come best first"
    for m in root.moves:
        assert type(m) is RootMove and type(m.wdl) is WDL
        after = _after(board, m.move)
        # From the mover's point of view: the opposite of the child's WDL
        # (clock 0 here, and the child's clock is at most 1 ply later).
        expected = -oracle.probe_wdl(after)
        if after.halfmove_clock == 0 or expected in (-1, 0, 1):
            assert m.wdl == expected, (m, fen)
        else:
            assert (m.wdl > 0) == (expected > 0) and (m.wdl < 0) == (expected < 0), (m, fen)
        assert (m.dtz > 0) == (m.wdl > 0) and (m.dtz < 0) == (m.wdl < 0), m
    # The best move keeps the root's value.
    assert root.moves[0].wdl == root.wdl


def test_probe_root_checkmate_and_stalemate(tablebase: pyfathom.Tablebase,
                                            oracle: chess.syzygy.Tablebase) -> None:
    mate = chess.Board("4k2R/8/4K3/8/8/8/8/8 b - - 1 1")
    assert mate.is_checkmate()
    root = tablebase.probe_root(mate)
    assert root == RootProbe(None, WDL.LOSS, -1, [])
    assert root.dtz == oracle.probe_dtz(mate) == -1
    assert tablebase.probe(mate)[:2] == (WDL.LOSS, -1)
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stalemate.is_stalemate()
    assert tablebase.probe_root(stalemate) == RootProbe(None, WDL.DRAW, 0, [])


def test_probe_root_promotions(tablebase: pyfathom.Tablebase) -> None:
    board = chess.Board("8/4P3/8/8/8/8/1k6/3K4 w - - 0 1")
    root = tablebase.probe_root(board)
    promos = {m.move.promotion for m in root.moves if m.move.from_square == chess.E7}
    assert promos == {chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT}
    assert root.best_move is not None and root.best_move.promotion in (chess.QUEEN, chess.ROOK)
    by_uci = {m.move.uci(): m for m in root.moves}
    assert by_uci["e7e8n"].wdl == WDL.DRAW and by_uci["e7e8b"].wdl == WDL.DRAW


def test_probe_root_en_passant(tablebase: pyfathom.Tablebase) -> None:
    board = chess.Board("8/8/8/8/2pP4/8/8/K1k5 b - d3 0 1")
    root = tablebase.probe_root(board)
    assert chess.Move.from_uci("c4d3") in [m.move for m in root.moves]


def test_best_move_wins_within_50_moves(tablebase: pyfathom.Tablebase) -> None:
    # Playing best_move for both sides from a won position mates before a
    # 50-move draw.
    for fen in ("8/8/8/8/8/8/2R5/1K1k4 w - - 0 1", "8/2K5/4B3/3N4/8/8/4k3/8 w - - 0 1",
                "8/4P3/8/8/8/8/1k6/3K4 w - - 0 1"):
        board = chess.Board(fen)
        assert tablebase.probe_wdl(board) == WDL.WIN
        for _ in range(300):
            root = tablebase.probe_root(board)
            if root.best_move is None:
                break
            board.push(root.best_move)
            assert not board.is_fifty_moves(), fen
        assert board.is_checkmate() and board.turn == chess.BLACK, fen


# ---- drop-in for chess.syzygy ------------------------------------------------------

def _client_code(open_tablebase: Callable[..., Any], directory: str) -> list[Any]:
    """Written against chess.syzygy's documented interface only."""
    results: list[Any] = []
    with open_tablebase(directory) as tablebase:
        for fen in ("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1", "8/8/8/8/8/8/2R5/1K1k4 w - - 0 1",
                    "1k6/1P6/1K6/8/8/8/8/8 w - - 0 1", chess.STARTING_FEN):
            board = chess.Board(fen)
            results.append(tablebase.get_wdl(board))
            results.append(tablebase.get_dtz(board, default=12345))
            if results[-1] != 12345:
                results.append(tablebase.probe_wdl(board) * 10 + 1)
                results.append(abs(tablebase.probe_dtz(board)))
                results.append(int(tablebase.probe_wdl(board)) in (-2, -1, 0, 1, 2))
        try:
            tablebase.probe_wdl(chess.Board())
        except KeyError as e:
            results.append(type(e).__mro__.count(KeyError))
        results.append(tablebase.add_directory(directory, load_wdl=True, load_dtz=True) > 0)
    return results


def test_drop_in_for_chess_syzygy(syzygy_dir: Path) -> None:
    theirs = _client_code(chess.syzygy.open_tablebase, str(syzygy_dir))
    ours = _client_code(pyfathom.open_tablebase, str(syzygy_dir))
    assert ours == theirs


def test_same_method_names_as_chess_syzygy() -> None:
    for name in ("add_directory", "probe_wdl", "probe_dtz", "get_wdl", "get_dtz",
                 "close", "__enter__", "__exit__"):
        assert callable(getattr(pyfathom.Tablebase, name)), name
    assert issubclass(pyfathom.MissingTableError, chess.syzygy.MissingTableError)


def test_two_instances_coexist(syzygy_dir: Path, tmp_path: Path) -> None:
    import shutil
    krk, kqk = tmp_path / "krk", tmp_path / "kqk"
    for d, key in ((krk, "KRvK"), (kqk, "KQvK")):
        d.mkdir()
        for ext in ("rtbw", "rtbz"):
            shutil.copyfile(syzygy_dir / f"{key}.{ext}", d / f"{key}.{ext}")
    rook = chess.Board("8/8/8/8/8/8/2R5/1K1k4 w - - 0 1")
    queen = chess.Board("8/8/8/8/8/8/Q7/1K1k4 w - - 0 1")
    with pyfathom.open_tablebase(krk) as a, pyfathom.open_tablebase(kqk) as b:
        assert a.probe_wdl(rook) == WDL.WIN and a.get_wdl(queen) is None
        assert b.probe_wdl(queen) == WDL.WIN and b.get_wdl(rook) is None
        assert a.mapped_count == 1 and b.mapped_count == 1
        a.close()
        assert b.probe_dtz(queen) > 0


def test_thread_shared_board(tablebase: pyfathom.Tablebase) -> None:
    import concurrent.futures
    board = chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
    fen = board.fen()
    expected = (tablebase.probe_wdl(board), tablebase.probe_dtz(board))

    def work(_: int) -> tuple[int, int]:
        out = (0, 0)
        for _ in range(200):
            out = (tablebase.probe_wdl(board), tablebase.probe_dtz(board))
        return out

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert set(pool.map(work, range(8))) == {expected}
    assert board.fen() == fen


# ---- pyfathom.fathom: the Fathom-compatible module ----------------------------------

def _bitboards(board: chess.Board) -> tuple[int, ...]:
    return (board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.kings,
            board.queens, board.rooks, board.bishops, board.knights, board.pawns)


def test_fathom_module(syzygy_dir: Path, tablebase: pyfathom.Tablebase) -> None:
    from pyfathom import fathom as f

    assert (f.TB_LOSS, f.TB_BLESSED_LOSS, f.TB_DRAW, f.TB_CURSED_WIN, f.TB_WIN) == (0, 1, 2, 3, 4)
    assert f.TB_RESULT_FAILED == 0xFFFFFFFF
    assert f.TB_RESULT_CHECKMATE == f.TB_SET_WDL(0, f.TB_WIN)
    assert f.TB_RESULT_STALEMATE == f.TB_SET_WDL(0, f.TB_DRAW)
    packed = f.TB_SET_DTZ(f.TB_SET_EP(f.TB_SET_PROMOTES(f.TB_SET_FROM(f.TB_SET_TO(
        f.TB_SET_WDL(0, 3), 63), 1), f.TB_PROMOTES_KNIGHT), 1), 4095)
    assert (f.TB_GET_WDL(packed), f.TB_GET_TO(packed), f.TB_GET_FROM(packed),
            f.TB_GET_PROMOTES(packed), f.TB_GET_EP(packed), f.TB_GET_DTZ(packed)) == (
        3, 63, 1, f.TB_PROMOTES_KNIGHT, 1, 4095)
    with pytest.raises(AttributeError):
        f.NO_SUCH_NAME  # noqa: B018

    assert f.tb_init(str(syzygy_dir))
    try:
        assert f.TB_LARGEST == f.largest() == 4
        board = chess.Board("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
        bb = _bitboards(board)
        assert f.tb_probe_wdl(*bb, 0, 0, 0, board.turn) == f.TB_LOSS
        assert f.tb_probe_wdl(*bb, 1, 0, 0, board.turn) == f.TB_RESULT_FAILED  # rule50 != 0
        assert f.tb_probe_wdl(*bb, 0, f.TB_CASTLING_q, 0, board.turn) == f.TB_RESULT_FAILED
        assert f.tb_probe_root(*bb, 0, f.TB_CASTLING_K, 0, board.turn) == (f.TB_RESULT_FAILED, [])

        res, results = f.tb_probe_root(*bb, 0, 0, 0, board.turn)
        root = tablebase.probe_root(board)
        assert root.best_move == chess.Move(f.TB_GET_FROM(res), f.TB_GET_TO(res))
        assert f.TB_GET_WDL(res) == f.TB_LOSS and f.TB_GET_DTZ(res) == 53
        assert len(results) == len(root.moves)

        ok, moves = f.tb_probe_root_dtz(*bb, 0, 0, 0, board.turn, False, True)
        assert ok and {chess.Move(f.TB_MOVE_FROM(m), f.TB_MOVE_TO(m)) for m, _, _, _ in moves} \
            == set(board.legal_moves)
        ok, moves = f.tb_probe_root_wdl(*bb, 0, 0, 0, board.turn, True)
        assert ok and len(moves) == board.legal_moves.count()

        mate = chess.Board("4k2R/8/4K3/8/8/8/8/8 b - - 1 1")
        assert f.tb_probe_root(*_bitboards(mate), 1, 0, 0, mate.turn) == (f.TB_RESULT_CHECKMATE, [])
        stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
        assert f.tb_probe_root(*_bitboards(stalemate), 0, 0, 0, stalemate.turn) == (
            f.TB_RESULT_STALEMATE, [])
        promo = chess.Board("8/4P3/8/8/8/8/1k6/3K4 w - - 0 1")
        res, _ = f.tb_probe_root(*_bitboards(promo), 0, 0, 0, promo.turn)
        assert f.TB_GET_PROMOTES(res) in (f.TB_PROMOTES_QUEEN, f.TB_PROMOTES_ROOK)
    finally:
        f.tb_free()
    assert f.TB_LARGEST == 0


def test_numpy_waits_for_the_first_batch_call(syzygy_dir: Path) -> None:
    """import pyfathom and the per-board probes leave numpy unloaded (half
    of the import time, and its thread pool); a batch call loads it."""
    import subprocess
    import sys

    code = (
        "import sys, chess, pyfathom\n"
        f"tb = pyfathom.open_tablebase({str(syzygy_dir)!r})\n"
        "b = chess.Board('8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1')\n"
        "tb.probe_wdl(b); tb.probe_dtz(b); tb.probe(b); tb.probe_root(b)\n"
        "print('numpy' in sys.modules)\n"
        "tb.probe_wdl_many([b])\n"
        "print('numpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"], out.stdout + out.stderr
