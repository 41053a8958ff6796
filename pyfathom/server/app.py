"""The ASGI application of ``pyfathom serve`` (Starlette).

Routes (``VARIANT``: ``standard``, ``atomic`` or ``antichess``, as lichess):

- ``GET /VARIANT?fen=FEN``: lichess's tablebase document (JSON, or CBOR
  when the ``Accept`` header ranks ``application/cbor`` higher); see
  :mod:`pyfathom.server.lichess`.  ``dtc`` (``never``, ``auxiliary``,
  ``always``) is accepted as lichess accepts it, and changes nothing
  (pyfathom reads no DTC tables).  Atomic and antichess answer from the
  tables given with ``--atomic DIR`` / ``--antichess DIR`` (404 without).
- ``GET /VARIANT/mainline?fen=FEN``: the DTZ mainline; 404 when the
  tables cannot answer the position.
- ``POST /standard/batch``: up to :data:`MAX_BATCH` FENs in one request (a
  JSON array of strings, ``{"fens": [...]}``, NDJSON or plain lines), one
  ``/standard`` document (plus ``fen``) or ``{"fen", "error"}`` per FEN, in
  order; see :mod:`pyfathom.server.batch` for its bounds.
- ``GET /monitor``: lila-tablebase's one-line counters (answers cached,
  cache misses) as plain text.
- ``GET /``: the explorer page, with its script and style under
  ``/static/``; ``GET /explorer/play?fen=FEN&uci=MOVE`` gives the FEN after
  a move (the page's move maker).

Answers carry ``Access-Control-Allow-Origin: *`` (preflight ``OPTIONS``
answered on every path), ``Vary: Accept``, an ``ETag`` (``If-None-Match``
gets a 304) and ``Cache-Control: public, max-age=86400``: they never change
while the server runs.

Probes never run on the event loop: single positions on at most
:data:`PROBE_THREADS` threads at once (the C calls release the GIL), and
batches and mainlines, at most :data:`HEAVY_THREADS` at once, in as many
child processes at a lower priority (:mod:`pyfathom.server.heavy`), so
that their Python work takes neither the worker's GIL nor, on a busy
machine, its CPU from the cheap requests; past :data:`MAX_WAITING`
requests waiting for a thread, a request gets a 429 with ``Retry-After``.
The reads of a 6-7-piece position's moves are asked for together before
its probes (:func:`lichess.probe_document`), so that on tables not yet in
the page cache they overlap; the probes themselves then run one after
another, or on :data:`SPREAD_THREADS` more threads (:data:`TOGETHER_MODES`).

Every error is a JSON ``{"error": "..."}`` with a 4xx status that says what
was wrong with the request (503 for a damaged table file, the server's
fault, named in the message).
"""

from __future__ import annotations

import functools
import os
import sys
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any, Optional, TypeVar

import anyio
import anyio.to_thread
import chess
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

import pyfathom
from pyfathom.server import lichess, web
from pyfathom.server.batch import MAX_BATCH, MAX_BATCH_MOVES, MAX_BODY_BYTES, is_ndjson, \
    read_body
from pyfathom.server.heavy import Children, encode, run_job

__all__ = ["create_app", "app_from_environment", "MAX_BATCH", "MAX_BATCH_MOVES",
           "MAX_BODY_BYTES", "MAX_QUERY_BYTES", "PROBE_THREADS", "HEAVY_THREADS",
           "MAX_WAITING", "SPREAD_THREADS", "TOGETHER_MODES", "ENV_TABLES", "ENV_VARIANT_TABLES",
           "ENV_CACHE", "ENV_TOGETHER", "DEFAULT_TOGETHER", "ENV_HOT_PREFIX", "ENV_READ_AHEAD"]

MAX_QUERY_BYTES = 2048
"""Longest query string accepted (414 beyond)."""

STREAM_PIECE = 100
"""FENs per piece of a streamed NDJSON batch answer (at most about 1 MB)."""

