import { describe, expect, it } from "vitest";
import { verifyControlSignature } from "../../../src/services/control/signature";
import { newTenant, refusal } from "../../helpers/api";
import { party } from "../../helpers/control";
import { jobContext } from "../../helpers/context";
import { controlSignature, makeControlKey, registerControlKey } from "../../helpers/control-keys";


describe("verifyControlSignature on a control action's payload", () => {
  it("accepts the signature made for this transfer and refuses it replayed for another transfer, record or organization", async () => {
    const t = await party();
    const other = await party();
    const key = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, key)).status).toBe(201);
    const db = jobContext().global;
    const forA = { vault_id: "vlt_a", action: "accept", transfer_id: "vtr_a" } as const;
    const jws = await controlSignature(key, forA);

    expect(await verifyControlSignature(db, { orgId: t.orgId, header: jws, expected: forA })).toEqual({ kid: key.kid, jws });

    for (const [name, expected] of [
      ["another transfer", { ...forA, transfer_id: "vtr_b" }],
      ["another record", { ...forA, vault_id: "vlt_b" }],
      ["another action on the same transfer", { ...forA, action: "reject" }],
      ["the same action naming a counterparty", { ...forA, to_org_id: other.orgId }],
    ] as const) {
      const err = await refusal(verifyControlSignature(db, { orgId: t.orgId, header: jws, expected }));
      expect([err.status, err.code], name).toEqual([403, "control_signature_invalid"]);
    }
    // another organization (which has keys of its own) cannot present it either
    expect((await registerControlKey(other.key, await makeControlKey("ES256"))).status).toBe(201);
    const foreign = await refusal(verifyControlSignature(db, { orgId: other.orgId, header: jws, expected: forA }));
    expect(foreign.code).toBe("control_signature_invalid");
    // missing, for an organization with keys; ignored for one without
    expect((await refusal(verifyControlSignature(db, { orgId: t.orgId, header: undefined, expected: forA }))).code).toBe("control_signature_required");
    const keyless = await newTenant();
    expect(await verifyControlSignature(db, { orgId: keyless.orgId, header: undefined, expected: forA })).toBeNull();
  });

  it("holds iat to 5 minutes either way, for ES256 keys as for Ed25519", async () => {
    const t = await party();
    const key = await makeControlKey("ES256");
    expect((await registerControlKey(t.key, key)).status).toBe(201);
    const db = jobContext().global;
    const payload = { vault_id: "vlt_a", action: "transfer", to_org_id: "org_b" } as const;
    const now = Math.floor(Date.now() / 1000);
    expect(await verifyControlSignature(db, { orgId: t.orgId, header: await controlSignature(key, payload, { iat: now - 240 }), expected: payload })).not.toBeNull();
    for (const iat of [now - 360, now + 360]) {
      const err = await refusal(verifyControlSignature(db, { orgId: t.orgId, header: await controlSignature(key, payload, { iat }), expected: payload }));
      expect(err.code, String(iat - now)).toBe("control_signature_invalid");
    }
  });
});
