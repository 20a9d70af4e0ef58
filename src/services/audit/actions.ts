import type { EnvelopeAction } from "../envelopes/state-machine";

/**
 * Every action the audit log records, in one place (like the event types in events/outbox.ts). The
 * append functions (`auditInsert`, `commitWithOrgAudit`, `appendEnvelopeAudit`) take only these, so a
 * new entry is added here first, with what it means. Envelope entries live on the envelope's chain,
 * the rest on the organization's.
 */
export const AUDIT_ACTIONS = {
  // envelope chain: creation, then one entry per state-machine move (`envelope.<transition>`)
  "envelope.created": "The envelope was created (API, console, template or builder).",
  "envelope.attach_document": "A document was attached to the envelope.",
  "envelope.prepare": "Sending started: the envelope's signers were planned.",
  "envelope.send": "The envelope was sent to its signers.",
  "envelope.view": "The first signer opened the envelope.",
  "envelope.complete": "The last signer signed; the signed document was built.",
  "envelope.record_paper_signed": "A document signed on paper was uploaded and recorded as completed.",
  "envelope.vault": "The authoritative copy was stored in the vault.",
  "envelope.decline": "A signer declined; the envelope closed.",
  "envelope.void": "The sender voided the envelope.",
  "envelope.expire": "The envelope passed its expiry date unsigned.",
  "envelope.builder_opened": "A console builder session was opened on the envelope.",
  "envelope.auto_vault_consent": "The sender's auto-vault consent was stamped onto the envelope.",
  "envelope.payment_paid": "Stripe reported the payment requested on the envelope (Sign + Pay) as succeeded; it is paid.",
  "envelope.payment_failed": "Stripe reported a failed attempt at the payment requested on the envelope; it is still due.",
  "envelope.kba_verified": "A signer's identity verification (KBA) reached its outcome: passed, failed or unavailable (never the questions or answers).",
  "signer.viewed": "A signer opened the document.",
  "signer.started": "A signer started filling the document.",
  "signer.completed": "A signer finished signing.",
  "signer.declined": "A signer declined, with a reason.",
  "vault.tamper_detected": "An integrity check found the authoritative copy altered or missing.",
  "vault.integrity_restored": "An integrity check found a copy earlier reported altered intact again.",
  "vault.certificate_reissued": "The vault certificate was issued again because its compliance checks changed (integrity unchanged).",
  "vault.evidence_bundle": "An evidence bundle (ZIP: document, certificate, this chain, verifier) was produced; its SHA-256 is recorded.",
  // organization chain
  "org.created": "The operator created the organization.",
  "org.updated": "The operator changed the organization.",
  "org.embed_settings_updated": "An admin changed the origins allowed to embed the signing page.",
  "membership.granted": "The operator gave a user a role in the organization.",
  "customer.created": "The operator created a customer of the organization.",
  "api_key.created": "The operator issued an API key.",
  "api_key.rotated": "The operator rotated an API key's secret.",
  "api_key.updated": "The operator changed an API key's scopes, rate limit or state.",
  "template.created": "A template was created.",
  "template.updated": "A template's name or settings changed.",
  "template.deleted": "A template was deleted.",
  "template.document_attached": "A template was given its PDF.",
  "template.fields_added": "Fields were added to a template.",
  "package.created": "A document package was created.",
  "package.updated": "A document package was changed.",
  "bulk_batch.created": "A bulk-send batch was created.",
  "bulk_batch.updated": "A bulk-send batch's settings (name, signers, tags, master template, KBA) changed.",
  "bulk_batch.vault_consent": "A bulk-send batch's auto-vault terms were accepted or withdrawn.",
  "bulk_batch.items_set": "A bulk-send batch's client list was set (added, skipped and rejected counts).",
  "bulk_batch.submitted": "A bulk-send batch was submitted: its workflow started sending.",
  "bulk_batch.cancelled": "A running bulk-send batch was cancelled: its unprocessed items were cancelled.",
  "bulk_batch.deleted": "A draft or ready bulk-send batch was deleted; its master template archived.",
  "bulk_batch.finished": "A bulk-send batch's workflow ended: completed, failed or (after a cancel) stopped.",
  "webhook_endpoint.created": "A webhook endpoint was registered.",
  "webhook_endpoint.updated": "A webhook endpoint was changed.",
  "webhook_endpoint.deleted": "A webhook endpoint was deleted.",
  "webhook_endpoint.secret_rotated": "A webhook endpoint's signing secret was rotated (the old one kept for a grace period).",
} as const satisfies Record<`envelope.${EnvelopeAction}`, string> & Record<string, string>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
