"""``pyfathom annotate``'s fast reading path against python-chess's reader.

annotate lets python-chess's reader split the games and read the headers,
finds the mainline's SAN tokens in the text itself and replays them in C
(``fathom_game_replay``, src/fathom/tb_game.c), falling back to python-chess's
reader for any game the replay is not certain of.  Each step is held to
python-chess 1.11.2 here:

* the text scan finds exactly the tokens the reader parses, and the reader
  told to skip the movetext consumes exactly the lines it consumes when it
  parses it, on hostile movetext (comments over lines, ``;`` and ``%``
  comments, variations, NAGs, results, move numbers, null moves, CRLF);
* the replay's position at every ply (pieces, castling rights, en passant,
  clocks, the promoted mask) is python-chess's, for games with castling on
  both sides, en passant, promotions and underpromotions, disambiguations
  and SAN spelled every way python-chess accepts it;
* the replay accepts a token only if python-chess's ``parse_san`` accepts it
  and picks the same move, and accepts every token python-chess accepts but
  the forms it leaves to python-chess (null moves, drops, pawn moves given
  by both squares), on random tokens in random positions;
* random bytes and random start positions never crash it (this file also
  runs in the ASan+UBSan rerun of the suite);
* annotate's output, report and summary are the same byte for byte with the
  fast path and with python-chess reading every game.
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path
from typing import Any, Optional

import chess
import chess.pgn
import pytest

from support import pgn_games
from support.sanitizer import SANITIZED


# ---- the text scan and the reader's game boundaries --------------------------------


class _TokenVisitor(chess.pgn.BaseVisitor[tuple[int, list[str]]]):
    """The mainline tokens python-chess's reader parses, as annotate's
    python-chess path sees them (variations skipped), whatever they are:
    every token is taken as a null move, so no error stops the mainline;
    and the line where the movetext starts (-1: none)."""

    recorder: Any = None

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.movetext_line = -1

    def end_headers(self) -> None:
        # The reader has just read the first movetext line, unless it met the end.
        if not self.recorder.at_end:
            self.movetext_line = len(self.recorder.lines) - 1

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def begin_parse_san(self, board: chess.Board, san: str) -> None:
        self.tokens.append(san)

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        return chess.Move.null()

    def result(self) -> tuple[int, list[str]]:
        return self.movetext_line, self.tokens


_FRAGMENTS = [
    "e4", "Nf3", "exd5", "ed5", "O-O", "O-O-O", "0-0", "0-0-0", "e8=Q", "e8q", "Nbd2",
    "N1d2", "Ng1f3", "e2e4", "e2-e4", "xe4", "-e4", "1-e4", "--", "Z0", "0000", "@@@@",
    "N@f3", "@e4", "Kxh8", "Qh4#", "Rxa8+", "1.", "12.", "12...", "10000.", "1000.", "3",
    "0.", "...", ".", "{ [%clk 0:01:02] }", "{ a comment }", "{multi\nline Nf3 }",
    "{ has ; and ( and Nf3 }", "{", "}", "{}", "; rest Nf3 e4", "\n% escape Nf3\n", "%",
    "$1", "$", "$123", "!", "?", "!?", "??", "!!!", "(", ")", "( 3. Nc3 e5 )", "1-0",
    "0-1", "1/2-1/2", "*", "1/2", "+", "#", "=", "~", "x", "-", "\t", "\u00e9", "\u00a0",
    "[%eval 0.3]", "\n", "\n", "\r\n", " ", " ", " ", "a", "h9", "Pe4", "K", "O-O-O-O",
]


def _hostile_pgn(rng: random.Random, games: int) -> str:
    parts: list[str] = []
    if rng.random() < 0.2:
        parts.append("\ufeff")
    for i in range(games):
        if rng.random() < 0.3:
            parts.append(rng.choice(["% escape\n", "; comment\n", "\n"]))
        if rng.random() < 0.8:
            parts.append(f'[Event "g{i}"]\n[Site "?"]\n')
            if rng.random() < 0.2:
                parts.append(rng.choice(["[Broken\n", "\n", "% in headers\n"]))
            parts.append("\n")
        body = [rng.choice(_FRAGMENTS) for _ in range(rng.randint(0, 30))]
        parts.append(" ".join(body) if rng.random() < 0.7 else "".join(body))
        parts.append(rng.choice(["\n\n", "\n\n", "\r\n\r\n", "\n \n", "\n"]))
    return "".join(parts)


def _reader_games(text: str, visitor: Any) -> list[tuple[list[str], Any]]:
    """(lines, visitor result) per game, read by python-chess's reader."""
    from pyfathom.annotate.reading import _LineRecorder

    class Recorder(_LineRecorder):
        at_end = False

        def readline(self) -> str:
            line = super().readline()
            self.at_end = not line
            return line

    recorder = Recorder(io.StringIO(text, newline=""))
    if visitor is _TokenVisitor:
        visitor.recorder = recorder
    games = []
    while True:
        result = chess.pgn.read_game(recorder, Visitor=visitor)  # type: ignore[arg-type]
        lines = recorder.take()
        if result is None:
            return games
        games.append((lines, result))


