"""Packaging: the sdist and the wheel build, install into fresh venvs outside
the source tree, and the installed ``pyfathom`` command probes a position.

Slow (two C builds and two venvs, run side by side: about 1.5 minutes) but part of the suite:
it is the only test that proves a user's ``pip install`` works.  It needs the
package index (dependencies and build requirements are installed from it).
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KRK = "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"

pytestmark = [pytest.mark.slow,
              pytest.mark.plain_pass_only("builds the sdist and wheels and installs them: "
                                          "plain builds of the core, in venvs of their own")]


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
    proc = sh([python, "-c", "import pyfathom, pyfathom._core as f; print(pyfathom.__file__); print(f.__file__)"],
              cwd=work, env=env)
    for line in proc.stdout.splitlines():
        assert not Path(line).resolve().is_relative_to(ROOT), f"imported from the source tree: {line}"
    proc = sh([bindir / "pyfathom", "probe", KRK, "--tables", syzygy_dir], cwd=work, env=env)
    assert "black to move: loss (WDL -2)" in proc.stdout, proc.stdout
    assert "Kd3" in proc.stdout or "Kc3" in proc.stdout or "Ke3" in proc.stdout
    proc = sh([python, "-m", "pyfathom", "--version"], cwd=work, env=env)
    assert proc.stdout.startswith("pyfathom ")


@pytest.fixture(scope="module")
def wheel_file(tmp_path_factory) -> Path:
    """The wheel ``pip wheel`` builds from the source tree (once per module)."""
    wheels = tmp_path_factory.mktemp("wheels")
    sh([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", wheels, ROOT],
       cwd=tmp_path_factory.mktemp("work"))
    (wheel,) = wheels.glob("pyfathom_syzygy-*.whl")
    return wheel


def test_sdist_and_wheel_install_and_probe(tmp_path, syzygy_dir, wheel_file):
    work = tmp_path / "work"  # every command runs outside the source tree
    work.mkdir()
    env = clean_env()
    dist = tmp_path / "dist"
    dist.mkdir()

    sdist = build_sdist(dist, work)
    with tarfile.open(sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    for required in ("build_ffi.py", "setup.py", "pyproject.toml", "README.md",
                     "src/fathom/fathom.h", "src/fathom/helpers/fen.c", "src/fathom/fen.h",
                     "pyfathom/__init__.py", "pyfathom/cli/__init__.py", "pyfathom/cli/probe.py",
                     "pyfathom/annotate/__init__.py", "pyfathom/py.typed",
                     "pyfathom/_c/board_calls.c"):
        assert required in names, f"{required} missing from the sdist"
    assert not [n for n in names if n.endswith((".so", ".rtbw", ".rtbz", ".pyc"))]

    # Two independent pipelines, run side by side to keep the test short:
    # the wheel built from the source tree, and the sdist installed as is
    # (pip builds it from scratch in isolation).
    def wheel_pipeline() -> None:
        wheel = wheel_file
        with zipfile.ZipFile(wheel) as zf:
            names = zf.namelist()
        modules = [n for n in names if n.startswith("pyfathom/_core") and n.endswith((".so", ".pyd"))]
        assert modules
        with zipfile.ZipFile(wheel) as zf:  # the tests' raw decoder is built for them alone
            assert b"pyfathom_test_raw_read" not in zf.read(modules[0])
        assert not [n for n in names if "raw_read" in n]
        assert "pyfathom/cli/__init__.py" in names and "pyfathom/py.typed" in names
        assert "pyfathom/annotate/stream.py" in names
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


# ---- one abi3 wheel for every CPython from 3.10 on -------------------------------

OLDEST_PYTHON = (3, 10)


def cpythons() -> dict[tuple[int, int], Path]:
    """CPython interpreters on this machine by version (pyenv's, then those
    on PATH and in /usr/bin), without free-threaded or debug builds, which
    have no stable ABI."""
    candidates = sorted(Path.home().glob(".pyenv/versions/3.*/bin/python3"))
    for minor in range(10, 20):
        for where in (shutil.which(f"python3.{minor}"), f"/usr/bin/python3.{minor}"):
            if where and Path(where).is_file():
                candidates.append(Path(where))
    found: dict[tuple[int, int], Path] = {}
    probe = ("import sys, sysconfig; print(sys.implementation.name, *sys.version_info[:2], "
             "bool(sysconfig.get_config_var('Py_GIL_DISABLED')), hasattr(sys, 'gettotalrefcount'))")
    for python in candidates:
        try:
            out = subprocess.run([python, "-c", probe], capture_output=True, text=True,
                                 timeout=30, env=clean_env()).stdout.split()
        except (OSError, subprocess.TimeoutExpired):
            continue
        if len(out) == 5 and out[0] == "cpython" and out[3:] == ["False", "False"]:
            found.setdefault((int(out[1]), int(out[2])), python)
    return found


def test_abi3_wheel_metadata_and_oldest_newest_python(tmp_path, syzygy_dir, wheel_file):
    """The wheel is tagged cp310-abi3, carries the license and the
    python-chess range, and installs and probes on the oldest supported
    CPython and on the newest one here."""
    assert "-cp310-abi3-" in wheel_file.name, wheel_file.name
    with zipfile.ZipFile(wheel_file) as zf:
        names = zf.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = zf.read(metadata_name).decode("utf-8")
        (license_name,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        license_text = zf.read(license_name).decode("utf-8")
    assert [n for n in names if n.startswith("pyfathom/_core.")] == ["pyfathom/_core.abi3.so"]
    headers = [line for line in metadata.split("\n\n", 1)[0].splitlines()]
    assert "License-Expression: MIT" in headers
    assert "License-File: LICENSE" in headers
    assert license_text.startswith("MIT License")
    chess_requirements = [h for h in headers if h.startswith("Requires-Dist: chess")
                          and "extra ==" not in h]
    assert chess_requirements == ["Requires-Dist: chess<2,>=1.3.2"], chess_requirements
    assert "Requires-Python: >=3.10" in headers
    for minor in range(10, 14):
        assert f"Classifier: Programming Language :: Python :: 3.{minor}" in headers

    pythons = cpythons()
    if OLDEST_PYTHON not in pythons:
        pytest.skip(f"no CPython {OLDEST_PYTHON[0]}.{OLDEST_PYTHON[1]} here (looked in "
                    f"~/.pyenv/versions, PATH and /usr/bin): cannot try the oldest")
    newest = max(pythons)
    assert newest > OLDEST_PYTHON, f"only CPython 3.10 here: {pythons}"
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env()

    def install_and_probe(version: tuple[int, int]) -> None:
        venv = tmp_path / f"venv-{version[0]}.{version[1]}"
        sh([pythons[version], "-m", "venv", venv], cwd=work)
        bindir = venv / "bin"
        sh([bindir / "python", "-m", "pip", "install", "-q", wheel_file], cwd=work, env=env)
        got = sh([bindir / "python", "-c", "import sys; print(*sys.version_info[:2])"],
                 cwd=work, env=env).stdout.split()
        assert tuple(map(int, got)) == version
        check_installed(bindir, work, syzygy_dir, env)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for future in [pool.submit(install_and_probe, v) for v in (OLDEST_PYTHON, newest)]:
            future.result()
