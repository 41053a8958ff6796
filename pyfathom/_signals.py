"""The signals that stop a command, and threads that leave them to the main
thread: what the command line's signal handling (:mod:`pyfathom._files.output`)
and the worker pools below it (:func:`pyfathom.tables.check_tables`, the batch
pipeline) share.  Imports nothing of pyfathom."""

from __future__ import annotations

import signal

# The signals that stop a command (Windows has no SIGHUP).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


def leave_signals_to_main_thread() -> None:
    """Block SIGINT, SIGTERM and SIGHUP in the calling thread (a worker's
    initializer; the C threads it starts inherit the mask), so that the
    system delivers them to the main thread and wakes it from its wait for
    the worker.  CPython runs signal handlers in the main thread only: a
    signal the system gave a worker, blocked in a read of an idle pipe,
    would wait in the main thread until the worker's item is done.  Does
    nothing where threads have no signal mask (Windows)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
