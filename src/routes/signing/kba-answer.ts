import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, errorResponses, jsonBody, jsonContent } from "../../lib/openapi";
import { answerKba } from "../../services/kba/answer-kba";
import { KbaAnswerResultSchema, KbaAnswersBody } from "../../services/kba/schema";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";

export const route = createRoute(signerRoute({
  method: "post",
  operationId: "answerSigningKba",
  path: "/signing/{slug}/kba",
  summary: "Answer the identity questions (KBA envelopes)",
  description: `Scores one question set. \`passed\` unlocks the document; a wrong set uses one of 2 attempts, after which \`failed\` locks this link. Answers are never stored or returned. A session of another signer or unknown: 404; answered already: 409; lapsed: 410 (the lapse uses an attempt; \`details\` give \`kba_status\` and \`attempts_left\`); unknown question or choice ids: 422 (no attempt used); already passed or failed: 409. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams, body: jsonBody(KbaAnswersBody) },
  responses: { 200: jsonContent(dataOf(KbaAnswerResultSchema), "The outcome so far"), ...errorResponses(400, 403, 404, 409, 410, 415, 422, 429, 503) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await answerKba(c.var.ctx, { signerId: (await signerByCredential(c.var.ctx, c.req.valid("param").slug, "answer KBA")).signerId, body: c.req.valid("json") });
  c.header("Cache-Control", "private, no-store");
  return c.json({ data }, 200);
};
