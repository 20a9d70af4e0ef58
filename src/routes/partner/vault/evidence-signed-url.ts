import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent, mergeErrorCodes } from "../../../lib/openapi";
import { createEvidenceUrl } from "../../../services/vault/evidence-bundle";
import { VaultUrlQuery, VaultUrlSchema } from "../../../services/vault/schema";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "../envelopes/params";
import { INTEGRITY_ERRORS } from "../../../services/vault/download";
import { RECORD_DESTROYED_ERRORS } from "../../../services/vault/signed-url";

export const route = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "getEvidenceBundleUrl",
      [ERROR_CODES_KEY]: mergeErrorCodes(RECORD_DESTROYED_ERRORS, INTEGRITY_ERRORS),
      path: "/partner/envelopes/{envelope_id}/vault/evidence/signed-url",
      summary: "Download URL of the evidence bundle",
      description:
        "A ZIP an auditor checks offline: the authoritative PDF, the compliance certificate (JSON and PDF), every audit-chain entry of the envelope (in order, each with its hash and the previous hash), the seal's certificate (PEM), `manifest.json` (every file's SHA-256, the chain head and length) signed by the seal key as `manifest.jws` (and timestamped as `manifest.tsr` when SEAL_TSA_URL is set), a standalone `verify.mjs` (`node verify.mjs --seal-sha256 <fingerprint>` checks all of it against a seal certificate pinned from GET /api/v2/seal-certificates, printing `verified` or what does not match) and a README (docs/evidence.md). Produced on the first request and whenever the audit chain has grown since; each production records the ZIP's SHA-256 on the audit chain (`vault.evidence_bundle`). The URL is on the storage host, signed (HMAC) and valid for `expires` seconds (60 to 86400, default 300). 404 until the envelope is vaulted; 409 (`integrity_check_failed`) when the vaulted PDF no longer matches its recorded hash. 503 naming the variable when SEAL_PRIVATE_KEY / SEAL_CERTIFICATE is missing or unusable (a bundle is never produced unsigned); 502 when the configured timestamp authority fails.",
      request: { params: EnvelopeParams, query: VaultUrlQuery },
      responses: { 200: jsonContent(dataOf(VaultUrlSchema), "A signed download URL") },
    },
    [400, 404, 409, 502, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const url = await createEvidenceUrl(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id, expiresIn: c.req.valid("query").expires });
  return c.json({ data: url }, 200);
};
