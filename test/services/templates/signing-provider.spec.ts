import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { signingProvider, viaProvider } from "../../../src/providers/signing";
import { SigningProviderError } from "../../../src/providers/signing/interface";

describe("signing provider", () => {
  it("maps provider failures to the spec's statuses: not configured 503, rejected or unreadable 502", async () => {
    for (const [kind, status] of [["not_configured", 503], ["rejected", 502], ["unavailable", 502]] as const) {
      const err = await viaProvider("the template could not be created", () => Promise.reject(new SigningProviderError(kind, "because"))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(status);
    }
    const other = await viaProvider("x", () => Promise.reject(new Error("bug"))).catch((e: unknown) => e);
    expect(other).not.toBeInstanceOf(ApiError); // a bug stays a 500
  });

  it("built-in: assigns increasing integer ids, stores fields, and copies into the cloud instance", async () => {
    const provider = signingProvider(env);
    const a = await provider.createTemplate({ instance: "default", orgId: "org_x", templateId: "tmpl_a", name: "A", documentKey: null, pageCount: null });
    const b = await provider.createTemplate({ instance: "default", orgId: "org_x", templateId: "tmpl_b", name: "B", documentKey: null, pageCount: null });
    expect(Number.isInteger(a.providerTemplateId)).toBe(true);
    expect(b.providerTemplateId).toBeGreaterThan(a.providerTemplateId);
    const field = { name: "s", type: "signature" as const, role: "buyer", required: true, readonly: false, default_value: null, options: null, placement_mode: "absolute" as const, areas: [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }] };
    await provider.setTemplateFields({ instance: "default", providerTemplateId: a.providerTemplateId, templateId: "tmpl_a", fields: [field] });
    const copy = await provider.copyTemplate({ from: "default", providerTemplateId: a.providerTemplateId, to: "cloud", templateId: "tmpl_a" });
    const row = await env.DB.prepare("SELECT instance, fields, copied_from FROM signing_provider_templates WHERE id = ?").bind(copy.providerTemplateId).first<{ fields: string }>();
    expect(row).toMatchObject({ instance: "cloud", copied_from: a.providerTemplateId });
    expect(JSON.parse(row!.fields)).toEqual([field]);
    await expect(provider.setTemplateFields({ instance: "cloud", providerTemplateId: a.providerTemplateId, templateId: "tmpl_a", fields: [] })).rejects.toMatchObject({ kind: "rejected" });
    await expect(provider.copyTemplate({ from: "cloud", providerTemplateId: 999_999, to: "default" })).rejects.toMatchObject({ kind: "unavailable" });
  });
});
