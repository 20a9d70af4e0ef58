import { createOrgRouter } from "../../../lib/hono";
import * as createEndpoint from "./create-endpoint";
import * as deleteEndpoint from "./delete-endpoint";
import * as eventCatalog from "./event-catalog";
import * as getDelivery from "./get-delivery";
import * as listDeliveries from "./list-deliveries";
import * as listEndpoints from "./list-endpoints";
import * as redeliver from "./redeliver";
import * as rotateSecret from "./rotate-secret";
import * as testEndpoint from "./test-endpoint";
import * as updateEndpoint from "./update-endpoint";

export const webhooksRouter = createOrgRouter()
  .openapi(listEndpoints.route, listEndpoints.handler)
  .openapi(createEndpoint.route, createEndpoint.handler)
  .openapi(updateEndpoint.route, updateEndpoint.handler)
  .openapi(deleteEndpoint.route, deleteEndpoint.handler)
  .openapi(rotateSecret.route, rotateSecret.handler)
  .openapi(testEndpoint.route, testEndpoint.handler)
  .openapi(listDeliveries.route, listDeliveries.handler)
  .openapi(getDelivery.route, getDelivery.handler)
  .openapi(redeliver.route, redeliver.handler)
  .openapi(eventCatalog.route, eventCatalog.handler);
