import { PDFDict, PDFDocument, PDFName, PDFRawStream } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { call, eventually, newTenant } from "../../helpers/api";
import { eventsOf, outboxOf, signerRows } from "../../helpers/signing";
import { giveAutoVaultConsent, vaultRecord } from "../../helpers/vault";
import { AREAS, placedText, sentTwoSignerEnvelope, signing, storedDocument, TINY_PNG } from "../../helpers/signing-flow";
import { shardDbOf } from "../../helpers/shards";

const TOL = 0.01;

describe("the signer API: view, submit in signing order, completion with the stamped PDF", () => {
  it("signs a two-signer template envelope end to end", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);

    const state = await signing("GET", e.buyer);
    expect(state.status).toBe(200);
    expect(state.body.data).toMatchObject({ envelope: { id: e.envelopeId, status: "sent" }, signer: { role: "buyer", email: "ann@example.com" }, is_your_turn: true });
    expect(state.body.data.fields.map((f: { name: string }) => f.name)).toEqual(["buyer_signature", "buyer_name", "buyer_date", "buyer_vin"]);
    expect(state.body.data.fields[3]).toMatchObject({ readonly: true, default_value: "1HGCM82633A004352", value: "1HGCM82633A004352", areas: [AREAS.buyer_vin] });
    expect(state.body.data.signers.map((s: { role: string; status: string }) => [s.role, s.status])).toEqual([["buyer", "pending"], ["cosigner", "pending"]]);

    const pdf = await call("GET", `/signing/${e.buyer}/document`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");

    const headers = { "cf-connecting-ip": "203.0.113.7", "user-agent": "SignerBrowser/1.0" };
    expect((await signing("POST", e.buyer, "view", undefined, headers)).status).toBe(200);
    expect((await signing("POST", e.buyer, "view", undefined, headers)).status).toBe(200); // idempotent
    expect((await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data.status).toBe("viewed");

    // The cosigner signs second: before the buyer, 409.
    const early = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } });
    expect(early.status).toBe(409);
    expect((await signing("GET", e.cosigner)).body.data.is_your_turn).toBe(false);

    // Required left empty: 422 naming it. Readonly changed: 422.
    const missing = await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG } });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toContain("buyer_name");
    const readonly = await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer", buyer_vin: "CHANGED" } });
    expect(readonly.status).toBe(422);
    expect(JSON.stringify(readonly.body.details)).toContain("read-only");
    const notPng = await signing("POST", e.buyer, "submit", { values: { buyer_signature: "data:image/png;base64,SGVsbG8gd29ybGQsIHRoaXMgaXMgbm90IGEgUE5HIGF0IGFsbA==", buyer_name: "Ann Buyer" } });
    expect(notPng.status).toBe(422);

    const a = await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer", buyer_date: "2026-11-23" } }, headers);
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ signer_status: "completed", completed: false });
    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } })).status).toBe(409);

    const b = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer", cosigner_agree: true } }, { "cf-connecting-ip": "198.51.100.9", "user-agent": "Cosigner/2.0" });
    expect(b.status).toBe(200);
    expect(b.body.data).toMatchObject({ completed: true, envelope_status: "completed" });

    const envelope = (await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data;
    expect(envelope.status).toBe("completed");
    const signedAt = await shardDbOf(e.envelopeId).prepare("SELECT signed_at FROM envelopes WHERE id = ?").bind(e.envelopeId).first<{ signed_at: string }>();
    expect(signedAt!.signed_at).toMatch(/Z$/);
    expect((await signerRows(e.envelopeId)).map((s) => s.status)).toEqual(["completed", "completed"]);

    const events = await eventsOf(e.envelopeId);
    expect(events.map((ev) => ev.type)).toEqual([
      "envelope.created",
      "envelope.sent",
      "signer.viewed",
      "signer.started",
      "signer.completed",
      "signer.started",
      "signer.completed",
      "envelope.completed",
    ]);
    expect(events[7]!.data.values).toEqual({
      buyer_signature: { kind: "drawn" },
      buyer_name: "Ann Buyer",
      buyer_date: "2026-11-23",
      buyer_vin: "1HGCM82633A004352",
      cosigner_signature: { kind: "typed", text: "Cole Signer" },
      cosigner_agree: true,
    });
    expect(JSON.stringify(events)).not.toContain(e.buyer);

    const audit = await shardDbOf(e.envelopeId).prepare("SELECT action, actor_type, ip, user_agent FROM audit_log WHERE chain_id = ? AND action LIKE 'signer.%' ORDER BY seq").bind(e.envelopeId).all();
    expect(audit.results).toContainEqual({ action: "signer.completed", actor_type: "signer", ip: "203.0.113.7", user_agent: "SignerBrowser/1.0" });
    // how each signature was adopted, on the audit chain (2.5.7: typing is a signature in its own right, recorded as such)
    const methods = await shardDbOf(e.envelopeId).prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = 'signer.completed' ORDER BY seq").bind(e.envelopeId).all<{ data: string }>();
    expect(methods.results.map((r) => JSON.parse(r.data).signature_methods)).toEqual([{ buyer_signature: "drawn" }, { cosigner_signature: "typed" }]);

    // The signed PDF: values at their areas, the drawn signature on page 1, the certificate page last.
    const original = await storedDocument(e.envelopeId, "original");
    const signed = await storedDocument(e.envelopeId, "signed");
    expect(signed).not.toBeNull();
    expect(signed!.page_count).toBe(3);
    const { items, pages } = await placedText(signed!.bytes);
    const at = (str: string) => items.find((i) => i.str === str)!;
    for (const [text, area] of [
      ["Ann Buyer", AREAS.buyer_name],
      ["2026-11-23", AREAS.buyer_date],
      ["1HGCM82633A004352", AREAS.buyer_vin],
      ["Cole Signer", AREAS.cosigner_signature],
    ] as const) {
      const item = at(text);
      expect(item, text).toBeDefined();
      expect(item.page).toBe(area.page);
      expect(Math.abs(item.x - area.x)).toBeLessThan(TOL);
      expect(Math.abs(item.baselineY - (area.y + area.h))).toBeLessThan(TOL);
    }
    const doc = await PDFDocument.load(signed!.bytes);
    const images = (n: number) => {
      const xobjects = doc.getPage(n).node.Resources()?.lookupMaybe(PDFName.of("XObject"), PDFDict);
      return (xobjects?.values() ?? []).map((ref) => doc.context.lookup(ref)).filter((o) => o instanceof PDFRawStream && o.dict.get(PDFName.of("Subtype")) === PDFName.of("Image"));
    };
    expect(images(0)).toHaveLength(1);
    expect(images(1)).toHaveLength(0);
    const certificate = pages[2]!;
    expect(certificate).toContain("Signing certificate");
    expect(certificate).toContain("ann@example.com");
    expect(certificate).toContain("cole@example.com");
    expect(certificate).toContain("203.0.113.7");
    expect(certificate).toContain("198.51.100.9");
    expect(certificate).toContain(original!.sha256);

    // Closed: every signer action stops working; the link itself shows the signer's copy (docs/consumer-signing.md), no fields.
    const finished = await signing("GET", e.buyer);
    expect(finished.status).toBe(200);
    expect(finished.body.data).toMatchObject({ envelope: { status: "completed" }, fields: [], copy: { url: expect.stringContaining(`/copies/${e.envelopeId}?`) } });
    expect((await signing("POST", e.cosigner, "view")).status).toBe(410);
    expect((await call("GET", `/signing/${e.buyer}/document`)).status).toBe(410);
  });

  it("a slug reaches only its own signer's fields; an unknown slug is 404", async () => {
    const t = await newTenant();
    const one = await sentTwoSignerEnvelope(t.key);
    const other = await sentTwoSignerEnvelope(t.key);
    const state = await signing("GET", one.cosigner);
    expect(state.body.data.envelope.id).toBe(one.envelopeId);
    expect(state.body.data.fields.map((f: { name: string }) => f.name)).toEqual(["cosigner_signature", "cosigner_agree"]);
    expect(JSON.stringify(state.body.data)).not.toContain("1HGCM82633A004352");
    // Another signer's field names are unknown to this slug.
    const foreign = await signing("POST", one.buyer, "submit", { values: { buyer_signature: "Ann", buyer_name: "Ann", cosigner_agree: true } });
    expect(foreign.status).toBe(422);
    expect((await signing("POST", other.buyer, "submit", { values: { buyer_signature: "Ann", buyer_name: "Ann" } })).status).toBe(200);
    expect((await signerRows(one.envelopeId)).map((s) => s.status)).toEqual(["pending", "pending"]);
    expect((await signing("GET", "x".repeat(22))).status).toBe(404);
  });

  it("a decline closes the envelope with signer.declined and envelope.declined", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await signing("POST", e.buyer, "decline", { reason: "" })).status).toBe(422);
    const res = await signing("POST", e.buyer, "decline", { reason: "The APR is wrong" }, { "cf-connecting-ip": "203.0.113.8" });
    expect(res.status).toBe(200);
    expect((await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data.status).toBe("declined");
    const events = await eventsOf(e.envelopeId);
    expect(events.slice(-2).map((ev) => ev.type)).toEqual(["signer.declined", "envelope.declined"]);
    expect(events.at(-2)!.data).toMatchObject({ reason: "The APR is wrong", signer: { email: "ann@example.com" } });
    expect((await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "C" } })).status).toBe(410);
  });

  it("each signer's first view fires signer.viewed; only the envelope's first moves it to viewed", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await signing("POST", e.buyer, "view")).status).toBe(200);
    const second = await signing("POST", e.cosigner, "view", undefined, { "cf-connecting-ip": "198.51.100.4" });
    expect(second.status).toBe(200);
    expect((await signing("POST", e.cosigner, "view")).body.data.viewed_at).toBe(second.body.data.viewed_at);
    const events = await eventsOf(e.envelopeId);
    expect(events.map((ev) => ev.type)).toEqual(["envelope.created", "envelope.sent", "signer.viewed", "signer.viewed"]);
    expect(events.map((ev) => ev.data.signer?.role ?? null).slice(2)).toEqual(["buyer", "cosigner"]);
    expect((await signerRows(e.envelopeId)).map((s) => [s.status, s.viewed_at !== null])).toEqual([["viewed", true], ["viewed", true]]);
    expect((await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data.status).toBe("viewed");
  });

  it("a voided envelope's links answer 410 naming the status", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await call("POST", `/partner/envelopes/${e.envelopeId}/void`, { key: t.key, body: { reason: "Wrong APR" } })).status).toBe(200);
    const res = await signing("GET", e.buyer);
    expect(res.status).toBe(410);
    expect(res.body.error).toContain("voided");
    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: "A", buyer_name: "A" } })).status).toBe(410);
  });

  it("two parallel last signers submitting at once complete the envelope exactly once", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key, { parallel: true });
    const [a, b] = await Promise.all([
      signing("POST", e.buyer, "submit", { values: { buyer_signature: "Ann Buyer", buyer_name: "Ann Buyer" } }),
      signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body.data.completed, b.body.data.completed].filter(Boolean)).toHaveLength(1);
    const events = await eventsOf(e.envelopeId);
    expect(events.filter((ev) => ev.type === "envelope.completed")).toHaveLength(1);
    const docs = await shardDbOf(e.envelopeId).prepare("SELECT COUNT(*) AS n FROM envelope_documents WHERE envelope_id = ? AND kind = 'signed'").bind(e.envelopeId).first<{ n: number }>();
    expect(docs!.n).toBe(1);
  });
});

