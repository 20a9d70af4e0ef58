import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { onShardOf, systemContext } from "../../../src/lib/context";
import { shardOf } from "../../../src/lib/shards";
import { appendEnvelopeAudit } from "../../../src/services/envelopes/append-audit";
import { submitSigning } from "../../../src/services/signing/submit-signing";
import { newTenant } from "../../helpers/api";
import { giveAutoVaultConsent } from "../../helpers/vault";
import { jobContextOf } from "../../helpers/context";
import { racedDb } from "../../helpers/raced-db";
import { signerIdOf } from "../../helpers/signing";
import { sentTwoSignerEnvelope, signing } from "../../helpers/signing-flow";
import { shardDbOf, withShard } from "../../helpers/shards";

/** A two-signer envelope whose buyer has signed, with the custodian's auto-vault consent: the cosigner's submit completes it. */
async function awaitingLastSigner() {
  const t = await newTenant();
  const e = await sentTwoSignerEnvelope(t.key);
  expect((await giveAutoVaultConsent(t.orgId, e.envelopeId)).status).toBe(200);
  expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: "Ann Buyer", buyer_name: "Ann Buyer" } })).status).toBe(200);
  return { ...e, orgId: t.orgId, cosignerId: await signerIdOf(e.cosigner) };
}

const statusOf = async (envelopeId: string) =>
  (await shardDbOf(envelopeId).prepare("SELECT status FROM envelopes WHERE id = ?").bind(envelopeId).first<{ status: string }>())!.status;

/** A bucket that counts the signed documents written to it (each one is a full render, stamp and seal). */
function countingBucket(bucket: R2Bucket) {
  const signedPuts: string[] = [];
  const counted = new Proxy(bucket, {
    get(target, prop) {
      if (prop === "put")
        return (key: string, ...rest: unknown[]) => {
          if (key.endsWith("-signed.pdf")) signedPuts.push(key);
          return (target.put as (...a: unknown[]) => unknown)(key, ...rest);
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { bucket: counted, signedPuts };
}

describe("the last signer's submit", () => {
  it("answers before auto-vault runs: the envelope is completed when the signer hears back, and vaulted once the work left behind finishes", async () => {
    const e = await awaitingLastSigner();
    const leftBehind: Promise<unknown>[] = [];
    const ctx = onShardOf(systemContext(env, (p) => leftBehind.push(p)), e.envelopeId);
    const result = await submitSigning(ctx, { signerId: e.cosignerId, values: { cosigner_signature: "Cole Signer" } });
    expect(result).toEqual({ signer_status: "completed", envelope_status: "completed", completed: true });
    expect(await statusOf(e.envelopeId)).toBe("completed");
    await Promise.all(leftBehind);
    expect(await statusOf(e.envelopeId)).toBe("vaulted");
  });

  it("renders and seals the signed document once when its commit loses a race and is planned again", async () => {
    const e = await awaitingLastSigner();
    const { bucket, signedPuts } = countingBucket(env.DOCS);
    // Another writer appends to the envelope's chain between the submit's read and its batch.
    const competitor = () =>
      appendEnvelopeAudit(jobContextOf(e.envelopeId), {
        orgId: e.orgId,
        envelopeId: e.envelopeId,
        actor: { type: "system", id: null },
        build: async () => ({ action: "vault.certificate_reissued", data: { reason: "race" }, statements: [] }),
      });
    const ctx = onShardOf(systemContext(withShard({ ...env, DOCS: bucket }, shardOf(e.envelopeId), (db) => racedDb(db, competitor)), () => {}), e.envelopeId);
    const result = await submitSigning(ctx, { signerId: e.cosignerId, values: { cosigner_signature: "Cole Signer" } });
    expect(result.completed).toBe(true);
    expect(signedPuts).toHaveLength(1);
    const stored = await shardDbOf(e.envelopeId).prepare("SELECT r2_key FROM envelope_documents WHERE envelope_id = ? AND kind = 'signed'").bind(e.envelopeId).first<{ r2_key: string }>();
    expect(stored!.r2_key).toBe(signedPuts[0]);
    expect(await env.DOCS.head(signedPuts[0]!)).not.toBeNull();
    const actions = await shardDbOf(e.envelopeId).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelopeId).all<{ action: string }>();
    expect(actions.results.map((r) => r.action).slice(-4)).toEqual(["vault.certificate_reissued", "signer.started", "signer.completed", "envelope.complete"]);
  });
});
