"""Helpers of the test suite (never shipped): the test data cache and the
shared tables beside the repository (:mod:`support.table_cache`), position
generators and python-chess's committed answers (:mod:`support.positions`,
:mod:`support.expected`, :mod:`support.variant_positions`), games
(:mod:`support.pgn_games`), synthetic table files
(:mod:`support.syzygy_writer`), a live ``pyfathom serve``
(:mod:`support.live_server`) and the sanitized run's switches
(:mod:`support.sanitizer`).

``tests/`` is on ``sys.path`` for every test (pytest's ``pythonpath``
setting in pyproject.toml), so a test imports ``from support import
positions``; the benchmarks and examples put ``tests/`` there themselves.
"""
