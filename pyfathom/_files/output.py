"""The one way a command writes its result file (``batch -o``, Parquet and
Arrow outputs, ``annotate -o`` and ``--report``).

Where the output goes decides how it is written:

- a regular file (or a name that does not exist yet) is written under a
  hidden temporary name in its folder (``.NAME.XXXXXX.part``) and renamed
  over the name only when the run succeeded, so an interrupted run never
  leaves a half-written file, and a failed run leaves the old one intact;
- anything else, a device (``/dev/null``), a FIFO, a socket, ``-`` or a
  file descriptor of this process (``/dev/stdout``, ``/dev/fd/N``), is
  written directly: renaming a file over it would destroy it (a device
  node replaced by a regular file) or miss the reader altogether.

The command line turns SIGTERM and SIGHUP into :class:`Terminated`
(:func:`terminate_on_signals`), so the temporary file of a run stopped by
``kill`` is removed as it is for Ctrl-C; and the rename looks for a signal
that arrived first (:func:`raise_if_signalled`), as the exception it raised
can be lost.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import IO, Any

from pyfathom._signals import STOP_SIGNALS

__all__ = ["Output", "is_direct", "output_over_input", "Terminated", "terminate_on_signals",
           "raise_if_signalled"]

_STDOUT_NAMES = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")
_DESCRIPTOR_FOLDERS = ("/dev/fd/", "/proc/self/fd/")


def is_direct(path: str) -> bool:
    """Whether *path* is written directly (see the module docstring): ``-``,
    a file descriptor of this process, or an existing file that is not a
    regular file (device, FIFO, socket)."""
    if path in _STDOUT_NAMES or path.startswith(_DESCRIPTOR_FOLDERS):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # not there yet: a new regular file
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def output_over_input(input_path: str, output_path: str, label: str) -> str | None:
    """The message refusing to write ``output_path`` (``label`` names it to
    the user: ``-o``, ``--report``, ``the output``) because it is the input
    ``input_path`` (``-``: standard input) under the same name, a symbolic
    link or a hard link (the same inode); None when it is not.

    The one check of every command and API call that writes a file over a
    path, made before anything is opened for writing, so that the input is
    never touched.  Only regular files and directories count: a terminal or
    another device read and written at once loses nothing.  An output that
    does not exist yet, or ``-`` (standard output), is never the input.
    """
    if output_path == "-":
        return None
    try:
        out_stat = os.stat(output_path)
        in_stat = os.fstat(sys.stdin.fileno()) if input_path == "-" else os.stat(input_path)
    except (OSError, ValueError, AttributeError):  # no such file; no usable stdin
        return None
    if (out_stat.st_dev, out_stat.st_ino) != (in_stat.st_dev, in_stat.st_ino) or not (
            stat.S_ISREG(out_stat.st_mode) or stat.S_ISDIR(out_stat.st_mode)):
        return None
    what = "standard input" if input_path == "-" else f"the input file {input_path}"
    return (f"{label} {output_path} is {what}: writing it would destroy the input; "
            "choose another output")


class Output:
    """An output opened for writing: ``file`` (text, or bytes with
    ``binary=True``), then :meth:`commit` when the run succeeded or
    :meth:`discard` when it did not.

    Text is UTF-8 with no newline translation; ``errors`` is passed on
    (``surrogateescape`` writes back bytes that were not UTF-8 as read).
    Raises OSError when the output cannot be opened.
    """

    def __init__(self, path: str, *, binary: bool = False, errors: str = "strict") -> None:
        self.path = path
        self.temp: str | None = None
        self._owned = True  # closed at the end (sys.stdout only flushed)
        self.direct = is_direct(path)
        if path in _STDOUT_NAMES:
            self.file = _stdout(binary, errors)
            self._owned = self.file is not sys.stdout and self.file is not sys.stdout.buffer
            return
        if self.direct:
            # No truncation needed (a device or FIFO has no content), and none
            # wanted for a descriptor another process may share.
            fd = os.open(path, os.O_WRONLY)
        else:
            # Through a symbolic link, the file it points to is replaced.
            target = os.path.realpath(path)
            folder, name = os.path.split(target)
            fd, self.temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder)
            self._target = target
        try:
            self.file = (os.fdopen(fd, "wb") if binary else
                         os.fdopen(fd, "w", encoding="utf-8", errors=errors, newline=""))
        except BaseException:
            os.close(fd)
            self._remove_temp()
            raise

    def commit(self) -> None:
        """Finish the output: flush (and for a regular file, rename the
        temporary file to the name, with the mode the replaced file had or
        a new file gets, as mkstemp makes it owner-only)."""
        try:
            self._close()
            if self.temp is not None:
                try:
                    mode = stat.S_IMODE(os.stat(self._target).st_mode)
                except OSError:
                    umask = os.umask(0)
                    os.umask(umask)
                    mode = 0o666 & ~umask
                os.chmod(self.temp, mode)
                raise_if_signalled()  # an interrupted run is never renamed over the name
                os.replace(self.temp, self._target)
                self.temp = None
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Drop the output: the temporary file is removed and the name left
        as it was (a direct output keeps what was written)."""
        try:
            self._close()
        except OSError:
            pass  # already failing; the temporary file goes anyway
        finally:
            self._remove_temp()

    def _close(self) -> None:
        if self.file.closed:
            return
        if self._owned:
            self.file.close()
        else:
            self.file.flush()

    def _remove_temp(self) -> None:
        if self.temp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.temp)
            self.temp = None


