"""What the sanitized run (tests/run_sanitized.py) tells the suite.

That run imports the ASan+UBSan build of the core, with the ASan runtime
preloaded (``LD_PRELOAD``) into every Python process, and sets
``PYFATHOM_SANITIZED=1``.
"""

from __future__ import annotations

import os

__all__ = ["BESIDE_ENV", "SANITIZED", "SANITIZED_PASS_BESIDE", "native_env"]

SANITIZED = os.environ.get("PYFATHOM_SANITIZED") == "1"
"""Whether this is the sanitized run."""

BESIDE_ENV = "PYFATHOM_SANITIZED_PASS_BESIDE"
"""Set to 1 by tests/run_suite.py for the plain pass it runs beside the
sanitized one."""

SANITIZED_PASS_BESIDE = os.environ.get(BESIDE_ENV) == "1"
"""Whether a sanitized pass runs beside this plain one: the tests marked
``sanitizer_programs`` then run there only, which balances the two passes
(they are the suite's longest native runs, libFuzzer's above all)."""


def native_env(**extra: str) -> dict[str, str]:
    """Environment for a child that is a native program built with its own
    sanitizer (TSan, libFuzzer): without the ASan preload of a sanitized run."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(extra)
    return env