def test_scan_finds_the_tokens_python_chess_parses() -> None:
    """On hostile movetext: the reader skipping the movetext consumes the
    same lines as the reader parsing it, and the scan of those lines finds
    the tokens it parses (where no line ends with a lone CR, which annotate
    leaves to python-chess)."""
    from pyfathom.annotate.movetext import _mainline_spans, _movetext_start
    from pyfathom.annotate.reading import _HeaderReader

    rng = random.Random(16)
    compared = tokens_seen = 0
    for _ in range(150 if SANITIZED else 600):
        text = _hostile_pgn(rng, rng.randint(1, 4))
        parsed = _reader_games(text, _TokenVisitor)
        skipped = _reader_games(text, _HeaderReader)
        assert [lines for lines, _ in skipped] == [lines for lines, _ in parsed], repr(text)
        for lines, (movetext_line, tokens) in parsed:
            assert _movetext_start(lines) == movetext_line, repr("".join(lines))
            if any(line.endswith("\r") for line in lines):
                continue
            start, spans = _mainline_spans(lines)
            assert [s.token for s in spans] == tokens, repr("".join(lines))
            joined = "".join(lines)
            assert all(joined[s.start:s.end] == s.token for s in spans)
            compared += 1
            tokens_seen += len(tokens)
    assert compared > (250 if SANITIZED else 1000) and tokens_seen > (1200 if SANITIZED else 5000)


# ---- the replay against python-chess's boards --------------------------------------


def _start_record(board: chess.Board) -> Any:
    from pyfathom.annotate.replay import _board_start

    return _board_start(board)


def _replay(board: chess.Board, tokens: list[str]) -> Any:
    """Every position of ``tokens`` played from ``board``, nothing probed."""
    from pyfathom._bindings import lowlevel_helpers as _helpers

    start = _start_record(board)
    assert start is not None
    return _helpers.game_replay(None, start, " ".join(tokens).encode(), 32, record_all=True)


def _state(board: chess.Board) -> tuple[int, ...]:
    occ = board.occupied_co
    return (occ[chess.WHITE], occ[chess.BLACK], board.kings, board.queens, board.rooks,
            board.bishops, board.knights, board.pawns, board.promoted, board.castling_rights,
            board.halfmove_clock, board.fullmove_number, board.ep_square or 0, int(board.turn))


def _record_state(r: Any) -> tuple[int, ...]:
    return (r.white, r.black, r.kings, r.queens, r.rooks, r.bishops, r.knights, r.pawns,
            r.promoted, r.castling, r.halfmove, r.fullmove, r.ep, r.turn)


def _spellings(board: chess.Board, move: chess.Move, rng: random.Random) -> str:
    """A random spelling of ``move`` that python-chess's parse_san reads as
    ``move`` (the plain SAN if a variant does not parse back)."""
    san = board.san(move)
    forms = [san, san.rstrip("+#"), san.replace("x", "")]
    if board.is_castling(move):
        forms += [san.replace("O", "0"), san.replace("O", "0").rstrip("+#")]
    if move.promotion:
        letter = chess.piece_symbol(move.promotion)
        plain = san.rstrip("+#")
        forms += [plain.replace("=" + letter.upper(), letter),
                  plain.replace("=" + letter.upper(), "=" + letter),
                  plain.replace("=" + letter.upper(), letter.upper())]
    piece = board.piece_type_at(move.from_square)
    if piece != chess.PAWN and not board.is_castling(move):
        letter = chess.piece_symbol(piece or 1).upper()
        sep = "x" if board.is_capture(move) else rng.choice(["", "-"])
        frm, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
        forms += [letter + frm + sep + to, letter + frm[0] + to, letter + frm[1] + to]
    rng.shuffle(forms)
    for form in forms:
        try:
            if board.parse_san(form) == move:
                return form
        except ValueError:
            pass
    return san


