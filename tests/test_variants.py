"""Variant tables (atomic; suicide, giveaway and antichess) against
python-chess 1.11.2 with ``VariantBoard=``.

* Every table of ``../shared/syzygy-variants`` gets its own sample of random
  legal positions (see :mod:`variant_positions`): WDL, DTZ and exceptions
  must be python-chess's.  Per table: 1,000 atomic positions, 40 suicide,
  40 giveaway, 10 antichess (the giveaway tables again, with AntichessBoard:
  778 antichess tables at 1,000 each would take python-chess half an hour
  to answer on a cold cache); ``PYFATHOM_VARIANT_POSITIONS=1000`` runs
  1,000 for every table (1,202,000 positions; the README quotes that run).
* The batch calls equal the per-board ones; a board or rows of another
  variant raise the KeyError a standard tablebase raises for them.
* python-chess's own variant tablebase tests: ``test_antichess_kvk`` and
  ``test_lone_king_wdl`` as they are; the positions of ``test_suicide_dtm``,
  ``test_suicide_dtz`` and ``test_suicide_stats`` one by one, every one
  whose tables are in the set (python-chess's tests stop at their first
  missing table).
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path
from typing import Any, Iterator

import chess
import chess.syzygy
import chess.variant
import numpy as np
import pytest

import pyfathom
from support.positions import compare_with_oracle, mismatch_report
from support.variant_positions import (
    BOARDS,
    oracle_answers,
    sample_fens,
    table_names,
    variant_dir,
)

PER_TABLE = {"atomic": 1000, "suicide": 40, "giveaway": 40, "antichess": 10}
VARIANTS = list(PER_TABLE)


def per_table(variant: str) -> int:
    override = os.environ.get("PYFATHOM_VARIANT_POSITIONS")
    return int(override) if override else PER_TABLE[variant]


@pytest.fixture(scope="module")
def samples(test_cache: Path) -> Iterator[dict[str, Any]]:
    """Per variant: {table: (boards, python-chess answers)}, and the open
    pyfathom tablebase."""
    out: dict[str, Any] = {}
    tablebases = []
    for variant in VARIANTS:
        try:
            tables = table_names(variant)
        except pytest.skip.Exception:
            continue
        per_table_fens = sample_fens(variant, tables, per_table(variant), 17, test_cache)
        fens = [fen for table in tables for fen in per_table_fens[table]]
        answers = oracle_answers(variant, fens, test_cache)
        tb = pyfathom.open_tablebase(variant_dir(variant), VariantBoard=BOARDS[variant])
        tablebases.append(tb)
        at = 0
        by_table = {}
        for table in tables:
            # The boards python-chess was given (from the same FENs).
            boards = [BOARDS[variant](fen) for fen in per_table_fens[table]]
            by_table[table] = (boards, answers[at:at + len(boards)])
            at += len(boards)
        out[variant] = (by_table, tb)
    yield out
    for tb in tablebases:
        tb.close()


def _variant(samples: dict[str, Any], variant: str) -> tuple[dict[str, Any], Any]:
    if variant not in samples:
        variant_dir(variant)  # skips (or fails) naming the folder
    by_table, tb = samples[variant]
    return by_table, tb


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_table_agrees_with_python_chess(samples: dict[str, Any], variant: str) -> None:
    by_table, tb = _variant(samples, variant)
    total, bad, kinds = 0, [], {"int": 0, "KeyError": 0}
    for table, (boards, answers) in by_table.items():
        assert len(boards) >= per_table(variant), table
        # The sample is what it claims: both sides to move, and python-chess
        # answers the table's own positions (the set is complete).
        bad += [f"{table}: {line}" for line in compare_with_oracle(tb, boards, answers)]
        total += len(boards)
        for w, d in answers:
            kinds["int" if isinstance(d, int) else "KeyError"] += 1
    assert total >= per_table(variant) * len(by_table)
    assert not bad, mismatch_report(variant, total, bad)
    # Mostly answers: a sample of missing tables would test little.
    assert kinds["int"] >= 0.9 * total, kinds


@pytest.mark.parametrize("variant", VARIANTS)
def test_sample_covers_captures_promotions_and_ends(samples: dict[str, Any],
                                                   variant: str) -> None:
    """The sample reaches smaller tables, promoted material, finished games
    and (for pawn-versus-pawn tables) en passant."""
    by_table, _ = _variant(samples, variant)
    boards = [b for bs, _ in by_table.values() for b in bs]
    assert {b.turn for b in boards} == {chess.WHITE, chess.BLACK}
    named = {t: len(t) - 1 for t in by_table}
    smaller = sum(1 for t, (bs, _) in by_table.items() for b in bs
                  if chess.popcount(b.occupied) < named[t])
    assert smaller >= 0.05 * len(boards)
    assert any(b.has_legal_en_passant() for b in boards)
    assert sum(b.is_variant_end() for b in boards) > 0 or variant == "antichess"


@pytest.mark.parametrize("variant", VARIANTS)
def test_batch_equals_per_board(samples: dict[str, Any], variant: str) -> None:
    by_table, tb = _variant(samples, variant)
    boards = [b for bs, _ in by_table.values() for b in bs][:4000]

    def one(probe: Any, board: chess.Board, failed: int) -> int:
        try:
            return int(probe(board))
        except KeyError:
            return failed

    wdl = np.array([one(tb.probe_wdl, b, pyfathom.FAILED) for b in boards])
    dtz = np.array([one(tb.probe_dtz, b, pyfathom.FAILED_DTZ) for b in boards])
    assert (tb.probe_wdl_many(boards, threads=2) == wdl).all()
    assert (tb.probe_dtz_many(boards, threads=2) == dtz).all()
    cols = [np.array(v, dtype=np.uint64) for v in zip(*[
        (b.occupied_co[chess.WHITE], b.occupied_co[chess.BLACK], b.kings, b.queens,
         b.rooks, b.bishops, b.knights, b.pawns) for b in boards])]
    ep = np.array([b.ep_square or 0 for b in boards])
    turn = np.array([int(b.turn) for b in boards])
    assert (tb.probe_wdl_bitboards(*cols, ep, turn, variant=variant) == wdl).all()
    assert (tb.probe_dtz_bitboards(*cols, ep, turn, threads=1) == dtz).all()
    with pytest.raises(KeyError):
        tb.probe_wdl_bitboards(*cols, ep, turn, variant="chess")
    # Boards of another game fail their rows, as boards with castling rights do.
    mixed = [chess.Board(boards[0].fen()) if variant != "antichess" else
             chess.variant.GiveawayBoard(boards[0].fen())] + boards[1:3]
    status = np.empty(len(mixed), dtype=np.uint8)
    out = tb.probe_wdl_many(mixed, status=status)
    assert out[0] == pyfathom.FAILED and status[0] == pyfathom.Status.VARIANT
    assert list(out[1:]) == list(wdl[1:3])


@pytest.mark.parametrize("variant", VARIANTS)
def test_root_probe_moves_agree_with_dtz(samples: dict[str, Any], variant: str) -> None:
    """probe_root lists the variant's legal moves (compulsory captures,
    explosions) and each move's DTZ is the child's, seen from the mover."""
    by_table, tb = _variant(samples, variant)
    checked = 0
    for boards, answers in by_table.values():
        for board, (w, d) in list(zip(boards, answers))[:3]:
            if not isinstance(d, int) or board.is_variant_end():
                continue
            root = tb.probe_root(board)
            assert root.dtz == d
            assert {m.move for m in root.moves} == set(board.legal_moves)
            for rm in root.moves:
                child = board.copy(stack=False)
                child.push(rm.move)
                if child.halfmove_clock == 0:
                    continue  # zeroing: the move's value comes from WDL
                try:
                    cd = tb.probe_dtz(child)
                except KeyError:
                    continue
                expected = -cd + (1 if -cd > 0 else -1 if -cd < 0 else 0)
                assert rm.dtz == expected or (rm.dtz == 1 and child.is_checkmate()), (
                    board.fen(), rm)
            checked += 1
    assert checked >= 10


def test_other_variants_raise_key_error() -> None:
    atomic_dir = variant_dir("atomic")
    board = chess.variant.AtomicBoard("8/8/8/8/8/8/6n1/1K1B3k w - - 0 1")
    with pyfathom.open_tablebase(atomic_dir, VariantBoard=chess.variant.AtomicBoard) as tb:
        assert tb.variant is chess.variant.AtomicBoard
        assert tb.probe_wdl(board) == chess.syzygy.open_tablebase(
            atomic_dir, VariantBoard=chess.variant.AtomicBoard).probe_wdl(board)
        for other in (chess.Board(board.fen()), chess.variant.SuicideBoard(board.fen())):
            for probe in (tb.probe_wdl, tb.probe_dtz, tb.probe, tb.probe_root):
                with pytest.raises(pyfathom.UnsupportedPositionError):
                    probe(other)
            assert tb.get_wdl(other) is None and tb.get_dtz(other, 7) == 7
    # A standard tablebase keeps refusing variant boards.
    with pyfathom.Tablebase() as tb:
        with pytest.raises(KeyError):
            tb.probe_wdl(board)
    # Giveaway and antichess read the same files, but the boards differ.
    with pyfathom.open_tablebase(variant_dir("giveaway"),
                                 VariantBoard=chess.variant.GiveawayBoard) as tb:
        with pytest.raises(KeyError):
            tb.probe_wdl(chess.variant.AntichessBoard("8/8/8/8/8/8/1q6/1K6 w - - 0 1"))


def test_unsupported_variant_board_class() -> None:
    with pytest.raises(ValueError, match="crazyhouse"):
        pyfathom.Tablebase(VariantBoard=chess.variant.CrazyhouseBoard)
    with pytest.raises(TypeError):
        pyfathom.Tablebase(VariantBoard=int)  # type: ignore[arg-type]


def test_files_of_other_variants_are_ignored() -> None:
    """Each variant registers its own suffixes (and the pawnless suffix of
    its sibling), nothing else: as python-chess's add_directory."""
    for variant, folder in (("atomic", "suicide"), ("suicide", "atomic"),
                            ("giveaway", "atomic"), ("chess", "giveaway")):
        path = variant_dir(folder)
        board_type = BOARDS.get(variant, chess.Board)
        with pyfathom.Tablebase(VariantBoard=board_type) as tb:
            ref = chess.syzygy.Tablebase(VariantBoard=board_type)
            assert tb.add_directory(path) == ref.add_directory(str(path))


