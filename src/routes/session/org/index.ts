import { createOrgRouter } from "../../../lib/hono";
import * as auditExport from "./audit-export";
import * as getEmbedSettings from "./get-embed-settings";
import * as getEsignDisclosure from "./get-esign-disclosure";
import * as putEmbedSettings from "./put-embed-settings";
import * as putEsignDisclosure from "./put-esign-disclosure";
import * as retention from "./retention";
import * as getSettings from "./get-settings";
import * as putSettings from "./put-settings";

export const orgRouter = createOrgRouter()
  .openapi(getEmbedSettings.route, getEmbedSettings.handler)
  .openapi(putEmbedSettings.route, putEmbedSettings.handler)
  .openapi(getEsignDisclosure.route, getEsignDisclosure.handler)
  .openapi(putEsignDisclosure.route, putEsignDisclosure.handler)
  .openapi(retention.getRoute, retention.getHandler)
  .openapi(retention.putRoute, retention.putHandler)
  .openapi(getSettings.route, getSettings.handler)
  .openapi(putSettings.route, putSettings.handler)
  .openapi(auditExport.route, auditExport.handler);
