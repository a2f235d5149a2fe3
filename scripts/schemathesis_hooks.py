"""Schemathesis auth for scripts/schemathesis: each operation is called as
its documented security says (the admin or the service token), and channel
claims are signed with a real channel's secret, so no operation is
unreachable behind authentication, and schemathesis' own auth checks still
send requests without it."""

import hashlib
import hmac
import json
import os
import time
import urllib.request
import uuid

import schemathesis

BASE = os.environ["LEDGER_BASE"]
TOKENS = {"admin": "dev-admin-token", "service": "dev-service-token"}


def _post(path, body):
    request = urllib.request.Request(
        BASE + path,
        data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + TOKENS["admin"],
                 "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"{}")


def _channel():
    """A channel allowed to issue an active template (created once)."""
    now = time.time()
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
    template = _post("/v1/templates", {
        "name": "schemathesis", "kind": "goods", "currency": "CNY",
        "discount": {"type": "fixed_off", "threshold": "100.00", "amount": "20.00"},
        "issue_window": {"begin": iso(now - 3600), "end": iso(now + 86400)},
        "validity": {"type": "relative", "begin_days": 0, "end_days": 7},
        "total": 1000000, "per_user_limit": 1000, "stacking": "stackable",
        "refund_policy": "restore",
    })
    _post(f"/v1/templates/{template['sn']}/activate", {})
    channel = _post("/v1/channels", {"name": "schemathesis"})
    _post(f"/v1/templates/{template['sn']}/channels", {"channel_id": channel["id"]})
    return channel["id"], channel["secret"]


CHANNEL_ID, SECRET = _channel()


def _schemes(ctx):
    security = ctx.operation.definition.raw.get("security") or []
    return {name for requirement in security for name in requirement}


def _token_auth(scheme):
    def applies(ctx):
        return scheme in _schemes(ctx)

    @schemathesis.auth().apply_to(applies)
    class Token:
        def get(self, case, ctx):
            return TOKENS[scheme]

        def set(self, case, data, ctx):
            case.headers = case.headers or {}
            case.headers["Authorization"] = f"Bearer {data}"

    return Token


Admin = _token_auth("admin")
Service = _token_auth("service")


def _signed(ctx):
    return "channel" in _schemes(ctx) or ctx.operation.path == "/v1/claims"


@schemathesis.auth().apply_to(_signed)
class ChannelSignature:
    def get(self, case, ctx):
        return SECRET

    def set(self, case, data, ctx):
        body = b""
        if isinstance(case.body, (dict, list, str, int, float, bool)):
            body = json.dumps(case.body).encode("utf-8")
        ts, nonce = str(int(time.time())), uuid.uuid4().hex
        digest = hashlib.sha256(body).hexdigest()
        message = f"{case.method.upper()}\n{case.formatted_path}\n{ts}\n{nonce}\n{digest}"
        signature = hmac.new(data.encode(), message.encode(), hashlib.sha256).hexdigest()
        case.headers = case.headers or {}
        case.headers.update({"X-Channel-Id": CHANNEL_ID, "X-Timestamp": ts,
                             "X-Nonce": nonce, "X-Signature": signature})
