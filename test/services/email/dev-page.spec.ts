import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { newTenant } from "../../helpers/api";
import { invitationSlug, sendableEnvelope, sendEnvelope } from "../../helpers/signing";

async function devPage(devPages: string | undefined) {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request("http://localhost/dev/emails"), { ...env, DEV_PAGES: devPages }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("GET /dev/emails (dev-only outbox page)", () => {
  it("is an ordinary 404 unless DEV_PAGES is exactly true", async () => {
    const res = await SELF.fetch("http://localhost/dev/emails");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "No route for GET /dev/emails", code: "not_found" });
    for (const value of [undefined, "false", "1", "TRUE"]) expect((await devPage(value)).status, String(value)).toBe(404);
  });

  it("lists the outbox newest first, each email with its text and its signing link, escaped", async () => {
    const t = await newTenant();
    const first = await sendableEnvelope(t.key, ["buyer"], { envelope_name: "First <script>alert(1)</script>", customer_email: "first@example.com" });
    expect((await sendEnvelope(t.key, first.envelope_id)).status).toBe(200);
    const second = await sendableEnvelope(t.key, ["buyer"], { envelope_name: "Second contract", customer_email: "second@example.com" });
    expect((await sendEnvelope(t.key, second.envelope_id)).status).toBe(200);
    // the invitations' permanent links: sealed in the outbox, opened for this page only
    const firstLink = `${env.EMBED_HOST}/s/${await invitationSlug(first.envelope_id, "first@example.com")}`;
    const secondLink = `${env.EMBED_HOST}/s/${await invitationSlug(second.envelope_id, "second@example.com")}`;

    const res = await devPage("true");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const html = await res.text();
    expect(html).toContain(`<a href="${secondLink}">${secondLink}</a>`);
    expect(html).toContain(`<a href="${firstLink}">${firstLink}</a>`);
    expect(html.indexOf(secondLink)).toBeLessThan(html.indexOf(firstLink));
    expect(html).toContain("Review and sign: " + secondLink);
    expect(html).toContain("second@example.com");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("First &#60;script&#62;alert(1)&#60;/script&#62;");
  });
});
