"""The package is fully typed: ``mypy --strict`` passes on it (the settings,
including the one relaxed module that touches cffi, are in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.plain_pass_only("mypy reads the sources; no C runs")


def test_mypy_strict_on_the_package() -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "pyfathom"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "Success" in proc.stdout


def test_py_typed_marker_ships() -> None:
    assert (ROOT / "pyfathom" / "py.typed").is_file()