PROBE_THREADS = 4
"""Threads per worker process answering single positions (``GET /VARIANT``)."""

HEAVY_THREADS = 2
"""Batches and mainlines a worker process computes at once (each in a
child process of its own, see :func:`create_app`): fewer than
:data:`PROBE_THREADS`, and apart from them, so that they never hold up a
single-position request."""

SWITCH_INTERVAL = 0.0005
"""The GIL switch interval of a worker process, in seconds (see
:func:`app_from_environment`)."""

MAX_WAITING = 256
"""Requests per worker process that may wait for a thread; beyond, a 429."""

SPREAD_THREADS = 32
"""Threads per worker process on which the probes of one request's moves
run together (``together="threads"``): about the moves of one 6-7-piece
position times the :data:`PROBE_THREADS` requests at once, each mostly
waiting for the disk when the tables are cold."""

TOGETHER_MODES = ("threads", "batch", "off")
"""How ``GET /VARIANT`` probes the positions after a position's moves:

- ``off`` (the default, :data:`DEFAULT_TOGETHER`): one after another;
- ``threads``: each on a thread of its own at once
  (:data:`SPREAD_THREADS` per worker, :func:`lichess.probe_document`'s
  ``spread``), so that on cold tables their reads from disk overlap
  (the default until the reads were asked for together first);
- ``batch``: all in one call of the C batch core
  (:func:`lichess.probe_documents`; standard chess; the variants as
  ``threads``), which reads them in table order on one thread.

``pyfathom serve`` takes it from :data:`ENV_TOGETHER`."""

DEFAULT_TOGETHER = "off"
"""The default of :data:`TOGETHER_MODES`.  A 6-7-piece position's moves
have their reads asked for together before their probes
(:meth:`pyfathom.Tablebase.read_ahead_moves`), so the thread pool has
little left to overlap and costs hand-offs of the GIL: measured on 2
cores (docs/server.md, "Cold tables"), one after another gave 0.82x the
threads' cold p50 and 0.90x their cold p99 with 10 clients, 0.45x their
warm p50."""

ENV_TOGETHER = "PYFATHOM_SERVE_TOGETHER"
"""Environment variable: one of :data:`TOGETHER_MODES` (default
:data:`DEFAULT_TOGETHER`)."""

ENV_READ_AHEAD = "PYFATHOM_SERVE_READ_AHEAD"
"""Environment variable: each worker's :attr:`pyfathom.Tablebase.read_ahead`
(``auto``, the default, ``always`` or ``off``: for comparisons)."""

ENV_HOT_PREFIX = "PYFATHOM_SERVE_HOT_PREFIX"
"""Environment variable: the prefix-file folders (``os.pathsep``-separated)
of ``pyfathom serve --hot-prefix``."""

ENV_TABLES = "PYFATHOM_SERVE_TABLES"
"""Environment variable through which ``pyfathom serve`` hands its table
directories (joined with :data:`os.pathsep`) to each worker process."""

ENV_VARIANT_TABLES = {"atomic": "PYFATHOM_SERVE_ATOMIC", "antichess": "PYFATHOM_SERVE_ANTICHESS"}
"""The same for the variant tables (``--atomic DIR``, ``--antichess DIR``)."""

ENV_CACHE = "PYFATHOM_SERVE_CACHE"
"""Environment variable: entries of each worker's answer cache (0: none)."""

DEFAULT_CACHE = 20_000
"""Default answers kept per worker (lichess's server keeps as many)."""

_CBOR = "application/cbor"
_JSON = "application/json"
_NDJSON = "application/x-ndjson"
_DTC_MODES = ("never", "auxiliary", "always")
_STATIC = {
    "explorer.js": "text/javascript; charset=utf-8",
    "explorer.css": "text/css; charset=utf-8",
}
_T = TypeVar("_T")


def _error(status: int, message: str, headers: Optional[dict[str, str]] = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status,
                        headers={**web.CORS_HEADERS, **(headers or {})})


