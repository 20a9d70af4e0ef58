import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { attachTemplateDocument } from "../../src/services/templates/attach-template-document";
import { call, newTenant } from "../helpers/api";
import { orgContext } from "../helpers/context";
import { buildPdf, memberToken } from "../helpers/templates";
import { racedDb } from "../helpers/raced-db";
import type { GlobalDb } from "../../src/lib/shards";


const taggedPdf = async (tag: string) =>
  (await buildPdf([{ lines: [{ text: `Sign here {{${tag};type=signature;role=buyer}}`, x: 72, y: 700 }] }])).bytes;
const form = (bytes: Uint8Array) => ({ fields: {}, file: { filename: "t.pdf", contentType: "application/pdf", bytes } });

describe("two console uploads racing for one template's document", () => {
  it("the losing upload gets a 409 and leaves the winner's document, fields and audit trail as the winner made them", async () => {
    const t = await newTenant();
    const admin = await memberToken(t.orgId, "admin");
    const created = await call("POST", "/templates", { bearer: admin, body: { name: "Raced template" } });
    expect(created.status).toBe(201);
    const templateId = created.body.data.template_id as string;
    const [winnerPdf, loserPdf] = [await taggedPdf("winner_sig"), await taggedPdf("loser_sig")];

    const winnerCtx = orgContext(t.orgId);
    // The loser's database runs the winner's whole upload between the loser's check and its batch.
    const loserCtx = { ...orgContext(t.orgId) };
    let winner: Awaited<ReturnType<typeof attachTemplateDocument>> | undefined;
    loserCtx.global = racedDb(env.DB, async () => (winner = await attachTemplateDocument(winnerCtx, { templateId, form: form(winnerPdf) }))) as GlobalDb;
    loserCtx.env = { ...loserCtx.env, DB: loserCtx.global };

    await expect(attachTemplateDocument(loserCtx, { templateId, form: form(loserPdf) })).rejects.toMatchObject({ status: 409 });
    expect(winner).toBeDefined();

    const fields = await env.DB.prepare("SELECT name FROM template_fields WHERE template_id = ? ORDER BY seq").bind(templateId).all<{ name: string }>();
    expect(fields.results.map((f) => f.name)).toEqual(["winner_sig"]);
    const audit = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'template.document_attached'").bind(t.orgId).first<{ n: number }>();
    expect(audit!.n).toBe(1);

    const row = await env.DB.prepare("SELECT document_key, provider_template_id, provider_instance FROM templates WHERE id = ?").bind(templateId).first<{ document_key: string; provider_template_id: number; provider_instance: string }>();
    const provider = await env.DB.prepare("SELECT document_key, fields FROM signing_provider_templates WHERE id = ? AND instance = ?")
      .bind(row!.provider_template_id, row!.provider_instance)
      .first<{ document_key: string; fields: string }>();
    expect(provider!.document_key).toBe(row!.document_key);
    expect(await env.DOCS.head(row!.document_key)).not.toBeNull();
    expect(JSON.parse(provider!.fields).map((f: { name: string }) => f.name)).toEqual(["winner_sig"]);
  });
});
