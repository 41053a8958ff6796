"""The ASGI application of ``pyfathom serve`` (Starlette).

Routes:

- ``GET /standard?fen=FEN``: lichess's tablebase document (JSON, or CBOR
  with ``Accept: application/cbor``); see :mod:`pyfathom.server.lichess`.
- ``GET /standard/mainline?fen=FEN``: the DTZ mainline; 404 when the
  tables cannot answer the position.
- ``POST /standard/batch``: up to :data:`MAX_BATCH` FENs in one request (a
  JSON array of strings, ``{"fens": [...]}``, NDJSON or plain lines), one
  ``/standard`` document (plus ``fen``) or ``{"fen", "error"}`` per FEN, in
  order.
- ``GET /``: the explorer page, with its script and style under
  ``/static/``; ``GET /explorer/play?fen=FEN&uci=MOVE`` gives the FEN after
  a move (the page's move maker).

Every error is a JSON ``{"error": "..."}`` with a 4xx status that says what
was wrong with the request (503 for a damaged table file, the server's
fault, named in the message).
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any, Optional

import chess
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import pyfathom
from pyfathom.server import lichess

__all__ = ["create_app", "app_from_environment", "MAX_BATCH", "MAX_BODY_BYTES",
           "MAX_QUERY_BYTES", "ENV_TABLES", "ENV_CACHE"]

MAX_BATCH = 1000
"""Most FENs in one ``POST /standard/batch`` (413 beyond)."""

MAX_BODY_BYTES = 1 << 20
"""Largest request body accepted, 1 MiB (413 beyond)."""

MAX_QUERY_BYTES = 2048
"""Longest query string accepted (414 beyond)."""

ENV_TABLES = "PYFATHOM_SERVE_TABLES"
"""Environment variable through which ``pyfathom serve`` hands its table
directories (joined with :data:`os.pathsep`) to each worker process."""

ENV_CACHE = "PYFATHOM_SERVE_CACHE"
"""Environment variable: entries of each worker's answer cache (0: none)."""

DEFAULT_CACHE = 20_000
"""Default answers kept per worker (lichess's server keeps as many)."""

_CBOR = "application/cbor"
_NDJSON = "application/x-ndjson"
_CORS = {"Access-Control-Allow-Origin": "*"}
_STATIC = {
    "explorer.js": "text/javascript; charset=utf-8",
    "explorer.css": "text/css; charset=utf-8",
}


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=_CORS)


def _encode_json(document: Any) -> bytes:
    return json.dumps(document, separators=(",", ":")).encode()


def _encode_cbor(document: Any) -> bytes:
    import cbor2

    data: bytes = cbor2.dumps(document)
    return data


def _wants(request: Request, media_type: str) -> bool:
    return media_type in request.headers.get("accept", "")


class _AnswerCache:
    """The last ``size`` encoded answers, keyed by (route, normalized FEN,
    format): answers never change while the server runs."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[str, str, str], bytes] = OrderedDict()

    def get(self, key: tuple[str, str, str]) -> Optional[bytes]:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: tuple[str, str, str], value: bytes) -> None:
        if self.size <= 0:
            return
        self._entries[key] = value
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)


def _query_fen(request: Request) -> str:
    if len(request.scope.get("query_string", b"")) > MAX_QUERY_BYTES:
        raise HTTPException(414, f"query string longer than {MAX_QUERY_BYTES} bytes")
    fen = request.query_params.get("fen")
    if fen is None:
        raise HTTPException(400, "missing query parameter: fen (e.g. ?fen=4k3/8/4K3/8/8/8/8/7R_w_-_-_0_1)")
    return fen


async def _read_body(request: Request) -> bytes:
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


def _batch_fens(body: bytes, content_type: str) -> list[str]:
    """The FENs of a batch body, or HTTPException(400/413)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HTTPException(400, f"body is not UTF-8 (byte {e.start})") from None
    kind = content_type.split(";")[0].strip().lower()
    items: list[Any]
    if kind in ("application/x-ndjson", "application/jsonl", "application/json-lines"):
        items = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                items.append(json.loads(line))
            except ValueError as e:
                raise HTTPException(400, f"NDJSON line {number} is not JSON: {e}") from None
            if len(items) > MAX_BATCH:
                break
    elif kind == "text/plain":
        items = [line for line in text.splitlines() if line.strip()]
    elif kind in ("", "application/json"):
        try:
            parsed = json.loads(text)
        except ValueError as e:
            raise HTTPException(400, f"body is not JSON: {e}") from None
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
            raise HTTPException(400, f"item {index} is not a FEN string: {json.dumps(item)[:60]}")
        fens.append(item)
    return fens


