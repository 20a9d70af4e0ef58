// The generator itself is plain JavaScript, shared with scripts/dev-setup.mjs.
import { API_KEY_PATTERN, newRawApiKey, prefixedId, randomHex, randomToken } from "./random-ids.mjs";

export { API_KEY_PATTERN, newRawApiKey, randomHex, randomToken };

export const PREFIXES = {
  envelope: "env",
  customer: "cust",
  organization: "org",
  template: "tmpl",
  package: "pkg",
  bulkBatch: "bsb",
  bulkItem: "bsi",
  webhookEndpoint: "whep",
  webhookDelivery: "wdel",
  event: "evt",
  tag: "tag",
  apiKeyId: "key",
  user: "usr",
  signer: "sgn",
  audit: "aud",
  document: "doc",
  request: "req",
  vault: "vlt",
  certificate: "cert",
  integrityCheck: "ichk",
  builderSession: "bld",
  email: "eml",
  payment: "pay",
  evidence: "evb",
  kbaSession: "kbas",
  kbaResult: "kbar",
  usageLine: "use",
  transfer: "vtr",
  pool: "vpl",
  ccRecipient: "ccr",
  disclosure: "esd",
  evidenceRecord: "ers",
  smsMessage: "sms",
  hold: "vhd",
} as const;

/**
 * Kinds whose ids name no shard (docs/decisions/shards.md 2): rows of the global database, audit
 * entries (found by their chain, never by id) and request ids; `document` also names R2 objects
 * (`documents/<org>/doc_….pdf`), which are no rows. Every other kind is a shard row: its id comes from
 * `newShardId(kind, shard)` (lib/shards.ts), and `newId` refuses it at compile time.
 */
export type GlobalIdKind = "organization" | "user" | "apiKeyId" | "template" | "package" | "webhookEndpoint" | "disclosure" | "tag" | "request" | "audit" | "document";

export function newId(kind: GlobalIdKind): string {
  return prefixedId(PREFIXES[kind]);
}
