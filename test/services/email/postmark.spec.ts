import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { app } from "../../../src/app";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { retryEmails } from "../../../src/jobs/retry-emails";
import { emailTransport } from "../../../src/providers/email";
import { NotConfiguredTransport } from "../../../src/providers/email/not-configured";
import { mailbox, PostmarkTransport } from "../../../src/providers/email/postmark";
import { call, newTenant } from "../../helpers/api";
import { outboxOf, sendableEnvelope } from "../../helpers/signing";
import { jobContextOf } from "../../helpers/context";
import { interceptDb } from "../../helpers/db-proxy";
import { shardDbOf, settleEarlierEmails, withEveryDb } from "../../helpers/shards";

// the retry job below takes the oldest due emails of the database: the earlier specs' go first otherwise
beforeAll(settleEarlierEmails);

const TOKEN = "test-postmark-server-token"; // what test/global/postmark-stand-in.mjs accepts
const FROM = '"Dealer Finance" <sign@example.com>';

type Received = { method: string; path: string; headers: Record<string, string>; body: Record<string, any> };
type Row = { id: string; status: string; error: string | null; attempts: number; next_attempt_at: string | null; sent_at: string | null; to_email: string; text: string; html: string; subject: string; link_url: string };

/** A fresh base on the stand-in: its behaviour and a path no other test uses. */
const standIn = (behaviour: string) => `http://127.0.0.1:${inject("postmarkPort")}/${behaviour}/${crypto.randomUUID()}`;

async function received(base: string): Promise<Received[]> {
  const res = await fetch(`http://127.0.0.1:${inject("postmarkPort")}/_records?base=${encodeURIComponent(new URL(base).pathname)}`);
  return (await res.json()) as Received[];
}

/** What reached `base` of the email `emailId` only: a retry or cron run takes every due email of the database, other tests' too. */
async function receivedOf(base: string, emailId: string): Promise<Received[]> {
  return (await received(base)).filter((r) => r.body.Metadata.email_id === emailId);
}

/** The default, pinned: a developer's .dev.vars must not change what these tests see. */
const outboxEnv: Env = { ...env, EMAIL_TRANSPORT: "outbox" };

function postmarkEnv(base: string, overrides: Partial<Env> = {}): Env {
  return { ...env, EMAIL_TRANSPORT: "postmark", POSTMARK_SERVER_TOKEN: TOKEN, EMAIL_FROM: FROM, POSTMARK_API_BASE: base, ...overrides };
}