def create_app(tables: Sequence[str] | None = None, *, cache_size: int = DEFAULT_CACHE) -> Starlette:
    """The server over the tables in ``tables`` (directories; None: as the
    command line finds them, from ``$SYZYGY_PATH`` or the download
    directory).

    :raises: :exc:`FileNotFoundError` when no table is found there.
    """
    from pyfathom import tables as table_files

    dirs, _origin = table_files.table_dirs(list(tables) if tables else None)
    if not table_files.find_table_files(dirs):
        raise FileNotFoundError(f"no Syzygy tables found in {os.pathsep.join(map(str, dirs))}")
    tb = pyfathom.Tablebase()
    for directory in dirs:
        if directory.is_dir():
            tb.add_directory(str(directory))
    cache = _AnswerCache(cache_size)
    static = {name: resources.files("pyfathom.server").joinpath("static").joinpath(name).read_bytes()
              for name in (*_STATIC, "index.html")}

    def render(route: str, fen_text: str, fmt: str) -> bytes:
        board = lichess.parse_fen(fen_text)
        key = (route, board.fen(), fmt)
        cached = cache.get(key)
        if cached is not None:
            return cached
        if route == "mainline":
            document = lichess.mainline_document(tb, board)
        else:
            document = lichess.probe_document(tb, board)
        data = _encode_cbor(document) if fmt == "cbor" else _encode_json(document)
        cache.put(key, data)
        return data

    def respond(request: Request, route: str) -> Response:
        fen = _query_fen(request)
        fmt = "cbor" if _wants(request, _CBOR) else "json"
        try:
            data = render(route, fen, fmt)
        except lichess.BadRequest as e:
            return _error(400, str(e))
        except lichess.NotInTables as e:
            return _error(404, str(e))
        except OSError as e:  # CorruptTableError, or a file that cannot be mapped
            return _error(503, f"table file error: {e}")
        media = _CBOR if fmt == "cbor" else "application/json"
        return Response(data, media_type=media, headers=_CORS)

    async def standard(request: Request) -> Response:
        return respond(request, "standard")

    async def mainline(request: Request) -> Response:
        return respond(request, "mainline")

    def batch_documents(fens: list[str]) -> list[dict[str, Any]]:
        # Every good FEN is answered from one batch probe
        # (lichess.probe_documents); a board whose probes met a damaged
        # table file is asked again of the per-board path, whose error
        # names the file (as GET /standard's 503 does).
        parsed: list[chess.Board | str] = []  # a board, or why the FEN is bad
        for fen in fens:
            try:
                parsed.append(lichess.parse_fen(fen))
            except lichess.BadRequest as e:
                parsed.append(str(e))
        answers = iter(lichess.probe_documents(
            tb, [item for item in parsed if isinstance(item, chess.Board)]))
        out: list[dict[str, Any]] = []
        for fen, item in zip(fens, parsed):
            if isinstance(item, str):
                out.append({"fen": fen, "error": item})
                continue
            answer = next(answers)
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

    async def batch(request: Request) -> Response:
        content_type = request.headers.get("content-type", "")
        body = await _read_body(request)
        fens = _batch_fens(body, content_type)
        documents = await run_in_threadpool(batch_documents, fens)
        if _wants(request, _CBOR):
            return Response(_encode_cbor(documents), media_type=_CBOR, headers=_CORS)
        if _wants(request, _NDJSON) or content_type.lower().startswith(
                ("application/x-ndjson", "application/jsonl")):
            lines = b"".join(_encode_json(d) + b"\n" for d in documents)
            return Response(lines, media_type=_NDJSON, headers=_CORS)
        return Response(_encode_json(documents), media_type="application/json", headers=_CORS)

    async def play(request: Request) -> Response:
        fen = _query_fen(request)
        uci = request.query_params.get("uci", "")
        try:
            board = lichess.parse_fen(fen)
        except lichess.BadRequest as e:
            return _error(400, str(e))
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            return _error(400, f"not a UCI move: {uci[:20]!r}")
        if move not in board.legal_moves:
            return _error(400, f"illegal move {uci} in {board.fen()}")
        san = board.san(move)
        board.push(move)
        return JSONResponse({"fen": board.fen(), "san": san}, headers=_CORS)

    async def page(request: Request) -> Response:
        return Response(static["index.html"], media_type="text/html; charset=utf-8")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC:
            return _error(404, f"no such file: /static/{name[:60]}")
        return Response(static[name], media_type=_STATIC[name],
                        headers={"Cache-Control": "no-cache"})

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = exc.detail if exc.status_code != 404 else f"no such endpoint: {request.url.path[:100]}"
        if exc.status_code == 405:
            message = f"method {request.method} not allowed on {request.url.path[:100]}"
        return _error(exc.status_code, str(message))

    async def server_error(request: Request, exc: Exception) -> Response:
        # Reached only by a bug: still JSON, never a traceback.
        return _error(500, f"internal error: {type(exc).__name__}")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            tb.close()

    routes = [
        Route("/", page),
        Route("/static/{name}", asset),
        Route("/standard", standard),
        Route("/standard/mainline", mainline),
        Route("/standard/batch", batch, methods=["POST"]),
        Route("/explorer/play", play),
    ]
    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        HTTPException: http_error, Exception: server_error}
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    app.state.tablebase = tb
    return app


def app_from_environment() -> Starlette:
    """The app of one worker process of ``pyfathom serve`` (uvicorn's
    factory): tables and cache size from :data:`ENV_TABLES` and
    :data:`ENV_CACHE`."""
    tables = [p for p in os.environ.get(ENV_TABLES, "").split(os.pathsep) if p]
    cache = int(os.environ.get(ENV_CACHE, str(DEFAULT_CACHE)))
    return create_app(tables or None, cache_size=cache)
