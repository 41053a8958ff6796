"""Where the commands' outputs go (issue 23, findings 1 and 2): a regular
file is written under a temporary name and renamed into place; a device
node, a FIFO and /dev/stdout are written directly and never replaced;
SIGTERM and SIGHUP clean up the temporary file as Ctrl-C does.

Every special file is made by the test in its own temporary folder, never
the machine's (the device node is a copy of /dev/null's numbers, 1:3, made
with os.mknod as root).  About 6 s, mostly the child processes' start-up.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pyfathom.cli import main

FENS = ["8/8/8/8/8/8/2Rk4/1K6 b - - 0 1", "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1"]
PGN = ('[Event "t"]\n[FEN "8/8/8/8/8/2k5/1p6/3K4 b - - 0 1"]\n[SetUp "1"]\n\n'
       '1... Kd3 2. Ke1 b1=Q+ *\n')


def _cli(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyfathom", *args], capture_output=True,
                          text=True, timeout=120, **kwargs)  # type: ignore[call-overload]


def _device_node(tmp_path: Path) -> Path:
    """A character device like /dev/null (1:3) in tmp_path, or a skip naming why not."""
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError) as e:
        pytest.skip(f"cannot make a device node with os.mknod here (needs root): {e}")
    return node


@pytest.fixture
def fen_file(tmp_path: Path) -> Path:
    path = tmp_path / "in.fen"
    path.write_text("\n".join(FENS) + "\n")
    return path


def test_regular_file_is_renamed_into_place(tmp_path, fen_file, syzygy_dir):
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    out.chmod(0o640)
    proc = _cli("batch", str(fen_file), "--tables", str(syzygy_dir), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("fen,wdl,dtz,status\n")
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # the replaced file's mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fen", "out.csv"]


@pytest.mark.parametrize("command", ["batch-csv", "batch-parquet", "annotate", "report"])
def test_device_node_is_written_not_replaced(tmp_path, fen_file, syzygy_dir, command):
    node = _device_node(tmp_path)
    before = node.stat()
    if command == "annotate" or command == "report":
        games = tmp_path / "g.pgn"
        games.write_text(PGN)
        option = "-o" if command == "annotate" else "--report"
        target = str(node)
        if command == "report":
            os.symlink(node, tmp_path / "null.csv")  # --report wants .csv / .jsonl
            target = str(tmp_path / "null.csv")
        args = ["annotate", str(games), "--tables", str(syzygy_dir), option, target]
    else:
        source = fen_file
        if command == "batch-parquet":
            pa = pytest.importorskip("pyarrow", reason="pyarrow (the [arrow] extra) is not installed")
            import pyarrow.parquet as pq

            source = tmp_path / "in.parquet"
            pq.write_table(pa.table({"fen": FENS}), source)
        args = ["batch", str(source), "--tables", str(syzygy_dir), "-o", str(node)]
        if command == "batch-parquet":
            args += ["--format", "parquet"]
    proc = _cli(*args)
    assert proc.returncode == 0, proc.stderr
    after = node.stat()
    assert stat.S_ISCHR(after.st_mode), "the device node was replaced by a regular file"
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_fifo_gets_the_rows(tmp_path, fen_file, syzygy_dir):
    fifo = tmp_path / "rows"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = _cli("batch", str(fen_file), "--tables", str(syzygy_dir), "-o", str(fifo))
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    expected = _cli("batch", str(fen_file), "--tables", str(syzygy_dir)).stdout
    assert got and got[0].decode() == expected


@pytest.mark.parametrize("name", ["/dev/stdout", "-"])
def test_stdout_by_name(fen_file, syzygy_dir, name):
    proc = _cli("batch", str(fen_file), "--tables", str(syzygy_dir), "-o", name)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "fen,wdl,dtz,status"
    assert len(proc.stdout.splitlines()) == 1 + len(FENS)


def test_stdout_in_process_is_the_captured_stdout(fen_file, syzygy_dir, capsys):
    assert main(["batch", str(fen_file), "--tables", str(syzygy_dir), "-o", "/dev/stdout"]) == 0
    assert capsys.readouterr().out.startswith("fen,wdl,dtz,status\n")

def _default_signals() -> None:
    """In the child before it runs: SIGINT and SIGHUP as a terminal would
    deliver them.  A suite started in the background by a shell without job
    control inherits SIGINT ignored, one started under nohup SIGHUP, and the
    CLI then keeps ignoring them, as it should (the signal would be lost and
    the run finish normally)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signal_removes_the_temporary_file(tmp_path, syzygy_dir, signum):
    """The run waits on a stdin the test keeps open, so the signal always
    arrives mid-run with the temporary file there."""
    out = tmp_path / "keep.csv"
    child = subprocess.Popen([sys.executable, "-m", "pyfathom", "batch", "-", "--tables",
                              str(syzygy_dir), "-o", str(out)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=_default_signals)
    try:
        assert child.stdin is not None
        child.stdin.write(("\n".join(FENS) + "\n").encode())
        child.stdin.flush()
        deadline = time.monotonic() + 60
        while not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]:
            assert time.monotonic() < deadline, "no temporary file appeared"
            assert child.poll() is None, child.communicate()
            time.sleep(0.05)
        time.sleep(0.2)
        child.send_signal(signum)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 128 + signum, err
    assert err.decode().count("\n") == 1, err
    assert list(tmp_path.iterdir()) == [], "a partial file was left behind"


class _InterruptingOperand:
    """An operand whose ``__array_priority__`` raises KeyboardInterrupt, as
    Ctrl-C's handler does when it runs during numpy's look at an operand."""

    @property
    def __array_priority__(self) -> float:
        raise KeyboardInterrupt


def test_numpy_swallows_an_interrupt_raised_in_its_operand_lookup():
    """Why raise_if_signalled exists: numpy clears any error its lookup of
    ``__array_priority__`` raises (numpy gh-14801), so a KeyboardInterrupt
    raised there is gone.  A batch run lost Ctrl-C that way (its handler
    ran in ``status != Status.SKIPPED``) and renamed its whole output over
    OUT.  Should numpy ever let the exception through, this fails, and the
    record may be dropped."""
    import numpy as np

    np.arange(3) != _InterruptingOperand()  # no exception comes out


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_lost_interrupt_still_stops_the_rename(tmp_path, signum):
    """Under terminate_on_signals, a signal whose exception was swallowed
    is raised again at the rename: the output is discarded, the old file
    kept, no temporary file left."""
    from pyfathom._files.output import Output, Terminated, terminate_on_signals

    target = tmp_path / "out.csv"
    target.write_text("previous results\n")
    expected = KeyboardInterrupt if signum == signal.SIGINT else Terminated
    with terminate_on_signals():
        out = Output(str(target))
        out.file.write("new rows\n")
        try:
            signal.raise_signal(signum)  # its handler runs here and raises
        except expected:
            pass  # and the exception is lost, as in numpy's lookup
        with pytest.raises(expected):
            out.commit()
    assert target.read_text() == "previous results\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]
    out = Output(str(target))  # the block is over: the record with it
    out.file.write("new rows\n")
    out.commit()
    assert target.read_text() == "new rows\n"
