import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, createEnvelope, newTenant } from "../../../helpers/api";
import { makePdf, pageTexts, pdfInfo, sha256Hex } from "../../../helpers/pdf";
import { compliance, download, paperEnvelope, signedUrl, uploadPaper, vaultObjects, vaultRecord } from "../../../helpers/vault";
import { shardDbOf } from "../../../helpers/shards";

describe("paper path: POST /partner/envelopes/:id/vault-in-upload", () => {
  it("vaults the upload end to end: authoritative copy, marked copy, certificate, all 8 checks", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const pdf = await makePdf({ pages: 3, text: "Wet-signed retail installment contract" });
    const hash = await sha256Hex(pdf);
    const signedAt = "2026-04-02T15:04:05.000Z";

    const res = await uploadPaper(t.key, e.envelope_id, pdf, { signedAt });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ envelope_id: e.envelope_id, status: "vaulted", vaulted: true, compliant: true, signed_at: signedAt });

    // The authoritative copy is the upload, byte for byte.
    const url = await signedUrl(t.key, e.envelope_id);
    expect(url.status).toBe(200);
    expect(url.body.data.signed_url.startsWith("http://localhost:8787/storage/")).toBe(true);
    expect(url.body.data.expires_in).toBe(300);
    const authoritative = await download(url.body.data.signed_url);
    expect(authoritative.status).toBe(200);
    expect(authoritative.headers.get("Content-Type")).toBe("application/pdf");
    expect(authoritative.headers.get("Content-Disposition")).toBe(`attachment; filename="${url.body.data.filename}"`);
    expect(await sha256Hex(authoritative.bytes)).toBe(hash);
    expect(authoritative.bytes).toEqual(pdf);

    // The copy says what it is on every page and in its metadata.
    const copyUrl = await signedUrl(t.key, e.envelope_id, "copy");
    const copy = await download(copyUrl.body.data.signed_url);
    expect(copy.status).toBe(200);
    expect(copyUrl.body.data.filename).toMatch(/non-authoritative-copy\.pdf$/);
    const texts = await pageTexts(copy.bytes);
    expect(texts).toHaveLength(3);
    for (const text of texts) expect(text).toContain("NON-AUTHORITATIVE COPY");
    expect((await pdfInfo(copy.bytes)).Subject).toContain("NON-AUTHORITATIVE COPY");
    expect(await sha256Hex(copy.bytes)).not.toBe(hash);

    const cert = await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key });
    expect(cert.status).toBe(200);
    expect(cert.body.data).toMatchObject({
      certificate_type: "ucc_9105_electronic_chattel_paper",
      certificate_version: "1.0",
      subject: { envelope_id: e.envelope_id, envelope_name: e.envelope_name, customer_id: e.customer_id, status: "vaulted" },
      secured_party: { name: "First Auto Finance LLC", role: "lender" },
      document_integrity: { hash_algorithm: "SHA-256", document_hash: hash },
      ucc_9105_compliance: { compliant: true, score: 1 },
      esign_act_compliance: { compliant: true, citation: expect.stringContaining("7001") },
      identity_verification: { kba_required: false, signers: [] },
    });
    expect(cert.body.data.issued_at).toMatch(/\.\d{3}Z$/);
    expect(cert.body.data.ucc_9105_compliance.checks).toHaveLength(8);

    const live = await compliance(t.key, e.envelope_id);
    expect(live).toMatchObject({ compliant: true, score: 1, missing_requirements: [] });
    expect(live.checks.every((c: { satisfied: boolean }) => c.satisfied)).toBe(true);

    // Recorded: the signed document, the audit chain (completed then vaulted), vault.stored with path + hash.
    const doc = await shardDbOf(e.envelope_id).prepare("SELECT r2_key, sha256 FROM envelope_documents WHERE envelope_id = ? AND kind = 'signed'").bind(e.envelope_id).first<{ r2_key: string; sha256: string }>();
    const record = await vaultRecord(e.envelope_id);
    expect(doc).toEqual({ r2_key: record!.authoritative_key, sha256: hash });
    const audit = await shardDbOf(e.envelope_id).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelope_id).all<{ action: string }>();
    expect(audit.results.map((a) => a.action)).toEqual(["envelope.created", "envelope.record_paper_signed", "envelope.vault"]);
    const stored = await shardDbOf(e.envelope_id).prepare("SELECT data FROM events WHERE envelope_id = ? AND type = 'vault.stored'").bind(e.envelope_id).first<{ data: string }>();
    expect(JSON.parse(stored!.data)).toMatchObject({ path: record!.authoritative_key, hash, status: "vaulted", customer_id: e.customer_id });
    const certificates = (await vaultObjects(record!.org_id, e.envelope_id)).filter((k) => /certificate-.*\.pdf$/.test(k));
    expect(certificates).toHaveLength(1);
    expect((await pageTexts(new Uint8Array(await (await env.DOCS.get(certificates[0]!))!.arrayBuffer()))).join(" ")).toContain("Certificate of Compliance");
  });

  it("is idempotent: the same document again is 200 with the envelope; another document is 409", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const pdf = await makePdf();
    expect((await uploadPaper(t.key, e.envelope_id, pdf)).status).toBe(200);
    const again = await uploadPaper(t.key, e.envelope_id, pdf);
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe("vaulted");
    const other = await uploadPaper(t.key, e.envelope_id, await makePdf({ text: "another document" }));
    expect(other.status).toBe(409);
    expect(other.body.error).toMatch(/already vaulted with a different document/);
    const events = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'vault.stored'").bind(e.envelope_id).first<{ n: number }>();
    expect(events!.n).toBe(1);
  });

  it("vaults a paper envelope that already had a document attached (uploaded) or was recorded completed", async () => {
    const t = await newTenant();
    for (const status of ["uploaded", "completed"]) {
      const e = await paperEnvelope(t.key);
      await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = ? WHERE id = ?").bind(status, e.envelope_id).run();
      const res = await uploadPaper(t.key, e.envelope_id, await makePdf());
      expect(res.status, status).toBe(200);
      expect(res.body.data.status).toBe("vaulted");
      expect(res.body.data.signed_at).not.toBeNull();
    }
  });

  it("answers 409 naming vault-in-signed for an envelope signed electronically, and changes nothing", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const res = await uploadPaper(t.key, e.envelope_id, await makePdf());
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/vault-in-signed/);
    expect(res.body.details).toEqual({ document_source: "new", endpoint: "vault-in-signed" });
    expect(await vaultRecord(e.envelope_id)).toBeNull();
  });

  it("answers 422 naming the status for a voided paper envelope", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "deal fell through" } });
    const res = await uploadPaper(t.key, e.envelope_id, await makePdf());
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("Cannot record a signed paper document for an envelope with status voided");
  });

  it("refuses a file that is not a PDF by its bytes (415), whatever its declared type", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const fake = await uploadPaper(t.key, e.envelope_id, new TextEncoder().encode("GIF89a definitely not a pdf"), { filename: "contract.pdf" });
    expect(fake.status).toBe(415);
    expect(fake.body.error).toMatch(/PDF/);
    const broken = await uploadPaper(t.key, e.envelope_id, new TextEncoder().encode("%PDF-1.7\nnot really\n%%EOF\n"));
    expect(broken.status).toBe(415);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe("pending");
  });

  it("needs the file (422 on `file`), a valid signed_at (422), and multipart (415)", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const missing = await uploadPaper(t.key, e.envelope_id, null, { signedAt: "2026-01-01T00:00:00Z" });
    expect(missing.status).toBe(422);
    expect(missing.body.details[0].path).toEqual(["file"]);
    const badDate = await uploadPaper(t.key, e.envelope_id, await makePdf(), { signedAt: "yesterday" });
    expect(badDate.status).toBe(422);
    expect(badDate.body.details[0].path).toEqual(["signed_at"]);
    const future = await uploadPaper(t.key, e.envelope_id, await makePdf(), { signedAt: new Date(Date.now() + 86_400_000).toISOString() });
    expect(future.status).toBe(422);
    const json = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-upload`, { key: t.key, body: { file: "JVBERi0=" } });
    expect(json.status).toBe(415);
    expect(json.body.error).toMatch(/multipart\/form-data/);
  });

  it("answers 413 above 50 MB, before reading the body when it declares its length", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    // A streamed body of 60 MiB with no Content-Length: refused once the limit is crossed, not read to the end.
    const chunk = new Uint8Array(1024 * 1024);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`--b\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`));
      },
      pull(controller) {
        if (sent >= 60) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const streamed = await SELF.fetch(`${BASE}/partner/envelopes/${e.envelope_id}/vault-in-upload`, {
      method: "POST",
      headers: { "X-API-Key": t.key, "Content-Type": "multipart/form-data; boundary=b" },
      body,
    });
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { error: string }).error).toMatch(/50 MB/);
    expect(sent).toBeLessThan(60);

    const declared = await SELF.fetch(`${BASE}/partner/envelopes/${e.envelope_id}/vault-in-upload`, {
      method: "POST",
      headers: { "X-API-Key": t.key, "Content-Type": "multipart/form-data; boundary=b", "Content-Length": String(60 * 1024 * 1024) },
      body: new Uint8Array(16),
    });
    expect(declared.status).toBe(413);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe("pending");
  });

  it("replays an upload retried with the same Idempotency-Key and the same bytes", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const form = new FormData();
    form.append("file", new File([await makePdf()], "signed.pdf", { type: "application/pdf" }));
    const encoded = new Request("http://localhost/", { method: "POST", body: form });
    const body = new Uint8Array(await encoded.arrayBuffer());
    const send = () =>
      SELF.fetch(`${BASE}/partner/envelopes/${e.envelope_id}/vault-in-upload`, {
        method: "POST",
        headers: { "X-API-Key": t.key, "Content-Type": encoded.headers.get("content-type")!, "Idempotency-Key": "paper-1" },
        body,
      });
    const first = await send();
    expect(first.status).toBe(200);
    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(await first.json());
  });
});
