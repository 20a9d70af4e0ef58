import { createRouter } from "../../lib/hono";
import * as attachment from "./attachment";
import * as copy from "./copy";
import * as download from "./download";

/**
 * The storage host ({storage_host}): signed vault downloads and signers' copies. Mounted on the root app, outside
 * /api/v2, under `/storage`, so STORAGE_HOST is this Worker's origin plus `/storage` (a separate
 * hostname routed to the Worker keeps the `/storage` path).
 */
export const storageRouter = createRouter();
storageRouter.openapi(download.route, download.handler);
storageRouter.openapi(copy.route, copy.handler);
storageRouter.openapi(attachment.route, attachment.handler);