/** POST …/send through the app with `sendEnv`, the way a deployment configured so would answer. */
async function sendWith(sendEnv: Env, roles: string[] = ["buyer"], signers?: { role: string; email: string; name: string }[]) {
  const t = await newTenant({ name: "Acme Motors" });
  const e = await sendableEnvelope(t.key, roles);
  const ctx = createExecutionContext();
  const started = Date.now();
  const res = await app.fetch(
    new Request(`http://localhost/api/v2/partner/envelopes/${e.envelope_id}/send`, {
      method: "POST",
      headers: { "X-API-Key": t.key, "Content-Type": "application/json" },
      body: JSON.stringify(signers ? { signers } : {}),
    }),
    sendEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as any;
  const rows = (await outboxOf(e.envelope_id)) as unknown as Row[];
  return { status: res.status, body, started, ms: Date.now() - started, envelopeId: e.envelope_id as string, rows, key: t.key };
}

const rowsOf = async (envelopeId: string) => (await outboxOf(envelopeId)) as unknown as Row[];
const minutes = (n: number) => n * 60_000;
const later = (ms: number) => new Date(Date.now() + ms);

describe("invitations through Postmark (EMAIL_TRANSPORT=postmark)", () => {
  it("records a delivered email as sent even when the database fails once at that moment, so the retry job never sends it again", async () => {
    // found by the soak under injected D1 errors: a delivered invitation whose `sent` could not be written went out twice
    const base = standIn("ok");
    let failures = 0;
    const flaky = withEveryDb(postmarkEnv(base), (db) =>
      interceptDb(db, (sql) => {
        if (failures === 0 && sql.startsWith("UPDATE email_outbox SET status = 'sent'")) {
          failures += 1;
          throw new Error("D1_ERROR: simulated failure");
        }
      }),
    );
    const sent = await sendWith(flaky);
    expect(sent.status).toBe(200);
    expect(failures).toBe(1);
    const [row] = sent.rows;
    expect(row).toMatchObject({ status: "sent", attempts: 1 });
    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(60)));
    expect(await receivedOf(base, row!.id)).toHaveLength(1);
  });

  it("delivers the invitation in Postmark's wire format and marks the row sent", async () => {
    const base = standIn("ok");
    const sent = await sendWith(postmarkEnv(base), ["buyer"], [{ role: "buyer", email: "jane@example.com", name: 'Jane "JJ" Doe, Jr.' }]);
    expect(sent.status).toBe(200);
    const [row] = sent.rows;
    expect(row).toMatchObject({ status: "sent", attempts: 1, error: null, next_attempt_at: null });
    expect(row!.sent_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const [request, ...more] = await received(base);
    expect(more).toEqual([]);
    expect(request!.method).toBe("POST");
    expect(request!.path).toBe(`${new URL(base).pathname}/email`);
    expect(request!.headers).toMatchObject({ accept: "application/json", "content-type": "application/json", "x-postmark-server-token": TOKEN });
    // the email carries the permanent link; the row shows it withheld (test/hardening/email-links-at-rest.spec.ts)
    const link = /Review and sign: (\S+)/.exec(request!.body.TextBody)![1]!;
    expect(link).toMatch(new RegExp(`^${env.EMBED_HOST}/s/[A-Za-z0-9_-]{16,}$`));
    expect(row!.link_url).toBe(`${env.EMBED_HOST}/s/[slug]`);
    expect(request!.body).toEqual({
      From: FROM,
      To: '"Jane \\"JJ\\" Doe, Jr." <jane@example.com>',
      Subject: row!.subject,
      TextBody: row!.text.replaceAll(row!.link_url, link),
      HtmlBody: row!.html.replaceAll(row!.link_url, link),
      MessageStream: "outbound",
      Tag: "invitation",
      Metadata: { email_id: row!.id },
    });
    expect(row!.subject).toMatch(/^Acme Motors sent you ".+" to sign$/);
    expect(request!.body.TextBody).toContain(link);
    expect(request!.body.HtmlBody).toContain(`href="${link}"`);
  });

  it("uses the configured message stream", async () => {
    const base = standIn("ok");
    await sendWith(postmarkEnv(base, { POSTMARK_MESSAGE_STREAM: "invitations" }));
    expect((await received(base))[0]!.body.MessageStream).toBe("invitations");
  });

  it("quotes the display name so a signer's name cannot add a recipient or break the header", () => {
    expect(mailbox("Jane Doe", "jane@example.com")).toBe('"Jane Doe" <jane@example.com>');
    expect(mailbox('Eve", <evil@example.com>', "eve@example.com")).toBe('"Eve\\", <evil@example.com>" <eve@example.com>');
    expect(mailbox("back\\slash\r\nBcc: x@example.com", "b@example.com")).toBe('"back\\\\slash Bcc: x@example.com" <b@example.com>');
    expect(mailbox("  ", "n@example.com")).toBe("n@example.com");
  });

  it("a permanent refusal (ErrorCode 300) fails the row with Postmark's reason and is never retried", async () => {
    const base = standIn("invalid-email");
    const sent = await sendWith(postmarkEnv(base));
    expect(sent.status).toBe(200);
    const [row] = sent.rows;
    expect(row).toMatchObject({ status: "failed", attempts: 1, next_attempt_at: null });
    expect(row!.error).toMatch(/^Postmark refused the email \(HTTP 422, ErrorCode 300\): Invalid 'To' address/);
    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(60)));
    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(600)));
    expect(await receivedOf(base, row!.id)).toHaveLength(1);
    expect((await rowsOf(sent.envelopeId))[0]).toMatchObject({ status: "failed", attempts: 1 });
  });

  it("an inactive recipient (ErrorCode 406) is permanent too", async () => {
    const base = standIn("inactive");
    const [row] = (await sendWith(postmarkEnv(base))).rows;
    expect(row).toMatchObject({ status: "failed", attempts: 1, next_attempt_at: null });
    expect(row!.error).toContain("ErrorCode 406");
  });

  it("a 500 fails the row for a retry, and the every-minute cron delivers it", async () => {
    const base = standIn("fail-first/1");
    const sendEnv = postmarkEnv(base);
    const sent = await sendWith(sendEnv);
    expect(sent.status).toBe(200);
    const [failed] = sent.rows;
    expect(failed).toMatchObject({ status: "failed", attempts: 1, error: "Postmark answered HTTP 500: <html><body>Internal Server Error</body></html>" });
    // a minute after the attempt, which happened between the send's start and now (measured from both ends:
    // a loaded machine may take seconds between the attempt and this line)
    const next = Date.parse(failed!.next_attempt_at!);
    expect(next - sent.started).toBeGreaterThan(minutes(1) - 5_000);
    expect(next - Date.now()).toBeLessThanOrEqual(minutes(1));

    // not yet due: the cron leaves it
    const early = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), sendEnv, early);
    await waitOnExecutionContext(early);
    expect(await receivedOf(base, failed!.id)).toHaveLength(1);

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: later(minutes(2)).getTime(), cron: "* * * * *" }), sendEnv, ctx);
    await waitOnExecutionContext(ctx);
    const mine = await receivedOf(base, failed!.id);
    expect(mine).toHaveLength(2);
    expect((await rowsOf(sent.envelopeId))[0]).toMatchObject({ status: "sent", attempts: 2, error: null, next_attempt_at: null });
  });

  it("backs off 1 m, 5 m, 30 m, 2 h and gives up after 5 attempts", async () => {
    const base = standIn("fail");
    const sendEnv = postmarkEnv(base);
    const sent = await sendWith(sendEnv);
    const id = sent.rows[0]!.id;
    const row = async () => (await rowsOf(sent.envelopeId))[0]!;
    let at = Date.now();
    const gaps: number[] = [];
    for (let attempt = 2; attempt <= 5; attempt++) {
      const before = await row();
      const next = Date.parse(before.next_attempt_at!);
      gaps.push(Math.round((next - at) / 60_000));
      await retryEmails(jobContextOf(sent.envelopeId, sendEnv), new Date(next - 1_000)); // a second early: not due
      expect((await row()).attempts).toBe(attempt - 1);
      at = next;
      await retryEmails(jobContextOf(sent.envelopeId, sendEnv), new Date(next));
      expect(await row()).toMatchObject({ status: "failed", attempts: attempt });
    }
    expect(gaps).toEqual([1, 5, 30, 120]);
    expect(await row()).toMatchObject({ status: "failed", attempts: 5, next_attempt_at: null });
    expect((await row()).error).toMatch(/^Postmark answered HTTP 500: <html>/);
    expect((await row()).error!.length).toBeLessThanOrEqual(500);
    await retryEmails(jobContextOf(sent.envelopeId, sendEnv), later(minutes(60 * 24)));
    expect(await receivedOf(base, id)).toHaveLength(5);
  });

  it("a wrong token (401) is a failure retried with backoff", async () => {
    const base = standIn("ok");
    const sent = await sendWith(postmarkEnv(base, { POSTMARK_SERVER_TOKEN: "wrong-token" }));
    const [row] = sent.rows;
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row!.error).toContain("HTTP 401, ErrorCode 10");
    expect(row!.next_attempt_at).not.toBeNull();
    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(2)));
    expect((await rowsOf(sent.envelopeId))[0]).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("a provider that never answers fails the email within the timeout, and the send still succeeds", async () => {
    const base = standIn("hang");
    const sent = await sendWith(postmarkEnv(base));
    expect(sent.status).toBe(200);
    expect(sent.body.data.status).toBe("sent");
    // the stand-in holds the answer for a minute: the 5 s timeout (named in the error) ends the wait, with
    // room for the rest of the send on a loaded machine
    expect(sent.ms).toBeLessThan(15_000);
    expect(sent.rows[0]).toMatchObject({ status: "failed", attempts: 1, error: "Postmark did not answer within 5 s" });
    expect(sent.rows[0]!.next_attempt_at).not.toBeNull();
  }, 120_000);

  it("a connection closed without an answer fails the email for a retry", async () => {
    const outcome = await new PostmarkTransport({ token: TOKEN, from: FROM, messageStream: "outbound", apiBase: standIn("close") }).deliver({
      id: "eml_x",
      kind: "invitation",
      to: { email: "x@example.com", name: "X" },
      subject: "s",
      text: "t",
      html: "h",
    });
    expect(outcome).toMatchObject({ status: "failed", error: expect.stringMatching(/^Postmark unreachable/) });
    expect("retry" in outcome && outcome.retry).toBeFalsy();
  });

  it("a send whose sender died before delivery is delivered by the cron once the row is 5 minutes old", async () => {
    const base = standIn("ok");
    // queued under the outbox-only default, i.e. committed but never handed to Postmark
    const sent = await sendWith(outboxEnv);
    expect(sent.rows[0]).toMatchObject({ status: "queued", attempts: 0 });
    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(1)));
    expect((await rowsOf(sent.envelopeId))[0]!.status).toBe("queued"); // may still be in its sender's hands
    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(6)));
    expect((await rowsOf(sent.envelopeId))[0]).toMatchObject({ status: "sent", attempts: 1 });
    expect(await receivedOf(base, sent.rows[0]!.id)).toHaveLength(1);
  });
});

