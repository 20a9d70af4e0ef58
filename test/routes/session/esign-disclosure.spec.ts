import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../../../src/lib/crypto";
import { call, newTenant } from "../../helpers/api";
import { adminToken } from "../../helpers/webhooks";

const getDisclosure = (bearer: string) => call("GET", "/org/esign-disclosure", { bearer });
const putDisclosure = (bearer: string, body: unknown) => call("PUT", "/org/esign-disclosure", { bearer, body });

const BODY = {
  required: true,
  text: "Consent to electronic records. Paper copies on request; you may withdraw consent at any time before signing.",
  paper_copy_contact: "Write to 1 Main St, Springfield; no fee.",
  withdrawal_instructions: "Choose Withdraw consent on the signing page.",
};

const hashOf = (d: typeof BODY, version: number) => sha256Hex(canonicalJson({ ...d, version }));

describe("GET and PUT /org/esign-disclosure", () => {
  it("answers the shipped default (version 0, not required) until an admin saves one", async () => {
    const t = await newTenant();
    const res = await getDisclosure(await adminToken(t.orgId, "member"));
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ version: 0, required: false, is_default: true, created_at: null });
    expect(d.sha256).toBe(await hashOf({ required: d.required, text: d.text, paper_copy_contact: d.paper_copy_contact, withdrawal_instructions: d.withdrawal_instructions }, 0));
    // what 15 U.S.C. §7001(c)(1) asks the consumer be told
    for (const topic of [/paper cop/i, /fee|free of charge/i, /withdraw/i, /consequen|will not be able|declined/i, /this transaction/i, /contact information|email address/i, /browser/i, /PDF/i]) {
      expect(d.text).toMatch(topic);
    }
    expect(d.paper_copy_contact.length).toBeGreaterThan(0);
    expect(d.withdrawal_instructions.length).toBeGreaterThan(0);
  });

  it("each admin PUT saves the next version with the hash of its canonical JSON; members read it but cannot change it", async () => {
    const t = await newTenant();
    const admin = await adminToken(t.orgId);
    const member = await adminToken(t.orgId, "member");
    const first = await putDisclosure(admin, BODY);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ ...BODY, version: 1, is_default: false, sha256: await hashOf(BODY, 1) });
    const second = await putDisclosure(admin, { ...BODY, required: false });
    expect(second.body.data).toMatchObject({ version: 2, required: false, sha256: await hashOf({ ...BODY, required: false }, 2) });
    expect((await getDisclosure(member)).body.data).toEqual(second.body.data);
    // the earlier version is kept as it was
    const kept = await env.DB.prepare("SELECT version, required, sha256 FROM esign_disclosures WHERE org_id = ? ORDER BY version").bind(t.orgId).all();
    expect(kept.results).toEqual([
      { version: 1, required: 1, sha256: first.body.data.sha256 },
      { version: 2, required: 0, sha256: second.body.data.sha256 },
    ]);
    const refused = await putDisclosure(member, BODY);
    expect(refused.status).toBe(403);
    const audit = await env.DB.prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = 'org.esign_disclosure_updated' ORDER BY seq").bind(t.orgId).all<{ data: string }>();
    expect(audit.results.map((r) => JSON.parse(r.data).version)).toEqual([1, 2]);
  });

  it("another organization's disclosure is never shown", async () => {
    const a = await newTenant();
    const b = await newTenant();
    await putDisclosure(await adminToken(a.orgId), BODY);
    expect((await getDisclosure(await adminToken(b.orgId))).body.data.version).toBe(0);
  });

  it("refuses bad input with 422 and saves nothing", async () => {
    const t = await newTenant();
    const admin = await adminToken(t.orgId);
    const bad: [unknown, string][] = [
      [{ ...BODY, text: "x".repeat(20_001) }, "text"],
      [{ ...BODY, text: "   " }, "text"],
      [{ ...BODY, paper_copy_contact: "x".repeat(1_001) }, "paper_copy_contact"],
      [{ ...BODY, withdrawal_instructions: "x".repeat(2_001) }, "withdrawal_instructions"],
      [{ ...BODY, required: "yes" }, "required"],
      [{ text: BODY.text, paper_copy_contact: BODY.paper_copy_contact, withdrawal_instructions: BODY.withdrawal_instructions }, "required"],
      [{ ...BODY, extra: 1 }, "extra"],
    ];
    for (const [body, path] of bad) {
      const res = await putDisclosure(admin, body);
      expect(res.status, path).toBe(422);
      expect(JSON.stringify(res.body.details), path).toContain(path);
    }
    expect((await getDisclosure(admin)).body.data.version).toBe(0);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM esign_disclosures WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });
});
