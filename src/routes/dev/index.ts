import { createRouter } from "../../lib/hono";
import * as emails from "./emails";
import * as faults from "./faults";
import * as jobs from "./jobs";
import * as sms from "./sms";

/** Pages for local development only; each answers 404 unless DEV_PAGES is "true". */
export const devRouter = createRouter()
  .openapi(emails.route, emails.handler)
  .openapi(sms.route, sms.handler)
  .openapi(faults.getRoute, faults.getHandler)
  .openapi(faults.setRoute, faults.setHandler)
  .openapi(faults.invariantsRoute, faults.invariantsHandler)
  .openapi(jobs.route, jobs.handler);