describe("after each signer: the next routing order is invited; after the last: auto-vault with consent", () => {
  it("invites the cosigner once the buyer has signed, and vaults the signed document on completion when consent was given", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    const consent = await giveAutoVaultConsent(t.orgId, e.envelopeId);
    expect(consent.status).toBe(200);
    expect((await outboxOf(e.envelopeId)).map((m) => m.to_email)).toEqual(["ann@example.com"]);

    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: "Ann Buyer", buyer_name: "Ann Buyer" } })).status).toBe(200);
    expect((await outboxOf(e.envelopeId)).map((m) => m.to_email)).toEqual(["ann@example.com", "cole@example.com"]);

    expect((await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } })).status).toBe(200);
    // auto-vault runs after the signer's response (waitUntil): the envelope becomes vaulted shortly after
    const envelope = await eventually(async () => (await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data, (d) => d.status === "vaulted");
    expect(envelope.status).toBe("vaulted");
    const signed = await storedDocument(e.envelopeId, "signed");
    expect(await vaultRecord(e.envelopeId)).toMatchObject({ actor_type: "system", on_behalf_of: consent.userId, document_hash: signed!.sha256 });
    expect((await eventsOf(e.envelopeId)).slice(-2).map((ev) => ev.type)).toEqual(["envelope.completed", "vault.stored"]);
  });
});
