import { createRouter } from "../../lib/hono";
import { clientThrottle } from "../../middleware/client-throttle";
import * as download from "./download";

/**
 * The storage host ({storage_host}): signed vault downloads. Mounted on the root app, outside
 * /api/v2, under `/storage`, so STORAGE_HOST is this Worker's origin plus `/storage` (a separate
 * hostname routed to the Worker keeps the `/storage` path).
 */
export const storageRouter = createRouter();
// Each download re-hashes the vaulted file (up to 50 MB) for as long as the URL lives: flood-limited per address like the signer API.
storageRouter.use("/storage/*", clientThrottle);
storageRouter.openapi(download.route, download.handler);
