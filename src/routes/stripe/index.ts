import { createRouter } from "../../lib/hono";
import * as webhook from "./webhook";

/** Inbound notifications of the payment processor: outside every partner, session or embed auth (the signature is the credential). */
export const stripeRouter = createRouter().openapi(webhook.route, webhook.handler);
