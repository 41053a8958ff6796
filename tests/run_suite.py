"""Run the whole test suite twice at once: the plain build, and the ASan+UBSan
build of the core (tests/run_sanitized.py).

    python tests/run_suite.py

Each pass is one pytest process, which keeps one core busy; run side by side
they use a two-core machine's both cores (CI has two), so the suite takes
the time of the longer pass instead of the sum of both.  The plain pass
prints as it goes; the sanitized pass's output is kept and printed whole
after it, so neither interleaves with the other.  The test data cache is
filled first, once, so that the two passes never fetch it at the same time.

Exit status: 0 when both passes pass; otherwise the plain pass's status if
it failed, else the sanitized pass's (pytest's 5, no tests collected, is a
failure for .ci/run).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def warm_cache() -> None:
    """Fetch and verify the 3-4-piece tables (a no-op when cached)."""
    sys.path.insert(0, str(TESTS))
    try:
        import table_cache
        table_cache.tables_dir()
    finally:
        sys.path.remove(str(TESTS))


def main(argv: list[str]) -> int:
    warm_cache()
    with tempfile.TemporaryFile(mode="w+", prefix="pyfathom-sanitized-") as log:
        sanitized = subprocess.Popen([sys.executable, str(TESTS / "run_sanitized.py"), *argv],
                                     cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, text=True)
        try:
            plain = subprocess.run([sys.executable, "-m", "pytest", *argv], cwd=ROOT).returncode
            sanitized_status = sanitized.wait()
        except BaseException:
            sanitized.kill()
            sanitized.wait()
            raise
        log.seek(0)
        print("\n===== the same suite against the ASan+UBSan build (tests/run_sanitized.py) =====",
              flush=True)
        sys.stdout.write(log.read())
        sys.stdout.flush()
    print(f"run_suite: plain pass exit {plain}, sanitized pass exit {sanitized_status}",
          file=sys.stderr, flush=True)
    return plain if plain != 0 else sanitized_status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
