import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, type ErrorCodesByStatus, jsonContent } from "../../../lib/openapi";
import { VaultUrlQuery, VaultUrlSchema } from "../../../services/vault/schema";
import { AUTHORITATIVE_COPY_ERRORS, createVaultUrl, RECORD_DESTROYED_ERRORS, type VaultFile } from "../../../services/vault/signed-url";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "../envelopes/params";

const vaultUrlRoute = (operationId: string, path: string, summary: string, description: string, errors: number[], codes: ErrorCodesByStatus) =>
  createRoute(
    partnerRoute(
      "vault:read",
      {
        method: "get",
        operationId,
        [ERROR_CODES_KEY]: codes,
        path,
        summary,
        description: `${description} The URL is on the storage host, signed (HMAC) and valid for \`expires\` seconds (60 to 86400, default 300). 404 until the envelope is vaulted.`,
        request: { params: EnvelopeParams, query: VaultUrlQuery },
        responses: { 200: jsonContent(dataOf(VaultUrlSchema), "A signed download URL") },
      },
      errors,
    ),
  );

const handlerFor =
  (file: VaultFile): OrgRouteHandler<ReturnType<typeof vaultUrlRoute>> =>
  async (c) => {
    const url = await createVaultUrl(c.var.ctx, {
      envelopeId: c.req.valid("param").envelope_id,
      file,
      expiresIn: c.req.valid("query").expires,
    });
    return c.json({ data: url }, 200);
  };

export const authoritativeRoute = vaultUrlRoute(
  "getAuthoritativeCopyUrl",
  "/partner/envelopes/{envelope_id}/vault/signed-url",
  "Download URL of the authoritative copy",
  "Downloads follow control (docs/control.md): issued to the envelope's organization only while it controls the vault record; once it sold or pledged the record, 403 `not_controller` (the controller downloads it at GET /partner/vault/{vault_id}/signed-url); after a paid-off or a paper-out, 409 `control_closed`. The URL names the organization it is issued to: once that organization no longer controls the record (an accepted transfer, a pledge or its release), the download answers 403 `not_controller`; once control is closed (paid off, paper-out), 409 `control_closed`. An offer alone changes nothing. The download re-computes the SHA-256 and refuses (409) a document that no longer matches the hash recorded at vaulting, recording a tamper event.",
  [400, 404, 409, 503],
  AUTHORITATIVE_COPY_ERRORS,
);
export const authoritativeHandler = handlerFor("authoritative");

export const copyRoute = vaultUrlRoute(
  "getNonAuthoritativeCopyUrl",
  "/partner/envelopes/{envelope_id}/vault/copy/signed-url",
  "Download URL of the non-authoritative copy",
  "The copy carries NON-AUTHORITATIVE COPY on every page and in its metadata. A destroyed record: 409 `record_destroyed`.",
  [400, 404, 409, 503],
  RECORD_DESTROYED_ERRORS,
);
export const copyHandler = handlerFor("copy");
