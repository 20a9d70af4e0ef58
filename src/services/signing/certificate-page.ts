import { PDFDocument, StandardFonts, rgb } from "pdf-lib";

export type CertificateSigner = {
  name: string;
  email: string;
  role: string;
  routing_order: number;
  ip: string | null;
  user_agent: string | null;
  viewed_at: string | null;
  signed_at: string | null;
};

export type CertificateInput = {
  envelopeId: string;
  envelopeName: string;
  completedAt: string;
  originalSha256: string;
  /** SHA-256 of the stamped document before this page was appended */
  stampedSha256: string;
  signers: CertificateSigner[];
};

/**
 * Appends the signing certificate (one letter page; continues on more if there are many signers).
 * It cannot state the hash of the file it is part of, so it names the two it can: the original as
 * sent, and the stamped document (every page before this one). The stored file's own SHA-256 is
 * recorded on the envelope's `signed` document and in the vault.
 */
export async function appendCertificatePage(stamped: Uint8Array, input: CertificateInput): Promise<{ bytes: Uint8Array; pageCount: number }> {
  const doc = await PDFDocument.load(stamped, { updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let page = doc.addPage([612, 792]);
  let y = 740;
  const line = (text: string, opts: { size?: number; bold?: boolean; indent?: number } = {}) => {
    if (y < 60) {
      page = doc.addPage([612, 792]);
      y = 740;
    }
    const size = opts.size ?? 9;
    page.drawText(sanitize(text), { x: 54 + (opts.indent ?? 0), y, size, font: opts.bold ? bold : font, color: rgb(0, 0, 0) });
    y -= size + 5;
  };
  line("Signing certificate", { size: 16, bold: true });
  y -= 6;
  line(`Envelope: ${input.envelopeName}`);
  line(`Envelope id: ${input.envelopeId}`);
  line(`Completed at: ${input.completedAt}`);
  line(`SHA-256 of the original document: ${input.originalSha256}`);
  line(`SHA-256 of the signed document (all pages before this certificate): ${input.stampedSha256}`);
  y -= 8;
  line("Signers", { size: 12, bold: true });
  for (const s of input.signers) {
    line(`${s.name} <${s.email}>`, { bold: true });
    line(`Role: ${s.role}   Signing order: ${s.routing_order}`, { indent: 12 });
    line(`Viewed at: ${s.viewed_at ?? "-"}   Signed at: ${s.signed_at ?? "-"}`, { indent: 12 });
    line(`IP address: ${s.ip ?? "unknown"}`, { indent: 12 });
    line(`User agent: ${(s.user_agent ?? "unknown").slice(0, 110)}`, { indent: 12 });
    y -= 4;
  }
  return { bytes: await doc.save({ useObjectStreams: false }), pageCount: doc.getPageCount() };
}

/** The standard fonts encode WinAnsi only: anything else is replaced rather than failing the signing. */
export function sanitize(text: string): string {
  return text.replace(/[^\x20-\x7e\xa0-\xff]/g, "?");
}