class _AnswerCache:
    """The last ``size`` encoded answers and their ETags, keyed by (route,
    variant, position, format): answers never change while the server
    runs.  Used from the event loop only (no lock)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.misses = 0
        self._entries: OrderedDict[tuple[str, ...], tuple[bytes, str]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple[str, ...]) -> Optional[tuple[bytes, str]]:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        else:
            self.misses += 1
        return value

    def put(self, key: tuple[str, ...], value: tuple[bytes, str]) -> None:
        if self.size <= 0:
            return
        self._entries[key] = value
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)


class _Pool:
    """A bounded set of worker threads with a bounded queue in front."""

    def __init__(self, threads: int, waiting: int) -> None:
        self.limiter = anyio.CapacityLimiter(threads)
        self.bound = threads + waiting
        self.busy = 0

    def _admit(self) -> None:
        if self.busy >= self.bound:
            raise HTTPException(429, f"busy: {self.busy} requests already waiting or running; "
                                     "retry in a second")
        self.busy += 1

    async def run(self, fn: Callable[..., _T], *args: Any) -> _T:
        self._admit()
        try:
            return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter)
        finally:
            self.busy -= 1

    def stream(self, fn: Callable[..., bytes], pieces: Sequence[tuple[Any, ...]]
               ) -> AsyncIterator[bytes]:
        """``fn(*piece)`` for each piece in turn, each on a worker thread.
        Admitted (or refused with 429) now, before any byte is sent; the
        request then holds its place until the last piece, so a stream once
        started is never refused halfway."""
        self._admit()
        return self._pieces(fn, pieces)

    async def _pieces(self, fn: Callable[..., bytes], pieces: Sequence[tuple[Any, ...]]
                      ) -> AsyncIterator[bytes]:
        try:
            for piece in pieces:
                yield await anyio.to_thread.run_sync(fn, *piece, limiter=self.limiter)
        finally:
            self.busy -= 1


def _position_key(board: chess.Board) -> str:
    # The move number changes no answer: left out, so that it cannot be
    # used to step around the cache.
    return f"{board.epd()} {board.halfmove_clock}"


def _query_fen(request: Request) -> str:
    if len(request.scope.get("query_string", b"")) > MAX_QUERY_BYTES:
        raise HTTPException(414, f"query string longer than {MAX_QUERY_BYTES} bytes")
    dtc = request.query_params.get("dtc")
    if dtc is not None and dtc not in _DTC_MODES:
        raise HTTPException(400, f"dtc must be one of {', '.join(_DTC_MODES)}, not {dtc[:20]!r}")
    fen = request.query_params.get("fen")
    if fen is None:
        raise HTTPException(400, "missing query parameter: fen (e.g. ?fen=4k3/8/4K3/8/8/8/8/7R_w_-_-_0_1)")
    return fen


_FLAGS = {"true": True, "false": False}


def _exact_mates(request: Request) -> bool:
    """The ``exact_mates`` query parameter (``true``: pyfathom's precise
    flags, :attr:`pyfathom.Probe.dtz_precise`; default ``false``: lila's,
    :meth:`pyfathom.Tablebase.probe_dtz_as_stored`)."""
    value = request.query_params.get("exact_mates", "false")
    if value not in _FLAGS:
        raise HTTPException(400, f"exact_mates must be true or false, not {value[:20]!r}")
    return _FLAGS[value]


def _open(folders: Sequence[Any], VariantBoard: type[chess.Board],
          hot_prefix: Sequence[str] = ()) -> pyfathom.Tablebase:
    """The tables of ``folders``, with the prefix files of ``hot_prefix``
    (a module-level function, with a partial over it: the heavy child
    processes open their own with it)."""
    tb = pyfathom.Tablebase(VariantBoard=VariantBoard)
    tb.read_ahead = os.environ.get(ENV_READ_AHEAD, "auto")
    for folder in folders:
        tb.add_directory(str(folder))
    for prefix_dir in hot_prefix:
        tb.add_prefix_directory(prefix_dir)
    return tb


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = exc.detail if exc.status_code != 404 else f"no such endpoint: {request.url.path[:100]}"
    if exc.status_code == 405:
        message = f"method {request.method} not allowed on {request.url.path[:100]}"
    extra = {"Retry-After": "1"} if exc.status_code == 429 else None
    return _error(exc.status_code, str(message), extra)


async def _server_error(request: Request, exc: Exception) -> Response:
    # Reached only by a bug: still JSON, never a traceback.
    return _error(500, f"internal error: {type(exc).__name__}")


async def _slash(request: Request) -> Response:
    """``/standard/`` -> ``/standard``: a relative Location, never built
    from the Host header (which the client chooses)."""
    query = request.scope.get("query_string", b"").decode("latin-1")
    location = "/" + request.path_params["variant"] + ("?" + query if query else "")
    return Response(status_code=307, headers={**web.CORS_HEADERS, "Location": location})


async def _play(request: Request) -> Response:
    """``GET /explorer/play``: the FEN (and SAN) after a move."""
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
    return JSONResponse({"fen": board.fen(), "san": san}, headers=web.CORS_HEADERS)


class _Server:
    """What the route handlers share: the tablebases, the answer cache,
    the thread pools, the batch processes and the static files.  Each
    handler is a method of its own (:meth:`routes` lists them)."""

    def __init__(self, tablebases: dict[str, pyfathom.Tablebase],
                 found: dict[str, Sequence[str | os.PathLike[str]]], cache_size: int,
                 heavy_processes: bool, together: str,
                 opener: Callable[..., pyfathom.Tablebase] = _open) -> None:
        self.tablebases = tablebases
        self.children: Optional[Children] = None
        if heavy_processes:
            self.children = Children(HEAVY_THREADS, found, opener)
            self.compute: Callable[..., Any] = self.children.call
        else:
            self.compute = functools.partial(run_job, tablebases)
        self.cache = _AnswerCache(cache_size)
        self.light, self.heavy = _Pool(PROBE_THREADS, MAX_WAITING), _Pool(HEAVY_THREADS, MAX_WAITING)
        self.together = together
        # The probes of one position's moves, run together (see TOGETHER_MODES).
        self.spread = ThreadPoolExecutor(SPREAD_THREADS, thread_name_prefix="pyfathom-spread") \
            if together != "off" else None
        self.static = {name: resources.files("pyfathom.server").joinpath("static")
                       .joinpath(name).read_bytes() for name in (*_STATIC, "index.html")}

    def document(self, variant: str, board: chess.Board, exact_mates: bool) -> dict[str, Any]:
        """The ``GET /VARIANT`` document, its probes as :data:`together` says."""
        tb = self.tablebases[variant]
        if self.together == "batch" and variant == "standard":
            found = lichess.probe_documents(tb, [board], threads=1, exact_mates=exact_mates)
            if found and found[0] is not None:
                return found[0]
            # A damaged file: the one-by-one path raises the error naming it.
        return lichess.probe_document(tb, board, exact_mates=exact_mates, spread=self.spread)

    def render(self, route: str, variant: str, board: chess.Board, media: str,
               exact_mates: bool) -> tuple[bytes, str]:
        """The answer's bytes and ETag (on a worker thread)."""
        if route == "mainline":
            data = self.compute("mainline", variant, board.fen(), media, exact_mates)
        else:
            data = encode(self.document(variant, board, exact_mates), media)
        return data, web.etag_of(data)

    async def respond(self, request: Request, route: str) -> Response:
        """``GET /VARIANT`` and ``GET /VARIANT/mainline``: from the cache,
        or computed on a worker thread."""
        variant = request.path_params["variant"]
        if variant not in lichess.VARIANTS:
            return _error(404, f"no such endpoint: {request.url.path[:100]} (variants: "
                               f"{', '.join(lichess.VARIANTS)})")
        if variant not in self.tablebases:
            return _error(404, f"no {variant} tables: start pyfathom serve with --{variant} DIR")
        fen = _query_fen(request)
        exact_mates = _exact_mates(request)
        media = web.negotiate(request.headers.get("accept", ""), (_JSON, _CBOR))
        try:
            board = lichess.parse_fen(fen, variant)
            key = (route, variant, _position_key(board), media, "exact" if exact_mates else "lila")
            answer = self.cache.get(key)
            if answer is None:
                pool = self.heavy if route == "mainline" else self.light
                answer = await pool.run(self.render, route, variant, board, media, exact_mates)
                self.cache.put(key, answer)
        except lichess.BadRequest as e:
            return _error(400, str(e))
        except lichess.NotInTables as e:
            return _error(404, str(e))
        except OSError as e:  # CorruptTableError, or a file that cannot be mapped
            return _error(503, f"table file error: {e}")
        data, etag = answer
        headers = web.answer_headers(etag)
        if web.not_modified(request.headers.get("if-none-match", ""), etag):
            return Response(status_code=304, headers=headers)
        return Response(data, media_type=media, headers=headers)

    async def probe(self, request: Request) -> Response:
        return await self.respond(request, "standard")

    async def mainline(self, request: Request) -> Response:
        return await self.respond(request, "mainline")

    async def batch(self, request: Request) -> Response:
        """``POST /standard/batch``: off the event loop, in the heavy pool."""
        content_type = request.headers.get("content-type", "")
        body = await read_body(request)
        offered = (_NDJSON, _JSON, _CBOR) if is_ndjson(content_type) else (_JSON, _CBOR, _NDJSON)
        media = web.negotiate(request.headers.get("accept", ""), offered)
        headers = {**web.CORS_HEADERS, "Vary": "Accept"}
        if media == _NDJSON:
            # Streamed STREAM_PIECE FENs at a time: the answer is never
            # held whole, and the loop runs between pieces.  A bad body or
            # a batch past its bounds is refused before the first byte.
            # Parsed, computed and encoded off the event loop (1 MiB of JSON
            # in and 10 MB out would hold it for tens of milliseconds).
            fens = await self.heavy.run(self.compute, "check", body, content_type)
            pieces = [("ndjson", fens[i:i + STREAM_PIECE])
                      for i in range(0, len(fens), STREAM_PIECE)]
            return StreamingResponse(self.heavy.stream(self.compute, pieces), media_type=media,
                                     headers=headers)
        data = await self.heavy.run(self.compute, "batch", body, content_type, media)
        return Response(data, media_type=media, headers=headers)

    async def monitor(self, request: Request) -> Response:
        return PlainTextResponse(f"tablebase cache={len(self.cache)}u,"
                                 f"cache_miss={self.cache.misses}u", headers=web.CORS_HEADERS)

    async def page(self, request: Request) -> Response:
        return Response(self.static["index.html"], media_type="text/html; charset=utf-8")

    async def asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC:
            return _error(404, f"no such file: /static/{name[:60]}")
        return Response(self.static[name], media_type=_STATIC[name],
                        headers={"Cache-Control": "no-cache"})

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            self.close()

    def close(self) -> None:
        if self.children is not None:
            self.children.close()
        if self.spread is not None:
            self.spread.shutdown(wait=True)
        for base in self.tablebases.values():
            base.close()

    def routes(self) -> list[Route]:
        return [
            Route("/", self.page),
            Route("/static/{name}", self.asset),
            Route("/monitor", self.monitor),
            Route("/standard/batch", self.batch, methods=["POST"]),
            Route("/explorer/play", _play),
            Route("/{variant}", self.probe),
            Route("/{variant}/", _slash),
            Route("/{variant}/mainline", self.mainline),
        ]


