// couponledger's API client. The types (`schema.d.ts`) are generated from
// the ledger's OpenAPI document by openapi-typescript (scripts/clients; do
// not edit them); calls go through openapi-fetch. This file adds what a
// document cannot say: signing a channel's requests and verifying a
// webhook's signature. Plain JavaScript, so that no build step stands
// between `npm install` and use; `index.d.ts` types it.
import { createHmac, createHash, randomBytes, timingSafeEqual } from "node:crypto";
import createFetchClient from "openapi-fetch";

/** A client of the API; `token` (admin, service or an app key) is sent as a bearer token. */
export function createClient({ baseUrl, token, ...options }) {
  const headers = { ...(options.headers ?? {}) };
  if (token) headers.Authorization = `Bearer ${token}`;
  return createFetchClient({ baseUrl, ...options, headers });
}

/**
 * The four signature headers of one request (docs/reference/signing.md):
 * five lines joined by "\n" — method, path as sent (no host, no query),
 * timestamp, nonce, hex SHA-256 of the exact body bytes — signed with
 * HMAC-SHA256 under the channel's secret, in lowercase hex.
 */
export function signRequest({ secret, channelId, method, path, body = "", timestamp, nonce }) {
  const ts = String(timestamp ?? Math.floor(Date.now() / 1000));
  const n = nonce ?? randomBytes(16).toString("hex");
  const digest = createHash("sha256").update(body).digest("hex");
  const message = `${method.toUpperCase()}\n${path}\n${ts}\n${n}\n${digest}`;
  const signature = createHmac("sha256", secret).update(message).digest("hex");
  return { "X-Channel-Id": channelId, "X-Timestamp": ts, "X-Nonce": n, "X-Signature": signature };
}

/**
 * An openapi-fetch middleware that signs every request as the channel:
 * `client.use(channelSigner({ channelId, secret }))`.
 */
export function channelSigner({ channelId, secret }) {
  return {
    async onRequest({ request }) {
      const body = Buffer.from(await request.clone().arrayBuffer());
      const path = new URL(request.url).pathname;
      const headers = signRequest({ secret, channelId, method: request.method, path, body });
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
      return request;
    },
  };
}

/** A client that signs every request as the channel (claims, redemptions, package claims). */
export function createChannelClient({ baseUrl, channelId, secret, ...options }) {
  const client = createFetchClient({ baseUrl, ...options });
  client.use(channelSigner({ channelId, secret }));
  return client;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The delivery is not signed by a secret you hold, or too old. */
export class WebhookSignatureError extends Error {}

/**
 * Checks a webhook delivery's `Ledger-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`
 * against the raw body received: genuine when one v1 is the hex
 * HMAC-SHA256 of "<t>.<body>" under one of `secrets` (one, or several
 * during a rotation) and t is within `toleranceSeconds` (300) of now.
 * Returns the signed timestamp; throws WebhookSignatureError otherwise.
 */
export function verifyWebhook({ body, header, secrets, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now }) {
  const keys = Array.isArray(secrets) ? secrets : [secrets];
  let timestamp;
  const signatures = [];
  for (const part of String(header).split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === "t") timestamp = value;
    else if (key === "v1") signatures.push(value);
  }
  if (!timestamp || !/^[0-9]+$/.test(timestamp) || signatures.length === 0) {
    throw new WebhookSignatureError("malformed Ledger-Signature header");
  }
  const signed = Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(body)]);
  const matches = keys.some((secret) => {
    const expected = Buffer.from(createHmac("sha256", secret).update(signed).digest("hex"));
    return signatures.some((s) => {
      const given = Buffer.from(s);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  });
  if (!matches) throw new WebhookSignatureError("no signature matches");
  const seconds = (now ?? Date.now()) / 1000;
  if (Math.abs(seconds - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookSignatureError("timestamp outside the tolerance");
  }
  return Number(timestamp);
}