def special_game(rng: random.Random, board: Optional[chess.Board] = None,
                 plies: int = 160) -> tuple[chess.Board, list[chess.Move]]:
    """A random game that castles, takes en passant and (under)promotes
    whenever it can, and pushes pawns two squares past enemy pawns."""
    start = (board or chess.Board()).copy(stack=False)
    board = start.copy(stack=False)
    moves: list[chess.Move] = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        castles = [m for m in legal if board.is_castling(m)]
        ep = [m for m in legal if board.is_en_passant(m)]
        promotions = [m for m in legal if m.promotion]
        doubles = [m for m in legal if board.piece_type_at(m.from_square) == chess.PAWN
                   and abs(m.to_square - m.from_square) == 16]
        captures = [m for m in legal if board.is_capture(m)]
        roll = rng.random()
        if ep and roll < 0.9:
            move = rng.choice(ep)
        elif promotions and roll < 0.9:
            move = rng.choice(promotions)
        elif castles and roll < 0.7:
            move = rng.choice(castles)
        elif doubles and roll < 0.5:
            move = rng.choice(doubles)
        elif captures and roll < 0.6:
            move = rng.choice(captures)
        else:
            move = rng.choice(legal)
        moves.append(move)
        board.push(move)
    return start, moves


_FEN_STARTS = [
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 12 40",
    "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1",             # rights without rooks: raw until a move
    "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1",
    "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
    "8/2p5/8/1P6/8/8/8/K1k5 b - - 5 60",
    "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
    "7k/8/8/8/8/8/1p6/R2K4 b - - 99 70",
]


def test_replay_follows_python_chess_ply_by_ply() -> None:
    """Every position of random games (from the start and from FEN setups,
    castling rights with and without their rooks included; and the games of
    tests/support/pgn_games.py) is python-chess's, and so is every move, with the
    SAN spelled every accepted way."""
    rng = random.Random(2026)
    starts: list[Optional[chess.Board]] = [None] * 6 + [chess.Board(f) for f in _FEN_STARTS]
    games = [special_game(rng, starts[n % len(starts)]) for n in range(60 if SANITIZED else 250)]
    for i in range(20 if SANITIZED else 60):
        game = pgn_games.full_game(i, rng) if i % 3 == 0 else pgn_games.generated_game(i, rng)
        games.append((game.board(), list(game.mainline_moves())))
    counts = {"castling": 0, "ep": 0, "underpromotion": 0, "plies": 0}
    for start, moves in games:
        board = start.copy(stack=False)
        boards, tokens = [board.copy(stack=False)], []
        for move in moves:
            tokens.append(_spellings(board, move, rng))
            counts["castling"] += board.is_castling(move)
            counts["ep"] += board.is_en_passant(move)
            counts["underpromotion"] += bool(move.promotion and move.promotion != chess.QUEEN)
            board.push(move)
            boards.append(board.copy(stack=False))
        replay = _replay(start, tokens)
        assert replay.stop == 0, (start.fen(), tokens[replay.moves])
        assert replay.moves == len(moves) and replay.written == len(boards)
        for i, expected in enumerate(boards):
            record = replay.records[i]
            assert _record_state(record) == _state(expected), (start.fen(), tokens[:i])
            code = record.move
            if i < len(moves):
                m = moves[i]
                assert code == m.from_square | m.to_square << 6 | (m.promotion or 0) << 12
        covered = next((i for i, b in enumerate(boards) if not b.castling_rights), -1)
        assert replay.first == covered
        counts["plies"] += len(moves)
    least = 10 if SANITIZED else 50
    assert counts["castling"] > least and counts["ep"] > least and counts["underpromotion"] > least


