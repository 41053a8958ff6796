"""The C FEN/EPD parser (src/fathom/fen.c) through the compiled module.

The oracle is python-chess: for every valid FEN the eight bitboards, the
side to move, the castling rights, the en-passant square and the counters
must equal what ``chess.Board(fen)`` holds.  Malformed FENs are rejected
with the status code of the rule they break.
"""

from __future__ import annotations

import os
import random

import chess
import numpy as np
import pytest

from pyfathom._core import ffi, lib

EPD = lib.FATHOM_FEN_EPD


def parse(text: bytes | str, flags: int = 0) -> tuple[int, object, int, int]:
    """Parse text (not NUL-terminated) and return (status, board, begin, end)."""
    if isinstance(text, str):
        text = text.encode()
    board = ffi.new("fathom_board *")
    begin = ffi.new("size_t *")
    end = ffi.new("size_t *")
    # from_buffer gives exactly len(text) bytes, no terminating NUL.
    buf = ffi.from_buffer(text)
    status = lib.fathom_parse_fen_ex(buf, len(text), flags, board, begin, end)
    return status, board, begin[0], end[0]


def castling_bits(board: chess.Board) -> int:
    rights = board.castling_rights
    return (
        (lib.FATHOM_CASTLE_WK if rights & chess.BB_H1 else 0)
        | (lib.FATHOM_CASTLE_WQ if rights & chess.BB_A1 else 0)
        | (lib.FATHOM_CASTLE_BK if rights & chess.BB_H8 else 0)
        | (lib.FATHOM_CASTLE_BQ if rights & chess.BB_A8 else 0)
    )


def assert_same(fb, board: chess.Board, context: str) -> None:
    got = (
        fb.white, fb.black, fb.kings, fb.queens, fb.rooks, fb.bishops,
        fb.knights, fb.pawns, fb.turn, fb.castling, fb.ep, fb.halfmove,
        fb.fullmove,
    )
    want = (
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
        board.kings, board.queens, board.rooks, board.bishops,
        board.knights, board.pawns, int(board.turn), castling_bits(board),
        board.ep_square or 0, board.halfmove_clock, board.fullmove_number,
    )
    assert got == want, context


def epd_lines(endgame_epd) -> list[str]:
    """The fixture may be a path or an iterable of lines."""
    if isinstance(endgame_epd, (str, os.PathLike)):
        with open(endgame_epd, encoding="ascii") as f:
            lines = f.read().splitlines()
    else:
        lines = [str(line) for line in endgame_epd]
    lines = [line for line in lines if line.strip()]
    assert len(lines) >= 100, "endgame.epd should hold the test positions"
    return lines


# --- valid input agrees with python-chess --------------------------------


def test_endgame_epd_positions_agree(endgame_epd):
    for number, line in enumerate(epd_lines(endgame_epd), 1):
        board, _ops = chess.Board.from_epd(line)
        status, fb, begin, end = parse(line, EPD)
        assert status == lib.FATHOM_FEN_OK, (number, line)
        assert_same(fb, board, f"line {number}: {line}")
        # The span covers exactly the four position fields.
        assert line[begin:end] == " ".join(line.split()[:4])
        # Without the EPD flag, the first four fields alone parse the same.
        fen4 = " ".join(line.split()[:4])
        status, fb4, _, _ = parse(fen4)
        assert status == lib.FATHOM_FEN_OK
        assert_same(fb4, board, fen4)
        # And the line with opcodes is refused by the strict parser.
        assert parse(line)[0] == lib.FATHOM_FEN_ERR_FIELD_COUNT


