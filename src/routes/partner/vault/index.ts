import { createOrgRouter } from "../../../lib/hono";
import * as certificate from "./certificate";
import * as certificateSignedUrl from "./certificate-signed-url";
import * as evidenceSignedUrl from "./evidence-signed-url";
import * as signedUrl from "./signed-url";
import * as vaultInSigned from "./vault-in-signed";
import * as vaultInUpload from "./vault-in-upload";
import { controlKeysRouter } from "./control-keys";
import { poolsRouter } from "./pools";
import { recordsRouter } from "./records";
import { transfersRouter } from "./transfers";

export const vaultRouter = createOrgRouter()
  .openapi(vaultInSigned.route, vaultInSigned.handler)
  .openapi(vaultInUpload.route, vaultInUpload.handler)
  .openapi(signedUrl.authoritativeRoute, signedUrl.authoritativeHandler)
  .openapi(signedUrl.copyRoute, signedUrl.copyHandler)
  .openapi(certificate.route, certificate.handler)
  .openapi(certificateSignedUrl.route, certificateSignedUrl.handler)
  .openapi(evidenceSignedUrl.route, evidenceSignedUrl.handler);

// Control of the authoritative copy (docs/control.md): the static paths (/partner/vault/transfers,
// /partner/vault/control-keys) before /partner/vault/{vault_id}, or the parameter would take them.
vaultRouter.route("/", transfersRouter);
vaultRouter.route("/", controlKeysRouter);
vaultRouter.route("/", poolsRouter);
vaultRouter.route("/", recordsRouter);