@pytest.mark.parametrize("variant", VARIANTS)
def test_close_then_add_keeps_the_variant(samples: dict[str, Any], variant: str) -> None:
    """A variant tablebase closed and filled again stays of its variant:
    the same files are found and its positions answer as before."""
    by_table, _ = _variant(samples, variant)
    path = variant_dir(variant)
    tb = pyfathom.Tablebase(VariantBoard=BOARDS[variant])
    found = tb.add_directory(path)
    assert found > 0
    table, (boards, answers) = next(iter(by_table.items()))
    before = [tb.get_wdl(board) for board in boards]
    tb.close()
    assert tb.add_directory(path) == found
    assert [tb.get_wdl(board) for board in boards] == before, table
    assert not compare_with_oracle(tb, boards, answers)
    tb.close()


# --------------------------------------------------------------------------
# python-chess's own tests (test.py of the 1.11.2 sdist).

def test_antichess_kvk() -> None:
    kvk = chess.variant.AntichessBoard("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    with pyfathom.Tablebase() as tables:
        with pytest.raises(KeyError):
            tables.probe_dtz(kvk)
    with pyfathom.Tablebase(VariantBoard=chess.variant.AntichessBoard) as tables:
        with pytest.raises(pyfathom.MissingTableError):
            tables.probe_dtz(kvk)


def test_lone_king_wdl() -> None:
    with pyfathom.Tablebase(VariantBoard=chess.variant.AtomicBoard) as tables:
        board = chess.variant.AtomicBoard.empty()
        board.set_piece_at(chess.D1, chess.Piece.from_symbol("k"))
        assert tables.probe_wdl(board) == -2


def _sdist_epd(test_cache: Path, name: str) -> list[str]:
    from support import table_cache

    archive = table_cache.sdist_archive()
    with tarfile.open(archive, mode="r:gz") as tar:
        member = tar.extractfile(f"chess-1.11.2/data/{name}")
        assert member is not None
        return member.read().decode().splitlines()


def _suicide_tablebase() -> Any:
    return pyfathom.open_tablebase(variant_dir("suicide"),
                                   VariantBoard=chess.variant.SuicideBoard)


def _epd_boards(test_cache: Path, name: str) -> tuple[list[chess.Board], list[Any],
                                                    list[tuple[object, object]]]:
    """The file's positions (SuicideBoard), their EPD operations, and
    python-chess's (probe_wdl, probe_dtz) for them (cached)."""
    variant_dir("suicide")
    boards, solutions = [], []
    for line in _sdist_epd(test_cache, name):
        line = line.strip()
        if not line or line.startswith(("%", "#")):
            continue
        board = chess.variant.SuicideBoard()
        solutions.append(board.set_epd(line))
        boards.append(board)
    answers = oracle_answers("suicide", [b.fen(en_passant="fen") for b in boards], test_cache)
    return boards, solutions, answers


def _answered(tb: Any, board: chess.Board, answer: object, name: str) -> bool:
    """Whether python-chess answered (then pyfathom must answer the same);
    where it did not (a KeyError: a table missing from the set), pyfathom
    must not either.  Every position of up to 4 pieces is answered: the set
    holds every table of that size."""
    if isinstance(answer, int):
        assert getattr(tb, name)(board) == answer, (name, board.fen())
        return True
    assert chess.popcount(board.occupied) > 4, (name, board.fen(), answer)
    with pytest.raises(KeyError):
        getattr(tb, name)(board)
    return False


def test_suicide_dtm(test_cache: Path) -> None:
    """Of the file's 37 positions python-chess answers the WDL of 25 and the
    DTZ of 27 from this set (its own test stops at the first missing
    table); each of those is checked as its test checks it."""
    boards, solutions, answers = _epd_boards(test_cache, "suicide-dtm.epd")
    wdl_checked = dtz_checked = 0
    with _suicide_tablebase() as tb:
        for board, solution, (o_wdl, o_dtz) in zip(boards, solutions, answers):
            max_dtm = int(solution["max_dtm"])
            expected_wdl = ((max_dtm > 0) - (max_dtm < 0)) * 2
            if _answered(tb, board, o_wdl, "probe_wdl"):
                assert tb.probe_wdl(board) == expected_wdl, board.fen()
                wdl_checked += 1
            if _answered(tb, board, o_dtz, "probe_dtz"):
                dtz = tb.probe_dtz(board)
                if expected_wdl > 0:
                    assert chess.syzygy.dtz_before_zeroing(expected_wdl) <= dtz <= 2 * max_dtm
                elif expected_wdl == 0:
                    assert dtz == 0, board.fen()
                else:
                    assert 2 * max_dtm <= dtz <= chess.syzygy.dtz_before_zeroing(expected_wdl)
                dtz_checked += 1
    assert len(boards) == 37 and wdl_checked >= 25 and dtz_checked >= 27


def test_suicide_dtz(test_cache: Path) -> None:
    boards, solutions, answers = _epd_boards(test_cache, "suicide-dtz.epd")
    checked = 0
    with _suicide_tablebase() as tb:
        for board, solution, (_, o_dtz) in zip(boards, solutions, answers):
            if _answered(tb, board, o_dtz, "probe_dtz"):
                assert tb.probe_dtz(board) == solution["dtz"], board.fen()
                checked += 1
    assert checked == len(boards) == 10  # the set holds every table this file needs


def test_suicide_stats(test_cache: Path) -> None:
    """Within one ply of the file's DTZ, where python-chess answers."""
    boards, solutions, answers = _epd_boards(test_cache, "suicide-stats.epd")
    checked = 0
    with _suicide_tablebase() as tb:
        for n, (board, solution, (_, o_dtz)) in enumerate(zip(boards, solutions, answers)):
            if _answered(tb, board, o_dtz, "probe_dtz"):
                assert abs(tb.probe_dtz(board) - int(solution["dtz"])) <= 1, (n + 1, board.fen())
                checked += 1
    # python-chess answers 1,333 of the file's 5,186 positions from this set
    # (every one of up to 4 pieces; the rest need 5-piece tables).
    assert len(boards) == 5186 and checked >= 1333


# --------------------------------------------------------------------------
# Command line: pyfathom probe/batch --variant.

def test_cli_probe_and_batch_variant(samples: dict[str, Any], capsys: Any,
                                     monkeypatch: Any, tmp_path: Path) -> None:
    import json as json_

    from pyfathom.cli import main

    monkeypatch.delenv("SYZYGY_PATH", raising=False)
    monkeypatch.setenv("PYFATHOM_HOME", str(tmp_path / "home"))
    for variant in ("atomic", "suicide"):
        by_table, _ = _variant(samples, variant)
        pairs = [(b, a) for bs, ans in by_table.values() for b, a in zip(bs, ans)
                 if isinstance(a[1], int) and not b.is_variant_end()][:40]
        folder = str(variant_dir(variant))
        assert main(["probe", "--json", "--variant", variant, "--tables", folder,
                     *(b.fen() for b, _ in pairs[:8])]) == 0
        out = json_.loads(capsys.readouterr().out)
        assert [(r["wdl"], r["dtz"]) for r in out] == [a for _, a in pairs[:8]]
        src = tmp_path / f"{variant}.fen"
        src.write_text("".join(b.fen() + "\n" for b, _ in pairs) + "not a fen\n")
        assert main(["batch", "--dtz", "--variant", variant, "--tables", folder,
                     "--format", "jsonl", str(src)]) == 1  # the bad line
        rows = [json_.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [(r["wdl"], r["dtz"]) for r in rows[:-1]] == [a for _, a in pairs]
        assert rows[-1]["status"] == "invalid_fen"
    # The tables of another variant are not found: a one-line error.
    assert main(["probe", "--variant", "giveaway", "--tables",
                 str(variant_dir("atomic")), "8/8/8/8/8/8/1q6/1K6 w - - 0 1"]) != 0
    assert "no giveaway Syzygy tables found" in capsys.readouterr().err


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_piece_beyond_the_set(variant: str, test_cache: Path) -> None:
    """Positions with a piece more than any table: python-chess answers
    those whose captures lead into the tables (in antichess they must
    capture) and raises a KeyError for the others; pyfathom the same, also
    where which table is missing first depends on the order of the moves."""
    import random

    from support.variant_positions import random_position

    rng = random.Random(f"beyond-{variant}")
    fours = [t for t in table_names(variant) if len(t) == 5]
    boards = []
    for _ in range(300 if variant != "antichess" else 100):
        strong, weak = rng.choice(fours).split("v")
        extra = rng.choice("QRBNP")
        material = (strong + extra + "v" + weak) if rng.random() < 0.5 else (strong + "v" + weak + extra)
        boards.append(random_position(variant, material, rng))
    fens = [b.fen(en_passant="fen") for b in boards]
    answers = oracle_answers(variant, fens, test_cache)
    with pyfathom.open_tablebase(variant_dir(variant), VariantBoard=BOARDS[variant]) as tb:
        bad = compare_with_oracle(tb, [BOARDS[variant](f) for f in fens], answers)
    assert not bad, mismatch_report(f"{variant}, 5 pieces", len(fens), bad)
    answered = sum(isinstance(d, int) for _, d in answers)
    assert 0 < answered < len(answers)  # both kinds occur
