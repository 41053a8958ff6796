"""Importing pyfathom from a folder without its compiled core (README
command 1 installs into the venv; Python started in the clone's root then
finds the clone's ``pyfathom/`` first) gives one clear ImportError saying
why and what to do, not ``ModuleNotFoundError: pyfathom._core``.

The child runs with ``-S`` (no site-packages), so that nothing installed,
an editable install's import hook included, can answer for the copy.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.plain_pass_only("its children import a copy of the package "
                                         "without any build of the core")

ROOT = Path(__file__).resolve().parent.parent


def _copy_without_core(dest: Path, *, as_clone: bool) -> Path:
    shutil.copytree(ROOT / "pyfathom", dest / "pyfathom",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "_core.c"))
    if as_clone:
        for name in ("build_ffi.py", "pyproject.toml"):
            shutil.copyfile(ROOT / name, dest / name)
    return dest


@pytest.mark.parametrize("how", [["-c", "import pyfathom"], ["-m", "pyfathom", "--version"],
                                 ["-c", "import pyfathom.fathom"]])
def test_clone_root_says_why_and_what_to_do(tmp_path: Path, how: list[str]) -> None:
    clone = _copy_without_core(tmp_path / "clone", as_clone=True)
    proc = subprocess.run([sys.executable, "-S", *how], cwd=clone, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "ModuleNotFoundError" not in proc.stderr, proc.stderr
    assert "ImportError: pyfathom was imported from its source tree" in last, proc.stderr
    assert str(clone / "pyfathom") in last
    assert f"pip install -e {clone}" in last and "another directory" in last


def test_incomplete_install_says_reinstall(tmp_path: Path) -> None:
    site = _copy_without_core(tmp_path / "site", as_clone=False)
    proc = subprocess.run([sys.executable, "-S", "-c", "import pyfathom"], cwd=site,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: pyfathom's compiled core (pyfathom._core) is missing"), last
    assert "pip install --force-reinstall pyfathom-syzygy" in last