def test_replay_probes_as_the_per_board_probe(tablebase: Any) -> None:
    """The DTZ the replay probes at each covered position is the per-board
    probe's answer (failures included: 5-piece positions under 3-4-piece
    tables), and its halfmove clock python-chess's."""
    from pyfathom._bindings import lowlevel as _ll
    from pyfathom._bindings import lowlevel_helpers as _helpers

    rng = random.Random(12)
    compared = 0
    for i in range(40):
        game = pgn_games.generated_game(i, rng, five_share=0.5)
        start, moves = game.board(), list(game.mainline_moves())
        tokens, board = [], start.copy(stack=False)
        for move in moves:
            tokens.append(board.san(move))
            board.push(move)
        replay = _helpers.game_replay(tablebase._handle(), _start_record(start),
                                      " ".join(tokens).encode(), 5 if i % 2 else tablebase.largest)
        assert replay.stop == 0
        if replay.first < 0:  # five pieces to the end
            assert board.occupied.bit_count() > tablebase.largest
            continue
        board = start.copy(stack=False)
        for index in range(len(moves) + 1):
            if index >= replay.first:
                occ = board.occupied_co
                expected = _ll.board_dtz(tablebase._pinned, occ[1], occ[0], board.queens,
                                         board.rooks, board.bishops, board.knights,
                                         board.pawns, board.ep_square, board.turn)
                record = replay.records[index - replay.first]
                assert (record.dtz, record.halfmove) == (expected, board.halfmove_clock)
                compared += 1
            if index < len(moves):
                board.push(moves[index])
    assert compared > 200


def test_replay_is_played_from_the_first_covered_position() -> None:
    """Without ``record_all``: records from the first position with no
    castling rights and at most ``largest`` pieces, probed."""
    from pyfathom._bindings import lowlevel as _ll
    from pyfathom._bindings import lowlevel_helpers as _helpers
    from pyfathom._types import Status

    board = chess.Board("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1")  # raw rights: not covered
    replay = _helpers.game_replay(None, _start_record(board), b"Kd2 Kd7 Ke3", 4)
    assert (replay.stop, replay.moves, replay.first, replay.written) == (0, 3, 1, 3)
    no_tables = _ll.LEAN_FAILED + Status.ARGUMENT  # no instance given: nothing probed
    assert [replay.records[k].dtz for k in range(3)] == [no_tables] * 3
    replay = _helpers.game_replay(None, _start_record(chess.Board()), b"e4 e5", 4)
    assert (replay.stop, replay.first, replay.written) == (0, -1, 0)


def _random_token(rng: random.Random, board: chess.Board) -> str:
    legal = list(board.legal_moves)
    roll = rng.random()
    if legal and roll < 0.25:
        return _spellings(board, rng.choice(legal), rng)
    if roll < 0.3:
        return rng.choice(["O-O", "O-O-O", "0-0", "0-0-0", "O-O+", "0-0-0#", "O-O-O-O",
                           "--", "Z0", "0000", "@@@@", "N@f3", "e2e4", "Kg1", "Kh1", "Kc1"])
    if legal and roll < 0.8:
        target = chess.square_name(rng.choice(legal).to_square)
    else:
        target = chess.square_name(rng.randrange(64))
    return (rng.choice(["", "", "", "N", "B", "R", "Q", "K", "P"])
            + rng.choice(["", "", "", "a", "b", "c", "d", "e", "f", "g", "h"])
            + rng.choice(["", "", "", "1", "2", "7", "8"])
            + rng.choice(["", "", "x", "-"]) + target
            + rng.choice(["", "", "", "", "=Q", "q", "=n", "N", "=K", "k", "=B", "r", "="])
            + rng.choice(["", "", "+", "#"]))


