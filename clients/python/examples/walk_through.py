"""The README's walk-through through this package: a template, a channel,
a signed claim (and a second one over the per-user limit), then a quote, a
lock and a confirm of an order that uses the coupon. Exits non-zero on any
answer other than the expected one.

    LEDGER_URL=http://127.0.0.1:8080 LEDGER_ADMIN_TOKEN=… LEDGER_SERVICE_TOKEN=… python walk_through.py
"""

import hashlib
import hmac
import os
import sys
import time
from datetime import datetime, timedelta, timezone

from couponledger import AuthenticatedClient, ChannelAuth, Client, WebhookSignatureError, sign, verify_webhook
from couponledger_api.api.channels import create_channel
from couponledger_api.api.claims import claim
from couponledger_api.api.coupons import read_coupon
from couponledger_api.api.orders import confirm_order, lock_order, quote_order
from couponledger_api.api.templates import activate_template, allow_channel, create_template
from couponledger_api.models import (
    AllowChannel, Claim, CreateChannel, CreateTemplate, LockBody, QuoteRequest)

BASE = os.environ.get("LEDGER_URL", "http://127.0.0.1:8080")
admin = AuthenticatedClient(base_url=BASE, token=os.environ.get("LEDGER_ADMIN_TOKEN", "dev-admin-token"))
service = AuthenticatedClient(base_url=BASE, token=os.environ.get("LEDGER_SERVICE_TOKEN", "dev-service-token"))


def expect(what, answer, status):
    if answer.status_code != status:
        sys.exit(f"{what}: HTTP {answer.status_code}, expected {status}: {answer.content[:500]!r}")
    print(f"{what}: HTTP {status}")
    return answer.parsed


def equal(what, found, wanted):
    if found != wanted:
        sys.exit(f"{what}: {found!r}, expected {wanted!r}")


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


now = datetime.now(timezone.utc)

# 1. A template (draft), then open it.
template = expect("create template", create_template.sync_detailed(client=admin, body=CreateTemplate.from_dict({
    "name": "Double 11: 20 off 199", "kind": "goods", "currency": "CNY",
    "discount": {"type": "fixed_off", "threshold": "199.00", "amount": "20.00"},
    "issue_window": {"begin": iso(now - timedelta(minutes=1)), "end": iso(now + timedelta(days=30))},
    "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
    "total": 100000, "per_user_limit": 1, "stacking": "stackable",
    "use_scope": [{"kind": "category", "values": ["c-9", "c-10"]}],
    "refund_policy": "restore", "remind_days_before": 1,
})), 201)
sn = template.sn
active = expect("activate", activate_template.sync_detailed(sn=sn, client=admin), 200)
equal("activated", str(active.status), "active")

# 2. A channel: its secret is shown once.
channel = expect("create channel", create_channel.sync_detailed(
    client=admin, body=CreateChannel(name="partner app")), 201)
expect("allow channel", allow_channel.sync_detailed(
    sn=sn, client=admin, body=AllowChannel(channel_id=channel.id)), 200)

# 3. Signed claims: the first one issues, the second hits the per-user limit.
auth = ChannelAuth(str(channel.id), channel.secret)
partner = Client(base_url=BASE, httpx_args={"auth": auth})
body = Claim.from_dict({"template_sn": sn, "user_id": "user-42"})
coupon = expect("claim", claim.sync_detailed(client=partner, body=body, **auth.header_arguments()), 201)
equal("coupon's template", coupon.template_sn, sn)
equal("coupon's status", str(coupon.status), "unused")
again = expect("claim again", claim.sync_detailed(
    client=partner, body=body, **auth.header_arguments()), 409)
equal("second claim's code", again.error.code, "per_user_limit")

# 4. Quote, lock and confirm an order of 300.00 in category c-9 with the coupon.
order = {
    "order_id": f"walk-{time.time_ns()}", "user_id": "user-42", "currency": "CNY",
    "shipping_fee": "0.00",
    "lines": [{"line_id": "l1", "sku": "sku-1", "category": "c-9", "quantity": 1,
               "unit_price": "300.00"}],
}
quote = expect("quote", quote_order.sync_detailed(client=service, body=QuoteRequest.from_dict(
    {"user_id": "user-42", "order": order})), 200)
equal("best coupons", [str(c) for c in quote.best.coupon_ids], [str(coupon.id)])
equal("best discount", quote.best.discount, "20.00")
equal("best payable", quote.best.payable, "280.00")
lock = expect("lock", lock_order.sync_detailed(client=service, body=LockBody.from_dict(
    {"order": order, "coupon_ids": [str(coupon.id)], "expected_payable": "280.00"})), 200)
equal("locked payable", lock.payable, "280.00")
confirmed = expect("confirm", confirm_order.sync_detailed(order_id=order["order_id"], client=service), 200)
equal("order status", str(confirmed.status), "confirmed")
used = expect("read coupon", read_coupon.sync_detailed(id=coupon.id, client=service), 200)
equal("coupon after confirm", str(used.status), "used")

# The helpers against the reference's worked example (docs/reference/signing.md)
# and a webhook signature made here.
example = sign("s3cr3t-example", "c", "POST", "/v1/claims",
               b'{"template_sn":"8RE9KQ2MV7XWD4TA","user_id":"user-42"}',
               timestamp=1764000000, nonce="5d41402abc4b2a76b9719d911017c592")
equal("worked example", example["X-Signature"],
      "11e5ab2464ca2e6b533fae57bc903deb17d7933eb91ff1afa8276f79e40bfd74")
t = int(time.time())
delivery = b'{"event_type":"CouponIssued"}'


def v1(secret, at=t):
    return hmac.new(secret.encode(), f"{at}.".encode() + delivery, hashlib.sha256).hexdigest()


equal("webhook", verify_webhook(delivery, f"t={t},v1={v1('old')},v1={v1('new')}", "new"), t)
for header in [f"t={t - 301},v1={v1('new', t - 301)}", f"t={t},v1={v1('other')}", "v1=00"]:
    try:
        verify_webhook(delivery, header, ["new"])
        sys.exit(f"webhook {header!r} was accepted")
    except WebhookSignatureError:
        pass
print("walk-through: all answers as expected")
