import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { openOutboxEmail } from "../../src/services/email/outbox";
import { call } from "../helpers/api";
import { expectIndependentCopy } from "../helpers/copies";
import { party, transferred, type Party } from "../helpers/control";
import { embedToken } from "../helpers/payments";
import { sha256Hex } from "../helpers/pdf";
import { outboxOf, sendableEnvelope, sendEnvelope } from "../helpers/signing";
import { signing, storedDocument } from "../helpers/signing-flow";
import { download, vaultRecord } from "../helpers/vault";

/**
 * Issue 33 (items 1 and 8): only the controller is ever handed the authoritative copy's bytes. Every
 * file a non-controller can reach (the marked copy, a widget's download, the signer's and cc's
 * completed-copy links before and after vaulting, the paper-out copy) is a document of its own: the
 * AC occurs in it nowhere, no prefix of it is the AC, every page is stamped with the hash, and its one
 * signature is the service's, over the whole file, naming the hash. The envelopes are signed through
 * the signing API, so the AC carries a real seal (what the old appended copy kept live).
 */

/** A buyer-signed envelope with a cc recipient, completed through the signing API: its AC is sealed. */
async function signedWithCc(owner: Party) {
  const e = await sendableEnvelope(owner.key, ["buyer"], { cc: [{ name: "Dealer Desk", email: "desk@dealer.example" }] });
  const sent = await sendEnvelope(owner.key, e.envelope_id, { signers: [{ role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 }] });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const slug = sent.body.data.signers[0].slug as string;
  const done = await signing("POST", slug, "submit", { values: { buyer_signature: "Ann Buyer" } });
  expect(done.body.data).toMatchObject({ completed: true });
  const links: Record<string, string> = {};
  for (const m of (await outboxOf(e.envelope_id)).filter((row) => row.kind === "completed_copy")) {
    links[m.to_email] = (await openOutboxEmail(env, m))!.linkUrl!;
  }
  return { envelopeId: e.envelope_id as string, signerLink: links["ann@example.com"]!, ccLink: links["desk@dealer.example"]! };
}

/** The signed document's bytes as stored (the AC once vaulted), read from R2 as the reference. */
async function signedBytes(envelopeId: string) {
  const row = (await storedDocument(envelopeId, "signed"))!;
  const bytes = new Uint8Array(await (await env.DOCS.get(row.r2_key))!.arrayBuffer());
  expect(await sha256Hex(bytes)).toBe(row.sha256);
  return { bytes, sha256: row.sha256 };
}

async function vaultIn(owner: Party, envelopeId: string) {
  const res = await call("POST", `/partner/envelopes/${envelopeId}/vault-in-signed`, { key: owner.key, body: {} });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (await vaultRecord(envelopeId))!;
}

async function fetched(url: string) {
  const file = await download(url);
  expect(file.status).toBe(200);
  return file.bytes;
}

describe("every copy a non-controller can reach is a re-serialized, stamped, copy-sealed PDF (DESIGN 13)", () => {
  it("the signer's and cc's completed-copy links, before vaulting: a sealed copy naming the signed document's hash", async () => {
    const owner = await party();
    const { envelopeId, signerLink, ccLink } = await signedWithCc(owner);
    const signed = await signedBytes(envelopeId);
    for (const link of [signerLink, ccLink]) await expectIndependentCopy(await fetched(link), signed.bytes, signed.sha256);
  });

  it("after vaulting: the marked copy, the signer's and cc's links, and the widget of an organization that sold the record", async () => {
    const originator = await party("Originator");
    const buyer = await party("Buyer of the paper");
    const { envelopeId, signerLink, ccLink } = await signedWithCc(originator);
    // the links were first used before vaulting: the copy made then is for the signed document
    await fetched(signerLink);
    const record = await vaultIn(originator, envelopeId);
    const ac = new Uint8Array(await (await env.DOCS.get(record.authoritative_key))!.arrayBuffer());
    expect(await sha256Hex(ac)).toBe(record.document_hash);

    const copyUrl = await call("GET", `/partner/vault/${record.id}/copy/signed-url`, { key: originator.key });
    expect(copyUrl.status).toBe(200);
    const marked = await fetched(copyUrl.body.data.signed_url);
    const { seal } = await expectIndependentCopy(marked, ac, record.document_hash);
    expect(seal.reason).toBe(`Non-authoritative copy of ${record.document_hash}`);
    expect(await sha256Hex(marked)).toBe(record.copy_hash);

    for (const link of [signerLink, ccLink]) expect(await fetched(link)).toEqual(marked);

    await transferred(originator, record.id, buyer);
    const token = (await embedToken(originator.key, envelopeId, "ops@originator.example", "vault")).body.data.token as string;
    const session = await call("POST", "/embed/session", { bearer: token, body: { widget_type: "vault", envelope_id: envelopeId } });
    expect(session.status, JSON.stringify(session.body)).toBe(200);
    const widget = await fetched(session.body.data.vault.download.url);
    await expectIndependentCopy(widget, ac, record.document_hash);
  });

  it("the paper-out copy: re-serialized, stamped CONVERTED TO PAPER with the hash, sealed as a copy", async () => {
    const owner = await party();
    const { envelopeId } = await signedWithCc(owner);
    const record = await vaultIn(owner, envelopeId);
    const ac = new Uint8Array(await (await env.DOCS.get(record.authoritative_key))!.arrayBuffer());
    const res = await call("POST", `/partner/vault/${record.id}/paper-out`, { key: owner.key, body: { reason: "Court filing" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const paper = await fetched(res.body.data.paper_copy.signed_url);
    const { seal } = await expectIndependentCopy(paper, ac, record.document_hash, "CONVERTED TO PAPER");
    expect(seal.reason).toBe(`Copy converted to paper of ${record.document_hash}`);
  });

  it("a copy stored the old way (the AC with an update appended) is never served again: it is remade at its key", async () => {
    const owner = await party();
    const { envelopeId, ccLink } = await signedWithCc(owner);
    const record = await vaultIn(owner, envelopeId);
    const ac = new Uint8Array(await (await env.DOCS.get(record.authoritative_key))!.arrayBuffer());
    // what vault-in stored before: the AC's bytes, then an update, with no copy_format metadata
    const legacy = new Uint8Array([...ac, ...new TextEncoder().encode("\n% an appended update\n")]);
    await env.DOCS.put(record.copy_key, legacy, { customMetadata: { role: "non-authoritative-copy" } });

    const copyUrl = await call("GET", `/partner/vault/${record.id}/copy/signed-url`, { key: owner.key });
    const remade = await fetched(copyUrl.body.data.signed_url);
    await expectIndependentCopy(remade, ac, record.document_hash);
    // stored at the same key (what an evidence bundle reads), and the record follows it
    const stored = await env.DOCS.get(record.copy_key);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(remade);
    expect((await vaultRecord(envelopeId))!).toMatchObject({ copy_hash: await sha256Hex(remade), copy_size_bytes: remade.byteLength });
    // later requests (the cc's link too) get that same copy
    expect(await fetched(ccLink)).toEqual(remade);
  });
});
