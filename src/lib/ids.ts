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
  ccRecipient: "ccr",
  disclosure: "esd",
  evidenceRecord: "ers",
} as const;

export function newId(kind: keyof typeof PREFIXES): string {
  return prefixedId(PREFIXES[kind]);
}