def create_app(tables: Sequence[str] | None = None, *, cache_size: int = DEFAULT_CACHE,
               atomic: Sequence[str] = (), antichess: Sequence[str] = (),
               heavy_processes: bool = False, together: str = DEFAULT_TOGETHER,
               hot_prefix: Sequence[str] = ()) -> Starlette:
    """The server over the tables in ``tables`` (directories; None: as the
    command line finds them, from ``$SYZYGY_PATH`` or the download
    directory), with atomic and antichess tables from ``atomic`` and
    ``antichess`` (none: those endpoints answer 404); each directory and the
    folders one level below it (:func:`pyfathom.tables.table_folders`).

    ``heavy_processes``: batches and mainlines are answered by
    :data:`HEAVY_THREADS` child processes at a lower priority
    (:mod:`pyfathom.server.heavy`), as ``pyfathom serve``'s workers do;
    False: by threads of this process (the same code, for tests in one
    process).

    ``together``: how a ``GET /VARIANT`` request probes the positions
    after its legal moves, one of :data:`TOGETHER_MODES`.

    ``hot_prefix``: folders of prefix files (lila-tablebase's
    ``--hot-prefix``; :meth:`pyfathom.Tablebase.add_prefix_directory`),
    for every variant's tables.

    :raises: :exc:`FileNotFoundError` when no table is found there (and
        for a missing ``hot_prefix`` folder);
        :exc:`ValueError` for an unknown ``together``.
    """
    from pyfathom import tables as table_files

    if together not in TOGETHER_MODES:
        raise ValueError(f"together must be one of {', '.join(TOGETHER_MODES)}, not {together!r}")
    dirs, _origin = table_files.table_dirs(list(tables) if tables else None)
    folders = table_files.table_folders(dirs)  # one level down too, as the command line
    if not folders:
        raise FileNotFoundError(f"no Syzygy tables found in {os.pathsep.join(map(str, dirs))}")
    opener = functools.partial(_open, hot_prefix=tuple(str(d) for d in hot_prefix))
    tablebases: dict[str, pyfathom.Tablebase] = {"standard": opener(folders, chess.Board)}
    found: dict[str, Sequence[str | os.PathLike[str]]] = {"standard": folders}
    for variant, variant_dirs in (("atomic", atomic), ("antichess", antichess)):
        if variant_dirs:
            board_class = lichess.VARIANTS[variant]
            found[variant] = table_files.table_folders(variant_dirs, str(board_class.uci_variant))
            tablebases[variant] = opener(found[variant], board_class)
    server = _Server(tablebases, found, cache_size, heavy_processes, together, opener)
    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        HTTPException: _http_error, Exception: _server_error}
    app = Starlette(routes=server.routes(), exception_handlers=handlers, lifespan=server.lifespan)
    app.router.redirect_slashes = False  # its redirects build the Location from Host
    app.add_middleware(web.CorsMiddleware)
    app.state.tablebase = tablebases["standard"]
    app.state.tablebases = tablebases
    return app


