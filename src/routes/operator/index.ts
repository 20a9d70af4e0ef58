import { createRouter } from "../../lib/hono";
import { operatorAuth } from "../../middleware/operator-auth";
import { apiKeysRouter } from "./api-keys";
import * as bulkProgress from "./bulk-progress";
import * as customers from "./customers";
import * as orgs from "./orgs";
import * as users from "./users";
import * as usage from "./usage";

export const operatorRouter = createRouter();
operatorRouter.use("/operator/*", operatorAuth);
operatorRouter
  .openapi(orgs.createOrgRoute, orgs.createOrgHandler)
  .openapi(orgs.patchOrgRoute, orgs.patchOrgHandler)
  .route("/", apiKeysRouter)
  .openapi(users.createUserRoute, users.createUserHandler)
  .openapi(users.accessTokenRoute, users.accessTokenHandler)
  .openapi(customers.createCustomerRoute, customers.createCustomerHandler)
  .openapi(usage.usageRoute, usage.usageHandler)
  .openapi(bulkProgress.bulkProgressRoute, bulkProgress.bulkProgressHandler);
