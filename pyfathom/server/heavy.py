"""Batches and mainlines in processes of their own, at a lower priority.

Why: a batch's documents are Python work (move generation, SAN, JSON)
that holds the GIL for seconds.  Run on a worker's own threads, it takes
the GIL from every cheap request of that worker at each switch, and with
as many workers as cores it takes their CPU as well.  Each child here
holds its own tablebases, runs :data:`NICENESS` steps below the worker
(so the kernel gives the worker's cheap requests the CPU first), and
answers one job at a time over a pipe: the worker keeps its event loop
and its single-position probes, and only waits, GIL released, for the
bytes of the answer.

:class:`Children` is the worker's side; :func:`run_job` the one place a
job is answered, in a child or, for an app built in a test's process, in
the worker's own thread (the same code either way).
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any, Optional

import chess
from starlette.exceptions import HTTPException

import pyfathom
from pyfathom.server import lichess
from pyfathom.server.batch import batch_documents, batch_fens, parse_batch, parsed_documents

__all__ = ["NICENESS", "Children", "Opener", "Tables", "encode", "run_job"]

NICENESS = 10
"""How much lower a child's priority is than its worker's (``os.nice``)."""

Tables = dict[str, pyfathom.Tablebase]
"""The tablebases of a server, by variant (``standard``, ``atomic``, ...)."""

_JSON = "application/json"

Opener = Callable[[Sequence[str], type[chess.Board]], pyfathom.Tablebase]
"""How the server opens a variant's tablebase over its directories (the
app's own function, handed to the children)."""


def encode(document: Any, media: str) -> bytes:
    """A document as the bytes of ``media`` (CBOR, else compact JSON)."""
    if media == "application/cbor":
        import cbor2

        data: bytes = cbor2.dumps(document)
        return data
    return json.dumps(document, separators=(",", ":")).encode()


def run_job(tables: Tables, kind: str, *args: Any) -> Any:
    """Answer one job:

    - ``("mainline", variant, fen, media, exact_mates)``: the encoded
      mainline document;
    - ``("batch", body, content_type, media)``: the encoded batch answer;
    - ``("check", body, content_type)``: the FENs of a batch body, its
      bounds checked (for a streamed answer, before its first byte);
    - ``("ndjson", fens)``: those FENs' documents, one NDJSON line each.

    Raises what the endpoint answers with: ``HTTPException``,
    :class:`lichess.BadRequest`, :class:`lichess.NotInTables`,
    :exc:`OSError` (a damaged table)."""
    standard = tables["standard"]
    if kind == "mainline":
        variant, fen, media, exact_mates = args
        board = lichess.parse_fen(fen, variant)
        return encode(lichess.mainline_document(tables[variant], board,
                                                 exact_mates=exact_mates), media)
    if kind == "batch":
        body, content_type, media = args
        return encode(batch_documents(standard, batch_fens(body, content_type)), media)
    if kind == "check":
        body, content_type = args
        fens = batch_fens(body, content_type)
        parse_batch(fens)
        return fens
    if kind == "ndjson":
        (fens,) = args
        documents = parsed_documents(standard, fens, parse_batch(fens))
        return b"".join(encode(d, _JSON) + b"\n" for d in documents)
    raise ValueError(f"unknown job {kind!r}")


# What crosses the pipe instead of an exception (its class and arguments).
_ERRORS: dict[str, type[Exception]] = {"bad": lichess.BadRequest,
                                       "not-in-tables": lichess.NotInTables,
                                       "os": OSError}


def _reply(tables: Tables, job: tuple[Any, ...]) -> tuple[Any, ...]:
    try:
        return ("ok", run_job(tables, *job))
    except HTTPException as e:
        return ("http", e.status_code, e.detail)
    except lichess.BadRequest as e:
        return ("bad", str(e))
    except lichess.NotInTables as e:
        return ("not-in-tables", str(e))
    except OSError as e:
        return ("os", str(e))
    except Exception as e:  # a bug: the worker answers a JSON 500
        return ("bug", f"{type(e).__name__}: {e}")


def _serve(conn: Connection, dirs: dict[str, Sequence[str]], opener: Opener) -> None:
    """A child's life: open the tables, then answer jobs until the pipe
    closes or a None arrives."""
    try:
        os.nice(NICENESS)
    except OSError:  # pragma: no cover - lowering one's priority is always allowed
        pass
    tables = {variant: opener(folders, lichess.VARIANTS[variant])
              for variant, folders in dirs.items()}
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                break
            if job is None:
                break
            conn.send(_reply(tables, job))
    finally:
        for tb in tables.values():
            tb.close()


def _discard(child: tuple[Any, Connection]) -> None:
    """Make sure a child that failed is gone, and reaped."""
    child[0].kill()
    child[0].join(1)
    child[1].close()


class Children:
    """``count`` child processes over the tables in ``dirs`` (directories
    by variant, opened with ``opener``), each answering one job at a time,
    each started when first needed.  :meth:`call` is
    blocking (run it on a thread) and must not be entered by more than
    ``count`` threads at once (the worker's heavy pool bounds that)."""

    def __init__(self, count: int, dirs: dict[str, Sequence[str | os.PathLike[str]]],
                 opener: Opener) -> None:
        self._dirs = {variant: [str(f) for f in folders] for variant, folders in dirs.items()}
        self._opener = opener
        # spawn: the worker runs threads, which a fork would copy half-way.
        self._context = multiprocessing.get_context("spawn")
        # Started on their first job: a server that is never asked for a
        # batch or a mainline spends nothing on them.
        self._idle: list[Optional[tuple[Any, Connection]]] = [None] * count

    def _start(self) -> tuple[Any, Connection]:
        mine, theirs = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(theirs, self._dirs, self._opener),
                                        name="pyfathom-serve-heavy", daemon=True)
        process.start()
        theirs.close()
        return process, mine

    def call(self, *job: Any) -> Any:
        """Answer ``job`` (see :func:`run_job`) in a free child: its result,
        or its exception raised again here.  A child found dead (killed, or
        a crash) is replaced first; one that dies during the job answers
        it with a 503, and the next job starts a new one."""
        child = self._idle.pop()
        try:
            if child is None:
                child = self._start()
            elif not child[0].is_alive():
                _discard(child)
                child = self._start()
            child[1].send(job)
            reply = child[1].recv()
        except (EOFError, OSError):
            if child is not None:
                _discard(child)
            child = None  # a new one for the next job
            raise HTTPException(503, "the process computing this answer ended; retry") from None
        finally:
            self._idle.append(child)
        status, *rest = reply
        if status == "ok":
            return rest[0]
        if status == "http":
            raise HTTPException(rest[0], rest[1])
        if status in _ERRORS:
            raise _ERRORS[status](rest[0])
        raise RuntimeError(rest[0])

    def close(self) -> None:
        """Stop every child (those busy are stopped when their job ends)."""
        started = [child for child in self._idle if child is not None]
        for process, conn in started:
            try:
                conn.send(None)
            except OSError:
                pass
        for process, conn in started:
            process.join(2)
            if process.is_alive():
                process.kill()
            conn.close()
        self._idle.clear()
