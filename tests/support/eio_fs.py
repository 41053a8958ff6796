"""A read-only FUSE filesystem whose reads of one file start failing with
EIO on demand: a disk that goes bad under a running process, for
``tests/test_disk_errors.py``.

    python tests/support/eio_fs.py SOURCE MOUNTPOINT FILENAME FLAG [OFFSET LOG]

Serves the files of the folder SOURCE at MOUNTPOINT (the calls a table
reader makes: stat, list, open, read).  Once the file FLAG exists, every
read of FILENAME fails with EIO, as a failing sector does: the kernel then
answers a page fault in a mapping of that file with SIGBUS, and a
positional read with EIO.

With OFFSET and LOG, a slow disk instead (for ``tests/test_check_stop.py``):
every read of FILENAME is appended to the file LOG (``offset size`` a
line), and while FLAG exists a read at OFFSET or past it waits until FLAG
is removed, so a test can hold a reader at a place in the file.

Runs in the foreground until unmounted
(``fusermount -u MOUNTPOINT``).  Needs fusepy and libfuse 2 (Debian
packages fuse3 and libfuse2; see tests/system_packages.sh).
"""

from __future__ import annotations

import errno
import os
import sys
import time
from typing import Any, Optional

from fuse import FUSE, FuseOSError, Operations  # type: ignore[import-untyped]


class FailingDisk(Operations):  # type: ignore[misc]
    def __init__(self, source: str, failing: str, flag: str,
                 stall_from: Optional[int] = None, log: Optional[str] = None) -> None:
        self.source, self.failing, self.flag = source, failing, flag
        self.stall_from, self.log = stall_from, log

    def _path(self, path: str) -> str:
        return os.path.join(self.source, path.lstrip("/"))

    def getattr(self, path: str, fh: Any = None) -> dict[str, Any]:
        try:
            st = os.lstat(self._path(path))
        except OSError as e:
            raise FuseOSError(e.errno) from None
        return {key: getattr(st, key) for key in (
            "st_mode", "st_size", "st_nlink", "st_uid", "st_gid",
            "st_atime", "st_mtime", "st_ctime")}

    def readdir(self, path: str, fh: Any) -> list[str]:
        return [".", "..", *os.listdir(self._path(path))]

    def open(self, path: str, flags: int) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise FuseOSError(errno.EROFS)
        return os.open(self._path(path), os.O_RDONLY)

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        if os.path.basename(path) != self.failing:
            return os.pread(fh, size, offset)
        if self.stall_from is None:
            if os.path.exists(self.flag):
                raise FuseOSError(errno.EIO)
            return os.pread(fh, size, offset)
        if self.log is not None:
            with open(self.log, "a") as log:
                log.write(f"{offset} {size}\n")
        while offset >= self.stall_from and os.path.exists(self.flag):
            time.sleep(0.01)
        return os.pread(fh, size, offset)

    def release(self, path: str, fh: int) -> None:
        os.close(fh)


def main(argv: list[str]) -> int:
    source, mountpoint, failing, flag = argv[:4]
    stall_from, log = (int(argv[4]), argv[5]) if len(argv) == 6 else (None, None)
    FUSE(FailingDisk(source, failing, flag, stall_from, log), mountpoint, foreground=True, ro=True,
         nothreads=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
