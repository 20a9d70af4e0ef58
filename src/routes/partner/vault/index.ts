import { createOrgRouter } from "../../../lib/hono";
import * as certificate from "./certificate";
import * as certificateSignedUrl from "./certificate-signed-url";
import * as evidenceSignedUrl from "./evidence-signed-url";
import * as signedUrl from "./signed-url";
import * as vaultInSigned from "./vault-in-signed";
import * as vaultInUpload from "./vault-in-upload";

export const vaultRouter = createOrgRouter()
  .openapi(vaultInSigned.route, vaultInSigned.handler)
  .openapi(vaultInUpload.route, vaultInUpload.handler)
  .openapi(signedUrl.authoritativeRoute, signedUrl.authoritativeHandler)
  .openapi(signedUrl.copyRoute, signedUrl.copyHandler)
  .openapi(certificate.route, certificate.handler)
  .openapi(certificateSignedUrl.route, certificateSignedUrl.handler)
  .openapi(evidenceSignedUrl.route, evidenceSignedUrl.handler);
