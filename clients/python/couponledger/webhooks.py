"""Verifying a webhook delivery's signature.

A delivery carries `Ledger-Signature: t=<unix seconds>,v1=<hex>`, where
each `v1` is the hex HMAC-SHA256 of `"<t>.<body>"` under a secret of the
webhook; while a secret is being rotated the header holds one `v1` per
secret. A delivery is genuine when one `v1` matches a secret you hold and
`t` is within the tolerance of your clock (300 s by default), which stops
an old delivery from being replayed.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Iterable, Optional, Union

DEFAULT_TOLERANCE_SECS = 300


class WebhookSignatureError(ValueError):
    """The delivery is not signed by a secret you hold, or too old."""


def verify_webhook(
    body: bytes,
    header: str,
    secrets: Union[str, Iterable[str]],
    *,
    tolerance: int = DEFAULT_TOLERANCE_SECS,
    now: Optional[float] = None,
) -> int:
    """Checks `header` (the `Ledger-Signature` value) against the raw
    `body` bytes received, with one secret or several (yours during a
    rotation). Returns the signed timestamp; raises `WebhookSignatureError`
    when no signature matches or the timestamp is out of tolerance."""
    if isinstance(secrets, str):
        secrets = [secrets]
    timestamp: Optional[str] = None
    signatures: list[str] = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            timestamp = value
        elif key == "v1":
            signatures.append(value)
    if timestamp is None or not timestamp.isdigit() or not signatures:
        raise WebhookSignatureError("malformed Ledger-Signature header")
    signed = timestamp.encode() + b"." + body
    expected = [
        hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest() for secret in secrets
    ]
    if not any(hmac.compare_digest(e, s) for e in expected for s in signatures):
        raise WebhookSignatureError("no signature matches")
    now = time.time() if now is None else now
    if abs(now - int(timestamp)) > tolerance:
        raise WebhookSignatureError("timestamp outside the tolerance")
    return int(timestamp)
