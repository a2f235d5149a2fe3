// The README's walk-through through this package: a template, a channel,
// a signed claim (and a second one over the per-user limit), then a quote,
// a lock and a confirm of an order that uses the coupon. Exits non-zero on
// any answer other than the expected one. Plain JavaScript: it runs with
// node where the package is installed (`npm install <clients/typescript>`).
//
//   LEDGER_URL=http://127.0.0.1:8080 LEDGER_ADMIN_TOKEN=… LEDGER_SERVICE_TOKEN=… node walk-through.mjs
import { createClient, createChannelClient, signRequest, verifyWebhook } from "@couponledger/client";

const baseUrl = process.env.LEDGER_URL ?? "http://127.0.0.1:8080";
const admin = createClient({ baseUrl, token: process.env.LEDGER_ADMIN_TOKEN ?? "dev-admin-token" });
const service = createClient({ baseUrl, token: process.env.LEDGER_SERVICE_TOKEN ?? "dev-service-token" });

function expect(what, answer, status) {
  if (answer.response.status !== status) {
    console.error(`${what}: HTTP ${answer.response.status}, expected ${status}:`, answer.error ?? answer.data);
    process.exit(1);
  }
  console.log(`${what}: HTTP ${status}`);
  return answer.data ?? answer.error;
}

function equal(what, found, wanted) {
  if (found !== wanted) {
    console.error(`${what}: ${JSON.stringify(found)}, expected ${JSON.stringify(wanted)}`);
    process.exit(1);
  }
}

const iso = (t) => new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");
const now = Date.now();

// 1. A template (draft), then open it.
const template = expect("create template", await admin.POST("/v1/templates", {
  body: {
    name: "Double 11: 20 off 199", kind: "goods", currency: "CNY",
    discount: { type: "fixed_off", threshold: "199.00", amount: "20.00" },
    issue_window: { begin: iso(now - 60_000), end: iso(now + 30 * 86_400_000) },
    validity: { type: "relative", begin_days: 0, end_days: 7 },
    total: 100000, per_user_limit: 1, stacking: "stackable",
    use_scope: [{ kind: "category", values: ["c-9", "c-10"] }],
    refund_policy: "restore", remind_days_before: 1,
  },
}), 201);
const sn = template.sn;
const params = { path: { sn } };
equal("activated", expect("activate", await admin.POST("/v1/templates/{sn}/activate", { params }), 200).status, "active");

// 2. A channel: its secret is shown once.
const channel = expect("create channel", await admin.POST("/v1/channels", { body: { name: "partner app" } }), 201);
expect("allow channel", await admin.POST("/v1/templates/{sn}/channels", { params, body: { channel_id: channel.id } }), 200);

// 3. Signed claims: the first one issues, the second hits the per-user limit.
const partner = createChannelClient({ baseUrl, channelId: channel.id, secret: channel.secret });
const claim = { template_sn: sn, user_id: "user-42" };
const coupon = expect("claim", await partner.POST("/v1/claims", { body: claim }), 201);
equal("coupon's template", coupon.template_sn, sn);
equal("coupon's status", coupon.status, "unused");
const again = expect("claim again", await partner.POST("/v1/claims", { body: claim }), 409);
equal("second claim's code", again.error.code, "per_user_limit");

// 4. Quote, lock and confirm an order of 300.00 in category c-9 with the coupon.
const order = {
  order_id: `walk-${Date.now()}`, user_id: "user-42", currency: "CNY", shipping_fee: "0.00",
  lines: [{ line_id: "l1", sku: "sku-1", category: "c-9", quantity: 1, unit_price: "300.00" }],
};
const quote = expect("quote", await service.POST("/v1/orders/quote", { body: { user_id: "user-42", order } }), 200);
equal("best coupons", JSON.stringify(quote.best.coupon_ids), JSON.stringify([coupon.id]));
equal("best discount", quote.best.discount, "20.00");
equal("best payable", quote.best.payable, "280.00");
const lock = expect("lock", await service.POST("/v1/orders/lock", {
  body: { order, coupon_ids: [coupon.id], expected_payable: "280.00" },
}), 200);
equal("locked payable", lock.payable, "280.00");
const confirmed = expect("confirm", await service.POST("/v1/orders/{order_id}/confirm", {
  params: { path: { order_id: order.order_id } },
}), 200);
equal("order status", confirmed.status, "confirmed");
const used = expect("read coupon", await service.GET("/v1/coupons/{id}", { params: { path: { id: coupon.id } } }), 200);
equal("coupon after confirm", used.status, "used");

// The helpers against the reference's worked example (docs/reference/signing.md)
// and a webhook signature made here.
const example = signRequest({
  secret: "s3cr3t-example", channelId: "c", method: "POST", path: "/v1/claims",
  body: '{"template_sn":"8RE9KQ2MV7XWD4TA","user_id":"user-42"}',
  timestamp: 1764000000, nonce: "5d41402abc4b2a76b9719d911017c592",
});
equal("worked example", example["X-Signature"], "11e5ab2464ca2e6b533fae57bc903deb17d7933eb91ff1afa8276f79e40bfd74");
const { createHmac } = await import("node:crypto");
const t = Math.floor(Date.now() / 1000);
const delivery = '{"event_type":"CouponIssued"}';
const v1 = (secret) => createHmac("sha256", secret).update(`${t}.${delivery}`).digest("hex");
equal("webhook", verifyWebhook({ body: delivery, header: `t=${t},v1=${v1("old")},v1=${v1("new")}`, secrets: "new" }), t);
let refused = false;
try { verifyWebhook({ body: delivery, header: `t=${t - 301},v1=${v1("new")}`, secrets: ["new"] }); } catch { refused = true; }
equal("stale webhook refused", refused, true);
console.log("walk-through: all answers as expected");
