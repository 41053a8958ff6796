"""uvicorn's HTTP protocol with JSON for the requests it refuses itself, and
a deadline on each request's arrival.

A request uvicorn cannot parse (a request line or headers too long for its
parser, bytes that are not HTTP) never reaches the application: uvicorn
answers a plain-text 400 and closes the connection.  This subclass answers
the same 400 as a JSON ``{"error": ...}``, like every other error of
``pyfathom serve``.  It overrides one method of uvicorn's httptools
protocol (``send_400_response(msg)``, present in uvicorn for years); when
that protocol is not available (no httptools), :data:`HTTP_PROTOCOL` is
``"auto"`` and uvicorn's own plain-text answer stays.

uvicorn times out a connection idle between requests (its keep-alive
timeout), but not one that was opened and sends nothing, nor a request
whose headers or body trickle in a byte at a time: each holds a
connection (a file descriptor) for as long as the client likes.  The
protocol gives every request :func:`request_timeout` seconds from the
connection (or the previous answer) to its last byte, then answers a JSON
408 and closes.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional, Union

__all__ = ["HTTP_PROTOCOL", "REQUEST_TIMEOUT", "ENV_REQUEST_TIMEOUT", "KEEP_ALIVE_TIMEOUT",
           "request_timeout"]

REQUEST_TIMEOUT = 10.0
"""Default seconds a request may take to arrive, headers and body (408
beyond); ``pyfathom serve --request-timeout`` sets another through
:data:`ENV_REQUEST_TIMEOUT`."""

ENV_REQUEST_TIMEOUT = "PYFATHOM_SERVE_REQUEST_TIMEOUT"
"""Environment variable handing ``--request-timeout`` to the worker processes."""


def request_timeout() -> float:
    """This worker's request timeout, in seconds."""
    try:
        return float(os.environ.get(ENV_REQUEST_TIMEOUT, REQUEST_TIMEOUT))
    except ValueError:
        return REQUEST_TIMEOUT

KEEP_ALIVE_TIMEOUT = 5
"""Seconds an idle keep-alive connection stays open (uvicorn's setting)."""


def _json_error(status: bytes, message: str, default_headers: Any) -> bytes:
    body = json.dumps({"error": message}).encode()
    head = [b"HTTP/1.1 " + status + b"\r\n"]
    for name, value in default_headers:
        head.append(name + b": " + value + b"\r\n")
    head.append(b"content-type: application/json\r\n")
    head.append(b"access-control-allow-origin: *\r\n")
    head.append(b"content-length: " + str(len(body)).encode("ascii") + b"\r\n")
    head.append(b"connection: close\r\n\r\n")
    return b"".join(head) + body


def _json_protocol() -> Union[type[Any], str]:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools is part of the [server] extra
        return "auto"

    class JsonErrorHttpToolsProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol, with a JSON body on its own 400s."""

        _arrival: Any = None   # the timer of the request now arriving
        _timeout = REQUEST_TIMEOUT

        def send_400_response(self, msg: str) -> None:
            self._stop_arrival()
            self.transport.write(_json_error(
                b"400 Bad Request", f"malformed HTTP request ({msg.rstrip('.')})",
                self.server_state.default_headers))
            self.transport.close()

        def _start_arrival(self) -> None:
            if self._arrival is None:
                self._arrival = self.loop.call_later(self._timeout, self._arrival_timeout)

        def _stop_arrival(self) -> None:
            if self._arrival is not None:
                self._arrival.cancel()
                self._arrival = None

        def _arrival_timeout(self) -> None:
            self._arrival = None
            if not self.transport.is_closing():
                self.transport.write(_json_error(
                    b"408 Request Timeout",
                    f"request not received within {self._timeout:g} s",
                    self.server_state.default_headers))
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._timeout = request_timeout()  # read here: set after this module's import
            self._start_arrival()

        def connection_lost(self, exc: Optional[Exception]) -> None:
            self._stop_arrival()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._start_arrival()

        def on_message_complete(self) -> None:
            self._stop_arrival()
            super().on_message_complete()

    JsonErrorHttpToolsProtocol.__module__ = __name__
    JsonErrorHttpToolsProtocol.__qualname__ = "JsonErrorHttpToolsProtocol"
    return JsonErrorHttpToolsProtocol


HTTP_PROTOCOL = _json_protocol()
"""What ``pyfathom serve`` hands uvicorn as its ``http`` protocol."""

if not isinstance(HTTP_PROTOCOL, str):
    JsonErrorHttpToolsProtocol = HTTP_PROTOCOL