def _stdout(binary: bool, errors: str) -> IO[Any]:
    """Standard output for an Output: its bytes, or a UTF-8 text wrapper of
    its descriptor (closing it leaves the descriptor open); where stdout is
    no real file (a test's capture), stdout itself."""
    sys.stdout.flush()
    if binary:
        return sys.stdout.buffer
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.stdout
    return open(fd, "w", encoding="utf-8", errors=errors, newline="", closefd=False)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: raised in the main thread like
    KeyboardInterrupt, so ``finally`` blocks remove temporary files."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


# The signals that arrived under terminate_on_signals, oldest first: its
# handlers record each before raising, and raise_if_signalled raises again
# from the record.  Process state, as signal handlers are; emptied when the
# block ends.
_received: list[int] = []


def _stop_exception(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def raise_if_signalled() -> None:
    """Raise KeyboardInterrupt or :class:`Terminated` if one of the signals
    :func:`terminate_on_signals` handles arrived, even when the exception
    its handler raised was lost: a handler runs wherever the main thread
    is, and C code that clears every error swallows what it raises
    (numpy's lookup of ``__array_priority__`` on an operand, numpy
    gh-14801: a batch run went on to its end after Ctrl-C and renamed its
    output over OUT, test_interrupted_batch_leaves_no_partial_output).
    Handlers that have not run yet run first (``pthread_kill`` with signal
    0 sends nothing, and CPython looks for signals after it).  Called at
    the points of no return: before an output is renamed, after each item
    of a batch.  Outside the main thread, or without a record, it raises
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        return
    if hasattr(signal, "pthread_kill"):
        signal.pthread_kill(threading.get_ident(), 0)
    if _received:
        raise _stop_exception(_received[0])


@contextlib.contextmanager
def terminate_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` and
    SIGINT KeyboardInterrupt, each also recorded for
    :func:`raise_if_signalled`.  A signal the caller ignores (as under
    ``nohup``) stays ignored, and a SIGINT handler of the caller's own
    stays; the old handlers come back afterwards.  Outside the main thread
    it does nothing (only the main thread can set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def record_and_raise(signum: int, _frame: Any) -> None:
        _received.append(signum)
        raise _stop_exception(signum)

    previous = {}
    for signum in STOP_SIGNALS:
        old = signal.getsignal(signum)
        if old is signal.SIG_IGN or (signum == signal.SIGINT
                                     and old is not signal.default_int_handler):
            continue
        previous[signum] = old
        signal.signal(signum, record_and_raise)
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
        _received.clear()
