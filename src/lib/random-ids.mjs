// The id and key generator, as plain JavaScript so that both the Worker (through src/lib/ids.ts) and
// the Node scripts (scripts/dev-setup.mjs) use this one copy. Web Crypto only: `crypto` is global in
// workerd and in Node 20. Types: random-ids.d.mts.

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case

/** `bytes` random bytes from the CSPRNG, base32-encoded (16 bytes = 128 bits = 26 characters). */
export function randomToken(bytes = 16) {
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

export function randomHex(bytes) {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `prefix_` + 26 base32 characters (128 bits): the shape of every record id. */
export function prefixedId(prefix) {
  return `${prefix}_${randomToken(16)}`;
}

/** Raw partner API key: `lk_` + 40 lowercase hex characters (160 bits). */
export function newRawApiKey() {
  return `lk_${randomHex(20)}`;
}

export const API_KEY_PATTERN = /^lk_[0-9a-f]{40}$/;
