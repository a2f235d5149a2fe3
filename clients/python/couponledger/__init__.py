"""couponledger's API client.

`couponledger_api` is generated from the ledger's OpenAPI document
(`scripts/clients`; do not edit it); this package adds what a document
cannot say:

- `ChannelAuth`: signs a channel's requests (claims, redemptions, package
  claims; docs/reference/signing.md), as an `httpx.Auth`;
- `sign`: the four signature headers of one request;
- `verify_webhook`: checks a webhook delivery's `Ledger-Signature`;
- `upload_user_file`: the bulk-issuance upload (a `text/plain` body,
  which the generator does not produce).
"""

from couponledger_api import AuthenticatedClient, Client

from .signing import ChannelAuth, sign
from .uploads import upload_user_file
from .webhooks import WebhookSignatureError, verify_webhook

__all__ = [
    "AuthenticatedClient",
    "ChannelAuth",
    "Client",
    "WebhookSignatureError",
    "sign",
    "upload_user_file",
    "verify_webhook",
]
