import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSealCertificate } from "../../scripts/lib/seal-cert.mjs";
import { api, base, contractPdf, newOrg, ok, sentContract, sha256 } from "./helpers";

// What an auditor does with an evidence bundle, for real: the ZIP downloaded from the running service,
// unzipped into a folder, the seal certificate's fingerprint read from GET /api/v2/seal-certificates, and
// `node verify.mjs --seal-sha256 <pin>` run as a process by this machine's Node (docs/evidence.md).

const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** The bundle's signed URL followed, the ZIP unzipped into a fresh folder, as `unzip -d` would. */
async function unzippedBundle(key: string, envelopeId: string): Promise<string> {
  const url = await ok(api("GET", `/partner/envelopes/${envelopeId}/vault/evidence/signed-url`, { key }));
  const res = await fetch(url.signed_url);
  expect(res.status).toBe(200);
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  const dir = mkdtempSync(join(tmpdir(), "evidence-"));
  folders.push(dir);
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
  return dir;
}

/** A copy of the unzipped bundle to tamper with. */
function copyOf(dir: string): string {
  const copy = mkdtempSync(join(tmpdir(), "evidence-forged-"));
  folders.push(copy);
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** `node verify.mjs …` in the folder, as the bundle's README says: exit code and everything printed. */
function verify(dir: string, args: string[]) {
  const run = spawnSync(process.execPath, ["verify.mjs", ...args], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  return { code: run.status, out: `${run.stdout}${run.stderr}` };
}

/** The current seal certificate's fingerprint, as an auditor reads it from the public list. */
async function publishedPin(): Promise<string> {
  const res = await fetch(`${base()}/api/v2/seal-certificates`);
  expect(res.status).toBe(200);
  const list = (await res.json()) as { data: { sha256: string; certificate_pem: string; current: boolean }[] };
  const current = list.data.find((c) => c.current);
  expect(current, "the service publishes its current seal certificate").toBeDefined();
  // the published fingerprint is the published certificate's (what `openssl x509 -fingerprint -sha256` prints)
  expect(new X509Certificate(current!.certificate_pem).fingerprint256.replace(/:/g, "").toLowerCase()).toBe(current!.sha256);
  return current!.sha256;
}

/** Values for every buyer field of sentContract (typed signature and initials). */
const BUYER_VALUES = {
  buyer_name: "Ann Buyer",
  monthly_income: 5200,
  first_payment: "2026-12-15",
  term: "48 months",
  payment_method: "Card",
  agree_terms: true,
  buyer_signature: "Ann Buyer",
  buyer_initials: "AB",
};

/** Each signer opens the document and signs through the signer API, with a fresh link from the partner. */
async function signThroughSignerApi(key: string, envelopeId: string) {
  for (const [role, values] of [
    ["buyer", BUYER_VALUES],
    ["dealer", { dealer_signature: "Dale Dealer" }],
  ] as const) {
    const links = await ok(api("GET", `/partner/envelopes/${envelopeId}/signing-links`, { key }));
    const slug = links.signers.find((s: { role: string }) => s.role === role).slug as string;
    await ok(api("GET", `/signing/${slug}`));
    await ok(api("POST", `/signing/${slug}/view`));
    await ok(api("POST", `/signing/${slug}/submit`, { body: { values } }));
  }
  expect((await ok(api("GET", `/partner/envelopes/${envelopeId}/status`, { key }))).status).toBe("completed");
}

describe("node verify.mjs, run by an auditor on a downloaded evidence bundle", () => {
  let org: { orgId: string; key: string };
  let pin: string;
  let otherPin: string;
  beforeAll(async () => {
    org = await newOrg("Evidence auditor's lender");
    pin = await publishedPin();
    otherPin = new X509Certificate((await generateSealCertificate({ commonName: "someone else's seal" })).certificatePem).fingerprint256.replace(/:/g, "").toLowerCase();
  });

  describe("a contract signed through the service", () => {
    let dir: string;
    beforeAll(async () => {
      const contract = await sentContract(org.key);
      await signThroughSignerApi(org.key, contract.envelopeId);
      await ok(api("POST", `/partner/envelopes/${contract.envelopeId}/vault-in-signed`, { key: org.key, body: {} }));
      dir = await unzippedBundle(org.key, contract.envelopeId);
    });

    it("verifies against the published pin: the manifest's signature, every file, the chain and the PDF's seal", () => {
      const run = verify(dir, ["--seal-sha256", pin]);
      expect(run.out).toMatch(/^verified$/m);
      expect(run.code, run.out).toBe(0);
      expect(run.out).toContain(`ok: manifest: manifest.jws (RS256) signs manifest.json byte for byte, by the pinned seal certificate ${pin}`);
      expect(run.out).toContain(`ok: document: sealed by the pinned certificate ${pin}`);
      expect(run.out).toMatch(/ok: audit chain: \d+ entries verified from the genesis hash to head [0-9a-f]{64}/);
      // openssl's form of the fingerprint (colons, upper case) is the same pin
      expect(verify(dir, [`--seal-sha256=${pin.toUpperCase().match(/../g)!.join(":")}`]).code).toBe(0);
    });

    it("carries the verify.mjs the running service serves, whose SHA-256 is the one the README names (wrangler's build, byte for byte the committed file)", async () => {
      const bundled = readFileSync(join(dir, "verify.mjs"));
      const published = (await (await fetch(`${base()}/api/v2/evidence/verifier`)).json()) as { sha256: string };
      const served = new Uint8Array(await (await fetch(`${base()}/api/v2/evidence/verifier?format=raw`)).arrayBuffer());
      const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
      const named = /The evidence verifier[^\n]*?SHA-256 `([0-9a-f]{64})`/.exec(readme)?.[1];
      expect(sha256(bundled)).toBe(published.sha256);
      expect(sha256(served)).toBe(published.sha256);
      expect(named, "README.md names the verifier's SHA-256").toBe(published.sha256);
      expect(Buffer.from(bundled).equals(readFileSync(new URL("../../src/services/evidence/verify.mjs", import.meta.url)))).toBe(true);
    });

    it("refuses without a pin (exit 2), and with another certificate's fingerprint (exit 1, naming the pin)", () => {
      const unpinned = verify(dir, []);
      expect(unpinned.code).toBe(2);
      expect(unpinned.out).toContain("Refused: no seal certificate pinned");
      expect(unpinned.out).not.toMatch(/^verified$/m);

      const other = verify(dir, ["--seal-sha256", otherPin]);
      expect(other.code).toBe(1);
      expect(other.out).toContain(`BROKEN: manifest: manifest.jws is signed by certificate SHA-256 ${pin}, not a pinned seal certificate (${otherPin})`);
    });

    it("refuses a swapped document.pdf, naming the document", async () => {
      const forged = copyOf(dir);
      const swapped = await contractPdf(2, "A different contract");
      writeFileSync(join(forged, "document.pdf"), swapped);
      const run = verify(forged, ["--seal-sha256", pin]);
      expect(run.code).toBe(1);
      expect(run.out).toContain(`BROKEN: file document.pdf: SHA-256 ${sha256(swapped)}, but the signed manifest states`);
      expect(run.out).not.toMatch(/^verified$/m);
    });

    it("refuses an edited audit-chain entry, naming the chain", () => {
      const forged = copyOf(dir);
      const chain = JSON.parse(readFileSync(join(forged, "audit-chain.json"), "utf8"));
      const actions = chain.entries.map((e: { action: string }) => e.action);
      // what the signers did through the signer API is on the chain the bundle carries
      expect(actions.filter((a: string) => a === "signer.completed")).toHaveLength(2);
      expect(actions).toContain("signer.viewed");
      const sent = chain.entries.find((e: { action: string }) => e.action === "envelope.send");
      expect(sent, "the chain records the send").toBeDefined();
      sent.created_at = "2020-01-01T00:00:00.000Z"; // backdated
      writeFileSync(join(forged, "audit-chain.json"), `${JSON.stringify(chain, null, 2)}\n`);
      const run = verify(forged, ["--seal-sha256", pin]);
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/BROKEN: file audit-chain\.json: SHA-256 [0-9a-f]{64}, but the signed manifest states [0-9a-f]{64} \(the file was altered or replaced\)/);
    });

    it("refuses a rewritten manifest.json (manifest.jws no longer matches it)", () => {
      const forged = copyOf(dir);
      const manifest = JSON.parse(readFileSync(join(forged, "manifest.json"), "utf8"));
      manifest.produced_at = "2020-01-01T00:00:00.000Z";
      writeFileSync(join(forged, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
      const run = verify(forged, ["--seal-sha256", pin]);
      expect(run.code).toBe(1);
      expect(run.out).toContain("BROKEN: manifest: manifest.json is not the manifest manifest.jws signed (manifest.json was rewritten)");
    });
  });

  it("verifies a paper record (vault-in-upload), saying its PDF carries no seal", async () => {
    const envelope = await ok(
      api("POST", "/partner/envelopes", {
        key: org.key,
        body: {
          envelope_name: "Paper retail installment contract",
          customer_email: "pat@example.com",
          customer_name: "Pat Paper",
          document_source: "upload",
          secured_party: { name: "First Auto Finance LLC", role: "lender" },
        },
      }),
    );
    const paper = await contractPdf(2, "Wet-ink retail installment contract");
    const form = new FormData();
    form.append("file", new File([Buffer.from(paper)], "signed.pdf", { type: "application/pdf" }));
    await ok(api("POST", `/partner/envelopes/${envelope.envelope_id}/vault-in-upload`, { key: org.key, form }));
    const dir = await unzippedBundle(org.key, envelope.envelope_id);
    // the authoritative copy is the uploaded bytes, never re-sealed
    expect(sha256(readFileSync(join(dir, "document.pdf")))).toBe(sha256(paper));

    const run = verify(dir, ["--seal-sha256", pin]);
    expect(run.code, run.out).toBe(0);
    expect(run.out).toMatch(/^verified$/m);
    expect(run.out).toContain("note: document.pdf carries no seal of the service: a paper record, vaulted exactly as uploaded");
    expect(verify(dir, []).code).toBe(2);
  });
});
