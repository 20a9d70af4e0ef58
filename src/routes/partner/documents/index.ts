import { createOrgRouter } from "../../../lib/hono";
import * as attach from "./attach";

export const documentsRouter = createOrgRouter().openapi(attach.route, attach.handler);
