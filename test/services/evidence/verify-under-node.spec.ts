import { env } from "cloudflare:test";
import { unzipSync, zipSync } from "fflate";
import { describe, expect, inject, it } from "vitest";
import { loadSealKey } from "../../../src/pdf";
import { sealPdf } from "../../../src/pdf/seal/seal-pdf";
import { inOrg, onShardOf, systemContext } from "../../../src/lib/context";
import { appendEnvelopeAudit } from "../../../src/services/envelopes/append-audit";
import { createEvidenceUrl } from "../../../src/services/vault/evidence-bundle";
import { call, newTenant } from "../../helpers/api";
import { makePdf, sha256Hex } from "../../helpers/pdf";
import { completedEnvelope, download } from "../../helpers/vault";
import { fingerprint, servicePin } from "./forge";

// Issue 33: exit 3 proven by running it. The verify.mjs the service serves, run by Node as an auditor
// runs it (`node verify.mjs …` in the unzipped folder, test/global/node-verifier.mjs), on a real bundle
// whose manifest.tsr is a real RFC 3161 token of the test PKI's TSA (OpenSSL, test/global/tsa-stand-in.mjs).

const dec = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const auditorsMachine = () => `http://127.0.0.1:${inject("nodeVerifierPort")}`;

/** `node verify.mjs …args` in the unzipped bundle: its exit code and everything it printed. */
async function nodeVerify(zip: Uint8Array, args: string[]): Promise<{ code: number | string; out: string }> {
  const query = args.map((a) => `arg=${encodeURIComponent(a)}`).join("&");
  const res = await fetch(`${auditorsMachine()}/run?${query}`, { method: "POST", body: zip });
  expect(res.status).toBe(200);
  const run = (await res.json()) as { code: number | string; stdout: string; stderr: string };
  return { code: run.code, out: `${run.stdout}${run.stderr}` };
}

/** A vaulted record's bundle made with the timestamp authority configured: the ZIP as downloaded. */
async function timestampedBundle(): Promise<Uint8Array> {
  const t = await newTenant();
  const sealed = await sealPdf(await makePdf({ pages: 1, text: "Timestamped contract" }), await loadSealKey(env), { signingTime: new Date() });
  const e = await completedEnvelope(t.key, {}, sealed);
  const envelopeId = e.envelope_id as string;
  expect((await call("POST", `/partner/envelopes/${envelopeId}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
  const ctx = onShardOf(inOrg(systemContext({ ...env, SEAL_TSA_URL: env.TEST_TSA_URL }, () => {}), t.orgId), envelopeId);
  // an entry after vaulting: the bundle is produced afresh, under the TSA
  await appendEnvelopeAudit(ctx, { orgId: t.orgId, envelopeId, actor: { type: "system", id: null }, build: async () => ({ action: "vault.certificate_reissued", data: { reason: "issue 33: run under Node" }, statements: [] }) });
  const url = await createEvidenceUrl(ctx, { envelopeId, expiresIn: 300 });
  const file = await download(url.signed_url);
  expect(file.status).toBe(200);
  return file.bytes;
}

describe("verify.mjs run by Node on a timestamped bundle", () => {
  it("exits 3 ('timestamp not pinned') without --tsa-sha256, 0 with the TSA's pin, and non-zero with an Evil TSA's token swapped in", async () => {
    const zip = await timestampedBundle();
    const files = unzipSync(zip);
    expect(files["manifest.tsr"], "the bundle carries an RFC 3161 token").toBeDefined();
    const manifest = JSON.parse(dec(files["manifest.json"]));
    // the script in the bundle is the one the service publishes
    const served = await call("GET", "/evidence/verifier?format=raw");
    expect(served.status).toBe(200);
    expect(dec(files["verify.mjs"])).toBe(served.body);
    const seal = await servicePin();
    const tsaPin = await fingerprint(env.TEST_PKI_CA_CERTIFICATE);

    const unpinned = await nodeVerify(zip, ["--seal-sha256", seal]);
    expect(unpinned.code, unpinned.out).toBe(3);
    expect(unpinned.out).toMatch(/^timestamp not pinned: /m);
    expect(unpinned.out).toContain(`produced_at: ${manifest.produced_at}`);
    expect(unpinned.out).not.toMatch(/^verified$/m);

    const pinned = await nodeVerify(zip, ["--seal-sha256", seal, "--tsa-sha256", tsaPin]);
    expect(pinned.code, pinned.out).toBe(0);
    expect(pinned.out).toMatch(/^verified$/m);
    expect(pinned.out).toContain(`produced_at: ${manifest.produced_at}`);
    expect(pinned.out).toMatch(/^ok: timestamp: manifest\.tsr: the TSA's signature verifies .*, pinned by /m);
    expect(pinned.out).not.toContain("timestamp not pinned");

    // manifest.tsr swapped for a token by "CN=Evil TSA" (openssl) over the very same JWS signature
    const signature = dec(files["manifest.jws"]).trim().split(".")[2]!;
    const signatureBytes = Uint8Array.from(atob(signature.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (signature.length % 4)) % 4)), (c) => c.charCodeAt(0));
    const token = await fetch(`${auditorsMachine()}/evil-tsa?digest=${await sha256Hex(signatureBytes)}`, { method: "POST" });
    expect(token.status, await token.clone().text()).toBe(200);
    const evilZip = zipSync({ ...files, "manifest.tsr": new Uint8Array(await token.arrayBuffer()) });
    const evil = await nodeVerify(evilZip, ["--seal-sha256", seal, "--tsa-sha256", tsaPin]);
    expect(evil.code, evil.out).not.toBe(0);
    expect(evil.code).toBe(1);
    expect(evil.out).toMatch(/^BROKEN: timestamp: manifest\.tsr: issued by TSA Evil TSA .* holds no pinned TSA certificate/m);
    expect(evil.out).not.toMatch(/^verified$/m);
    // unpinned, the Evil TSA's token verifies as well as the real one: which is why that is exit 3, never 0
    expect((await nodeVerify(evilZip, ["--seal-sha256", seal])).code).toBe(3);
  }, 120_000); // four Node processes and an RSA key made by openssl, on a shared machine
});
