import { createRouter } from "../../../lib/hono";
import * as attach from "./attach";

export const documentsRouter = createRouter().openapi(attach.route, attach.handler);
