import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { emailTransport, type EmailTransport, type OutboxEmail } from "../../../src/providers/email";
import { OutboxOnlyTransport } from "../../../src/providers/email/outbox-only";
import { deliverEmails } from "../../../src/services/email/deliver";
import { queueEmail } from "../../../src/services/email/outbox";
import { newTenant } from "../../helpers/api";
import { jobContextOnOrg } from "../../helpers/context";
import { allShardDbs, orgShardDb } from "../../helpers/shards";

/** `n` emails queued on the organization's current shard (where its signers' emails are). */
async function queued(orgId: string, n: number): Promise<OutboxEmail[]> {
  const ctx = await jobContextOnOrg(orgId);
  const emails = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      queueEmail(ctx, {
        orgId,
        envelopeId: null,
        signerId: `sgn_test_${crypto.randomUUID()}`,
        kind: "invitation",
        to: { email: `s${i}@example.com`, name: `Signer ${i}` },
        subject: `Subject ${i}`,
        text: "text",
        html: "<p>html</p>",
        linkUrl: null,
        at: new Date().toISOString(),
      }),
    ),
  );
  await ctx.db.batch(emails.map((e) => e.statement));
  return emails.map((e) => e.email);
}

/** The outbox row `id`, on whichever shard holds it. */
async function rowOf(id: string) {
  for (const db of allShardDbs()) {
    const row = await db.prepare("SELECT status, sent_at, error FROM email_outbox WHERE id = ?").bind(id).first<{ status: string; sent_at: string | null; error: string | null }>();
    if (row) return row;
  }
  return null;
}

describe("email delivery through the transport", () => {
  it("the default transport is outbox-only: every email stays queued", async () => {
    const t = await newTenant();
    expect(emailTransport(env)).toBeInstanceOf(OutboxOnlyTransport);
    const [email] = await queued(t.orgId, 1);
    expect(await deliverEmails(await jobContextOnOrg(t.orgId), { emails: [email!] })).toEqual([{ status: "queued" }]);
    expect(await rowOf(email!.id)).toEqual({ status: "queued", sent_at: null, error: null });
  });

  it("records what a transport did with each email: sent, refused, or thrown", async () => {
    const t = await newTenant();
    const [ok, refused, broken] = await queued(t.orgId, 3);
    const seen: OutboxEmail[] = [];
    const transport: EmailTransport = {
      async deliver(email) {
        seen.push(email);
        if (email.id === refused!.id) return { status: "failed", error: "mailbox unavailable" };
        if (email.id === broken!.id) throw new Error("connection reset");
        return { status: "sent" };
      },
    };
    const outcomes = await deliverEmails(await jobContextOnOrg(t.orgId), { emails: [ok!, refused!, broken!], transport });
    expect(outcomes.map((o) => o.status)).toEqual(["sent", "failed", "failed"]);
    expect(seen.map((e) => e.to.email)).toEqual(["s0@example.com", "s1@example.com", "s2@example.com"]);
    expect(await rowOf(ok!.id)).toMatchObject({ status: "sent", error: null });
    expect((await rowOf(ok!.id))!.sent_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await rowOf(refused!.id)).toEqual({ status: "failed", sent_at: null, error: "mailbox unavailable" });
    expect(await rowOf(broken!.id)).toEqual({ status: "failed", sent_at: null, error: "connection reset" });
  });

  it("never overwrites an outcome already recorded", async () => {
    const t = await newTenant();
    const [email] = await queued(t.orgId, 1);
    await deliverEmails(await jobContextOnOrg(t.orgId), { emails: [email!], transport: { deliver: async () => ({ status: "sent" }) } });
    await deliverEmails(await jobContextOnOrg(t.orgId), { emails: [email!], transport: { deliver: async () => ({ status: "failed", error: "late" }) } });
    expect((await rowOf(email!.id))!.status).toBe("sent");
  });

  it("queues one email of a kind per signer", async () => {
    const t = await newTenant();
    const [email] = await queued(t.orgId, 1);
    const shard = await orgShardDb(t.orgId);
    const signer = await shard.prepare("SELECT signer_id FROM email_outbox WHERE id = ?").bind(email!.id).first<{ signer_id: string }>();
    const again = await queueEmail(await jobContextOnOrg(t.orgId), { orgId: t.orgId, envelopeId: null, signerId: signer!.signer_id, kind: "invitation", to: { email: "x@example.com", name: "X" }, subject: "s", text: "t", html: "h", linkUrl: null, at: new Date().toISOString() });
    const result = await again.statement.all();
    expect(result.results).toEqual([]);
    expect(await shard.prepare("SELECT COUNT(*) AS n FROM email_outbox WHERE signer_id = ?").bind(signer!.signer_id).first()).toEqual({ n: 1 });
  });
});
