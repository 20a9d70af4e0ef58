import { newId } from "../../lib/ids";
import type { GlobalDb } from "../../lib/shards";
import type { Locale } from "../../db/schema/locales";
import { defaultDisclosureRow } from "../consent/disclosure";
import { defaultDisclosureInsertIfNone, findCurrentDisclosure } from "../consent/repository";
import { findOrgDefaultLocale } from "../organizations/repository";
import type { EnvelopeConsent } from "../envelopes/repository";

/**
 * E-SIGN consent and locale of an envelope being created (docs/consumer-signing.md,
 * docs/decisions/signing-page-languages.md), decided from the global database before the create's
 * batch on the shard (docs/decisions/shards.md 3: no statement reads a disclosure and writes an
 * envelope). The locale is the create's `locale`, else the organization's `default_locale`. Consent:
 * `requested` (the create field) or else the organization's current `required` in that locale (none
 * saved there: in English, the organization's first language; none at all: no consent). When consent
 * applies, the organization's newest disclosure version in the envelope's locale is pinned; with none
 * saved in that locale, the shipped default of the locale is first stored as its version 0
 * (idempotently: two creates racing store it once), so the text the signers are shown is pinned too.
 */
export async function consentAtCreate(
  global: GlobalDb,
  input: { orgId: string; requested: boolean | null; locale?: Locale | null; at: string },
): Promise<EnvelopeConsent> {
  const locale = input.locale ?? (await findOrgDefaultLocale(global, input.orgId));
  if (input.requested === false) return { consumerConsent: 0, disclosureId: null, locale };
  let current = await findCurrentDisclosure(global, input.orgId, locale);
  const required = input.requested ?? Boolean((current ?? (locale === "en" ? null : await findCurrentDisclosure(global, input.orgId, "en")))?.required);
  if (!required) return { consumerConsent: 0, disclosureId: null, locale };
  if (!current) {
    await defaultDisclosureInsertIfNone(global, await defaultDisclosureRow({ id: newId("disclosure"), orgId: input.orgId, locale, at: input.at })).run();
    current = await findCurrentDisclosure(global, input.orgId, locale);
  }
  return { consumerConsent: 1, disclosureId: current?.id ?? null, locale };
}
