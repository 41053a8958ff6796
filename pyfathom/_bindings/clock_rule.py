"""The binding of the core's one 50-move rule, ``fathom_clock_result``
(``fathom.h``, written in ``tb_clock.c``), for
:meth:`pyfathom._types.ClockResult.of`.

A binding module of its own, below :mod:`pyfathom._types`: the rule's
Python face is a method of the type, and :mod:`pyfathom._bindings.lowlevel`, which
holds the other wrappers of ``fathom.h``, imports ``_types`` (it checks
the enums there against the core's codes), so ``_types`` importing it would
close an import circle.
"""

from __future__ import annotations

from typing import Callable

from pyfathom._core import lib

fathom_clock_result: Callable[[int, bool, int], int] = lib.fathom_clock_result
"""``fathom_clock_result(dtz, precise, halfmove_clock)``: the
``FATHOM_CLOCK_*`` code, -3 (lost) to 3 (won), of a position with DTZ
``dtz`` (python-chess's sign), ``precise`` its flag, and halfmove clock
``halfmove_clock`` (0 to :data:`CLOCK_CEILING`).  Called directly, without
a Python wrapper: annotate and the server ask it once per move."""

CLOCK_CEILING = 0xFFFF
"""Any halfmove clock past 100 plies means the same to the rule; the C call
takes an unsigned int, so larger clocks are passed as this."""
