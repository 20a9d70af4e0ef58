import { createOrgRouter } from "../../../lib/hono";
import * as cancel from "./cancel";
import * as create from "./create";
import * as remove from "./delete";
import * as items from "./items";
import * as progress from "./progress";
import * as submit from "./submit";
import * as update from "./update";
import * as vaultConsent from "./vault-consent";

/** Spec 4.8: session bearer + X-Org-Id, admins only. */
export const bulkSendRouter = createOrgRouter()
  .openapi(create.route, create.handler)
  .openapi(progress.route, progress.handler)
  .openapi(update.route, update.handler)
  .openapi(remove.route, remove.handler)
  .openapi(vaultConsent.route, vaultConsent.handler)
  .openapi(items.route, items.handler)
  .openapi(submit.route, submit.handler)
  .openapi(cancel.route, cancel.handler);
