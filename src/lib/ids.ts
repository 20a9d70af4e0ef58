const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

/** `bytes` random bytes from the CSPRNG, base32-encoded (16 bytes = 128 bits = 26 characters). */
export function randomToken(bytes = 16): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let out = "";
  let acc = 0;
  let bits = 0;
  for (const b of buf) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(acc << (5 - bits)) & 31];
  return out;
}

export function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}

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
} as const;

export function newId(kind: keyof typeof PREFIXES): string {
  return `${PREFIXES[kind]}_${randomToken(16)}`;
}

/** Raw partner API key: `lk_` + 40 lowercase hex characters (160 bits). */
export function newRawApiKey(): string {
  return `lk_${randomHex(20)}`;
}

export const API_KEY_PATTERN = /^lk_[0-9a-f]{40}$/;
