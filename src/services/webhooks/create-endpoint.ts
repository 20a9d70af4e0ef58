import type { OrgContext } from "../../lib/context";
import { type ErrorCodesByStatus, unprocessable } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { endpointInsert, endpointView, getEndpoint, invalidUrl, isEndpointLimitError } from "./repository";
import { SECRET_NOTE, WEBHOOK_ENDPOINT_LIMIT } from "./schema";
import { newWebhookSecret } from "./signing";
import { checkWebhookUrl, urlPolicyOf } from "./url-policy";
import { apiIssue } from "../../lib/validation";

export type CreateEndpointInput = {
  url: string;
  description?: string;
  events: string[];
  /** legacy endpoints are created unsigned and marked as the target of PATCH /partner/webhook */
  legacy?: boolean;
};

/**
 * Registers an endpoint with a fresh `whsec_` secret, returned here and never again (only a rotation
 * shows a new one). The 25-endpoint limit is a trigger in the database, so two concurrent creates
 * cannot both take the last place; the audit entry commits or fails with the endpoint.
 */
export async function createEndpoint(ctx: OrgContext, input: CreateEndpointInput) {
  const verdict = checkWebhookUrl(input.url, urlPolicyOf(ctx.env));
  if (!verdict.ok) throw invalidUrl(input.url, verdict.reason);
  const db = ctx.global;
  const id = newId("webhookEndpoint");
  const secret = input.legacy ? null : newWebhookSecret();
  const events = [...new Set(input.events)];
  const at = nowIso();
  try {
    await commitWithOrgAudit(
      db,
      { orgId: ctx.orgId, action: "webhook_endpoint.created", actor: ctx.actor, data: { endpoint_id: id, url: input.url, events, legacy: !!input.legacy }, at },
      [endpointInsert(db, { id, orgId: ctx.orgId, url: input.url, description: input.description ?? "", events, secret, legacy: !!input.legacy, at })],
    );
  } catch (err) {
    if (isEndpointLimitError(err)) {
      throw unprocessable(`An organization may register at most ${WEBHOOK_ENDPOINT_LIMIT} webhook endpoints; delete one first`, [apiIssue(["url"], `at most ${WEBHOOK_ENDPOINT_LIMIT} endpoints per organization`, `${WEBHOOK_ENDPOINT_LIMIT + 1} endpoints`, "The organization already has the most endpoints it may register", "webhook_endpoint_limit")], "webhook_endpoint_limit");
    }
    throw err;
  }
  return { endpoint: endpointView(await getEndpoint(db, ctx.orgId, id)), secret };
}

/** The create and rotate responses: the endpoint, its new secret, and the note to store it now. */
export const withSecret = <T>(endpoint: T, secret: string) => ({ ...endpoint, secret, secret_note: SECRET_NOTE });

export const CREATE_ENDPOINT_ERRORS: ErrorCodesByStatus = { 422: ["webhook_endpoint_limit"] };
