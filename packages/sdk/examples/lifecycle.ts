// The quickstart through the SDK: template -> envelope -> send -> the signer signs -> vault -> certificate
// -> an offer of control. Run by `npm run example` (scripts/example.mjs) against `npm run dev`.
import { PDFDocument, StandardFonts } from "pdf-lib";
import { EsignVault, EsignVaultError } from "../src/index";

export async function runLifecycle(opts: { baseUrl: string; apiKey: string; toOrgId?: string | null; log?: (line: string) => void }) {
  const log = opts.log ?? console.log;
  const sdk = new EsignVault({ apiKey: opts.apiKey, baseUrl: opts.baseUrl });
  const step = (n: number, text: string, detail: unknown = "") => log(`${n}. ${text}${detail === "" ? "" : ` ${typeof detail === "string" ? detail : JSON.stringify(detail)}`}`);

  const template = await sdk.createTemplate({
    file: new Blob([await contractPdf()], { type: "application/pdf" }),
    name: "Retail installment contract (SDK example)",
    fields: [{ name: "buyer_signature", type: "signature", role: "buyer", required: true, placement: { mode: "absolute", areas: [{ page: 1, x: 0.1, y: 0.5, w: 0.3, h: 0.05 }] } }],
  });
  step(1, "template created", template.template_id);

  const envelope = await sdk.createEnvelope({
    envelope_name: "Retail installment contract #1042",
    customer_email: "ann@example.com",
    customer_name: "Ann Buyer",
    template_id: template.template_id,
    secured_party: { name: "First Auto Finance LLC", role: "lender" },
  } as never);
  step(2, "envelope created", { envelope_id: envelope.envelope_id, status: envelope.status });

  const sent = (await sdk.sendEnvelope(envelope.envelope_id, { signers: [{ role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 }] } as never)) as unknown as {
    status: string;
    signers: { slug: string; signing_url?: string }[];
  };
  step(3, "envelope sent", { status: sent.status });

  // The signer's side is not the partner API: the signing page posts the filled fields to the signing link.
  const signed = await fetch(`${opts.baseUrl}/api/v2/signing/${sent.signers[0]!.slug}/submit`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ values: { buyer_signature: "Ann Buyer" } }),
  });
  if (!signed.ok) throw new Error(`the signer's submit answered ${signed.status}: ${await signed.text()}`);
  step(4, "signer signed", { status: (await sdk.getEnvelope(envelope.envelope_id)).status });

  const vaulted = await sdk.vaultSigned(envelope.envelope_id);
  step(5, "vaulted", { status: vaulted.status });

  const certificate = (await sdk.getCertificate(envelope.envelope_id)) as Record<string, unknown>;
  step(6, "vault certificate", Object.fromEntries(Object.entries(certificate).filter(([k]) => ["vault_id", "document_hash", "version", "issued_at"].includes(k))));

  let vaultId: string | undefined;
  for await (const record of sdk.paginate("/api/v2/partner/vault")) {
    const r = record as { vault_id: string; envelope_id?: string };
    if (r.envelope_id === envelope.envelope_id) vaultId = r.vault_id;
  }
  step(7, "found in the vault book (paged)", vaultId);

  if (opts.toOrgId && vaultId) {
    const transfer = await sdk.offerTransfer(vaultId, { kind: "assignment", to_org_id: opts.toOrgId, reference: "SDK example" } as never);
    step(8, "transfer of control offered", { transfer_id: transfer.transfer_id, status: transfer.status, to_org_id: opts.toOrgId });
  } else step(8, "transfer skipped: set TO_ORG_ID (or run npm run dev, whose .dev-demo.json names a second organization)");

  try {
    await sdk.getEnvelope("env_00000000000000000000000000");
  } catch (e) {
    if (!(e instanceof EsignVaultError)) throw e;
    step(9, "a typed error", { status: e.status, code: e.code, requestId: e.requestId });
  }
  return { envelopeId: envelope.envelope_id, vaultId };
}

async function contractPdf(): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText("Retail installment contract", { x: 72, y: 700, size: 14, font });
  return new Uint8Array(await doc.save());
}
