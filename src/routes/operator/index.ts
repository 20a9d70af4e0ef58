import { createRouter } from "../../lib/hono";
import { apiKeysRouter } from "./api-keys";
import * as bulkProgress from "./bulk-send/progress";
import * as addUser from "./orgs/add-user";
import * as createOrg from "./orgs/create";
import * as createCustomer from "./orgs/create-customer";
import * as getOrg from "./orgs/get";
import * as listOrgs from "./orgs/list";
import * as recoverControlKeys from "./orgs/recover-control-keys";
import * as updateOrg from "./orgs/update";
import * as usage from "./orgs/usage";
import { shardsRouter } from "./shards";
import * as createAccessToken from "./users/create-access-token";
import * as vaultHolds from "./vault/holds";

/** The operator API: each route checks the OPERATOR_TOKEN itself (operatorRoute). */
export const operatorRouter = createRouter()
  .openapi(createOrg.route, createOrg.handler)
  .openapi(listOrgs.route, listOrgs.handler)
  .openapi(getOrg.route, getOrg.handler)
  .openapi(updateOrg.route, updateOrg.handler)
  .route("/", shardsRouter)
  .route("/", apiKeysRouter)
  .openapi(addUser.route, addUser.handler)
  .openapi(createAccessToken.route, createAccessToken.handler)
  .openapi(createCustomer.route, createCustomer.handler)
  .openapi(usage.route, usage.handler)
  .openapi(bulkProgress.route, bulkProgress.handler)
  .openapi(recoverControlKeys.route, recoverControlKeys.handler)
  .openapi(vaultHolds.placeRoute, vaultHolds.placeHandler)
  .openapi(vaultHolds.releaseRoute, vaultHolds.releaseHandler);
