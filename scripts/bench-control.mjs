// Control of the authoritative copy (docs/control.md): a transfer's offer and accept, timed one request at a
// time through wrangler dev, next to the partner status read timed the same way in the same run.
import { api, fetchWithDeadline, timedRequest } from "./lib/dev-server.mjs";
import { fmt, log, newEnvelope, percentile, positiveInt } from "./lib/bench-util.mjs";
import { PDFDocument, StandardFonts } from "pdf-lib";

const ROUNDS = positiveInt("BENCH_CONTROL_ROUNDS", 100);
const CONTROL_SCOPES = ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "vault:control"];

/** A two-page contract, as a dealer would vault it. */
async function contractPdf() {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 2; i++) doc.addPage([612, 792]).drawText(`Retail installment contract, page ${i}`, { x: 72, y: 720, size: 12, font });
  return doc.save();
}

const timed = timedRequest;

export async function controlSection(ctx) {
  ctx.setPhase("control");
  const op = { token: ctx.operatorToken };
  const orgs = [];
  for (const name of ["Bench Dealer", "Bench Lender"]) {
    const org = await api(ctx.base, "POST", "/operator/orgs", { ...op, body: { name } });
    const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: CONTROL_SCOPES, rate_limit_rpm: 1_000_000 } });
    orgs.push({ orgId: org.org_id, key: key.api_key });
  }
  const [dealer, lender] = orgs;
  // A paper envelope vaulted by the dealer: the record whose control moves back and forth.
  const envelope = await api(ctx.base, "POST", "/partner/envelopes", { apiKey: dealer.key, body: { ...newEnvelope(), document_source: "upload", secured_party: { name: "Bench Lender" } } });
  const form = new FormData();
  form.append("file", new Blob([await contractPdf()], { type: "application/pdf" }), "contract.pdf");
  const vaulted = await fetchWithDeadline(`${ctx.base}/api/v2/partner/envelopes/${envelope.envelope_id}/vault-in-upload`, { method: "POST", headers: { "x-api-key": dealer.key }, body: form });
  if (!vaulted.ok) throw new Error(`vault-in-upload answered ${vaulted.status}: ${vaulted.text.slice(0, 200)}`);
  const vaultId = JSON.parse(vaulted.text).data.vault_id;

  const failures = [];
  const offers = [];
  const accepts = [];
  const reads = [];
  log(`control: ${ROUNDS} rounds of offer + accept, control moving between two organizations, and as many status reads`);
  let from = dealer;
  let to = lender;
  for (let i = 0; i < ROUNDS; i++) {
    const offer = await timed(ctx.base, "POST", `/partner/vault/${vaultId}/transfers`, from.key, { kind: "assignment", to_org_id: to.orgId }, failures);
    offers.push(offer.ms);
    if (!offer.data) break;
    accepts.push((await timed(ctx.base, "POST", `/partner/vault/transfers/${offer.data.transfer_id}/accept`, to.key, {}, failures)).ms);
    reads.push((await timed(ctx.base, "GET", `/partner/envelopes/${ctx.envelopeId}/status`, ctx.apiKey, undefined, failures)).ms);
    [from, to] = [to, from];
  }
  const row = (name, samples) => [name, String(samples.length), fmt(percentile(samples, 0.5)), fmt(percentile(samples, 0.99)), fmt(Math.max(...samples))];
  return {
    title: `Control of the authoritative copy: ${ROUNDS} transfers offered and accepted one at a time (wrangler dev, local)`,
    columns: ["request", "n", "p50 ms", "p99 ms", "max ms"],
    rows: [
      row("GET /partner/envelopes/:id/status (the same run, the same one-at-a-time client)", reads),
      row("POST /partner/vault/:vault_id/transfers (offer)", offers),
      row("POST /partner/vault/transfers/:transfer_id/accept", accepts),
    ],
    notes: [
      "Each offer and accept is one control step: the chain entry, the transfer row, the record's control columns, a new certificate version " +
        "(its PDF rendered and written to R2) and the event to both organizations, in one D1 batch; the certificate is what makes a step cost more than a read.",
    ],
    failures: failures.slice(0, 5),
  };
}
