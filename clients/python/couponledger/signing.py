"""Signing a channel's request (docs/reference/signing.md).

The string signed is five lines joined by `\\n`: the method, the path as
the request line carries it (no host, no query), the timestamp, the nonce
and the lowercase hex SHA-256 of the exact body bytes sent; the signature
is the lowercase hex HMAC-SHA256 of it with the channel's secret.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Any, Generator, Optional

import httpx


def sign(
    secret: str,
    channel_id: str,
    method: str,
    path: str,
    body: bytes,
    *,
    timestamp: Optional[int] = None,
    nonce: Optional[str] = None,
) -> dict[str, str]:
    """The headers `X-Channel-Id`, `X-Timestamp`, `X-Nonce`, `X-Signature`
    of one request. `timestamp` (Unix seconds) and `nonce` default to now
    and a fresh random one; pass them only to reproduce an example."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    nonce = secrets.token_hex(16) if nonce is None else nonce
    digest = hashlib.sha256(body).hexdigest()
    message = f"{method.upper()}\n{path}\n{ts}\n{nonce}\n{digest}"
    signature = hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()
    return {
        "X-Channel-Id": channel_id,
        "X-Timestamp": ts,
        "X-Nonce": nonce,
        "X-Signature": signature,
    }


class ChannelAuth(httpx.Auth):
    """Signs every request of a client as the channel `channel_id`:

    >>> client = Client(base_url=url, httpx_args={"auth": ChannelAuth(channel_id, secret)})

    Each request gets a new nonce and the current time, so a retried call
    is signed again (a nonce is accepted once)."""

    requires_request_body = True

    def __init__(self, channel_id: str, secret: str) -> None:
        self.channel_id = channel_id
        self.secret = secret

    def header_arguments(self) -> dict[str, Any]:
        """The generated operations take the four signature headers as
        required arguments (the document lists them as parameters); these
        fill them, and `auth_flow` replaces them with the real signature
        when the request is sent:

        >>> claim.sync_detailed(client=partner, body=body, **auth.header_arguments())
        """
        return {
            # A str: the generated code puts it in the header as it is.
            "x_channel_id": self.channel_id,
            "x_timestamp": 0,
            "x_nonce": "signed-when-sent",
            "x_signature": "signed-when-sent",
        }

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        path = request.url.raw_path.split(b"?", 1)[0].decode("ascii")
        request.headers.update(
            sign(self.secret, self.channel_id, request.method, path, request.content)
        )
        yield request
