import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/lib/crypto";
import { openOutboxEmail } from "../../../src/services/email/outbox";
import { signCopyUrl } from "../../../src/services/copies/copy-url";
import { call, newTenant } from "../../helpers/api";
import { outboxOf, sendableEnvelope, sendEnvelope, signerRows } from "../../helpers/signing";
import { placedText, signing, storedDocument } from "../../helpers/signing-flow";
import { expectIndependentCopy } from "../../helpers/copies";
import { vaultRecord } from "../../helpers/vault";
import { shardDbOf } from "../../helpers/shards";

const DAY_MS = 24 * 60 * 60 * 1000;
/** 30 days after completion, in the link's whole seconds. */
const copyUntil = (signedAt: string) => new Date(Math.floor((Date.parse(signedAt) + 30 * DAY_MS) / 1000) * 1000).toISOString();
const CC = [
  { name: "Dealer Desk", email: "contracts@dealer.example" },
  // the buyer's own address again: one email to it, the buyer's
  { name: "Ann (cc)", email: "ANN@example.com" },
];

/** A two-signer envelope (buyer then cosigner) with cc recipients, signed by both: completed. */
async function completedWithCc(key: string) {
  const e = await sendableEnvelope(key, ["buyer", "cosigner"], { cc: CC });
  const sent = await sendEnvelope(key, e.envelope_id, {
    signers: [
      { role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 },
      { role: "cosigner", email: "cole@example.com", name: "Cole Signer", routing_order: 2 },
    ],
  });
  if (sent.status !== 200) throw new Error(`send failed: ${JSON.stringify(sent.body)}`);
  const slug = (role: string) => sent.body.data.signers.find((s: { role: string }) => s.role === role).slug as string;
  const buyer = slug("buyer");
  const cosigner = slug("cosigner");
  expect((await signing("POST", buyer, "submit", { values: { buyer_signature: "Ann Buyer" } })).status).toBe(200);
  // before completion: no copy anywhere
  expect((await outboxOf(e.envelope_id)).filter((m) => m.kind === "completed_copy")).toEqual([]);
  expect((await signing("GET", buyer)).body.data.copy).toBeUndefined();
  const done = await signing("POST", cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } });
  expect(done.body.data).toMatchObject({ completed: true, envelope_status: "completed" });
  return { envelopeId: e.envelope_id, buyer, cosigner };
}

const copyEmails = async (envelopeId: string) => (await outboxOf(envelopeId)).filter((m) => m.kind === "completed_copy");

/** The copy link of one email, opened as the transport opens it. */
async function linkOf(row: Awaited<ReturnType<typeof copyEmails>>[number]): Promise<string> {
  const opened = await openOutboxEmail(env, row);
  if (!opened?.linkUrl) throw new Error("the completed_copy email holds no link");
  return opened.linkUrl;
}

async function fetchBytes(url: string) {
  const res = await SELF.fetch(url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: () => new TextDecoder().decode(bytes) };
}

const backdateCompletion = (envelopeId: string, days: number) =>
  shardDbOf(envelopeId).prepare("UPDATE envelopes SET signed_at = ? WHERE id = ?").bind(new Date(Date.now() - days * DAY_MS).toISOString(), envelopeId).run();

