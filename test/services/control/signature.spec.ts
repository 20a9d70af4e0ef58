import { describe, expect, it } from "vitest";
import { bodySha256, verifyKeySignature, verifyRecordSignature, type RecordClaim } from "../../../src/services/control/signature";
import { listControlKeys } from "../../../src/services/control/repository";
import { newTenant, refusal } from "../../helpers/api";
import { party } from "../../helpers/control";
import { jobContext } from "../../helpers/context";
import { bodySha256Of, controlSignature, keySignature, makeControlKey, registerControlKey } from "../../helpers/control-keys";

describe("verifyRecordSignature on a control action's payload", () => {
  it("accepts the signature made for this request and refuses it for another transfer, record, action, sequence or body, naming what differs", async () => {
    const t = await party();
    const other = await party();
    const key = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, key)).status).toBe(201);
    const db = jobContext().global;
    const claim: RecordClaim = { vault_id: "vlt_a", action: "accept", transfer_id: "vtr_a", body_sha256: await bodySha256Of({}) };
    const jws = await controlSignature(key, { ...claim, control_seq: 3 });
    const check = (over: Partial<RecordClaim>, controlSeq = 3, orgId = t.orgId) =>
      verifyRecordSignature(db, { orgId, header: jws, claim: { ...claim, ...over }, controlSeq });

    expect(await check({})).toEqual({ kid: key.kid, jws, control_seq: 3 });
    for (const [name, attempt, mismatch] of [
      ["another transfer", check({ transfer_id: "vtr_b" }), ["transfer_id"]],
      ["another record", check({ vault_id: "vlt_b" }), ["vault_id"]],
      ["another action on the same transfer", check({ action: "reject" }), ["action"]],
      ["a later sequence", check({}, 4), ["control_seq"]],
      ["another body", check({ body_sha256: await bodySha256Of({ reference: "x" }) }), ["body_sha256"]],
      ["another sequence and body", check({ body_sha256: await bodySha256Of({ kind: "assignment" }) }, 5), ["control_seq", "body_sha256"]],
    ] as const) {
      const err = await refusal(attempt);
      expect([err.status, err.code, err.details], name).toEqual([403, "control_signature_invalid", { mismatch }]);
    }
    // an old-style payload (no control_seq, no body_sha256, a to_org_id) is refused, naming each claim
    const old = await controlSignature(key, { vault_id: "vlt_a", action: "transfer", to_org_id: other.orgId });
    const oldErr = await refusal(verifyRecordSignature(db, { orgId: t.orgId, header: old, claim: { ...claim, action: "transfer", transfer_id: undefined }, controlSeq: 0 }));
    expect(oldErr.details).toEqual({ mismatch: ["control_seq", "body_sha256", "to_org_id"] });
    // another organization (which has keys of its own) cannot present it either
    expect((await registerControlKey(other.key, await makeControlKey("ES256"))).status).toBe(201);
    expect((await refusal(check({}, 3, other.orgId))).code).toBe("control_signature_invalid");
    // missing, for an organization with keys: the message gives the exact payload; ignored for one without
    const missing = await refusal(verifyRecordSignature(db, { orgId: t.orgId, header: undefined, claim, controlSeq: 3 }));
    expect(missing.code).toBe("control_signature_required");
    expect(missing.message).toContain(JSON.stringify({ vault_id: "vlt_a", action: "accept", transfer_id: "vtr_a", control_seq: 3, body_sha256: claim.body_sha256, iat: "<now, Unix seconds>" }));
    expect(missing.message).toContain("RFC 8785");
    const keyless = await newTenant();
    expect(await verifyRecordSignature(db, { orgId: keyless.orgId, header: undefined, claim, controlSeq: 3 })).toBeNull();
  });

  it("holds iat to 5 minutes either way, for ES256 keys as for Ed25519", async () => {
    const t = await party();
    const key = await makeControlKey("ES256");
    expect((await registerControlKey(t.key, key)).status).toBe(201);
    const db = jobContext().global;
    const claim: RecordClaim = { vault_id: "vlt_a", action: "transfer", body_sha256: await bodySha256Of({ kind: "pledge", to_org_id: "org_b" }) };
    const now = Math.floor(Date.now() / 1000);
    const at = async (iat: number) => verifyRecordSignature(db, { orgId: t.orgId, header: await controlSignature(key, { ...claim, control_seq: 0 }, { iat }), claim, controlSeq: 0 });
    expect(await at(now - 240)).not.toBeNull();
    for (const iat of [now - 360, now + 360]) expect((await refusal(at(iat))).code, String(iat - now)).toBe("control_signature_invalid");
  });

  it("hashes the body as RFC 8785 canonical JSON: key order and white space do not matter, values do", async () => {
    const a = await bodySha256(JSON.parse('{"to_org_id":"org_b","kind":"pledge","reference":"Pool 7","n":1.50}'));
    expect(a).toBe(await bodySha256(JSON.parse('{ "kind": "pledge", "n": 1.5, "reference": "Pool 7", "to_org_id": "org_b" }')));
    expect(a).toBe(await bodySha256Of({ kind: "pledge", n: 1.5, reference: "Pool 7", to_org_id: "org_b" }));
    expect(a).not.toBe(await bodySha256({ kind: "assignment", n: 1.5, reference: "Pool 7", to_org_id: "org_b" }));
    // a bodiless request hashes {}
    expect(await bodySha256(undefined)).toBe(await bodySha256Of({}));
    expect(await bodySha256Of({})).toBe("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
  });
});

describe("verifyKeySignature on a key change", () => {
  it("needs exactly { action, kid, jti, iat } with a jti of 8 to 128 printable characters", async () => {
    const t = await party();
    const key = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, key)).status).toBe(201);
    const db = jobContext().global;
    const keys = await listControlKeys(db, t.orgId);
    const check = async (payload: Record<string, unknown>) =>
      verifyKeySignature(db, { orgId: t.orgId, header: await controlSignature(key, payload), action: "add_key", kid: "kid-new", keys });
    expect(await check({ action: "add_key", kid: "kid-new", jti: "jti-00000001" })).toMatchObject({ kid: key.kid, jti: "jti-00000001" });
    for (const [payload, mismatch] of [
      [{ action: "add_key", kid: "kid-new" }, ["jti"]],
      [{ action: "add_key", kid: "kid-new", jti: "short" }, ["jti"]],
      [{ action: "add_key", kid: "kid-new", jti: 12345678 }, ["jti"]],
      [{ action: "delete_key", kid: "kid-new", jti: "jti-00000002" }, ["action"]],
      [{ action: "add_key", kid: "kid-other", jti: "jti-00000003" }, ["kid"]],
      [{ action: "add_key", kid: "kid-new", jti: "jti-00000004", control_seq: 1 }, ["control_seq"]],
    ] as const) {
      const err = await refusal(check(payload));
      expect([err.code, err.details], JSON.stringify(payload)).toEqual(["control_signature_invalid", { mismatch }]);
    }
    // a fresh jti made by the helper passes
    expect(await verifyKeySignature(db, { orgId: t.orgId, header: await keySignature(key, { action: "add_key", kid: "kid-new" }), action: "add_key", kid: "kid-new", keys })).not.toBeNull();
  });
});
