"""The ``pyfathom serve`` command: argument parsing and the uvicorn start
(the server itself is :mod:`pyfathom.server`)."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import Any

from ._common import CliError, UsageError, add_tables_argument, find_tables

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``serve`` sub-command to the ``pyfathom`` parser."""
    p = subparsers.add_parser(
        "serve", help="a lichess-compatible tablebase HTTP API and an explorer page",
        description="Serve the tables over HTTP: lichess's tablebase API (GET /standard, "
                    "GET /standard/mainline, /atomic and /antichess with --atomic/--antichess, "
                    "JSON or CBOR), POST /standard/batch, GET /monitor, and an "
                    "explorer page at /. Needs the [server] extra "
                    "(pip install 'pyfathom-syzygy[server]'). Binds to 127.0.0.1 by default.")
    add_tables_argument(p)
    p.add_argument("--atomic", action="append", default=[], metavar="DIR",
                   help="atomic tables (.atbw/.atbz) for GET /atomic (repeatable)")
    p.add_argument("--antichess", action="append", default=[], metavar="DIR",
                   help="antichess tables (.gtbw/.gtbz) for GET /antichess (repeatable)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int, default=9000, help="port (default: 9000)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes (default: 1); they map the same table files")
    p.add_argument("--cache", type=int, default=None, metavar="N",
                   help="answers kept per worker (default: 20000; 0: none)")
    p.add_argument("--request-timeout", type=float, default=None, metavar="S",
                   help="seconds a request may take to arrive, headers and body, before a 408 "
                        "(default: 10); idle keep-alive connections close after 5")
    p.add_argument("--log-level", default="warning",
                   choices=("critical", "error", "warning", "info", "debug"),
                   help="uvicorn's log level (default: warning)")
    p.set_defaults(func=run)


def _check_bind(host: str, port: int) -> None:
    """Raise CliError with a one-line reason when ``host:port`` cannot be
    bound (uvicorn would log it and exit with status 3)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise CliError(f"cannot serve on {host}:{port}: {e.strerror or e}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as e:
            raise CliError(f"cannot serve on {host}:{port}: {e.strerror or e}") from None


def run(args: argparse.Namespace) -> int:
    """Start uvicorn with ``args.workers`` worker processes; returns when it stops."""
    try:
        import uvicorn

        from pyfathom.server import app as server_app
    except ImportError as e:
        raise CliError(f"pyfathom serve needs the [server] extra ({e.name} is missing): "
                       "pip install 'pyfathom-syzygy[server]'") from None
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be 1..65535, not {args.port}")
    if args.workers < 1:
        raise UsageError(f"--workers must be >= 1, not {args.workers}")
    if args.request_timeout is not None and not 0 < args.request_timeout <= 3600:
        raise UsageError(f"--request-timeout must be in (0, 3600], not {args.request_timeout}")
    if args.cache is not None and args.cache < 0:
        raise UsageError(f"--cache must be >= 0, not {args.cache}")
    for directory in args.hot_prefix or ():
        if not os.path.isdir(directory):
            raise CliError(f"--hot-prefix {directory}: not a directory")
    os.environ[server_app.ENV_HOT_PREFIX] = os.pathsep.join(
        os.path.abspath(d) for d in args.hot_prefix or ())
    # The folders the other commands use (one level down too), or their message.
    folders, _dirs, _origin = find_tables(args.tables)
    os.environ[server_app.ENV_TABLES] = os.pathsep.join(str(f) for f in folders)
    for variant, env in server_app.ENV_VARIANT_TABLES.items():
        variant_dirs = getattr(args, variant)
        for directory in variant_dirs:
            if not os.path.isdir(directory):
                raise CliError(f"--{variant} {directory}: not a directory")
        os.environ[env] = os.pathsep.join(os.path.abspath(d) for d in variant_dirs)
    if args.cache is not None:
        os.environ[server_app.ENV_CACHE] = str(args.cache)
    if args.request_timeout is not None:
        from pyfathom.server.protocol import ENV_REQUEST_TIMEOUT

        os.environ[ENV_REQUEST_TIMEOUT] = repr(args.request_timeout)
    _check_bind(args.host, args.port)
    sys.stderr.write(f"pyfathom: serving the tables of {os.environ[server_app.ENV_TABLES]} on "
                     f"http://{args.host}:{args.port}/ ({args.workers} worker"
                     f"{'s' if args.workers > 1 else ''}); Ctrl-C stops\n")
    sys.stderr.flush()
    try:
        from pyfathom.server.protocol import HTTP_PROTOCOL, KEEP_ALIVE_TIMEOUT

        uvicorn.run("pyfathom.server.app:app_from_environment", factory=True, http=HTTP_PROTOCOL,
                    host=args.host, port=args.port, workers=args.workers,
                    log_level=args.log_level, access_log=False, server_header=False,
                    timeout_keep_alive=KEEP_ALIVE_TIMEOUT)
    except OSError as e:
        raise CliError(f"cannot serve on {args.host}:{args.port}: {e.strerror or e}") from None
    return 0