describe("the signer's copy: completed_copy emails to every signer and cc recipient (docs/consumer-signing.md)", () => {
  it("queues one completed_copy per signer and cc recipient in the completion, one per address, with the link withheld at rest", async () => {
    const t = await newTenant();
    const { envelopeId } = await completedWithCc(t.key);
    const signers = await signerRows(envelopeId);
    const cc = (await shardDbOf(envelopeId).prepare("SELECT id, email FROM envelope_cc_recipients WHERE envelope_id = ? ORDER BY position").bind(envelopeId).all<{ id: string; email: string }>()).results;
    const mail = await copyEmails(envelopeId);
    // ann@example.com is a signer and a cc recipient: she gets one email, as the signer
    expect(mail.map((m) => [m.to_email, m.signer_id])).toEqual([
      ["ann@example.com", signers.find((s) => s.role === "buyer")!.id],
      ["cole@example.com", signers.find((s) => s.role === "cosigner")!.id],
      ["contracts@dealer.example", cc[0]!.id],
    ]);
    expect(cc[0]!.id).toMatch(/^ccr_/);
    const envelope = (await call("GET", `/partner/envelopes/${envelopeId}`, { key: t.key })).body.data;
    const until = copyUntil(envelope.signed_at);
    for (const m of mail) {
      const url = await linkOf(m);
      expect(url).toMatch(new RegExp(`/storage/copies/${envelopeId}\\?r=${m.signer_id}&exp=\\d+&sig=[0-9a-f]{64}$`));
      expect(new Date(Number(new URL(url).searchParams.get("exp")) * 1000).toISOString()).toBe(until);
      // the row keeps the email with the signature withheld: reading the database gives no download
      const sig = new URL(url).searchParams.get("sig")!;
      expect(m.text + m.html + m.link_url).not.toContain(sig);
      expect(m.link_url).toContain("sig=[sig]");
      expect(m.text).toContain(until.slice(0, 10));
      // no signing link: neither a slug nor the signing host
      expect(url).not.toMatch(/\/s\/|\/signing\//);
    }
    // nobody was invited twice, the cc recipients never
    expect((await outboxOf(envelopeId)).filter((m) => m.to_email === "contracts@dealer.example").map((m) => m.kind)).toEqual(["completed_copy"]);
  });

  it("downloads the sealed PDF marked as a copy, whose hash is not the authoritative copy's, before and after vaulting", async () => {
    const t = await newTenant();
    const { envelopeId } = await completedWithCc(t.key);
    const signed = (await storedDocument(envelopeId, "signed"))!;
    const url = await linkOf((await copyEmails(envelopeId))[2]!);

    const first = await fetchBytes(url);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/pdf");
    expect(first.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="[a-z0-9-]*_?${envelopeId}_non-authoritative-copy\\.pdf"$`));
    // a document of its own: re-serialized, stamped with the signed document's hash, sealed as a copy (DESIGN 13)
    await expectIndependentCopy(first.bytes, signed.bytes, signed.sha256);
    const { pages } = await placedText(first.bytes);
    for (const page of pages) expect(page).toContain("NON-AUTHORITATIVE COPY");
    // made once: the second download is the same file
    expect((await fetchBytes(url)).bytes).toEqual(first.bytes);

    // after vaulting: the vault's own marked copy, never the authoritative bytes
    expect((await call("POST", `/partner/envelopes/${envelopeId}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
    const record = (await vaultRecord(envelopeId))!;
    const after = await fetchBytes(url);
    expect(after.status).toBe(200);
    expect(await sha256Hex(after.bytes)).toBe(record.copy_hash);
    expect(await sha256Hex(after.bytes)).not.toBe(record.document_hash);
    expect((await placedText(after.bytes)).pages[0]).toContain(record.id);
  });

  it("shows the signer's own copy on GET /signing/:slug for 30 days after completion, then 410", async () => {
    const t = await newTenant();
    const { envelopeId, buyer, cosigner } = await completedWithCc(t.key);
    const state = await signing("GET", buyer);
    expect(state.status).toBe(200);
    expect(state.body.data.envelope.status).toBe("completed");
    expect(state.body.data.fields).toEqual([]);
    const { url, expires_at } = state.body.data.copy;
    const signedAt = (await call("GET", `/partner/envelopes/${envelopeId}`, { key: t.key })).body.data.signed_at;
    expect(expires_at).toBe(copyUntil(signedAt));
    const buyerId = (await signerRows(envelopeId)).find((s) => s.role === "buyer")!.id;
    expect(new URL(url).searchParams.get("r")).toBe(buyerId);
    expect((await fetchBytes(url)).status).toBe(200);
    // the other signer routes stay closed
    expect((await signing("POST", buyer, "view")).status).toBe(410);
    expect((await call("GET", `/signing/${buyer}/document`)).status).toBe(410);
    expect((await signing("POST", cosigner, "submit", { values: { cosigner_signature: "Again" } })).status).toBe(410);

    // 29 days after completion: still there
    await backdateCompletion(envelopeId, 29);
    expect((await signing("GET", buyer)).body.data.copy).toBeDefined();
    // 31 days: the signer's link is 410 as before, and so is a link handed out earlier
    await backdateCompletion(envelopeId, 31);
    const late = await signing("GET", buyer);
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ error: expect.stringContaining("completed") });
    const stale = await fetchBytes(url);
    expect(stale.status).toBe(410);
    expect(JSON.parse(stale.text())).toMatchObject({ error: expect.any(String), code: "copy_link_expired" });
  });

  it("refuses an expired, tampered or foreign link, and keeps a declined or voided envelope's link at 410", async () => {
    const t = await newTenant();
    const { envelopeId } = await completedWithCc(t.key);
    const url = new URL(await linkOf((await copyEmails(envelopeId))[0]!));

    // a link whose 30 days are over (its signature intact): 410 in the error shape
    const signers = await signerRows(envelopeId);
    const old = await signCopyUrl(env, { envelopeId, recipientId: signers[0]!.id, signedAt: new Date(Date.now() - 31 * DAY_MS).toISOString() });
    const expired = await fetchBytes(old.url);
    expect(expired.status).toBe(410);
    expect(JSON.parse(expired.text())).toMatchObject({ code: "copy_link_expired" });

    // one byte changed anywhere it is signed: 403
    const tamper = (name: string, value: string) => {
      const u = new URL(url);
      u.searchParams.set(name, value);
      return u.toString();
    };
    const sig = url.searchParams.get("sig")!;
    const forged = [
      tamper("sig", (sig[0] === "a" ? "b" : "a") + sig.slice(1)),
      tamper("r", signers[1]!.id),
      tamper("exp", String(Number(url.searchParams.get("exp")) + 86_400)),
      url.toString().replace(envelopeId, `${envelopeId.slice(0, -1)}${envelopeId.endsWith("a") ? "b" : "a"}`),
    ];
    for (const f of forged) {
      const res = await fetchBytes(f);
      expect(res.status, f).toBe(403);
      expect(JSON.parse(res.text())).toMatchObject({ error: expect.any(String), code: "invalid_copy_link" });
    }
    // missing query: 400/422 in the error shape, never a PDF
    const bare = await fetchBytes(url.toString().split("?")[0]!);
    expect([400, 422]).toContain(bare.status);

    // a correctly signed link for an envelope that does not exist, or a recipient of another envelope: 404
    const ghost = await signCopyUrl(env, { envelopeId: "env_doesnotexist000000000000", recipientId: signers[0]!.id, signedAt: new Date().toISOString() });
    expect((await fetchBytes(ghost.url)).status).toBe(404);
    const other = await completedWithCc(t.key);
    const otherSigner = (await signerRows(other.envelopeId))[0]!.id;
    const crossed = await signCopyUrl(env, { envelopeId, recipientId: otherSigner, signedAt: new Date().toISOString() });
    expect((await fetchBytes(crossed.url)).status).toBe(404);

    // a voided envelope: the signer's link stays 410, no copy
    const v = await sendableEnvelope(t.key, ["buyer"]);
    const sent = await sendEnvelope(t.key, v.envelope_id, { signers: [{ role: "buyer", email: "vic@example.com", name: "Vic" }] });
    expect((await call("POST", `/partner/envelopes/${v.envelope_id}/void`, { key: t.key, body: { reason: "Deal restructured" } })).status).toBe(200);
    const voided = await signing("GET", sent.body.data.signers[0].slug);
    expect(voided.status).toBe(410);
    expect(voided.body.copy).toBeUndefined();
    expect(await copyEmails(v.envelope_id)).toEqual([]);
  });
});