describe("what the retry cron leaves alone", () => {
  it("an invitation whose envelope was voided meanwhile is not sent again", async () => {
    const base = standIn("fail");
    const sent = await sendWith(postmarkEnv(base));
    expect(sent.rows[0]).toMatchObject({ status: "failed", attempts: 1 });
    expect((await call("POST", `/partner/envelopes/${sent.envelopeId}/void`, { key: sent.key, body: { reason: "deal fell through" } })).status).toBe(200);
    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(2)));
    expect((await rowsOf(sent.envelopeId))[0]).toMatchObject({ status: "failed", attempts: 1, error: "Not sent: the envelope is voided", next_attempt_at: null });
    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(60)));
    // (other tests' rows still due on the same shard go to this run's base too: count this invitation's)
    expect(await receivedOf(base, sent.rows[0]!.id)).toHaveLength(1);
  });

  it("switching to postmark does not mail the backlog queued under the outbox-only transport", async () => {
    const base = standIn("ok");
    const old = await sendWith(outboxEnv);
    await shardDbOf(old.envelopeId).prepare("UPDATE email_outbox SET created_at = ? WHERE envelope_id = ?").bind(new Date(Date.now() - minutes(60 * 25)).toISOString(), old.envelopeId).run();
    await retryEmails(jobContextOf(old.envelopeId, postmarkEnv(base)), new Date());
    expect((await rowsOf(old.envelopeId))[0]).toMatchObject({ status: "queued", attempts: 0 });
    expect(await receivedOf(base, old.rows[0]!.id)).toEqual([]);
  });
});

