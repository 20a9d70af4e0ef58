/** Console access tokens: HS256 JWTs with these pinned claims (minted by the operator API, checked by session auth). */
export const SESSION_ISSUER = "esign-vault";
export const SESSION_AUDIENCE = "esign-vault-console";
