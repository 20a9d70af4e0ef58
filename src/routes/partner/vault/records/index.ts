import { createOrgRouter } from "../../../../lib/hono";
import * as attestation from "./attestation";
import * as certificate from "./certificate";
import * as controlHistory from "./control-history";
import * as get from "./get";
import * as list from "./list";
import * as signedUrl from "./signed-url";
import * as destroy from "../retention/destroy";
import * as holds from "../retention/holds";

/** The book and each record under /partner/vault/{vault_id} (docs/control.md): reads, downloads, history, attestation. */
export const recordsRouter = createOrgRouter()
  .openapi(list.route, list.handler)
  .openapi(get.route, get.handler)
  .openapi(signedUrl.authoritativeRoute, signedUrl.authoritativeHandler)
  .openapi(signedUrl.copyRoute, signedUrl.copyHandler)
  .openapi(certificate.route, certificate.handler)
  .openapi(signedUrl.certificateRoute, signedUrl.certificateHandler)
  .openapi(signedUrl.evidenceRoute, signedUrl.evidenceHandler)
  .openapi(controlHistory.route, controlHistory.handler)
  .openapi(attestation.route, attestation.handler)
  .openapi(holds.placeRoute, holds.placeHandler)
  .openapi(holds.releaseRoute, holds.releaseHandler)
  .openapi(destroy.route, destroy.handler);
