/**
 * A request path as it may be logged: a signer's slug is a credential (whoever holds the link can
 * sign), so `/signing/<slug>/…` and the pages' `/s/<slug>` keep their shape and lose the slug.
 */
export function redactPath(path: string): string {
  return path.replace(/(\/signing\/|\/s\/)[^/]+/g, "$1[slug]");
}