def app_from_environment() -> Starlette:
    """The app of one worker process of ``pyfathom serve`` (uvicorn's
    factory): tables and cache size from :data:`ENV_TABLES`,
    :data:`ENV_VARIANT_TABLES`, :data:`ENV_CACHE`, :data:`ENV_TOGETHER` and
    :data:`ENV_HOT_PREFIX`."""

    def dirs(name: str) -> list[str]:
        return [p for p in os.environ.get(name, "").split(os.pathsep) if p]

    # The probe threads assemble their documents in Python, holding the
    # GIL: a shorter switch interval (5 ms by default) lets the event loop
    # and the other threads answer between their slices.  This process is
    # a server worker, nothing else runs in it.
    sys.setswitchinterval(SWITCH_INTERVAL)
    cache = int(os.environ.get(ENV_CACHE, str(DEFAULT_CACHE)))
    return create_app(dirs(ENV_TABLES) or None, cache_size=cache,
                      atomic=dirs(ENV_VARIANT_TABLES["atomic"]),
                      antichess=dirs(ENV_VARIANT_TABLES["antichess"]), heavy_processes=True,
                      together=os.environ.get(ENV_TOGETHER, DEFAULT_TOGETHER),
                      hot_prefix=dirs(ENV_HOT_PREFIX))
