"""What the sanitized run (tests/run_sanitized.py) tells the suite.

That run imports the ASan+UBSan build of the core, with the ASan runtime
preloaded (``LD_PRELOAD``) into every Python process, and sets
``PYFATHOM_SANITIZED=1``.
"""

from __future__ import annotations

import os

__all__ = ["SANITIZED", "native_env"]

SANITIZED = os.environ.get("PYFATHOM_SANITIZED") == "1"
"""Whether this is the sanitized run."""


def native_env(**extra: str) -> dict[str, str]:
    """Environment for a child that is a native program built with its own
    sanitizer (TSan, libFuzzer): without the ASan preload of a sanitized run."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(extra)
    return env
