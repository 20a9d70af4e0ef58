import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { app } from "../../src/app";
import type { Env } from "../../src/env";
import { retryEmails } from "../../src/jobs/retry-emails";
import { openOutboxEmail } from "../../src/services/email/outbox";
import { newTenant } from "../helpers/api";
import { jobContextOf } from "../helpers/context";
import { invitationSlug, outboxOf, sendableEnvelope, type OutboxEmailRow } from "../helpers/signing";
import { signing } from "../helpers/signing-flow";
import { orgShardDb, settleEarlierEmails } from "../helpers/shards";

// the retry job below takes the oldest due emails of the database: the earlier specs' go first otherwise
beforeAll(settleEarlierEmails);

/**
 * An invitation's link carries the signer's permanent slug: whoever holds it signs. The email outbox
 * keeps every email until it is delivered and after, so a read of its rows must give no usable link,
 * while the email itself, as Postmark receives it, carries one that works.
 */
const TOKEN = "test-postmark-server-token"; // what test/global/postmark-stand-in.mjs accepts
const standIn = (behaviour: string) => `http://127.0.0.1:${inject("postmarkPort")}/${behaviour}/${crypto.randomUUID()}`;
const postmarkEnv = (base: string, overrides: Partial<Env> = {}): Env => ({
  ...env,
  EMAIL_TRANSPORT: "postmark",
  POSTMARK_SERVER_TOKEN: TOKEN,
  EMAIL_FROM: "sign@example.com",
  POSTMARK_API_BASE: base,
  ...overrides,
});

/**
 * What the stand-in received at `base`, of the email `emailId` only: a retry run takes every due email of
 * the database, so other tests' failed emails may go out through this test's transport too.
 */
async function received(base: string, emailId: string): Promise<{ body: { TextBody: string; HtmlBody: string; Metadata: { email_id: string } } }[]> {
  const res = await fetch(`http://127.0.0.1:${inject("postmarkPort")}/_records?base=${encodeURIComponent(new URL(base).pathname)}`);
  return ((await res.json()) as any[]).filter((r) => r.body.Metadata.email_id === emailId);
}

/** POST …/send as a deployment configured with `sendEnv` answers it. */
async function sendWith(sendEnv: Env) {
  const t = await newTenant();
  const e = await sendableEnvelope(t.key, ["buyer"], { customer_email: "jane@example.com" });
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`http://localhost/api/v2/partner/envelopes/${e.envelope_id}/send`, { method: "POST", headers: { "X-API-Key": t.key, "Content-Type": "application/json" }, body: "{}" }),
    sendEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(res.status, await res.clone().text()).toBe(200);
  return e.envelope_id as string;
}

type Row = OutboxEmailRow & { error: string | null; attempts: number; next_attempt_at: string | null };
const rowOf = async (envelopeId: string) => (await outboxOf(envelopeId))[0] as Row;

/**
 * Whatever in a row could pass for a credential: every column's value, and every path segment after
 * a `/s/` in any of them. None may open the signer API.
 */
