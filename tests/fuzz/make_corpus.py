"""Generate seed corpora for the fuzz targets from the real tables.

    python make_corpus.py TABLES_DIR OUT_DIR [--mutants N] [--seed S]

writes OUT_DIR/table, OUT_DIR/fen, OUT_DIR/board and OUT_DIR/game.  Nothing here is
committed: table seeds are the fetched tables themselves (a name byte in
front, see fuzz_table.c), plus N deterministic mutants per table
(truncations at 16 mod 64, byte flips in the first KiB, zeroed runs) when
--mutants is given; FEN seeds come from python-chess's endgame.epd (in
TABLES_DIR, as the test fixture leaves it) and hand-written broken FENs;
board seeds are those positions as raw bitboards, plus flipped bits; game
seeds a FEN line and the SAN of random legal moves from it.
"""

from __future__ import annotations

import argparse
import random
import re
import struct
from pathlib import Path

import chess

HERE = Path(__file__).resolve().parent


def materials() -> list[str]:
    """The MATERIALS table of fuzz_table.c, in its order (byte 0 indexes it)."""
    src = (HERE / "fuzz_table.c").read_text()
    block = src[src.index("MATERIALS[] = {"):]
    block = block[:block.index("};")]
    return re.findall(r'"(K[KQRBNPv]+)"', block)


def mutants(data: bytes, n: int, rng: random.Random) -> list[bytes]:
    out = []
    for i in range(n):
        kind = i % 3
        if kind == 0 and len(data) > 80:
            cut = rng.randrange(0, len(data) // 64) * 64 + 16
            out.append(data[:cut])
        elif kind == 1:
            bad = bytearray(data)
            for _ in range(rng.randrange(1, 5)):
                pos = rng.randrange(4, min(len(bad), 1024))
                bad[pos] ^= 1 << rng.randrange(8)
            out.append(bytes(bad))
        else:
            bad = bytearray(data)
            pos = rng.randrange(4, len(bad))
            length = rng.randrange(1, 64)
            bad[pos:pos + length] = bytes(len(bad[pos:pos + length]))
            out.append(bytes(bad))
    return out


def board_bytes(board: chess.Board) -> bytes:
    masks = [board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
             board.kings, board.queens, board.rooks, board.bishops,
             board.knights, board.pawns]
    return struct.pack("<8QBB", *masks, board.ep_square or 0, int(board.turn))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tables", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--mutants", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    table_dir = args.out / "table"
    table_dir.mkdir(parents=True, exist_ok=True)
    count = 0
    for index, material in enumerate(materials()):
        for kind, ext in ((0, "rtbw"), (0x80, "rtbz")):
            path = args.tables / f"{material}.{ext}"
            if not path.exists():
                continue
            data = path.read_bytes()
            prefix = bytes([index | kind])
            for j, blob in enumerate([data] + mutants(data, args.mutants, rng)):
                (table_dir / f"{material}-{ext}-{j:03d}.seed").write_bytes(prefix + blob)
                count += 1

    fens = [
        "8/8/8/8/8/8/8/8 w - - 0 1", "K7/8/8/8/8/8/8/7k w - - 0 1",
        "KKKKKKKK/8/8/8/8/8/8/kkkkkkkk w - - 0 1",
        "P7/8/8/8/8/8/8/K6k w - - 0 1", "4k3/8/8/8/8/8/8/4K2R w K e3 0 1",
        "QQQQQQQQ/QQQQQQQQ/8/8/8/8/8/K6k b - - 65535 65535",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "8/8/8/8/8/8/8/8 w - - 99999 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - bm e2; id \"x\";",
    ]
    epd = args.tables / "endgame.epd"
    boards = []
    if epd.exists():
        for line in epd.read_text().splitlines():
            if line.strip():
                fens.append(line)
                try:
                    boards.append(chess.Board(" ".join(line.split()[:4])))
                except ValueError:
                    pass
    fen_dir = args.out / "fen"
    fen_dir.mkdir(parents=True, exist_ok=True)
    for i, fen in enumerate(fens):
        (fen_dir / f"fen-{i:04d}.seed").write_text(fen)
    (fen_dir / "batch.seed").write_text("\n".join(fens[:40]))

    board_dir = args.out / "board"
    board_dir.mkdir(parents=True, exist_ok=True)
    for i, board in enumerate(boards):
        blob = board_bytes(board)
        (board_dir / f"board-{i:04d}.seed").write_bytes(blob)
        if args.mutants:
            bad = bytearray(blob)
            bad[rng.randrange(66)] ^= 1 << rng.randrange(8)
            (board_dir / f"board-{i:04d}-m.seed").write_bytes(bytes(bad))
    many = b"".join(board_bytes(b) for b in boards[:8])
    (board_dir / "many.seed").write_bytes(many)

    # Game seeds (fuzz_game.c): a FEN line, then the SAN of random legal
    # moves from it; from the standard start, games that castle both ways.
    game_dir = args.out / "game"
    game_dir.mkdir(parents=True, exist_ok=True)
    starts = [(b, b.fen() + "\n") for b in boards[:120]]
    starts += [(chess.Board(), "")] * 20
    for i, (start, head) in enumerate(starts):
        board = start.copy(stack=False)
        sans = []
        for _ in range(rng.randint(1, 40)):
            moves = list(board.legal_moves)
            if not moves:
                break
            castles = [m for m in moves if board.is_castling(m)]
            move = rng.choice(castles) if castles and rng.random() < 0.5 else rng.choice(moves)
            sans.append(board.san(move).rstrip("+#"))
            board.push(move)
        (game_dir / f"game-{i:04d}.seed").write_text(head + " ".join(sans))
    print(f"{count} table seeds, {len(fens) + 1} fen seeds, "
          f"{len(list(board_dir.iterdir()))} board seeds, "
          f"{len(list(game_dir.iterdir()))} game seeds in {args.out}")


if __name__ == "__main__":
    main()
