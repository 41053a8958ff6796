"""A check of a big table file gives up within a block when asked: the C
core's ``fathom_check_table_stoppable``, raised by
:func:`pyfathom.tables.check_tables` on a Ctrl-C (``pyfathom info --check``).

Before, an interrupt took effect once the files being read were read to
their end: a file of tens of gigabytes on a hard disk is minutes.  Here the
real KNNNNvK.rtbz (31.9 MB) is served by a FUSE filesystem
(``tests/support/eio_fs.py`` as a slow disk) that holds the first read past
the start of its data blocks until the test lets it go, so the check is
stopped at a known place in the file, and the filesystem's log of reads
says how much of the file was read after it.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from pyfathom import tables
from pyfathom._bindings import lowlevel as _ll
from pyfathom._types import Status
from support import fuse_mount, table_cache

NAME = "KNNNNvK.rtbz"
HELD_AFTER = 1 << 20
"""Reads are held from this far past the first data block: the check is
inside the blocks then, a few percent into the file."""


def _read_bytes(log: Path) -> list[tuple[int, int]]:
    if not log.exists():
        return []
    return [(int(a), int(b)) for a, b in (line.split() for line in log.read_text().splitlines()
                                           if line.strip())]


@pytest.fixture()
def slow_disk(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """KNNNNvK.rtbz (and a small table beside it) on a FUSE mount whose
    reads of KNNNNvK.rtbz at ``held`` or past it wait while ``flag``
    exists; every read of it is logged in ``log``."""
    six = table_cache.shared_folder(table_cache.SYZYGY6, NAME)
    source = tmp_path / "disk"
    source.mkdir()
    shutil.copyfile(six / NAME, source / NAME)
    shutil.copyfile(table_cache.tables_dir() / "KRvK.rtbw", source / "KRvK.rtbw")
    data = min(p.offset for p in tables.layout(source / NAME) if p.kind == "data")
    held = data + HELD_AFTER
    flag, log = tmp_path / "hold", tmp_path / "reads.log"
    flag.touch()
    with fuse_mount.mounted(source, tmp_path / "mnt", NAME, str(flag), str(held),
                            str(log)) as mount:
        yield {"file": mount / NAME, "small": mount / "KRvK.rtbw",
               "size": (source / NAME).stat().st_size, "held": held, "flag": flag, "log": log}


def _wait_until_held(disk: dict[str, Any]) -> None:
    """Until a read at the held place has come: the check is waiting there."""
    deadline = time.monotonic() + 60
    while not any(offset >= disk["held"] for offset, _ in _read_bytes(disk["log"])):
        assert time.monotonic() < deadline, "the check never reached the held read"
        time.sleep(0.01)


def _read_after_the_hold(disk: dict[str, Any]) -> int:
    """Bytes of the file read at the held place or past it."""
    return sum(size for offset, size in _read_bytes(disk["log"]) if offset >= disk["held"])


def test_a_raised_flag_stops_the_check_inside_the_file(slow_disk: dict[str, Any]) -> None:
    stop = _ll.new_stop_flag()
    got: dict[str, Any] = {}
    checking = threading.Thread(
        target=lambda: got.update(result=_ll.check_table(str(slow_disk["file"]), stop)))
    checking.start()
    _wait_until_held(slow_disk)
    stop[0] = 1
    slow_disk["flag"].unlink()  # the held read answers; the next block sees the flag
    checking.join(60)
    assert not checking.is_alive()
    status, offset, what, stopped = got["result"]
    assert (status, offset, what, stopped) == (Status.OK, 0, "", True)
    # The held read and the kernel's read-ahead around it, not the 30 MB after.
    after = _read_after_the_hold(slow_disk)
    assert 0 < after < slow_disk["size"] // 8, after
    # The same file checked to its end, with the flag down: fine, not stopped.
    stop[0] = 0
    assert _ll.check_table(str(slow_disk["file"]), stop) == (Status.OK, 0, "", False)
    assert _read_after_the_hold(slow_disk) >= slow_disk["size"] - slow_disk["held"] - (1 << 20)


def test_an_interrupted_check_tables_gives_up_the_file_being_read(
        slow_disk: dict[str, Any]) -> None:
    """A Ctrl-C while check_tables reads a big file (here raised by the
    progress callback once the small file is done and the big one is held):
    it propagates once the big file's check has given up, not after the
    rest of the file."""
    def interrupt(path: Path, done: int, total: int) -> None:
        _wait_until_held(slow_disk)
        # Let the held read go a little after the interrupt: by then the
        # flag is raised (without it, the check would read on to the end).
        threading.Timer(0.2, slow_disk["flag"].unlink).start()
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        tables.check_tables([slow_disk["small"], slow_disk["file"]], threads=2,
                            progress=interrupt)
    assert time.monotonic() - started < 60
    after = _read_after_the_hold(slow_disk)
    assert 0 < after < slow_disk["size"] // 8, after
