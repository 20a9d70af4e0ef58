import { createRouter } from "../../lib/hono";
import { idempotency } from "../../middleware/idempotency";
import { partnerAuth } from "../../middleware/partner-auth";
import { envelopesRouter } from "./envelopes";

export const partnerRouter = createRouter();
partnerRouter.use("/partner/*", partnerAuth, idempotency);
partnerRouter.route("/", envelopesRouter);
