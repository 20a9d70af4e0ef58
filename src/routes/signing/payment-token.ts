import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonContent } from "../../lib/openapi";
import { signerPaymentToken } from "../../services/payments/signer-payment-token";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { CONSENT_GATE_ERRORS } from "../../services/signers/consent-gate";

const PaymentToken = z
  .object({
    payment_required: z.boolean(),
    token: z.string().optional().openapi({ description: "A `sign` embed token naming this signer: the credential of POST /embed/payment-intent and /embed/payment-status" }),
    expires_at: z.string().optional().openapi({ description: "When the token ends: 15 minutes, or sooner when asked through a signing session that ends sooner" }),
    return_url: z.string().optional().openapi({
      description: "Where the payment processor sends the payer back (3-D Secure): this signer's page under a signing session that ends with the token, never the permanent link",
    }),
  })
  .openapi("SignerPaymentToken", {
    example: { payment_required: true, token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9…", expires_at: "2026-11-23T09:45:00.000Z", return_url: "https://embed.example.com/s/es_…" },
  });

export const route = createRoute(signerRoute({
  method: "post",
  operationId: "createSignerPaymentToken",
  [ERROR_CODES_KEY]: CONSENT_GATE_ERRORS,
  path: "/signing/{slug}/payment-token",
  summary: "Sign + Pay: the payer's credential for the payment step",
  description:
    "The signing page calls it right after the signer's submit. For the envelope's designated payer, once signed and while the payment is due, answers a 15-minute `sign` embed token naming them (what POST /embed/token would mint), to send to POST /embed/payment-intent and /embed/payment-status; anyone else, or nothing due: `payment_required: false`. " +
    "No API key or session: the slug is the credential. Unlike the other signer routes it still works once the envelope is completed, while the payment is unpaid.",
  tags: SIGNING_TAGS,
  request: { params: SlugParams },
  responses: { 200: jsonContent(dataOf(PaymentToken), "The payment credential, or `payment_required: false` (`Cache-Control: no-store`)"), ...errorResponses(400, 403, 404, 410, 415, 429, 503) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const signer = await signerByCredential(c.var.ctx, c.req.valid("param").slug, "pay");
  // asked through a signing session: the payment token ends with it, never later
  const data = await signerPaymentToken(c.var.ctx, { signerId: signer.signerId, notAfter: signer.sessionExpiresAt ?? undefined });
  c.header("Cache-Control", "no-store");
  return c.json({ data }, 200);
};
