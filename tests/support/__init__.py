"""Helpers of the test suite (never shipped): the test data cache and the
shared tables beside the repository (:mod:`support.table_cache`), position
generators and python-chess's committed answers (:mod:`support.positions`,
:mod:`support.expected`, :mod:`support.variant_positions`), games
(:mod:`support.pgn_games`), synthetic table files
(:mod:`support.syzygy_writer`), a live ``pyfathom serve``
(:mod:`support.live_server`) and the sanitized run's switches
(:mod:`support.sanitizer`); and what two or more test files share:
batch input files (:mod:`support.batch_input`), the root-probe checks
(:mod:`support.root_checks`), building the C test programs
(:mod:`support.c_programs`), damaged tables in a child process
(:mod:`support.damaged_tables`), lichess's rules
(:mod:`support.lichess_rules`) and an in-process ASGI request
(:mod:`support.asgi`).  No test module imports another
(``test_import_layers.py`` checks it).

``tests/`` is on ``sys.path`` for every test (pytest's ``pythonpath``
setting in pyproject.toml), so a test imports ``from support import
positions``; the benchmarks and examples put ``tests/`` there themselves.
"""
