"""The API tests against the oldest python-chess pyfathom's metadata allows.

pyfathom depends on a range of python-chess (``chess>=1.3.2,<2``, read here
from the installed metadata, so the test follows the range), while the suite
itself runs on 1.11.2, the oracle.  This test makes a venv with the oldest
allowed version, puts the pyfathom under test on its path, and runs the API
tests (errors, records, doctests, the per-board calls) there once.

Slow (a venv and its packages from the index: about 30 s) and skipped in
the sanitized rerun: the C core is the same; what varies is python-chess.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import pyfathom

ROOT = Path(__file__).resolve().parent.parent
API_TESTS = ["test_api_errors.py", "test_api_records.py", "test_doctests.py",
             "test_board_calls.py"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.plain_pass_only("checks the python-chess range in a venv of its own, "
                                "with a plain build of the core"),
]


def oldest_allowed_chess() -> str:
    """The lower bound of the ``chess`` requirement in pyfathom's metadata."""
    for requirement in metadata.requires("pyfathom-syzygy") or []:
        if re.match(r"chess\b", requirement) and "extra ==" not in requirement:
            match = re.search(r">=\s*([0-9][0-9.]*)", requirement)
            assert match, f"python-chess is not required as a range: {requirement!r}"
            assert re.search(r"<\s*2\b", requirement), f"no upper bound <2: {requirement!r}"
            return match.group(1)
    raise AssertionError("pyfathom's metadata requires no chess")


def test_api_tests_pass_on_oldest_allowed_chess(tmp_path: Path) -> None:
    version = oldest_allowed_chess()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_REQUIRE"))}
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                          f"chess=={version}", "cffi", "numpy", "pytest", "hypothesis"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert pip.returncode == 0, pip.stderr[-3000:]
    # The pyfathom under test (an editable or a built tree), not an installed copy.
    env["PYTHONPATH"] = str(Path(pyfathom.__file__).resolve().parent.parent)
    where = subprocess.run([python, "-c", "import chess, pyfathom; print(chess.__version__); "
                            "print(pyfathom.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert where.returncode == 0, where.stderr
    got_version, got_file = where.stdout.split()
    assert got_version == version
    assert Path(got_file).resolve() == Path(pyfathom.__file__).resolve()
    run = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--rootdir", ROOT, "-c", ROOT / "pyproject.toml",
                          *[ROOT / "tests" / name for name in API_TESTS]],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert run.returncode == 0, f"API tests failed on python-chess {version}:\n{run.stdout[-5000:]}"
    assert re.search(r"\b\d+ passed\b", run.stdout) and " failed" not in run.stdout
