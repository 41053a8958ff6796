"""The ``pyfathom`` command (also ``python -m pyfathom``).

Subcommands::

    pyfathom download [--dest DIR] [--source URL_OR_DIR [--checksums FILE]]
    pyfathom probe FEN [FEN ...] [--tables DIR] [--json]
    pyfathom info [MATERIAL ...] [--tables DIR] [--check [--checksums FILE]]
    pyfathom batch FILE [--tables DIR] [--threads N] [--dtz] [-o OUT]
                   [--format csv|jsonl|parquet|arrow] [--strict] [--max-errors N]
                   [--carry line,id,...]
    pyfathom serve [--tables DIR] [--host 127.0.0.1] [--port 9000] [--workers N]
    pyfathom annotate GAMES.pgn [-o OUT.pgn] [--tables DIR] [--report FILE]

Tables are looked up from ``--tables``, else ``$SYZYGY_PATH``, else the
directory ``pyfathom download`` fills (see :func:`pyfathom.download.default_dir`),
and in the folders one level below each of those.

Every error is one line on stderr and a non-zero exit status, never a
traceback: 1 for a failure (bad position, missing tables, bad lines in a
batch), 2 for wrong usage, 128 + the signal's number when SIGINT, SIGTERM or
SIGHUP stops a command (its temporary output file removed).

Where things are: this module holds the parser and :func:`main`; each command
is a module of this package (``probe``, ``info``, ``download``, ``batch``
with ``columnar`` for its Parquet/Arrow side, ``annotate``, ``serve``)
with ``register(subparsers)``, which adds its sub-parser and sets
``func=run``, and ``run(args) -> int``, the exit status.  What commands
share (:class:`CliError`, table opening, the progress bar, messages on
stderr) is in ``_common``.  A new command is a new module plus one line in
:data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import NoReturn

from pyfathom._files.output import Terminated, terminate_on_signals

from . import annotate, batch, download, info, prefix, probe, serve, warm
from ._common import EXIT_FAIL, EXIT_USAGE, PROG, CliError, UsageError, err, os_error_text

__all__ = ["main", "CliError"]

COMMANDS = (download, probe, info, batch, serve, annotate, warm, prefix)
"""The command modules, in the order ``--help`` lists them."""


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def _parser() -> tuple[argparse.ArgumentParser, list[str]]:
    """The parser, and the command names in the order they were registered."""
    from pyfathom import __version__

    parser = _Parser(
        prog=PROG,
        description="Probe Syzygy endgame tablebases (WDL, DTZ, best moves) from the command line.",
        epilog="Tables are looked up from --tables, else $SYZYGY_PATH, else the directory "
               "'pyfathom download' fills, and in the folders one level below each.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.register(subparsers)
    return parser, list(subparsers.choices)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser, names = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, usage errors
        return int(e.code) if isinstance(e.code, int) else EXIT_USAGE
    if args.command is None:
        err(f"a command is required: {', '.join(names[:-1])} or {names[-1]} (see {PROG} --help)")
        return EXIT_USAGE
    try:
        if args.func is serve.run:  # uvicorn handles its own signals
            return int(args.func(args))
        with terminate_on_signals():
            return int(args.func(args))
    except Terminated as e:
        err(f"terminated by {e.name}")
        return 128 + e.signum
    except UsageError as e:
        err(f"{e} (see {PROG} {args.command} --help)")
        return EXIT_USAGE
    except CliError as e:
        err(str(e))
        return EXIT_FAIL
    except KeyboardInterrupt:
        err("interrupted")
        return 128 + signal.SIGINT
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and point
        # stdout at devnull so the interpreter's final flush cannot fail.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return EXIT_FAIL
    except OSError as e:  # a file or folder the command could not use
        err(os_error_text(e))
        return EXIT_FAIL
    except Exception as e:  # never a traceback, and one line
        lines = str(e).strip().splitlines()
        err(f"error: {type(e).__name__}: {lines[0] if lines else 'no details'}")
        return EXIT_FAIL
