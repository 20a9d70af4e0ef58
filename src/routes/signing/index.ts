import { createRouter } from "../../lib/hono";
import * as attachmentUpload from "./attachment-upload";
import * as consent from "./consent";
import * as decline from "./decline";
import * as document from "./document";
import * as get from "./get";
import * as kbaAnswer from "./kba-answer";
import * as kbaGet from "./kba-get";
import * as otpSend from "./otp-send";
import * as otpVerify from "./otp-verify";
import * as paymentToken from "./payment-token";
import * as submit from "./submit";
import * as view from "./view";

/** The signer API under /api/v2/signing/:slug: no API key or session, the slug is the credential (signerRoute). */
export const signingRouter = createRouter()
  .openapi(get.route, get.handler)
  .openapi(document.route, document.handler)
  .openapi(view.route, view.handler)
  .openapi(submit.route, submit.handler)
  .openapi(decline.route, decline.handler)
  .openapi(consent.route, consent.handler)
  .openapi(kbaGet.route, kbaGet.handler)
  .openapi(kbaAnswer.route, kbaAnswer.handler)
  .openapi(otpSend.route, otpSend.handler)
  .openapi(attachmentUpload.route, attachmentUpload.handler)
  .openapi(otpVerify.route, otpVerify.handler)
  .openapi(paymentToken.route, paymentToken.handler);