def test_replay_accepts_a_token_only_as_python_chess_does() -> None:
    """Random SAN-shaped tokens (legal, illegal, ambiguous, misspelt) in
    random positions: where the replay takes one, python-chess's parse_san
    takes it as the same move; where python-chess rejects one, the replay
    stops; it leaves to python-chess only null moves, drops and pawn moves
    given by both squares."""
    from pyfathom._bindings import lowlevel_helpers as _helpers

    rng = random.Random(7)
    agreed = refused = 0
    positions: list[chess.Board] = []
    fens = _FEN_STARTS + _TRICKY
    for n in range(60):
        start, moves = special_game(rng, chess.Board(fens[n % len(fens)])
                                    if n % 4 else None, plies=rng.randint(0, 100))
        board = start.copy(stack=False)
        for i, move in enumerate(moves):
            if i < 6 or rng.random() < 0.05:
                positions.append(board.copy(stack=False))
            board.push(move)
        positions.append(board.copy(stack=False))
    positions += [chess.Board(fen) for fen in _TRICKY] * 10
    kinds: set[str] = set()
    for _ in range(3000 if SANITIZED else 12000):
        board = rng.choice(positions)
        token = _random_token(rng, board)
        try:
            expected: Optional[chess.Move] = board.parse_san(token)
        except ValueError as e:
            kinds.add(type(e).__name__)
            expected = None
        replay = _replay(board, [token])
        assert replay.stop != _helpers.GAME_STOP_START, board.fen()
        if replay.stop == 0:
            m = expected
            assert m is not None and m, (board.fen(), token)
            assert replay.records[0].move == (m.from_square | m.to_square << 6
                                              | (m.promotion or 0) << 12), (board.fen(), token)
            assert _record_state(replay.records[1]) == _state(_pushed(board, m))
            agreed += 1
            kinds.add("castling" if board.is_castling(m) else "move")
        else:
            left_to_python_chess = expected is not None and (
                not expected or "@" in token
                or chess.pgn.MOVETEXT_REGEX.fullmatch(token) is None
                or _both_squares_without_piece(token))
            assert expected is None or left_to_python_chess, (board.fen(), token, expected)
            refused += 1
    assert agreed > (400 if SANITIZED else 2000) and refused > (400 if SANITIZED else 2000)
    assert kinds == {"move", "castling", "IllegalMoveError", "InvalidMoveError",
                     "AmbiguousMoveError"}


_TRICKY = [
    "k7/8/8/8/8/8/8/N1N4K w - - 0 1",                # Nb3 ambiguous, Ncb3 not
    "k7/8/8/8/3Q4/8/8/1Q1Q3K w - - 0 1",             # three queens
    "4k3/4r3/8/8/8/8/4N3/1N2K3 w - - 0 1",           # Nc3: the e2 knight is pinned
    "1n1n3k/2P5/8/8/8/8/8/K7 w - - 0 1",             # capture-promotions both ways
    "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",              # en passant uncovering the king
    "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1",            # O-O through an attacked square
    "4k3/8/8/8/8/8/1r6/R3K2R w KQ - 0 1",            # O-O-O with b1 attacked: legal
    "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1",            # no castling out of check
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "rn2k2r/8/8/8/8/8/8/R3KB1R w KQkq - 0 1",        # blocked on one side each
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
]


def _pushed(board: chess.Board, move: chess.Move) -> chess.Board:
    child = board.copy(stack=False)
    child.push(move)
    return child


def _both_squares_without_piece(token: str) -> bool:
    match = chess.SAN_REGEX.match(token)
    return bool(match and not match.group(1) and match.group(2) and match.group(3))


