import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { frameAncestorsFor } from "../../../src/services/embed/frame-ancestors";
import { call, newTenant, operator } from "../../helpers/api";
import { sentTwoSignerEnvelope } from "../../helpers/signing-flow";
import { jobContextOf } from "../../helpers/context";
import { signerIdOf } from "../../helpers/signing";

describe("PATCH /operator/orgs/:org_id", () => {
  it("updates name, Stripe account and fee, and answers the organization with its embed frame ancestors", async () => {
    const t = await newTenant();
    const res = await operator("PATCH", `/orgs/${t.orgId}`, { name: "Acme Auto Finance", stripe_account_id: "acct_123", platform_fee_bps: 150 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      org_id: t.orgId,
      name: "Acme Auto Finance",
      stripe_account_id: "acct_123",
      platform_fee_bps: 150,
      embed_frame_ancestors: [],
    });
  });

  it("sets embed_frame_ancestors normalized and de-duplicated, and null clears them", async () => {
    const t = await newTenant();
    const flow = await sentTwoSignerEnvelope(t.key);
    const res = await operator("PATCH", `/orgs/${t.orgId}`, {
      embed_frame_ancestors: ["https://Dealer.Example.com/", "https://dealer.example.com", "http://127.0.0.1:8788"],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.embed_frame_ancestors).toEqual(["https://dealer.example.com", "http://127.0.0.1:8788"]);
    expect(await frameAncestorsFor(jobContextOf(flow.envelopeId), { signerId: await signerIdOf(flow.buyer) })).toEqual(["https://dealer.example.com", "http://127.0.0.1:8788"]);
    const row = await env.DB.prepare("SELECT embed_frame_ancestors FROM organizations WHERE id = ?").bind(t.orgId).first<{ embed_frame_ancestors: string }>();
    expect(JSON.parse(row!.embed_frame_ancestors)).toEqual(["https://dealer.example.com", "http://127.0.0.1:8788"]);

    const untouched = await operator("PATCH", `/orgs/${t.orgId}`, { platform_fee_bps: 10 });
    expect(untouched.body.data.embed_frame_ancestors).toEqual(["https://dealer.example.com", "http://127.0.0.1:8788"]);

    const cleared = await operator("PATCH", `/orgs/${t.orgId}`, { embed_frame_ancestors: null });
    expect(cleared.body.data.embed_frame_ancestors).toEqual([]);
    expect(await frameAncestorsFor(jobContextOf(flow.envelopeId), { signerId: await signerIdOf(flow.buyer) })).toEqual([]);
  });

  it("refuses a bad origin with 422 at its index and changes nothing", async () => {
    const t = await newTenant();
    await operator("PATCH", `/orgs/${t.orgId}`, { embed_frame_ancestors: ["https://kept.example"] });
    const res = await operator("PATCH", `/orgs/${t.orgId}`, { embed_frame_ancestors: ["https://ok.example", "https://ok.example/path", "http://dealer.example"] });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { path: unknown[] }) => d.path)).toEqual([
      ["embed_frame_ancestors", 1],
      ["embed_frame_ancestors", 2],
    ]);
    const row = await env.DB.prepare("SELECT embed_frame_ancestors FROM organizations WHERE id = ?").bind(t.orgId).first<{ embed_frame_ancestors: string }>();
    expect(JSON.parse(row!.embed_frame_ancestors)).toEqual(["https://kept.example"]);
  });

  it("needs the operator token and a known organization", async () => {
    const t = await newTenant();
    expect((await call("PATCH", `/operator/orgs/${t.orgId}`, { body: { embed_frame_ancestors: [] } })).status).toBe(401);
    expect((await operator("PATCH", "/orgs/org_unknown", { embed_frame_ancestors: [] })).status).toBe(404);
  });
});
