"""Packaging: the sdist and the wheel build, install into fresh venvs outside
the source tree, and the installed ``pyfathom`` command probes a position.

Slow (two C builds and two venvs, run side by side: about 1.5 minutes) but part of the suite:
it is the only test that proves a user's ``pip install`` works.  It needs the
package index (dependencies and build requirements are installed from it).
"""

from __future__ import annotations

import concurrent.futures
import os
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KRK = "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"

pytestmark = pytest.mark.slow


def sh(args, cwd, timeout=600, env=None):
    t0 = time.monotonic()
    proc = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)
    if os.environ.get("PYFATHOM_PACKAGING_TIMES"):
        with open(os.environ["PYFATHOM_PACKAGING_TIMES"], "a") as f:
            f.write(f"{time.monotonic() - t0:6.1f}s {' '.join(map(str, args))[:150]}\n")
    assert proc.returncode == 0, f"{' '.join(map(str, args))} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_REQUIRE"))}
    env.pop("SYZYGY_PATH", None)
    return env


def build_sdist(outdir: Path, work: Path) -> Path:
    """python -m build --sdist when available (isolated), else the PEP 517 hook."""
    # (Checked in a subprocess outside the tree: a build/ folder there would
    # pass for the package.)
    has_build = subprocess.run([sys.executable, "-c", "import build.__main__"], cwd=work,
                               capture_output=True).returncode == 0
    if has_build:
        sh([sys.executable, "-m", "build", "--sdist", "--outdir", outdir, ROOT], cwd=work)
    else:
        sh([sys.executable, "-c",
            f"from setuptools import build_meta; build_meta.build_sdist({str(outdir)!r})"], cwd=ROOT)
    (sdist,) = outdir.glob("pyfathom[-_]syzygy-*.tar.gz")
    return sdist


def fresh_venv(path: Path, work: Path) -> Path:
    sh([sys.executable, "-m", "venv", path], cwd=work)
    return path / ("Scripts" if os.name == "nt" else "bin")


def check_installed(bindir: Path, work: Path, syzygy_dir: Path, env: dict[str, str]) -> None:
    python = bindir / "python"
    proc = sh([python, "-c", "import pyfathom, pyfathom._fathom as f; print(pyfathom.__file__); print(f.__file__)"],
              cwd=work, env=env)
    for line in proc.stdout.splitlines():
        assert not Path(line).resolve().is_relative_to(ROOT), f"imported from the source tree: {line}"
    proc = sh([bindir / "pyfathom", "probe", KRK, "--tables", syzygy_dir], cwd=work, env=env)
    assert "black to move: loss (WDL -2)" in proc.stdout, proc.stdout
    assert "Kd3" in proc.stdout or "Kc3" in proc.stdout or "Ke3" in proc.stdout
    proc = sh([python, "-m", "pyfathom", "--version"], cwd=work, env=env)
    assert proc.stdout.startswith("pyfathom ")


def test_sdist_and_wheel_install_and_probe(tmp_path, syzygy_dir):
    work = tmp_path / "work"  # every command runs outside the source tree
    work.mkdir()
    env = clean_env()
    dist = tmp_path / "dist"
    dist.mkdir()

    sdist = build_sdist(dist, work)
    with tarfile.open(sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    for required in ("build_ffi.py", "setup.py", "pyproject.toml", "README.md",
                     "src/fathom/fathom.h", "src/fathom/fen.c", "src/fathom/fen.h",
                     "pyfathom/__init__.py", "pyfathom/cli/__init__.py", "pyfathom/cli/probe.py",
                     "pyfathom/py.typed",
                     "pyfathom/_c/board_calls.c"):
        assert required in names, f"{required} missing from the sdist"
    assert not [n for n in names if n.endswith((".so", ".rtbw", ".rtbz", ".pyc"))]

    # Two independent pipelines, run side by side to keep the test short:
    # the wheel built from the source tree, and the sdist installed as is
    # (pip builds it from scratch in isolation).
    def wheel_pipeline() -> None:
        wheels = tmp_path / "wheels"
        wheels.mkdir()
        sh([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", wheels, ROOT], cwd=work)
        (wheel,) = wheels.glob("pyfathom_syzygy-*.whl")
        with zipfile.ZipFile(wheel) as zf:
            names = zf.namelist()
        assert any(n.startswith("pyfathom/_fathom") and n.endswith((".so", ".pyd")) for n in names)
        assert "pyfathom/cli/__init__.py" in names and "pyfathom/py.typed" in names
        assert any(n.endswith("entry_points.txt") for n in names)
        bindir = fresh_venv(tmp_path / "venv-wheel", work)
        sh([bindir / "python", "-m", "pip", "install", "-q", wheel], cwd=work, env=env)
        check_installed(bindir, work, syzygy_dir, env)

    def sdist_pipeline() -> None:
        bindir = fresh_venv(tmp_path / "venv-sdist", work)
        sh([bindir / "python", "-m", "pip", "install", "-q", sdist], cwd=work, env=env)
        check_installed(bindir, work, syzygy_dir, env)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(wheel_pipeline), pool.submit(sdist_pipeline)]
        for future in futures:
            future.result()
