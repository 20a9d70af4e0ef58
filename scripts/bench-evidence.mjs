// Evidence levels (docs/evidence.md): the completing submit (the last signer's) timed at PAdES B-B (the
// bench's own server: self-signed seal, no TSA) next to B-LTA (a second wrangler dev whose seal is
// issued by a throwaway OpenSSL CA naming an OCSP responder, with OpenSSL's TSA and OCSP responder
// behind the test stand-ins on loopback), in the same run, envelopes alternating between the two.
import { join } from "node:path";
import { api, fetchWithDeadline, freePort, randomSecrets, startFreshServer, stopServer } from "./lib/dev-server.mjs";
import { fmt, log, newEnvelope, percentile, positiveInt } from "./lib/bench-util.mjs";
import { hasOpenssl } from "./lib/dev-evidence.mjs";
import { makeTestPki } from "./lib/test-pki.mjs";
import { PDFDocument, StandardFonts } from "pdf-lib";

const RUNS = positiveInt("BENCH_EVIDENCE_RUNS", 20);
const SCOPES = ["envelopes:read", "envelopes:write", "esign:write", "vault:read", "vault:write"];
const esc = (pem) => pem.trim().replace(/\n/g, "\\n");

/** An organization, a key and a one-signer template (a 2-page contract, one signature field) on `base`. */
async function tenant(base, operatorToken) {
  const org = await api(base, "POST", "/operator/orgs", { token: operatorToken, body: { name: "Bench Evidence Org" } });
  const key = await api(base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { token: operatorToken, body: { scopes: SCOPES, rate_limit_rpm: 1_000_000 } });
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 2; i++) doc.addPage([612, 792]).drawText(`Retail installment contract, page ${i}`, { x: 72, y: 740, size: 12, font });
  const form = new FormData();
  form.append("file", new Blob([await doc.save()], { type: "application/pdf" }), "contract.pdf");
  form.append("name", "Bench evidence template");
  form.append("fields_json", JSON.stringify([{ name: "buyer_signature", type: "signature", role: "buyer", required: true, placement: { mode: "absolute", areas: [{ page: 2, x: 0.1, y: 0.6, w: 0.4, h: 0.04 }] } }]));
  const res = await fetchWithDeadline(`${base}/api/v2/partner/templates`, { method: "POST", headers: { "x-api-key": key.api_key }, body: form });
  if (!res.ok) throw new Error(`template upload answered ${res.status}: ${res.text.slice(0, 300)}`);
  return { base, apiKey: key.api_key, templateId: JSON.parse(res.text).data.template_id };
}