def test_replay_survives_hostile_input() -> None:
    """Random bytes as tokens and random bitboards as start positions: a
    stop or a replay, never a crash (ASan+UBSan check it in the rerun)."""
    from pyfathom._bindings import lowlevel_helpers as _helpers
    from pyfathom._core import ffi

    rng = random.Random(99)
    standard = _start_record(chess.Board())
    alphabet = b"NBRQKPabcdefgh12345678xX=-+#O0@Z ?!\x00\xff\t"
    stops = set()
    for _ in range(2000 if SANITIZED else 8000):
        size = rng.randint(0, 40)
        data = bytes(rng.choice(alphabet) for _ in range(size))
        replay = _helpers.game_replay(None, standard, data, rng.choice([0, 2, 32]),
                                      record_all=rng.random() < 0.5)
        stops.add(replay.stop)
    assert {0, _helpers.GAME_STOP_TOKEN, _helpers.GAME_STOP_ILLEGAL} <= stops
    for _ in range(2000 if SANITIZED else 8000):
        bits = [rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64)
                for _ in range(10)]
        start = _helpers.game_start(*bits, rng.choice([None, 16, 20, 43, 44, 63]),
                                    rng.random() < 0.5, rng.randint(0, 200), rng.randint(0, 200))
        _helpers.game_replay(None, start, b"e4 Nf3 O-O exd5 e8=Q", 32)
    # No room, NULL arguments.
    start = standard
    summary = ffi.new("fathom_game_summary *")
    records = ffi.new("fathom_game_position[]", 1)
    from pyfathom._core import lib

    assert lib.fathom_game_replay(ffi.NULL, start, b"e4 e5", 5, 32, 1, records, 1,
                                  summary) == _helpers.GAME_STOP_ROOM
    assert lib.fathom_game_replay(ffi.NULL, ffi.NULL, b"", 0, 32, 0, records, 1,
                                  summary) == lib.FATHOM_GAME_STOP_ARGUMENT
    assert lib.fathom_game_replay(ffi.NULL, start, b"", 0, 32, 0, ffi.NULL, 0,
                                  ffi.NULL) == lib.FATHOM_GAME_STOP_ARGUMENT


