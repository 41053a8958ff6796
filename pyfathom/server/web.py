"""HTTP rules of ``pyfathom serve`` that are not lichess documents: content
negotiation with q-values, the caching headers of answers that never
change, and CORS (an ASGI middleware, so that every answer carries
``Access-Control-Allow-Origin``, redirects and framework errors included,
and a browser's preflight ``OPTIONS`` is answered on every path).
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

__all__ = ["negotiate", "answer_headers", "etag_of", "not_modified", "CorsMiddleware",
           "CORS_HEADERS", "MAX_AGE"]

MAX_AGE = 86400
"""Seconds a client or proxy may keep an answer (the tables never change
while the server runs)."""

CORS_HEADERS = {"Access-Control-Allow-Origin": "*"}
"""What every answer carries: any origin may read it (as lichess allows)."""

_PREFLIGHT = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, POST, OPTIONS"),
    (b"access-control-max-age", str(MAX_AGE).encode()),
    (b"vary", b"Access-Control-Request-Headers"),
]


def negotiate(accept: str, offered: Sequence[str]) -> str:
    """The media type of ``offered`` the ``Accept`` header ranks highest
    (RFC 9110 q-values; a more specific range wins over ``type/*`` and
    ``*/*``); the first offered on a tie, without Accept, or when every
    offered type is refused (q=0): an answer the client may still read
    beats none.

    >>> negotiate("application/cbor;q=0, application/json", ["application/json", "application/cbor"])
    'application/json'
    >>> negotiate("application/cbor", ["application/json", "application/cbor"])
    'application/cbor'
    >>> negotiate("*/*;q=0.5, application/cbor;q=0.9", ["application/json", "application/cbor"])
    'application/cbor'
    """
    ranges: list[tuple[str, float]] = []
    for part in accept.split(",")[:32]:  # a bounded number of ranges: the header is the client's
        fields = part.split(";")
        media = fields[0].strip().lower()
        if not media:
            continue
        q = 1.0
        for param in fields[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(value.strip()), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        ranges.append((media, q))
    if not ranges:
        return offered[0]
    best, best_q = offered[0], 0.0
    for media in offered:
        major = media.split("/")[0] + "/*"
        # The most specific matching range decides this type's q.
        q = next((rq for rm, rq in ranges if rm == media),
                 next((rq for rm, rq in ranges if rm == major),
                      next((rq for rm, rq in ranges if rm == "*/*"), 0.0)))
        if q > best_q:
            best, best_q = media, q
    return best


def etag_of(data: bytes) -> str:
    """A strong validator of an answer's bytes."""
    return '"' + hashlib.blake2b(data, digest_size=12).hexdigest() + '"'


def answer_headers(etag: str) -> dict[str, str]:
    """Headers of a probe answer: cacheable, varying with Accept, CORS."""
    return {**CORS_HEADERS, "Vary": "Accept", "ETag": etag,
            "Cache-Control": f"public, max-age={MAX_AGE}"}


def not_modified(if_none_match: str, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (or ``*``)."""
    tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")[:64]]
    return "*" in tags or etag in tags


_App = Callable[[MutableMapping[str, Any], Callable[[], Awaitable[Any]],
                 Callable[[MutableMapping[str, Any]], Awaitable[None]]], Awaitable[None]]


class CorsMiddleware:
    """Answers preflight ``OPTIONS`` requests itself (204) and adds
    ``Access-Control-Allow-Origin: *`` to every other answer that lacks it."""

    def __init__(self, app: _App) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            asked = dict(scope["headers"]).get(b"access-control-request-headers", b"")
            headers = list(_PREFLIGHT)
            # Echo what the browser asks to send (Content-Type for a JSON
            # body): bounded, and only header-name characters.
            if asked and len(asked) <= 512 and all(c in b"abcdefghijklmnopqrstuvwxyz"
                                                  b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_, "
                                                  for c in asked):
                headers.append((b"access-control-allow-headers", asked))
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_with_cors(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if not any(name.lower() == b"access-control-allow-origin" for name, _ in headers):
                    headers.append((b"access-control-allow-origin", b"*"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cors)