/** One envelope sent and signed: the completing submit's wall time. */
async function completion(t, failures) {
  const envelope = await api(t.base, "POST", "/partner/envelopes", { apiKey: t.apiKey, body: { ...newEnvelope(), template_id: t.templateId } });
  const sent = await api(t.base, "POST", `/partner/envelopes/${envelope.envelope_id}/send`, {
    apiKey: t.apiKey,
    body: { send_email: false, signers: [{ role: "buyer", email: "buyer@example.com", name: "Bench Buyer", routing_order: 1 }] },
  });
  const started = performance.now();
  const res = await fetchWithDeadline(`${t.base}/api/v2/signing/${sent.signers[0].slug}/submit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ values: { buyer_signature: "Bench Buyer" } }),
  });
  const ms = performance.now() - started;
  if (res.status !== 200) failures.push(`evidence: submit answered ${res.status}: ${res.text.slice(0, 300)}`);
  return { ms, envelopeId: envelope.envelope_id };
}

/** The level a vault-in records for the envelope's signed document (the check that the run measured what it says). */
async function vaultedLevel(t, envelopeId) {
  const vaulted = await api(t.base, "POST", `/partner/envelopes/${envelopeId}/vault-in-signed`, { apiKey: t.apiKey, body: {} });
  return (await api(t.base, "GET", `/partner/vault/${vaulted.vault_id}`, { apiKey: t.apiKey })).evidence_level;
}

export async function evidenceSection(ctx) {
  ctx.setPhase("evidence");
  if (!hasOpenssl()) {
    // not a failure of the service: the TSA and OCSP responder measured here are OpenSSL's
    return { title: "Evidence levels: skipped", columns: ["measure"], rows: [], notes: ["openssl is not on the PATH: the B-LTA side (OpenSSL's TSA and OCSP responder) cannot run here."] };
  }
  const { startTsaStandIn } = await import("../test/global/tsa-stand-in.mjs");
  const { startOcspStandIn } = await import("../test/global/ocsp-stand-in.mjs");
  const ocspPort = await freePort();
  const pki = makeTestPki({ ocspBase: `http://127.0.0.1:${ocspPort}`, dir: undefined });
  const tsa = await startTsaStandIn({ pkiDir: pki.dir, port: 0 });
  const ocsp = await startOcspStandIn({ pkiDir: pki.dir, port: ocspPort });
  let lta;
  try {
    log("evidence: starting a second wrangler dev sealing at B-LTA (OpenSSL CA seal, OpenSSL TSA and OCSP responder)");
    const secrets = { ...randomSecrets(), SEAL_PRIVATE_KEY: esc(pki.seal.privateKeyPem), SEAL_CERTIFICATE: esc(pki.seal.certificatePem), SEAL_TSA_URL: tsa.url };
    lta = await startFreshServer(join(ctx.tmp, "state-evidence"), secrets);
    const bb = await tenant(ctx.base, ctx.operatorToken);
    const high = await tenant(lta.base, secrets.OPERATOR_TOKEN);
    const failures = [];
    const times = { bb: [], lta: [] };
    log(`evidence: ${RUNS + 1} completions at each level, alternating (first of each unreported: warm-up)`);
    let last = { bb: null, lta: null };
    for (let i = 0; i <= RUNS; i++) {
      const a = await completion(bb, failures);
      const b = await completion(high, failures);
      last = { bb: a.envelopeId, lta: b.envelopeId };
      if (i === 0) continue;
      times.bb.push(a.ms);
      times.lta.push(b.ms);
    }
    const levels = { bb: await vaultedLevel(bb, last.bb), lta: await vaultedLevel(high, last.lta) };
    if (levels.bb !== "B-B") failures.push(`evidence: the B-B server's completion was vaulted at ${levels.bb}`);
    if (levels.lta !== "B-LTA") failures.push(`evidence: the B-LTA server's completion was vaulted at ${levels.lta}`);
    const row = (name, samples) => [name, String(samples.length), fmt(percentile(samples, 0.5)), fmt(percentile(samples, 0.99)), fmt(Math.max(...samples))];
    return {
      title: `Evidence levels: the completing submit at PAdES B-B next to B-LTA, ${RUNS} each, alternating (wrangler dev, local)`,
      columns: ["completion (last signer's submit, one-signer 2-page contract)", "n", "p50 ms", "p99 ms", "max ms"],
      rows: [row(`B-B (self-signed seal, no TSA; vaulted level: ${levels.bb})`, times.bb), row(`B-LTA (OpenSSL TSA + OCSP on loopback; vaulted level: ${levels.lta})`, times.lta)],
      notes: [
        "B-LTA adds, inside the submit: a signature timestamp (one TSA request), an OCSP request per certificate that names a responder " +
          "(the seal's and the TSA's), the /DSS update, and a document timestamp (a second TSA request). Here the TSA and responder are " +
          "OpenSSL on loopback, one process per request; a public TSA adds its network round trips (each bounded at 10 s: an outage leaves the seal lower, never fails the submit).",
      ],
      failures: failures.slice(0, 5),
    };
  } finally {
    await stopServer(lta);
    await Promise.all([tsa.close?.(), ocsp.close?.()].map((p) => Promise.resolve(p).catch(() => undefined)));
  }
}