def random_game_fens(rng: random.Random, games: int) -> list[str]:
    fens = []
    for _ in range(games):
        board = chess.Board()
        for _ in range(rng.randrange(0, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            # Both the "legal" and the "fen" ep conventions are valid input.
            fens.append(board.fen())
            fens.append(board.fen(en_passant="fen"))
    return fens


def has(board: chess.Board, spec: str) -> bool:
    symbol, square = spec.split("@")
    piece = board.piece_at(chess.parse_square(square))
    return piece is not None and piece.symbol() == symbol


def random_placement_fens(rng: random.Random, count: int) -> list[str]:
    """Random (not necessarily legal) placements with random other fields."""
    fens = []
    symbols = "KQRBNPkqrbnp"
    for _ in range(count):
        board = chess.Board.empty()
        if rng.random() < 0.3:
            for spec in ("K@e1", "R@h1", "R@a1", "k@e8", "r@h8", "r@a8"):
                if rng.random() < 0.8:
                    symbol, square = spec.split("@")
                    board.set_piece_at(chess.parse_square(square), chess.Piece.from_symbol(symbol))
        for square in rng.sample(range(64), rng.randrange(0, 33)):
            if board.piece_at(square):
                continue
            board.set_piece_at(square, chess.Piece.from_symbol(rng.choice(symbols)))
        side = rng.choice("wb")
        # Castling letters only where python-chess reads them as the standard
        # rights (it resolves them against the king and rook placement).
        castling = "".join(
            letter
            for letter, king, rook in (("K", "K@e1", "R@h1"), ("Q", "K@e1", "R@a1"),
                                       ("k", "k@e8", "r@h8"), ("q", "k@e8", "r@a8"))
            if has(board, king) and has(board, rook) and rng.random() < 0.7
        ) or "-"
        ep = rng.choice(["-", "-", f"{rng.choice('abcdefgh')}{rng.choice('36')}"])
        fen = f"{board.board_fen()} {side} {castling} {ep}"
        if rng.random() < 0.7:
            fen += f" {rng.randrange(0, 200)} {rng.randrange(1, 400)}"
        fens.append(fen)
    return fens


def test_random_fens_agree():
    rng = random.Random(20240601)
    fens = random_game_fens(rng, 40) + random_placement_fens(rng, 3000)
    assert len(fens) > 4000
    for fen in fens:
        status, fb, _, _ = parse(fen)
        assert status == lib.FATHOM_FEN_OK, fen
        assert_same(fb, chess.Board(fen), fen)


def test_whitespace_and_line_endings():
    fen = "8/8/8/4k3/8/8/8/4K2R w K - 3 40"
    want = chess.Board(fen)
    for text in (fen, f"  {fen}\r\n", fen.replace(" ", "\t"), fen.replace(" ", "   ")):
        status, fb, begin, end = parse(text)
        assert status == lib.FATHOM_FEN_OK, repr(text)
        assert_same(fb, want, repr(text))
        assert text[begin:end].split() == fen.split()


def test_counters_defaults_and_limits():
    base = "4k3/8/8/8/8/8/8/4K3 b - -"
    status, fb, _, _ = parse(base)
    assert status == lib.FATHOM_FEN_OK
    assert (fb.turn, fb.halfmove, fb.fullmove) == (0, 0, 1)
    status, fb, _, _ = parse(base + " 65535 65535")
    assert (status, fb.halfmove, fb.fullmove) == (lib.FATHOM_FEN_OK, 65535, 65535)
    # Fullmove 0 reads as 1, as in python-chess.
    status, fb, _, _ = parse(base + " 0 0")
    assert (status, fb.fullmove) == (lib.FATHOM_FEN_OK, chess.Board(base + " 0 0").fullmove_number)
    # Leading zeros are digits like any other.
    status, fb, _, _ = parse(base + " 007 0012")
    assert (status, fb.halfmove, fb.fullmove) == (lib.FATHOM_FEN_OK, 7, 12)


def test_never_reads_past_length():
    text = b"4k3/8/8/8/8/8/8/4K3 w - - 12 34"
    # Cutting the buffer short changes the answer exactly as if the bytes
    # past the cut did not exist.
    status, fb, _, _ = parse(text[:-1])
    assert (status, fb.halfmove, fb.fullmove) == (lib.FATHOM_FEN_OK, 12, 3)
    buf = ffi.from_buffer(text)
    board = ffi.new("fathom_board *")
    assert lib.fathom_parse_fen(buf, len(text) - 1, board) == lib.FATHOM_FEN_OK
    assert board.fullmove == 3
    assert lib.fathom_parse_fen(buf, 25, board) == lib.FATHOM_FEN_OK  # "... w - -"
    assert (board.halfmove, board.fullmove) == (0, 1)
    for cut in range(len(text)):
        # Every prefix is handled without crashing, valid or not.
        lib.fathom_parse_fen(buf, cut, board)
    assert lib.fathom_parse_fen(ffi.NULL, 0, board) == lib.FATHOM_FEN_ERR_FIELD_COUNT
    assert lib.fathom_parse_fen(ffi.NULL, 5, board) == lib.FATHOM_FEN_ERR_ARGUMENT
    assert lib.fathom_parse_fen(buf, len(text), ffi.NULL) == lib.FATHOM_FEN_ERR_ARGUMENT


# --- malformed input: one case list per rule -----------------------------

GOOD = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"

MALFORMED = {
    "FATHOM_FEN_ERR_FIELD_COUNT": [
        "",
        "   ",
        "4k3/8/8/8/8/8/8/4K3",
        "4k3/8/8/8/8/8/8/4K3 w",
        "4k3/8/8/8/8/8/8/4K3 w -",
        "4k3/8/8/8/8/8/8/4K3 w - - 0",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
        "4k3/8/8/8/8/8/8/4K3 w - - bm;",
        "4k3/8/8/8/8/8/8/4K3 w - - wdl 2; dtz 1;",
    ],
    "FATHOM_FEN_ERR_PIECE": [
        "4k3/8/8/8/8/8/8/4X3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2~ w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2 w - - 0 1".replace("K2", "K20"),
        "4k3/8/8/8/8/8/8/4K29 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3\x00 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K\xe93 w - - 0 1",
    ],
    "FATHOM_FEN_ERR_RANK_FILES": [
        "4k4/8/8/8/8/8/8/4K3 w - - 0 1",  # overflow by a digit
        "4k3/8/8/8/8/8/8/4K3p w - - 0 1",  # overflow by a piece, last rank
        "4k3/8/8/pppppppp1/8/8/8/4K3 w - - 0 1",
        "4k2/8/8/8/8/8/8/4K3 w - - 0 1",  # underflow
        "4k3/8/8/8/8/8/8/4K2 w - - 0 1",  # underflow, last rank
        "4k3//8/8/8/8/8/4K3 w - - 0 1",  # empty rank
    ],
    "FATHOM_FEN_ERR_DIGITS": [
        "4k3/8/8/8/8/8/8/44 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K12 w - - 0 1",
    ],
    "FATHOM_FEN_ERR_RANK_COUNT": [
        "4k3/8/8/8/8/8/4K3 w - - 0 1",  # seven ranks
        "4k3/8/8/8/8/8/8/8/4K3 w - - 0 1",  # nine ranks
        "4k3/8/8/8/8/8/8/4K3/ w - - 0 1",  # trailing slash
    ],
    "FATHOM_FEN_ERR_SIDE": [
        "4k3/8/8/8/8/8/8/4K3 W - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 wb - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 white - - 0 1",
    ],
    "FATHOM_FEN_ERR_CASTLING": [
        "4k3/8/8/8/8/8/8/4K3 w KQkqK - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w KK - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w AHah - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w -- - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w K- - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w x - 0 1",
    ],
    "FATHOM_FEN_ERR_EP": [
        "4k3/8/8/8/8/8/8/4K3 w - e4 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - i6 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - E6 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - e 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - e66 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - 36 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - -- 0 1",
    ],
    "FATHOM_FEN_ERR_HALFMOVE": [
        "4k3/8/8/8/8/8/8/4K3 w - - -1 1",
        "4k3/8/8/8/8/8/8/4K3 w - - +1 1",
        "4k3/8/8/8/8/8/8/4K3 w - - x 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 1.5 1",
        "4k3/8/8/8/8/8/8/4K3 w - - bm e4;",
        "4k3/8/8/8/8/8/8/4K3 w - - 65536 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 99999999999999999999999 1",
    ],
    "FATHOM_FEN_ERR_FULLMOVE": [
        "4k3/8/8/8/8/8/8/4K3 w - - 0 -1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 one",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1x",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 65536",
    ],
}

# Input python-chess accepts but this parser refuses on purpose (stricter).
STRICTER_THAN_PYTHON_CHESS = {
    "4k3/8/8/8/8/8/8/4K3 w KK - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w AHah - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - e4 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - +1 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 65536 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 99999999999999999999999 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 65536",
    "4k3/8/8/8/8/8/8/4K3 w - - 0",
    "4k3/8/8/8/8/8/8/4K3 w",
    "4k3/8/8/8/8/8/8/4K3 w -",
    "4k3/8/8/8/8/8/8/4K3",
}


def test_good_reference_parses():
    assert parse(GOOD)[0] == lib.FATHOM_FEN_OK


@pytest.mark.parametrize(
    "code_name,fen",
    [(name, fen) for name, fens in MALFORMED.items() for fen in fens],
)
def test_malformed_rejected_with_rule_code(code_name, fen):
    code = getattr(lib, code_name)
    status, fb, _, _ = parse(fen.encode("latin-1"))
    assert status == code, (fen, lib.fathom_fen_strerror(status))
    # A rejected board is zeroed, never half-filled.
    assert (fb.white, fb.black, fb.kings, fb.pawns, fb.ep, fb.turn) == (0,) * 6


def test_python_chess_rejects_the_same_malformed_fens():
    for fens in MALFORMED.values():
        for fen in fens:
            if fen in STRICTER_THAN_PYTHON_CHESS or not fen.strip():
                continue
            with pytest.raises(ValueError):
                chess.Board(fen)


def test_every_rule_has_its_own_code_and_message():
    codes = [getattr(lib, name) for name in MALFORMED]
    assert len(set(codes)) == len(codes)
    assert lib.FATHOM_FEN_OK not in codes
    messages = {ffi.string(lib.fathom_fen_strerror(c)) for c in codes}
    assert len(messages) == len(codes)
    for code in range(lib.FATHOM_FEN_STATUS_COUNT):
        assert ffi.string(lib.fathom_fen_strerror(code))
    assert b"unknown" in ffi.string(lib.fathom_fen_strerror(-1))
    assert b"unknown" in ffi.string(lib.fathom_fen_strerror(lib.FATHOM_FEN_STATUS_COUNT))


def test_epd_mode():
    line = '8/8/8/8/8/1k6/8/KQ6 b - - id "x"; c0 "two words";'
    status, fb, begin, end = parse(line, EPD)
    assert status == lib.FATHOM_FEN_OK
    assert line[begin:end] == "8/8/8/8/8/1k6/8/KQ6 b - -"
    assert_same(fb, chess.Board.from_epd(line)[0], line)
    # A fifth field starting with a digit is a FEN halfmove clock.
    status, fb, begin, end = parse("8/8/8/8/8/1k6/8/KQ6 b - - 7 9", EPD)
    assert (status, fb.halfmove, fb.fullmove) == (lib.FATHOM_FEN_OK, 7, 9)
    assert parse("8/8/8/8/8/1k6/8/KQ6 b - - 7", EPD)[0] == lib.FATHOM_FEN_ERR_FIELD_COUNT
    # After the two counters nothing may follow, as without the flag (and as
    # python-chess's Board(fen) refuses "more parts than expected").
    for flags in (0, EPD):
        assert parse("8/8/8/8/8/1k6/8/KQ6 b - - 7 9 garbage", flags)[0] == lib.FATHOM_FEN_ERR_FIELD_COUNT
        assert parse("8/8/8/8/8/1k6/8/KQ6 b - - 7 9 bm Kb3;", flags)[0] == lib.FATHOM_FEN_ERR_FIELD_COUNT
    assert parse("8/8/8/8/8/1k6/8/KQ6 b -", EPD)[0] == lib.FATHOM_FEN_ERR_FIELD_COUNT
    assert parse("8/8/8/8/8/1k6/8/KQ6 b - e4 wdl 2;", EPD)[0] == lib.FATHOM_FEN_ERR_EP


# --- the bulk entry point --------------------------------------------------


def batch_parse(lines: list[bytes], flags: int = 0):
    buf = b"\n".join(lines) + b"\n"
    offsets = np.zeros(len(lines), dtype=np.uintp)
    lengths = np.zeros(len(lines), dtype=np.uintp)
    pos = 0
    for i, line in enumerate(lines):
        offsets[i] = pos
        lengths[i] = len(line)
        pos += len(line) + 1
    n = len(lines)
    masks = {k: np.full(n, 0xDEAD, dtype=np.uint64) for k in
             ("white", "black", "kings", "queens", "rooks", "bishops", "knights", "pawns")}
    small = {k: np.full(n, 0xAB, dtype=np.uint8) for k in ("ep", "turn", "castling")}
    halfmove = np.zeros(n, dtype=np.uint16)
    begin = np.zeros(n, dtype=np.uintp)
    end = np.zeros(n, dtype=np.uintp)
    status = np.full(n, 99, dtype=np.int8)

    def p(a):
        return ffi.from_buffer(a)

    ok = lib.fathom_parse_fen_batch(
        ffi.from_buffer(buf), ffi.cast("size_t *", p(offsets)), ffi.cast("size_t *", p(lengths)), n, flags,
        *(ffi.cast("uint64_t *", p(masks[k])) for k in masks),
        *(ffi.cast("uint8_t *", p(small[k])) for k in small),
        ffi.cast("uint16_t *", p(halfmove)), ffi.cast("size_t *", p(begin)),
        ffi.cast("size_t *", p(end)), ffi.cast("int8_t *", p(status)),
    )
    return ok, masks, small, halfmove, begin, end, status


def test_batch_matches_single_parse():
    rng = random.Random(7)
    good = random_placement_fens(rng, 500)
    bad = [fen for fens in MALFORMED.values() for fen in fens]
    lines = [f.encode("latin-1") for f in good + bad]
    rng.shuffle(lines)
    ok, masks, small, halfmove, begin, end, status = batch_parse(lines)
    assert ok == len(good)
    for i, line in enumerate(lines):
        st, fb, b, e = parse(line)
        assert status[i] == st, line
        got = tuple(int(masks[k][i]) for k in masks) + tuple(int(small[k][i]) for k in small)
        want = (fb.white, fb.black, fb.kings, fb.queens, fb.rooks, fb.bishops,
                fb.knights, fb.pawns, fb.ep, fb.turn, fb.castling)
        assert got == want, line
        if st == lib.FATHOM_FEN_OK:
            assert halfmove[i] == fb.halfmove
            assert (begin[i], end[i]) == (b, e)
        else:
            # Failed rows are all-zero, so a prober refuses them.
            assert got == (0,) * 11


def test_batch_epd_and_null_optional_outputs():
    lines = [b"8/8/8/8/8/1k6/8/KQ6 b - - wdl 2;", b"bad", b"8/8/8/8/8/1k6/8/KQ6 w - - 1 2"]
    ok, _, small, _, begin, end, status = batch_parse(lines, EPD)
    assert ok == 2
    assert list(status) == [lib.FATHOM_FEN_OK, lib.FATHOM_FEN_ERR_FIELD_COUNT, lib.FATHOM_FEN_OK]
    assert list(small["turn"]) == [0, 0, 1]
    assert lines[0][begin[0]:end[0]] == b"8/8/8/8/8/1k6/8/KQ6 b - -"
    # halfmove, fen_begin, fen_end may be NULL.
    text = lines[2]
    out = [np.zeros(1, dtype=np.uint64) for _ in range(8)] + [np.zeros(1, dtype=np.uint8) for _ in range(3)]
    st = np.zeros(1, dtype=np.int8)
    offsets = np.zeros(1, dtype=np.uintp)
    lengths = np.array([len(text)], dtype=np.uintp)
    n_ok = lib.fathom_parse_fen_batch(
        ffi.from_buffer(text), ffi.cast("size_t *", ffi.from_buffer(offsets)),
        ffi.cast("size_t *", ffi.from_buffer(lengths)), 1, 0,
        *(ffi.cast("uint64_t *" if a.dtype == np.uint64 else "uint8_t *", ffi.from_buffer(a)) for a in out),
        ffi.NULL, ffi.NULL, ffi.NULL, ffi.cast("int8_t *", ffi.from_buffer(st)),
    )
    assert n_ok == 1 and st[0] == lib.FATHOM_FEN_OK
    assert out[0][0] == chess.Board(text.decode()).occupied_co[chess.WHITE]


# --- memory safety under sanitizers -----------------------------------------

FUZZ_DRIVER = r"""
#include "fen.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long state = 88172645463325252ULL;
static unsigned next_rand(void)
{
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return (unsigned)(state >> 11);
}

int main(void)
{
    static const char *seeds[] = {
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq e3 12 34",
        "8/8/8/8/8/1k6/8/KQ6 b - - wdl 2; dtz 1;",
    };
    static const char alphabet[] = " /12345678KQRBNPkqrbnpwb-abcdefgh09\t\r\n;x";
    unsigned long ok = 0;
    for (int it = 0; it < 300000; it++) {
        const char *seed = seeds[it % 3];
        size_t n = strlen(seed), len, begin = 0, end = 0;
        char tmp[128];
        fathom_board board;
        memcpy(tmp, seed, n);
        for (int m = (int)(next_rand() % 5); m > 0; m--)
            tmp[next_rand() % n] = (next_rand() % 4) ? alphabet[next_rand() % (sizeof alphabet - 1)]
                                                     : (char)(next_rand() % 256);
        len = next_rand() % (n + 1);
        char *buf = malloc(len ? len : 1);  /* exactly len bytes: ASan sees any overread */
        memcpy(buf, tmp, len);
        if (fathom_parse_fen_ex(buf, len, (unsigned)(it & 1), &board, &begin, &end) == 0)
            ok++;
        if (begin > end || end > len) { printf("bad span\n"); return 1; }
        free(buf);
    }
    /* The bulk entry point over one exact-size buffer of lines. */
    {
        enum { N = 1000 };
        static size_t off[N], lens[N], fb[N], fe[N];
        static uint64_t m[8][N];
        static uint8_t ep[N], turn[N], castling[N];
        static uint16_t half[N];
        static int8_t status[N];
        size_t total = 0, pos = 0;
        for (int i = 0; i < N; i++) total += strlen(seeds[i % 3]) - (size_t)(i % 7);
        char *buf = malloc(total);
        for (int i = 0; i < N; i++) {
            size_t n = strlen(seeds[i % 3]) - (size_t)(i % 7);
            memcpy(buf + pos, seeds[i % 3], n);
            off[i] = pos; lens[i] = n; pos += n;
        }
        size_t good = fathom_parse_fen_batch(buf, off, lens, N, 1, m[0], m[1], m[2], m[3], m[4], m[5],
                                             m[6], m[7], ep, turn, castling, half, fb, fe, status);
        free(buf);
        if (good == 0) { printf("batch parsed nothing\n"); return 1; }
    }
    printf("ok %lu\n", ok);
    return 0;
}
"""


@pytest.mark.sanitizer_programs("a driver of its own, built with ASan and UBSan")
def test_parser_memory_safe_under_sanitizers(tmp_path):
    """Mutated FENs in exact-size heap buffers, under ASan and UBSan: any read
    past the given length or undefined behaviour aborts the driver."""
    import shutil
    import subprocess

    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert cc, "a C compiler is required"
    src_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "fathom")
    driver = tmp_path / "fen_fuzz.c"
    driver.write_text(FUZZ_DRIVER)
    exe = tmp_path / "fen_fuzz"
    cmd = [cc, "-std=c99", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
           "-I", src_dir, str(driver), os.path.join(src_dir, "helpers", "fen.c"), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    if build.returncode != 0 and "sanitize" in build.stderr:
        pytest.skip(f"this compiler has no sanitizer runtime: {build.stderr.strip()[:200]}")
    assert build.returncode == 0, build.stderr
    # The warning flags the project builds with must stay quiet too.
    strict = subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-I", src_dir, "-c", os.path.join(src_dir, "helpers", "fen.c"),
                             "-o", str(tmp_path / "fen.o")], capture_output=True, text=True)
    assert strict.returncode == 0 and strict.stderr == "", strict.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("ok ")
