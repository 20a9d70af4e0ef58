/** Partner API key scopes (spec 4.2). A route declares the one it needs once, in its route object. */
export const SCOPES = [
  "envelopes:read",
  "envelopes:write",
  "vault:read",
  "vault:write",
  "compliance:read",
  "esign:write",
  /** PATCH /partner/webhook: pointing the organization's all-events legacy endpoint somewhere is not an envelope write */
  "webhooks:write",
  /** docs/control.md: offer, accept, reject and cancel transfers of control, release pledges, pay off, paper out, control keys */
  "vault:control",
] as const;
export type Scope = (typeof SCOPES)[number];
