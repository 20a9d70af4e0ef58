/** Partner API key scopes (spec 4.2). A route declares the one it needs once, in its route object. */
export const SCOPES = [
  "envelopes:read",
  "envelopes:write",
  "vault:read",
  "vault:write",
  "compliance:read",
  "esign:write",
] as const;
export type Scope = (typeof SCOPES)[number];
