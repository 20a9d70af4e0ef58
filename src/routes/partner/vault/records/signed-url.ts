import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, type ErrorCodesByStatus, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import type { Scope } from "../../../../lib/scopes";
import { VaultParams } from "../../../../services/control/record-schema";
import { createRecordUrl, type RecordFile } from "../../../../services/control/vault-urls";
import { VaultUrlQuery, VaultUrlSchema } from "../../../../services/vault/schema";
import { partnerRoute } from "../../common";
import { INTEGRITY_ERRORS } from "../../../../services/vault/download";
import { AUTHORITATIVE_COPY_ERRORS, RECORD_DESTROYED_ERRORS } from "../../../../services/vault/signed-url";

const LIFETIME = "The URL is on the storage host, signed (HMAC) and valid for `expires` seconds (60 to 86400, default 300).";

const recordUrlRoute = (operationId: string, path: string, summary: string, description: string, errors: number[], codes: ErrorCodesByStatus, scope: Scope | readonly Scope[] = "vault:read") =>
  createRoute(
    partnerRoute(
      scope,
      {
        method: "get",
        operationId,
        [ERROR_CODES_KEY]: codes,
        path,
        summary,
        description: `${description} ${LIFETIME}`,
        request: { params: VaultParams, query: VaultUrlQuery },
        responses: { 200: jsonContent(dataOf(VaultUrlSchema), "A signed download URL") },
      },
      errors,
    ),
  );

const handlerFor =
  (file: RecordFile): OrgRouteHandler<ReturnType<typeof recordUrlRoute>> =>
  async (c) => {
    const url = await createRecordUrl(c.var.ctx, { vaultId: c.req.valid("param").vault_id, file, expiresIn: c.req.valid("query").expires });
    return c.json({ data: url }, 200);
  };

export const authoritativeRoute = recordUrlRoute(
  "getVaultRecordAuthoritativeUrl",
  "/partner/vault/{vault_id}/signed-url",
  "Download URL of the authoritative copy (controller only)",
  "Downloads follow control: issued to the controller of the record only; the other parties get 403 `not_controller` (the originator too, once it sold), anyone else 404. After a paid-off or a paper-out: 409 `control_closed`. The URL names the organization it is issued to: once that organization no longer controls the record (an accepted transfer, a pledge or its release), the download answers 403 `not_controller`; once control is closed (paid off, paper-out), 409 `control_closed`. An offer alone changes nothing. The download re-computes the SHA-256 and refuses (409) a document that no longer matches the hash recorded at vaulting.",
  [400, 404, 409, 503],
  AUTHORITATIVE_COPY_ERRORS,
);
export const authoritativeHandler = handlerFor("authoritative");

export const copyRoute = recordUrlRoute(
  "getVaultRecordCopyUrl",
  "/partner/vault/{vault_id}/copy/signed-url",
  "Download URL of the non-authoritative copy",
  "The copy marked NON-AUTHORITATIVE COPY on every page and in its metadata, to every party of the record (404 to anyone else). A destroyed record: 409 `record_destroyed`.",
  [400, 404, 409, 503],
  RECORD_DESTROYED_ERRORS,
);
export const copyHandler = handlerFor("copy");

export const certificateRoute = recordUrlRoute(
  "getVaultRecordCertificatePdfUrl",
  "/partner/vault/{vault_id}/certificate/signed-url",
  "Download URL of the compliance certificate PDF",
  "The current compliance certificate as rendered to PDF, to every party of the record (404 to anyone else).",
  [400, 404, 503],
  {},
  ["vault:read", "compliance:read"],
);
export const certificateHandler = handlerFor("certificate");

export const evidenceRoute = recordUrlRoute(
  "getVaultRecordEvidenceUrl",
  "/partner/vault/{vault_id}/evidence/signed-url",
  "Download URL of the evidence bundle",
  "The evidence bundle of GET /partner/envelopes/{envelope_id}/vault/evidence/signed-url (with `control-history.json` and the control attestation `attestation.jws`, both checked by its `verify.mjs --seal-sha256`, like the signed manifest), to every party of the record (404 to anyone else). 409 (`integrity_check_failed`) when the vaulted PDF no longer matches its recorded hash; 503 naming the variable when the seal is not configured; 502 when the configured timestamp authority fails.",
  [400, 404, 409, 502, 503],
  mergeErrorCodes(RECORD_DESTROYED_ERRORS, INTEGRITY_ERRORS),
);
export const evidenceHandler = handlerFor("evidence");
