import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, newKey, newTenant } from "../../../helpers/api";
import { pageTexts } from "../../../helpers/pdf";
import { completedEnvelope, download } from "../../../helpers/vault";
import { shardDbOf } from "../../../helpers/shards";
import { party, vaulted } from "../../../helpers/control";
import { moveToEnd, offeredPool } from "../../../helpers/pools";

const certificateUrl = (key: string, envelopeId: string, query = "") => call("GET", `/partner/envelopes/${envelopeId}/vault/certificate/signed-url${query}`, { key });

describe("GET /partner/envelopes/:id/vault/certificate/signed-url", () => {
  it("answers 404 before vaulting, then a signed URL that downloads the current certificate's PDF", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const before = await certificateUrl(t.key, e.envelope_id);
    expect(before.status).toBe(404);
    expect(before.body.error).toMatch(/not vaulted/);

    expect((await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
    const res = await certificateUrl(t.key, e.envelope_id, "?expires=600");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(["expires_at", "expires_in", "filename", "signed_url"]);
    expect(res.body.data.expires_in).toBe(600);
    expect(res.body.data.filename).toMatch(new RegExp(`${e.envelope_id}_certificate\\.pdf$`));
    expect(res.body.data.signed_url).toMatch(/\/v\/vlt_(?:[1-9][0-9]{0,3}_)?[a-z0-9]+\/certificate\?exp=\d+&sig=[0-9a-f]{64}$/);

    const file = await download(res.body.data.signed_url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(file.headers.get("content-disposition")).toContain("_certificate.pdf");
    const row = await shardDbOf(e.envelope_id).prepare("SELECT pdf_key FROM vault_certificates WHERE envelope_id = ? ORDER BY version DESC LIMIT 1").bind(e.envelope_id).first<{ pdf_key: string }>();
    const stored = new Uint8Array(await (await env.DOCS.get(row!.pdf_key))!.arrayBuffer());
    expect(file.bytes).toEqual(stored);
    expect((await pageTexts(file.bytes)).join("\n")).toContain(e.hash);

    // the URL is bound to the file it names: the same signature does not open the authoritative copy
    expect((await download(res.body.data.signed_url.replace("/certificate?", "/authoritative?"))).status).toBe(403);
  });

  it("after a pool moved the record: the new version's PDF, rendered from its JSON on the first download, never the one before", async () => {
    const [seller, buyer] = [await party("Certificate Seller"), await party("Certificate Buyer")];
    const { e, vaultId } = await vaulted(seller);
    const pool = await offeredPool(seller, buyer, [vaultId]);
    expect((await call("POST", `/partner/vault/pools/${pool.pool_id}/accept`, { key: buyer.key })).status).toBe(200);
    await moveToEnd(pool.pool_id);

    const { results } = await shardDbOf(e.envelope_id)
      .prepare("SELECT version, pdf_key, body, reason FROM vault_certificates WHERE envelope_id = ? ORDER BY version")
      .bind(e.envelope_id)
      .all<{ version: number; pdf_key: string; body: string; reason: string }>();
    const [before, moved] = results.slice(-2) as [(typeof results)[0], (typeof results)[0]];
    expect(moved.version).toBe(before.version + 1);
    expect(moved.reason).toBe("vault.control_transferred");
    expect(JSON.parse(moved.body).control.controller.org_id).toBe(buyer.orgId);
    // the move issued the version without its PDF; the JSON names the buyer at once
    expect(await env.DOCS.get(moved.pdf_key)).toBeNull();
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: seller.key })).body.data.control.controller.org_id).toBe(buyer.orgId);

    const url = (await certificateUrl(seller.key, e.envelope_id)).body.data.signed_url as string;
    const first = await download(url);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/pdf");
    const text = (await pageTexts(first.bytes)).join("\n");
    expect(text).toContain(`(${buyer.orgId})`);
    expect(text).toContain("Transfers of control: 1");
    // rendered once: stored under the version's own key, and that is what the next download serves
    const stored = new Uint8Array(await (await env.DOCS.get(moved.pdf_key))!.arrayBuffer());
    expect(first.bytes).toEqual(stored);
    expect((await download(url)).bytes).toEqual(stored);
    expect(stored).not.toEqual(new Uint8Array(await (await env.DOCS.get(before.pdf_key))!.arrayBuffer()));
  });

  it("takes the same `expires` as the other vault URLs (60 to 86400)", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
    for (const q of ["59", "86401", "abc"]) expect((await certificateUrl(t.key, e.envelope_id, `?expires=${q}`)).status, q).toBe(400);
    expect((await certificateUrl(t.key, e.envelope_id)).body.data.expires_in).toBe(300);
  });

  it("needs compliance:read (403 for a vault-only key), and is not served to another organization (404)", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
    const vaultOnly = await newKey(t.orgId, ["vault:read", "vault:write", "envelopes:read"]);
    expect((await certificateUrl(vaultOnly.key, e.envelope_id)).status).toBe(403);
    const compliance = await newKey(t.orgId, ["compliance:read"]);
    expect((await certificateUrl(compliance.key, e.envelope_id)).status).toBe(200);
    const other = await newTenant();
    expect((await certificateUrl(other.key, e.envelope_id)).status).toBe(404);
  });
});
