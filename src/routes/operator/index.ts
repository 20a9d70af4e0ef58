import { createRouter } from "../../lib/hono";
import { operatorAuth } from "../../middleware/operator-auth";
import * as keys from "./api-keys";
import * as customers from "./customers";
import * as orgs from "./orgs";
import * as users from "./users";

export const operatorRouter = createRouter();
operatorRouter.use("/operator/*", operatorAuth);
operatorRouter
  .openapi(orgs.createOrgRoute, orgs.createOrgHandler)
  .openapi(orgs.patchOrgRoute, orgs.patchOrgHandler)
  .openapi(keys.createKeyRoute, keys.createKeyHandler)
  .openapi(keys.rotateKeyRoute, keys.rotateKeyHandler)
  .openapi(keys.patchKeyRoute, keys.patchKeyHandler)
  .openapi(keys.getKeyRoute, keys.getKeyHandler)
  .openapi(users.createUserRoute, users.createUserHandler)
  .openapi(users.accessTokenRoute, users.accessTokenHandler)
  .openapi(customers.createCustomerRoute, customers.createCustomerHandler);
