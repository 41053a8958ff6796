"""One HTTP request to the server's ASGI app in process, without a socket
(``test_server_batch.py``, ``test_server_lila.py``): for tests that patch
the app's modules, which a live server in a child process would not see."""

from __future__ import annotations

from typing import Any


async def asgi_call(app: Any, method: str, path: str, query: bytes,
                    body: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    """(status, headers, body) of ``method path?query`` with a JSON ``body``."""
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
             "query_string": query, "root_path": "", "scheme": "http",
             "http_version": "1.1", "server": ("127.0.0.1", 9000),
             "client": ("127.0.0.1", 1), "headers": [(b"content-type", b"application/json")]}
    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return (start["status"], dict(start["headers"]),
            b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))