function credentialCandidates(row: OutboxEmailRow): string[] {
  const values = Object.values(row).filter((v): v is string => typeof v === "string");
  const segments = values.flatMap((v) => [...v.matchAll(/\/s\/([^\s"'<>/]+)/g)].map((m) => decodeURIComponent(m[1]!)));
  return [...new Set([...values, ...segments])].filter((v) => v.length > 0);
}

async function expectNoSigningPower(row: OutboxEmailRow, slug: string) {
  expect(JSON.stringify(row)).not.toContain(slug);
  for (const candidate of credentialCandidates(row)) {
    const res = await signing("GET", encodeURIComponent(candidate));
    // 404 for anything in the credential's shape (the sealed link is), 400 for what is not even that
    expect([400, 404], `${candidate}: ${res.status}`).toContain(res.status);
  }
}

/** The link in a delivered message, checked to be the same in its text and its HTML. */
function deliveredLink(message: { TextBody: string; HtmlBody: string }): string {
  const link = /Review and sign: (\S+)/.exec(message.TextBody)![1]!;
  expect(message.HtmlBody).toContain(`href="${link}"`);
  return link;
}
const slugOf = (link: string) => new URL(link).pathname.split("/").pop()!;

describe("the email outbox holds no usable signing link", () => {
  it("a queued invitation's row shows the link withheld, and nothing in it opens the signer API", async () => {
    const envelopeId = await sendWith({ ...env, EMAIL_TRANSPORT: "outbox" });
    const row = await rowOf(envelopeId);
    expect(row.status).toBe("queued");
    expect(row.link_url).toBe(`${env.EMBED_HOST}/s/[slug]`);
    expect(row.text).toContain(`Review and sign: ${env.EMBED_HOST}/s/[slug]`);
    expect(row.html).toContain(`href="${env.EMBED_HOST}/s/[slug]"`);
    // the sealed link is in a credential's shape, and is none
    expect(row.link_sealed).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
    expect((await signing("GET", row.link_sealed!)).status).toBe(404);
    // the transport's way in: the sealed link, opened, is the signer's working permanent link
    const slug = await invitationSlug(envelopeId, "jane@example.com");
    expect((await signing("GET", slug)).status).toBe(200);
    await expectNoSigningPower(row, slug);
  });

  it("the seal opens only for its own row and under the secret that sealed it", async () => {
    const row = await rowOf(await sendWith({ ...env, EMAIL_TRANSPORT: "outbox" }));
    const other = await rowOf(await sendWith({ ...env, EMAIL_TRANSPORT: "outbox" }));
    expect(await openOutboxEmail(env, { ...other, link_sealed: row.link_sealed })).toBeNull();
    expect(await openOutboxEmail({ ...env, EMBED_TOKEN_SECRET: "another-embed-secret-0123456789abcdef" }, row)).toBeNull();
    expect((await openOutboxEmail(env, row))!.linkUrl).toMatch(new RegExp(`^${env.EMBED_HOST}/s/(?:[1-9][0-9]{0,3}_)?[0-9a-z]{26}$`));
  });
});

describe("the email as delivered carries a working link; the row is scrubbed after", () => {
  it("Postmark receives the permanent link, and once sent the row no longer holds it, sealed or not", async () => {
    const base = standIn("ok");
    const envelopeId = await sendWith(postmarkEnv(base));
    const [message, ...more] = await received(base, (await rowOf(envelopeId)).id);
    expect(more).toEqual([]);
    const link = deliveredLink(message!.body);
    expect(link).toMatch(new RegExp(`^${env.EMBED_HOST}/s/(?:[1-9][0-9]{0,3}_)?[0-9a-z]{26}$`));
    const page = await signing("GET", slugOf(link));
    expect(page.status).toBe(200);
    expect(page.body.data.signer.email).toBe("jane@example.com");

    const row = await rowOf(envelopeId);
    expect(row).toMatchObject({ status: "sent", link_sealed: null, link_url: `${env.EMBED_HOST}/s/[slug]` });
    await expectNoSigningPower(row, slugOf(link));
    // not even the key gives the link back now
    expect(await openOutboxEmail(env, row)).toEqual({ text: row.text, html: row.html, linkUrl: `${env.EMBED_HOST}/s/[slug]` });
  });

  it("a failed attempt keeps the link sealed for the retry, which delivers the same working link, then scrubs it", async () => {
    const base = standIn("fail-first/1");
    const sendEnv = postmarkEnv(base);
    const envelopeId = await sendWith(sendEnv);
    const failed = await rowOf(envelopeId);
    expect(failed).toMatchObject({ status: "failed", attempts: 1 });
    expect(failed.link_sealed).not.toBeNull();
    const slug = await invitationSlug(envelopeId, "jane@example.com");
    await expectNoSigningPower(failed, slug);

    await retryEmails(jobContextOf(envelopeId, sendEnv), new Date(Date.now() + 2 * 60_000));
    const [first, retried] = await received(base, failed.id);
    expect(retried!.body.Metadata.email_id).toBe(failed.id);
    expect(deliveredLink(retried!.body)).toBe(deliveredLink(first!.body));
    expect(slugOf(deliveredLink(retried!.body))).toBe(slug);
    expect((await signing("GET", slug)).status).toBe(200);
    expect(await rowOf(envelopeId)).toMatchObject({ status: "sent", attempts: 2, link_sealed: null });
  });

  it("a refusal for good drops the seal: that email will never go out", async () => {
    const envelopeId = await sendWith(postmarkEnv(standIn("invalid-email")));
    expect(await rowOf(envelopeId)).toMatchObject({ status: "failed", next_attempt_at: null, link_sealed: null, link_url: `${env.EMBED_HOST}/s/[slug]` });
  });

  it("after EMBED_TOKEN_SECRET changes, a retry sends no email without its link: the row fails for good, naming why", async () => {
    const base = standIn("fail-first/1");
    const envelopeId = await sendWith(postmarkEnv(base));
    const failed = await rowOf(envelopeId);
    await retryEmails(jobContextOf(envelopeId, postmarkEnv(base, { EMBED_TOKEN_SECRET: "rotated-embed-secret-0123456789abcdef" })), new Date(Date.now() + 2 * 60_000));
    expect(await received(base, failed.id)).toHaveLength(1);
    const row = await rowOf(envelopeId);
    expect(row).toMatchObject({ status: "failed", attempts: 1, next_attempt_at: null, link_sealed: null });
    expect(row.error).toMatch(/sealed link does not open \(EMBED_TOKEN_SECRET changed/);
  });
});

describe("rows written before links were sealed", () => {
  it("the migration scrubs the permanent link from delivered ones and leaves the ones still to go out", async () => {
    const t = await newTenant();
    const shard = await orgShardDb(t.orgId); // an organization's emails are on its shard, and the migration runs on each
    const legacy = (status: string, nextAttemptAt: string | null) => {
      const slug = crypto.randomUUID().replaceAll("-", "").slice(0, 26);
      const url = `${env.EMBED_HOST}/s/${slug}`;
      const id = `email_legacy_${crypto.randomUUID()}`;
      return {
        id,
        slug,
        insert: shard.prepare(
          `INSERT INTO email_outbox (id, org_id, envelope_id, signer_id, kind, to_email, to_name, subject, text, html, link_url, status, created_at, attempts, next_attempt_at)
           VALUES (?, ?, NULL, ?, 'invitation', 'old@example.com', 'Old', 'Sign', ?, ?, ?, ?, ?, 1, ?)`,
        ).bind(id, t.orgId, `sgn_${id}`, `Review and sign: ${url}\n`, `<a href="${url}">Review and sign</a>`, url, status, new Date().toISOString(), nextAttemptAt),
      };
    };
    const sent = legacy("sent", null);
    const refused = legacy("failed", null);
    const retrying = legacy("failed", new Date(Date.now() + 60_000).toISOString());
    await shard.batch([sent.insert, refused.insert, retrying.insert]);

    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0016_"))!;
    const scrub = migration.queries.filter((q) => q.includes("UPDATE `email_outbox`"));
    expect(scrub).toHaveLength(1);
    await shard.prepare(scrub[0]!).run();

    const byId = async (id: string) => (await shard.prepare("SELECT * FROM email_outbox WHERE id = ?").bind(id).first<OutboxEmailRow>())!;
    for (const done of [sent, refused]) {
      const row = await byId(done.id);
      expect(JSON.stringify(row)).not.toContain(done.slug);
      expect(row).toMatchObject({ link_url: `${env.EMBED_HOST}/s/[slug]`, text: `Review and sign: ${env.EMBED_HOST}/s/[slug]\n`, html: `<a href="${env.EMBED_HOST}/s/[slug]">Review and sign</a>` });
    }
    // still due: it goes out as stored, link and all
    expect((await byId(retrying.id)).link_url).toBe(`${env.EMBED_HOST}/s/${retrying.slug}`);
    expect((await openOutboxEmail(env, await byId(retrying.id)))!.text).toContain(retrying.slug);
  });
});
