/**
 * An E.164 number as the audit, the certificate and the signing page show it: the `+`, the first
 * digit of the country code and the last four digits, the rest as asterisks (`+1******4567`). Enough for
 * the signer to recognise their phone, not enough to call it.
 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  if (digits.length <= 5) return "+" + "*".repeat(digits.length);
  return `+${digits[0]}${"*".repeat(digits.length - 5)}${digits.slice(-4)}`;
}
