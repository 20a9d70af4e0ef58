import { newId } from "../../lib/ids";
import type { GlobalDb } from "../../lib/shards";
import { defaultDisclosureRow } from "../consent/disclosure";
import { defaultDisclosureInsertIfNone, findCurrentDisclosure } from "../consent/repository";
import type { EnvelopeConsent } from "../envelopes/repository";

/**
 * E-SIGN consent of an envelope being created (docs/consumer-signing.md), decided from the global database before
 * the create's batch on the shard (docs/decisions/shards.md 3: no statement reads a disclosure and
 * writes an envelope): `requested` (the create field) or else the organization's current `required`
 * (none saved: no consent); when consent applies, the organization's newest disclosure version is
 * pinned. Asked for explicitly with no version saved, the shipped default is first stored as version 0
 * (idempotently: two creates racing store it once), so the text the signers are shown is pinned too.
 */
export async function consentAtCreate(global: GlobalDb, input: { orgId: string; requested: boolean | null; at: string }): Promise<EnvelopeConsent> {
  if (input.requested === false) return { consumerConsent: 0, disclosureId: null };
  let current = await findCurrentDisclosure(global, input.orgId);
  if (!current && input.requested === true) {
    await defaultDisclosureInsertIfNone(global, await defaultDisclosureRow({ id: newId("disclosure"), orgId: input.orgId, at: input.at })).run();
    current = await findCurrentDisclosure(global, input.orgId);
  }
  const consent = input.requested ?? Boolean(current?.required);
  return consent ? { consumerConsent: 1, disclosureId: current?.id ?? null } : { consumerConsent: 0, disclosureId: null };
}
