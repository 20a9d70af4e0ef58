import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createContext, onShardOf } from "../../../src/lib/context";
import { ApiError } from "../../../src/lib/errors";
import { submitSigning } from "../../../src/services/signing/submit-signing";
import { call, newTenant } from "../../helpers/api";
import { makePdf, sha256Hex } from "../../helpers/pdf";
import { readSeal } from "../../helpers/seal";
import { signerIdOf, signerRows } from "../../helpers/signing";
import { sentTwoSignerEnvelope, signing, storedDocument, TINY_PNG } from "../../helpers/signing-flow";
import { download, paperEnvelope, signedUrl, uploadPaper } from "../../helpers/vault";

async function signBoth(e: { buyer: string; cosigner: string }) {
  expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } })).status).toBe(200);
  const last = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } });
  expect(last.status).toBe(200);
}

describe("the PAdES seal on the completed document", () => {
  it("seals the signed PDF on completion; the vaulted authoritative copy is that sealed file, byte for byte", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    await signBoth(e);

    const signed = (await storedDocument(e.envelopeId, "signed"))!;
    // the recorded hash is the sealed file's: the seal came before hashing
    expect(signed.sha256).toBe(await sha256Hex(signed.bytes));
    const seal = await readSeal(signed.bytes);
    expect(seal).toMatchObject({ signatures: 1, coversWholeFile: true, readerIntegrity: true, pkijsValid: true, subFilter: "ETSI.CAdES.detached", reason: "Sealed by esign-vault on completion" });

    expect((await call("POST", `/partner/envelopes/${e.envelopeId}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
    const url = await signedUrl(t.key, e.envelopeId);
    const file = await download(url.body.data.signed_url);
    expect(file.status).toBe(200);
    expect(await sha256Hex(file.bytes)).toBe(signed.sha256);
    expect((await readSeal(file.bytes)).readerIntegrity).toBe(true);

    // One changed byte of the authoritative copy (outside the signature value) breaks the seal.
    const edited = file.bytes.slice();
    edited[40] = edited[40] === 0x20 ? 0x0a : 0x20;
    const broken = await readSeal(edited);
    expect(broken.readerIntegrity).toBe(false);
    expect(broken.pkijsValid).toBe(false);
  });

  it("never reseals a paper upload: its authoritative copy is exactly the uploaded bytes", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const paper = await makePdf({ pages: 1, text: "Wet-ink contract" });
    expect((await uploadPaper(t.key, e.envelope_id, paper)).status).toBe(200);
    const file = await download((await signedUrl(t.key, e.envelope_id)).body.data.signed_url);
    expect(await sha256Hex(file.bytes)).toBe(await sha256Hex(paper));
    expect((await readSeal(file.bytes)).signatures).toBe(0);
  });

  it("refuses the completing submit with 503 naming the variable when the seal is not configured, before anything changes", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } })).status).toBe(200);
    const before = await env.DOCS.list({ prefix: "signatures/" });

    for (const missing of ["SEAL_PRIVATE_KEY", "SEAL_CERTIFICATE"] as const) {
      const signerId = await signerIdOf(e.cosigner);
      const unconfigured = onShardOf(createContext({ ...env, [missing]: undefined }, () => {}, { requestId: "req_test" }), signerId);
      const err = await submitSigning(unconfigured, { signerId, values: { cosigner_signature: TINY_PNG } }).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(503);
      expect((err as ApiError).message).toContain(missing);
    }
    const signerId = await signerIdOf(e.cosigner);
    const wrongKey = onShardOf(createContext({ ...env, SEAL_PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----" }, () => {}, { requestId: "req_test" }), signerId);
    const err = await submitSigning(wrongKey, { signerId, values: { cosigner_signature: "Cole Signer" } }).catch((x: unknown) => x);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).message).toContain("SEAL_PRIVATE_KEY");

    const [buyer, cosigner] = await signerRows(e.envelopeId);
    expect(buyer!.status).toBe("completed");
    expect(cosigner!.status).not.toBe("completed");
    expect((await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data.status).not.toBe("completed");
    expect((await env.DOCS.list({ prefix: "signatures/" })).objects.length).toBe(before.objects.length);
    expect(await storedDocument(e.envelopeId, "signed")).toBeNull();
  });
});
