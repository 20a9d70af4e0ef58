import { createMiddleware } from "hono/factory";
import type { Env } from "../env";
import type { AppEnv } from "../lib/hono";
import { isSigningSession, openSigningSession } from "../services/embed/signing-session";

/**
 * Set on the request the signer routes serve for an embedded signing session: when the session ends
 * (epoch seconds), so nothing minted from it (the Sign + Pay payment token) outlives it. Removed from
 * every request that arrives from outside.
 */
export const SESSION_EXPIRES_HEADER = "x-signing-session-expires";

type Dispatch = (req: Request, env: Env, executionCtx?: ExecutionContext) => Response | Promise<Response>;

/**
 * `/api/v2/signing/{session}/...`, where the embedded sign widget puts its short-lived signing
 * session (services/embed/signing-session.ts) in place of the signer's slug: the session is opened
 * (404 if forged, 410 once expired) and the request is served as the slug's, through the whole app
 * again, so every signer route, its checks and its throttle apply unchanged. The slug itself never
 * reaches the browser.
 */
export function signingSessions(base: string, dispatch: Dispatch) {
  const prefix = `${base}/signing/`;
  return createMiddleware<AppEnv>(async (c, next) => {
    const rest = c.req.path.slice(prefix.length);
    const cut = rest.indexOf("/");
    const credential = cut === -1 ? rest : rest.slice(0, cut);
    if (!isSigningSession(credential)) {
      if (c.req.header(SESSION_EXPIRES_HEADER) !== undefined) {
        const headers = new Headers(c.req.raw.headers);
        headers.delete(SESSION_EXPIRES_HEADER);
        c.req.raw = new Request(c.req.raw, { headers });
      }
      return next();
    }
    const { slug, expiresAt } = await openSigningSession(c.env, credential);
    const url = new URL(c.req.url);
    url.pathname = `${prefix}${slug}${cut === -1 ? "" : rest.slice(cut)}`;
    const inner = new Request(url, c.req.raw);
    inner.headers.set(SESSION_EXPIRES_HEADER, String(expiresAt));
    let executionCtx: ExecutionContext | undefined;
    try {
      executionCtx = c.executionCtx;
    } catch {
      executionCtx = undefined;
    }
    return dispatch(inner, c.env, executionCtx);
  });
}
