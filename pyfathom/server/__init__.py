"""``pyfathom serve``: a lichess-compatible tablebase HTTP API and an explorer page.

Installed with the ``[server]`` extra (Starlette, uvicorn, cbor2).
:mod:`pyfathom.server.lichess` computes the documents (no web framework),
from the move facts of :mod:`pyfathom.server.moves`,
:mod:`pyfathom.server.app` is the Starlette application,
:mod:`pyfathom.server.batch` reads and bounds ``POST /standard/batch``,
:mod:`pyfathom.server.web` holds content negotiation, caching headers and CORS,
:mod:`pyfathom.server.protocol` uvicorn's HTTP protocol with JSON on its own 400s and
a request-arrival timeout,
and ``static/`` holds the explorer page, served by the package itself.
The command that starts it is :mod:`pyfathom.cli.serve`.
"""
