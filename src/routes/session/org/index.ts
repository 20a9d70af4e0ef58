import { createOrgRouter } from "../../../lib/hono";
import * as getEmbedSettings from "./get-embed-settings";
import * as putEmbedSettings from "./put-embed-settings";

export const orgRouter = createOrgRouter()
  .openapi(getEmbedSettings.route, getEmbedSettings.handler)
  .openapi(putEmbedSettings.route, putEmbedSettings.handler);
