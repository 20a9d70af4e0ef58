import { createMiddleware } from "hono/factory";
import { timingSafeEqual } from "../lib/crypto";
import { unauthorized } from "../lib/errors";
import type { AppEnv } from "../lib/hono";
import { requireSecret } from "../lib/secrets";

/** The operator API takes `Authorization: Bearer <OPERATOR_TOKEN>` and nothing else. */
export const operatorAuth = createMiddleware<AppEnv>(async (c, next) => {
  const expected = requireSecret(c.env, "OPERATOR_TOKEN");
  const header = c.req.header("authorization") ?? "";
  const token = header.startsWith("Bearer ") ? header.slice(7) : "";
  if (!token || !timingSafeEqual(token, expected)) {
    throw unauthorized("Operator token required: send Authorization: Bearer <OPERATOR_TOKEN>");
  }
  // The operator acts on any organization: the verbs take the target org id as input.
  c.set("ctx", { ...c.var.ctx, orgId: null, actor: { type: "operator", id: null, ip: c.req.header("cf-connecting-ip") ?? null } });
  await next();
});
