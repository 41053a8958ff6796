"""The binding of the core's one 50-move rule, ``fathom_clock_result``
(``fathom.h``, written in ``tb_clock.c``), for
:meth:`pyfathom._types.ClockResult.of`.

A binding module of its own, below :mod:`pyfathom._types`: the rule's
Python face is a method of the type, and :mod:`pyfathom._lowlevel`, which
holds the other wrappers of ``fathom.h``, imports ``_types`` (it checks
the enums there against the core's codes), so ``_types`` importing it would
close an import circle.
"""

from __future__ import annotations

from pyfathom._core import lib

_fathom_clock_result = lib.fathom_clock_result

CLOCK_CEILING = 0xFFFF
"""Any halfmove clock past 100 plies means the same to the rule; the C call
takes an unsigned int, so larger clocks are passed as this."""


def clock_result_code(dtz: int, precise: bool, halfmove_clock: int) -> int:
    """``fathom_clock_result``: the ``FATHOM_CLOCK_*`` code, -3 (lost) to 3
    (won), of a position with DTZ ``dtz`` (python-chess's sign), ``precise``
    its flag, and halfmove clock ``halfmove_clock`` (0 or more)."""
    return int(_fathom_clock_result(dtz, precise, min(halfmove_clock, CLOCK_CEILING)))
