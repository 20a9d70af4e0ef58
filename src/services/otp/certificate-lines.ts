import type { ShardDb } from "../../lib/shards";
import type { SignerRow } from "../signers/repository";
import { maskPhone } from "./mask-phone";
import { listSignerOtps } from "./repository";

/** "2026-11-23T14:02:11.000Z" -> "2026-11-23 14:02:11 UTC" */
const secondUtc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/** One line for the signing certificate, e.g. "SMS passcode to +1******4567 verified 2026-11-23 14:02:11 UTC". */
export const otpLine = (phone: string | null, verifiedAt: string | null) =>
  `SMS passcode to ${phone ? maskPhone(phone) : "no phone"} ${verifiedAt ? `verified ${secondUtc(verifiedAt)}` : "not verified"}`;

/** Each SMS-passcode signer's verification as the signing certificate page states it, by signer id. */
export async function otpCertificateLines(db: ShardDb, signers: Pick<SignerRow, "id" | "envelope_id" | "phone">[]): Promise<Map<string, string>> {
  if (!signers.length) return new Map();
  const phones = new Map(signers.map((s) => [s.id, s.phone]));
  return new Map((await listSignerOtps(db, signers[0]!.envelope_id)).map((r) => [r.signer_id, otpLine(phones.get(r.signer_id) ?? null, r.verified_at)]));
}