describe("email transport configuration", () => {
  it("outbox-only is the default, and its cron does nothing: rows stay queued", async () => {
    expect(emailTransport({ ...env, EMAIL_TRANSPORT: undefined }).constructor.name).toBe("OutboxOnlyTransport");
    expect(emailTransport({ ...env, EMAIL_TRANSPORT: "outbox" }).constructor.name).toBe("OutboxOnlyTransport");
    const sent = await sendWith(outboxEnv);
    expect(await retryEmails(jobContextOf(sent.envelopeId, outboxEnv), later(minutes(60)))).toEqual({ retried: 0 });
    expect((await rowsOf(sent.envelopeId))[0]).toMatchObject({ status: "queued", attempts: 0, next_attempt_at: null });
  });

  it("postmark without its token or sender: the send succeeds, the email is held as failed naming the variable, and goes out once configured", async () => {
    const base = standIn("ok");
    const broken = postmarkEnv(base, { POSTMARK_SERVER_TOKEN: undefined, EMAIL_FROM: "" });
    expect(emailTransport(broken)).toBeInstanceOf(NotConfiguredTransport);
    const sent = await sendWith(broken);
    expect(sent.status).toBe(200);
    expect(sent.rows[0]).toMatchObject({
      status: "failed",
      attempts: 0,
      error: "Email not configured: EMAIL_TRANSPORT is postmark but POSTMARK_SERVER_TOKEN and EMAIL_FROM are not set",
    });
    // the cron sends nothing and fails loudly while the variable is missing; the email keeps its attempts
    await expect(retryEmails(jobContextOf(sent.envelopeId, broken), later(minutes(5)))).rejects.toThrow("POSTMARK_SERVER_TOKEN and EMAIL_FROM are not set");
    const ctx = createExecutionContext();
    await expect(worker.scheduled(createScheduledController({ scheduledTime: later(minutes(5)).getTime(), cron: "* * * * *" }), broken, ctx)).rejects.toThrow(
      /retry-emails: Error: Email not configured/,
    );
    await waitOnExecutionContext(ctx);
    expect(await receivedOf(base, sent.rows[0]!.id)).toEqual([]);
    expect((await rowsOf(sent.envelopeId))[0]).toMatchObject({ status: "failed", attempts: 0 });

    await retryEmails(jobContextOf(sent.envelopeId, postmarkEnv(base)), later(minutes(6)));
    expect((await rowsOf(sent.envelopeId))[0]).toMatchObject({ status: "sent", attempts: 1, error: null });
  });

  it("an unknown EMAIL_TRANSPORT is a misconfiguration, never a silent outbox", async () => {
    const transport = emailTransport({ ...env, EMAIL_TRANSPORT: "sendgrid" });
    expect(await transport.deliver({ id: "eml_x", kind: "invitation", to: { email: "x@example.com", name: "X" }, subject: "s", text: "t", html: "h" })).toEqual({
      status: "failed",
      error: 'Email not configured: EMAIL_TRANSPORT is "sendgrid"; expected outbox or postmark',
      retry: "when_configured",
    });
  });
});
