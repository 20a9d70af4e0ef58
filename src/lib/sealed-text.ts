/**
 * Text sealed with AES-GCM under a key derived from one of the service's secrets and a purpose label
 * (SHA-256 of `label \0 secret`): each purpose gets its own key from the same secret, so a value
 * sealed for one purpose never opens as another. `context` is bound as additional data: a sealed value
 * copied beside another context (another row) does not open there.
 * Format: base64url(iv ‖ ciphertext ‖ tag).
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keys = new Map<string, Promise<CryptoKey>>();

function keyOf(secret: string, label: string): Promise<CryptoKey> {
  const id = `${label}\0${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", new TextEncoder().encode(id))
      .then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
    keys.set(id, key);
  }
  return key;
}

const additionalData = (label: string, context: string) => new TextEncoder().encode(`${label}\0${context}`);

const toBase64Url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

export async function sealText(input: { secret: string; label: string; context: string; plain: string }): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: additionalData(input.label, input.context) },
    await keyOf(input.secret, input.label),
    new TextEncoder().encode(input.plain),
  );
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), IV_BYTES);
  return toBase64Url(out);
}

/** The text `sealed` holds, or null when it was not sealed under this secret, label and context (or was altered). */
export async function openText(input: { secret: string; label: string; context: string; sealed: string }): Promise<string | null> {
  const bytes = fromBase64Url(input.sealed);
  if (!bytes || bytes.length < IV_BYTES + TAG_BYTES) return null;
  try {
    const opened = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: additionalData(input.label, input.context) },
      await keyOf(input.secret, input.label),
      bytes.subarray(IV_BYTES),
    );
    return new TextDecoder().decode(opened);
  } catch {
    return null;
  }
}
