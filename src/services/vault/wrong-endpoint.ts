import { conflict } from "../../lib/errors";
import type { EnvelopeRow } from "../envelopes/repository";

/**
 * Spec 4.5: paper envelopes (`document_source` upload) are vaulted through vault-in-upload, every
 * other envelope through vault-in-signed; the wrong one is 409 naming the right one. Checked before
 * anything else, so a client bug is reported the same way whatever the envelope's status.
 */
export function assertVaultEndpoint(envelope: EnvelopeRow, endpoint: "vault-in-signed" | "vault-in-upload"): void {
  const expected = envelope.document_source === "upload" ? "vault-in-upload" : "vault-in-signed";
  if (endpoint === expected) return;
  const message =
    expected === "vault-in-upload"
      ? `Paper envelopes (document_source upload) must be vaulted with POST /partner/envelopes/${envelope.id}/vault-in-upload`
      : `Envelopes signed electronically (document_source ${envelope.document_source}) must be vaulted with POST /partner/envelopes/${envelope.id}/vault-in-signed`;
  throw conflict(message, { document_source: envelope.document_source, endpoint: expected });
}