def test_fen_starts_are_python_chess_boards() -> None:
    """The C FEN parser gives the replay's start for FEN headers it reads as
    python-chess does (no castling field), and gives up on the rest: its
    start is python-chess's Board(fen), field by field, or None."""
    from pyfathom._bindings import lowlevel_helpers as _helpers

    rng = random.Random(3)
    bases = ["7k/R7/6K1/8/8/8/8/8 w - - 0 1", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 50",
             "8/8/8/8/8/8/8/8 b - - 65535 0", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"]
    edits = [lambda f: f, lambda f: " " + f + "\t", lambda f: " ".join(f.split()[:4]),
             lambda f: " ".join(f.split()[:5]), lambda f: f.replace(" ", "  "),
             lambda f: f + " x", lambda f: f.replace(" 0 ", " 65536 "),
             lambda f: f.replace(" 0 ", " +1 "), lambda f: f.replace("8/", "44/", 1),
             lambda f: f.replace("K", "K~", 1), lambda f: f.replace(" - ", " e3 ", 1),
             lambda f: f.replace(" w ", " W "), lambda f: f.replace("/", "/\u0662", 1),
             lambda f: f.replace(" - ", " qK ", 1), lambda f: f.replace(" 1", " 0")]
    taken = 0
    for _ in range(400):
        fen = rng.choice(edits)(rng.choice(edits)(rng.choice(bases)))
        start = _helpers.game_start_from_fen(fen)
        try:
            board = chess.Board(fen)
        except ValueError:
            assert start is None, fen
            continue
        if start is not None:
            assert _record_state(start) == _state(board), fen
            taken += 1
    assert taken > 50


# ---- annotate: the fast path against python-chess reading every game ----------------


def _annotate_all(tablebase: Any, text: str) -> tuple[str, str, list[str], dict[str, Any]]:
    from pyfathom.annotate import ReportWriter, annotate_stream

    out, report = io.StringIO(), io.StringIO()
    warnings: list[str] = []
    writer = ReportWriter(report, "csv")
    summary = annotate_stream(tablebase, io.StringIO(text, newline=""), out,
                              report=writer.row, warn=warnings.append)
    writer.summary(summary)
    return out.getvalue(), report.getvalue(), warnings, summary.as_dict()


_QUIRKY_GAMES = [
    # Comments over lines, ";" and "%" lines, NAGs, a variation, a result in
    # the middle, check signs.
    '[Event "quirks"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n\n'
    '1. e4 $1 { a\ncomment } Kd7! ( 1... Kf7 2. e5 ) 2. Kd2 ; Kf7 here\n'
    '% escape e5\n2... Kd6 1-0 3. Kd3 Ke5+ *\n\n',
    # Chess960 castling (python-chess reads these).
    '[Variant "Chess960"]\n[FEN "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1"]\n\n'
    '1. O-O Rxb1+ 2. Rxb1 *\n\n',
    # Broken SAN, a null move, a drop, a move by both squares.
    '[Event "broken"]\n\n1. e4 e5 2. Ke3 *\n\n',
    '[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]\n\n1. -- Kg8 2. Rg7+ *\n\n',
    '[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]\n\n1. a7g7 *\n\n',
    '[Event "drop"]\n\n1. N@f3 *\n\n',
    # A FEN python-chess refuses, one the replay leaves to python-chess.
    '[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n1. Kb1 *\n\n',
    '[FEN "k7/8/8/8/8/8/8/K6R b - e3 0 1"]\n\n1... Kb7 *\n\n',
    # A lone CR (a line break for python-chess's reader).
    '[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]\r\r1. Rg7 ; x\r*\r\r',
    # Castling rights in a 4-piece position; long castling then the tables.
    '[FEN "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"]\n\n1. O-O-O Kf7 2. Rd7+ Ke6 3. Rh7 *\n\n',
    # Variant headers that name standard chess (replayed).
    '[Variant "Standard"]\n\n1. e4 e5 2. Nf3 *\n\n',
    '[Variant "From Position"]\n[FEN "7k/R7/6K1/8/8/8/8/8 w - - 0 1"]\n\n1. Rg7 *\n\n',
    # An underpromotion into the tables; en passant.
    '[FEN "7k/1P6/8/8/8/8/8/K7 w - - 0 1"]\n\n1. b8=N Kg7 2. Nd7 *\n\n',
    '[FEN "4k3/8/8/8/1p6/8/P7/4K3 w - - 0 1"]\n\n1. a4 bxa3 2. Kd1 a2 *\n\n',
]


def test_annotate_output_is_the_same_as_with_python_chess_reading(
        tablebase: Any, syzygy_dir: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Generated whole games and endgames, the special games above and the
    hand-written quirks: the annotated PGN, the report, the warnings and
    the summary are the same byte for byte whether the C replay or
    python-chess's reader reads the games (and the replay read most); also
    with half the tables missing (failed probes, their warnings)."""
    import pyfathom
    import pyfathom.annotate.stream as stream

    rng = random.Random(5)
    texts = []
    for i in range(30 if SANITIZED else 200):
        texts.append(str(pgn_games.full_game(i + 1, rng)) + "\n\n")
    texts.append(pgn_games.generated_pgn(60 if SANITIZED else 1000, seed=31))
    for i in range(20 if SANITIZED else 60):
        start, moves = special_game(rng, chess.Board(_FEN_STARTS[i % len(_FEN_STARTS)])
                                    if i % 2 else None)
        game = chess.pgn.Game.from_board(_played(start, moves))
        texts.append(str(game) + "\n\n")
    texts += _QUIRKY_GAMES
    text = "".join(texts)

    fallbacks: list[int] = []
    real = stream._read_with_python_chess

    def counted(*args: Any) -> Any:
        fallbacks.append(1)
        return real(*args)

    for name in sorted(p.name for p in syzygy_dir.glob("*.rtb[wz]"))[::4]:
        (tmp_path / name).symlink_to(syzygy_dir / name)
    with pyfathom.open_tablebase(tmp_path) as partial:
        monkeypatch.setattr(stream, "_read_with_python_chess", counted)
        fast = _annotate_all(tablebase, text)
        fast_partial = _annotate_all(partial, text)
        monkeypatch.setattr(stream, "_REPLAYS_CHESS", False)
        slow = _annotate_all(tablebase, text)
        slow_partial = _annotate_all(partial, text)
    for one, other in ((fast, slow), (fast_partial, slow_partial)):
        assert one[0] == other[0]
        assert one[1] == other[1]
        assert one[2] == other[2] and one[3] == other[3]
    games = fast[3]["games_read"]
    rows = list(csv.reader(io.StringIO(fast[1])))
    assert games > (100 if SANITIZED else 1200) and len(rows) > (25 if SANITIZED else 400)
    assert fast[3]["broken_games"] >= 4 and fast_partial[3]["failed_probes"] > 50
    # Read by python-chess: the quirks from Chess960 to the lone CR, in each
    # of the two runs with the fast path; every generated game was replayed.
    assert len(fallbacks) == 2 * 8


def _played(start: chess.Board, moves: list[chess.Move]) -> chess.Board:
    board = start.copy(stack=False)
    for move in moves:
        board.push(move)
    return board
