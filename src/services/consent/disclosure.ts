import { canonicalJson, sha256Hex } from "../../lib/crypto";
import { DEFAULT_DISCLOSURES } from "./default-disclosure";
import type { Locale } from "../../db/schema/locales";
import { findDisclosure, type EsignDisclosureRow } from "./repository";
import type { EsignDisclosure, SignerConsent } from "./schema";
import type { GlobalDb } from "../../lib/shards";

type Content = { required: boolean; text: string; paper_copy_contact: string; withdrawal_instructions: string };

/** SHA-256 (hex) of a version's canonical JSON: its four saved members and its version number. */
export const disclosureHash = (content: Content, version: number): Promise<string> =>
  sha256Hex(
    canonicalJson({
      required: content.required,
      text: content.text,
      paper_copy_contact: content.paper_copy_contact,
      withdrawal_instructions: content.withdrawal_instructions,
      version,
    }),
  );

/** The shipped default of `locale` as a version-0 row of the organization (stored the first time an envelope pins it). */
export async function defaultDisclosureRow(input: { id: string; orgId: string; locale: Locale; at: string }): Promise<EsignDisclosureRow> {
  const d = DEFAULT_DISCLOSURES[input.locale];
  return {
    id: input.id,
    org_id: input.orgId,
    locale: input.locale,
    version: 0,
    required: d.required ? 1 : 0,
    text: d.text,
    paper_copy_contact: d.paper_copy_contact,
    withdrawal_instructions: d.withdrawal_instructions,
    sha256: await disclosureHash(d, 0),
    created_by: null,
    created_at: input.at,
  };
}

/** A stored version as the console shows it; null (none saved): the shipped default of `locale`, version 0. */
export async function disclosureView(row: EsignDisclosureRow | null, locale: Locale = row?.locale ?? "en"): Promise<EsignDisclosure> {
  if (!row) {
    const d = DEFAULT_DISCLOSURES[locale];
    return { ...d, locale, version: 0, sha256: await disclosureHash(d, 0), is_default: true, created_at: null };
  }
  return {
    locale: row.locale,
    required: row.required === 1,
    text: row.text,
    paper_copy_contact: row.paper_copy_contact,
    withdrawal_instructions: row.withdrawal_instructions,
    version: row.version,
    sha256: row.sha256,
    // version 0 (stored when an envelope first pinned it) is the shipped default, not the organization's own
    is_default: row.version === 0,
    created_at: row.version === 0 ? null : row.created_at,
  };
}

/** What a signer is shown (docs/consumer-signing.md): the pinned version's text, and when they consented. */
export function signerConsentOf(
  row: Pick<EsignDisclosureRow, "version" | "text" | "paper_copy_contact" | "withdrawal_instructions"> | null,
  givenAt: string | null,
  locale: Locale,
): SignerConsent {
  const d = row ?? { ...DEFAULT_DISCLOSURES[locale], version: 0 };
  return {
    required: true,
    given_at: givenAt,
    disclosure: { version: d.version, text: d.text, paper_copy_contact: d.paper_copy_contact, withdrawal_instructions: d.withdrawal_instructions },
  };
}

/** The disclosure version an envelope pinned at create; null (none pinned): the shipped default. */
export async function pinnedDisclosure(db: GlobalDb, envelope: { org_id: string; disclosure_id: string | null }): Promise<EsignDisclosureRow | null> {
  return envelope.disclosure_id ? findDisclosure(db, envelope.org_id, envelope.disclosure_id) : null;
}
