// Types of index.js (hand-written); the API's own types are schema.d.ts (generated).
import type { Client, ClientOptions, Middleware } from "openapi-fetch";
import type { paths, components, operations } from "./schema.js";

export type { paths, components, operations };
export type Schemas = components["schemas"];
export type LedgerClient = Client<paths>;

export function createClient(options: ClientOptions & { baseUrl: string; token?: string }): LedgerClient;

export interface SignatureHeaders {
  "X-Channel-Id": string;
  "X-Timestamp": string;
  "X-Nonce": string;
  "X-Signature": string;
}

export function signRequest(args: {
  secret: string;
  channelId: string;
  method: string;
  path: string;
  body?: string | Uint8Array;
  timestamp?: number;
  nonce?: string;
}): SignatureHeaders;

export function channelSigner(args: { channelId: string; secret: string }): Middleware;

export function createChannelClient(
  options: ClientOptions & { baseUrl: string; channelId: string; secret: string },
): LedgerClient;

export const DEFAULT_TOLERANCE_SECONDS: number;

export class WebhookSignatureError extends Error {}

export function verifyWebhook(args: {
  body: string | Uint8Array;
  header: string;
  secrets: string | string[];
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, as Date.now(); default now. */
  now?: number;
}): number;
