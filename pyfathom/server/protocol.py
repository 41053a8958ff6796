"""uvicorn's HTTP protocol with JSON for the requests it refuses itself.

A request uvicorn cannot parse (a request line or headers too long for its
parser, bytes that are not HTTP) never reaches the application: uvicorn
answers a plain-text 400 and closes the connection.  This subclass answers
the same 400 as a JSON ``{"error": ...}``, like every other error of
``pyfathom serve``.  It overrides one method of uvicorn's httptools
protocol (``send_400_response(msg)``, present in uvicorn for years); when
that protocol is not available (no httptools), :data:`HTTP_PROTOCOL` is
``"auto"`` and uvicorn's own plain-text answer stays.
"""

from __future__ import annotations

import json
from typing import Any, Union

__all__ = ["HTTP_PROTOCOL"]


def _json_protocol() -> Union[type[Any], str]:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools is part of the [server] extra
        return "auto"

    class JsonErrorHttpToolsProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol, with a JSON body on its own 400s."""

        def send_400_response(self, msg: str) -> None:
            body = json.dumps({"error": f"malformed HTTP request ({msg.rstrip('.')})"}).encode()
            head = [b"HTTP/1.1 400 Bad Request\r\n"]
            for name, value in self.server_state.default_headers:
                head.append(name + b": " + value + b"\r\n")
            head.append(b"content-type: application/json\r\n")
            head.append(b"content-length: " + str(len(body)).encode("ascii") + b"\r\n")
            head.append(b"connection: close\r\n\r\n")
            self.transport.write(b"".join(head) + body)
            self.transport.close()

    JsonErrorHttpToolsProtocol.__module__ = __name__
    JsonErrorHttpToolsProtocol.__qualname__ = "JsonErrorHttpToolsProtocol"
    return JsonErrorHttpToolsProtocol


HTTP_PROTOCOL = _json_protocol()
"""What ``pyfathom serve`` hands uvicorn as its ``http`` protocol."""

if not isinstance(HTTP_PROTOCOL, str):
    JsonErrorHttpToolsProtocol = HTTP_PROTOCOL
