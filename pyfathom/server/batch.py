"""``POST /standard/batch``: reading the body, its FENs, and the bound on the
work and the answer of one request.

A batch costs one probe per position and per legal move of it, and its
answer carries one entry per move: :data:`MAX_BATCH_MOVES` bounds that sum
(counted over the FENs as sent, repeats included, since each is answered),
so that neither the time of one request nor the size of its answer
depends on how many moves the client's positions happen to have.  A FEN
sent more than once is computed once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import chess
from starlette.exceptions import HTTPException
from starlette.requests import Request

import pyfathom
from pyfathom.server import lichess

__all__ = ["MAX_BATCH", "MAX_BATCH_MOVES", "MAX_BODY_BYTES", "read_body", "batch_fens",
           "batch_documents", "parse_batch", "parsed_documents"]

#: The most positions one batch request may hold.
MAX_BATCH = 1000
"""Most FENs in one ``POST /standard/batch`` (413 beyond)."""

MAX_BATCH_MOVES = 40_000
"""Most positions plus legal moves one batch may ask for (413 beyond): about
10 MB of JSON; 1,000 3-5-piece endgames take 15,000-30,000."""

MAX_BODY_BYTES = 1 << 20
"""Largest request body accepted, 1 MiB (413 beyond)."""

_NDJSON_TYPES = ("application/x-ndjson", "application/jsonl", "application/json-lines")


async def read_body(request: Request) -> bytes:
    """The body, at most :data:`MAX_BODY_BYTES` (HTTPException 400/413)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise HTTPException(400, f"bad Content-Length: {declared[:40]!r}")
        if int(declared) > MAX_BODY_BYTES:
            raise HTTPException(413, f"body of {declared} bytes, at most {MAX_BODY_BYTES} accepted")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise HTTPException(413, f"body longer than {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise HTTPException(400, f"{what} is not JSON: {e}") from None
    except RecursionError:  # arrays nested deeper than the parser's stack
        raise HTTPException(400, f"{what} is nested too deeply") from None


def is_ndjson(content_type: str) -> bool:
    return content_type.split(";")[0].strip().lower() in _NDJSON_TYPES


def batch_fens(body: bytes, content_type: str) -> list[str]:
    """The FENs of a batch body, or HTTPException(400/413/415)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HTTPException(400, f"body is not UTF-8 (byte {e.start})") from None
    kind = content_type.split(";")[0].strip().lower()
    items: list[Any]
    if kind in _NDJSON_TYPES:
        items = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            items.append(_json(line, f"NDJSON line {number}"))
            if len(items) > MAX_BATCH:
                break
    elif kind == "text/plain":
        items = [line for line in text.splitlines() if line.strip()]
    elif kind in ("", "application/json"):
        parsed = _json(text, "body")
        if isinstance(parsed, dict) and set(parsed) == {"fens"}:
            parsed = parsed["fens"]
        if not isinstance(parsed, list):
            raise HTTPException(400, 'body must be a JSON array of FEN strings or {"fens": [...]}')
        items = parsed
    else:
        raise HTTPException(415, f"unsupported Content-Type {kind!r}: use application/json, "
                                 "application/x-ndjson or text/plain")
    if len(items) > MAX_BATCH:
        raise HTTPException(413, f"more than {MAX_BATCH} FENs in one batch")
    fens = []
    for index, item in enumerate(items):
        if isinstance(item, dict) and set(item) == {"fen"}:
            item = item["fen"]
        if not isinstance(item, str):
            try:
                shown = json.dumps(item)[:60]
            except (ValueError, RecursionError):
                shown = type(item).__name__
            raise HTTPException(400, f"item {index} is not a FEN string: {shown}")
        fens.append(item)
    return fens


def batch_documents(tb: pyfathom.Tablebase, fens: list[str]) -> list[dict[str, Any]]:
    """One ``/standard`` document (plus ``fen``) or ``{"fen", "error"}`` per
    FEN, in order; HTTPException(413) past :data:`MAX_BATCH_MOVES`
    (:func:`parse_batch`, then :func:`parsed_documents`)."""
    return parsed_documents(tb, fens, parse_batch(fens))


def parse_batch(fens: list[str]) -> list[chess.Board | str]:
    """A board per FEN, or why the FEN is bad; HTTPException(413) past
    :data:`MAX_BATCH_MOVES`, so that a streamed answer is refused before
    its first byte."""
    parsed: list[chess.Board | str] = []
    moves = 0
    for fen in fens:
        try:
            board = lichess.parse_fen(fen)
        except lichess.BadRequest as e:
            parsed.append(str(e))
            continue
        moves += 1 + board.legal_moves.count()
        if moves > MAX_BATCH_MOVES:
            raise HTTPException(413, f"batch asks for more than {MAX_BATCH_MOVES} positions and "
                                     "moves: send fewer FENs per request")
        parsed.append(board)
    return parsed


def parsed_documents(tb: pyfathom.Tablebase, fens: Sequence[str],
                     parsed: Sequence[chess.Board | str]) -> list[dict[str, Any]]:
    """The documents of :func:`batch_documents` for ``fens`` as
    :func:`parse_batch` read them (any slice of both).

    Every distinct good FEN is answered from one batch probe
    (:func:`lichess.probe_documents`); a board whose probes met a damaged
    table file is asked again of the per-board path, whose error names the
    file (as ``GET /standard``'s 503 does)."""
    distinct: dict[str, int] = {}         # normalized FEN -> index into boards
    boards: list[chess.Board] = []
    for board in parsed:
        if isinstance(board, str):
            continue
        key = board.fen()
        if key not in distinct:
            distinct[key] = len(boards)
            boards.append(board)
    answers = lichess.probe_documents(tb, boards)
    out: list[dict[str, Any]] = []
    for fen, item in zip(fens, parsed):
        if isinstance(item, str):
            out.append({"fen": fen, "error": item})
            continue
        answer = answers[distinct[item.fen()]]
        if answer is None:
            try:
                answer = lichess.probe_document(tb, item)
            except OSError as e:
                out.append({"fen": fen, "error": f"table file error: {e}"})
                continue
        document = {"fen": item.fen()}
        document.update(answer)
        out.append(document)
    return out
