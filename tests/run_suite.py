"""Run the whole test suite: the plain pass and the sanitized pass side by side.

    python tests/run_suite.py [pytest arguments]

README command 2 and ``.ci/run`` end with this.  The plain pass is
``python -m pytest``; the sanitized pass is ``tests/run_sanitized.py``
(the same suite against the ASan+UBSan build of the core, less the tests
marked ``plain_pass_only``).  Each is one pytest process keeping about one
core busy, so on a two-core machine (CI's) the two together take about the
time of the longer one instead of the sum.  They share nothing they write:
run_sanitized gives its pass its own benchmark folder
(``PYFATHOM_BENCH_BIN``), pytest temporary folder and no pytest cache; the
test data cache is filled here first, once, so that the two never fetch it
at the same time (the oracle answers cached later are written atomically).
The tests marked ``sanitizer_programs`` (fuzz targets, TSan and ASan
programs of their own: the longest native runs) run in the sanitized pass
only, which balances the two.

The plain pass prints as it goes; the sanitized pass's output is kept and
printed whole after it, so the two never interleave.  Last comes a recap of
what failed in either pass (from each pass's JUnit XML report), with the
start of each failure's message: a CI log that keeps only its tail still
names the plain pass's failures, printed before the sanitized pass's whole
output.  Exit status: 0 when both pass; else the plain pass's status if it
failed, else the sanitized pass's (5, no tests collected, is a failure).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


sys.path.insert(0, str(TESTS))
from support.sanitizer import BESIDE_ENV  # noqa: E402


def fill_test_cache() -> None:
    """Fetch and verify the 3-4-piece tables and python-chess's sdist (a
    no-op when they are cached)."""
    from support import table_cache

    table_cache.tables_dir()


RECAP_LINES = 25  # of each failure's message


def _gist(text: list[str]) -> list[str]:
    """A failure's message cut to its point: the first of pytest's ``E``
    lines (a failed comparison of two long texts has hundreds of thousands)
    and the last line, where it failed; else the message's last lines."""
    explained = [line for line in text if line.startswith("E ")]
    if not explained:
        return text[-RECAP_LINES:]
    return [*explained[:RECAP_LINES], *(["    ..."] if len(explained) > RECAP_LINES else []),
            text[-1]]


def failures(report: Path) -> list[str]:
    """The failed and erroring tests of a JUnit XML report, each with the
    start of its message (none when the pass wrote no report: it died
    before its end, and its own output says how)."""
    try:
        root = ElementTree.parse(report).getroot()
    except (OSError, ElementTree.ParseError):
        return []
    found = []
    for case in root.iter("testcase"):
        for outcome in case:
            if outcome.tag in ("failure", "error"):
                name = f"{case.get('classname', '')}::{case.get('name', '')}"
                text = (outcome.text or outcome.get("message") or "").strip().splitlines()
                found.append("\n".join([f"{outcome.tag.upper()} {name}",
                                         *("    " + line[:300] for line in _gist(text))]))
    return found


def recap(name: str, status: int, report: Path) -> None:
    if status == 0:
        return
    found = failures(report)
    print(f"\n===== {name}: exit {status}, {len(found)} failed =====", flush=True)
    for failure in found:
        print(failure, flush=True)


def main(argv: list[str]) -> int:
    fill_test_cache()
    with tempfile.TemporaryFile(mode="w+", prefix="pyfathom-sanitized-") as log, \
            tempfile.TemporaryDirectory(prefix="pyfathom-reports-") as reports:
        plain_report = Path(reports) / "plain.xml"
        sanitized_report = Path(reports) / "sanitized.xml"
        sanitized = subprocess.Popen([sys.executable, str(TESTS / "run_sanitized.py"),
                                      f"--junitxml={sanitized_report}", *argv],
                                     cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        try:
            plain = subprocess.run([sys.executable, "-m", "pytest", f"--junitxml={plain_report}",
                                    *argv], cwd=ROOT,
                                   env={**os.environ, BESIDE_ENV: "1"}).returncode
            sanitized_status = sanitized.wait()
        except BaseException:
            sanitized.kill()
            sanitized.wait()
            raise
        log.seek(0)
        print("\n===== the same suite against the ASan+UBSan build of the core "
              "(tests/run_sanitized.py, run beside the plain pass) =====", flush=True)
        sys.stdout.write(log.read())
        sys.stdout.flush()
        recap("plain pass", plain, plain_report)
        recap("sanitized pass", sanitized_status, sanitized_report)
    print(f"run_suite: plain pass exit {plain}, sanitized pass exit {sanitized_status}",
          file=sys.stderr, flush=True)
    if plain != 0:
        return 1 if plain == 5 else plain
    return 1 if sanitized_status == 5 else sanitized_status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
