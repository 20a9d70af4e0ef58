import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonBody, jsonContent, mergeErrorCodes } from "../../lib/openapi";
import { SignerConsentSchema } from "../../services/consent/schema";
import { GIVE_CONSENT_ERRORS, giveConsent, withdrawConsent } from "../../services/signing/consent-signing";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { OTP_GATE_ERRORS } from "../../services/otp/gate";
import { KBA_GATE_ERRORS } from "../../services/kba/gate";

const ConsentBody = z
  .strictObject({ agree: z.boolean().openapi({ description: "true: consent to electronic records; false: withdraw (or refuse) consent, which declines" }) })
  .openapi("SignerConsentInput", { example: { agree: true } });

const Consented = z.object({ consent: SignerConsentSchema });
const Withdrawn = z.object({ signer_status: z.literal("declined"), envelope_status: z.literal("declined") });

export const route = createRoute(signerRoute({
  method: "post",
  operationId: "answerSigningConsent",
  [ERROR_CODES_KEY]: mergeErrorCodes(GIVE_CONSENT_ERRORS, KBA_GATE_ERRORS, OTP_GATE_ERRORS),
  path: "/signing/{slug}/consent",
  summary: "Consent to electronic records (E-SIGN), or withdraw",
  description:
    "On an envelope that asks for consent (GET /signing/{slug} `consent` not null), after KBA where required (403 `kba_required` before). " +
    "`agree: true` records the consent (an audit entry naming the disclosure's version and SHA-256, the time, address and user agent) and answers `consent` with `given_at`; repeating it changes nothing. " +
    "`agree: false` withdraws: recorded, and the signer declines with reason `consent_withdrawn` as POST /signing/{slug}/decline does (the envelope is `declined`). " +
    `An envelope that asks for no consent: 409 \`consent_not_required\`; a signer who has signed: 409. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams, body: jsonBody(ConsentBody) },
  responses: {
    200: jsonContent(dataOf(z.union([Consented, Withdrawn])), "The consent given, or (withdrawn) the decline"),
    ...errorResponses(400, 403, 404, 409, 410, 415, 422, 429),
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { signerId } = await signerByCredential(c.var.ctx, c.req.valid("param").slug, "consent");
  const data = c.req.valid("json").agree ? await giveConsent(c.var.ctx, { signerId }) : await withdrawConsent(c.var.ctx, { signerId });
  return c.json({ data }, 200);
};
