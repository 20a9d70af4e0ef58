/** Standard base64 of DER bytes (chunked: a certificate chain is too long to spread at once). */
export function base64Der(der: Uint8Array): string {
  let s = "";
  for (let i = 0; i < der.length; i += 0x8000) s += String.fromCharCode(...der.subarray(i, i + 0x8000));
  return btoa(s);
}

/** A certificate's DER as one PEM block, 64 characters a line. */
export function certificatePem(der: Uint8Array): string {
  return `-----BEGIN CERTIFICATE-----\n${base64Der(der).replace(/.{64}/g, "$&\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
}
