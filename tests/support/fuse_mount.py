"""Mounting ``tests/support/eio_fs.py`` for a test: the checks that skip
where this machine has no FUSE, and the mount itself, unmounted after."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

EIO_FS = Path(__file__).resolve().parent / "eio_fs.py"


def fuse_ready() -> None:
    """Skip, naming what is missing, where this machine has no FUSE (a
    container without /dev/fuse); where it has, a failure to mount fails."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the FUSE test filesystem: Linux only")
    if not os.path.exists("/dev/fuse"):
        pytest.skip("no /dev/fuse on this machine: the test filesystem cannot mount")
    try:
        import fuse  # noqa: F401  (fusepy; finds libfuse 2 on import)
    except ImportError:
        pytest.skip("fusepy (in the test extra) is not installed")
    except OSError as e:
        pytest.skip(f"fusepy finds no libfuse 2 (Debian package libfuse2): {e}")
    if shutil.which("fusermount") is None and shutil.which("fusermount3") is None:
        pytest.skip("fusermount not found (Debian package fuse3; tests/system_packages.sh)")


@contextmanager
def mounted(source: Path, mount: Path, *args: str) -> Iterator[Path]:
    """eio_fs.py serving ``source`` at ``mount`` (made here) with ``args``
    after those two; yields ``mount``, unmounts on the way out."""
    fuse_ready()
    mount.mkdir()
    # The filesystem is Python: no sanitizer preloaded into it.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    server = subprocess.Popen([sys.executable, str(EIO_FS), str(source), str(mount), *args],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
    deadline = time.monotonic() + 20
    while not os.path.ismount(mount):
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            output = server.communicate()[0]
            pytest.fail(f"the test filesystem did not mount at {mount}: {output[-2000:]}")
        time.sleep(0.05)
    try:
        yield mount
    finally:
        for tool in ("fusermount", "fusermount3"):
            if shutil.which(tool):
                subprocess.run([tool, "-u", "-z", str(mount)], capture_output=True, timeout=30)
                break
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
