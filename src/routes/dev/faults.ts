import { createRoute, z } from "@hono/zod-openapi";
import { faultStats, setFaultsPaused } from "../../lib/faults";
import type { AppRouteHandler } from "../../lib/hono";
import { errorResponses, jsonContent } from "../../lib/openapi";
import { devPagesOnly } from "../../middleware/dev-pages";
import { checkInvariants } from "../../services/invariants/check";
import { publicRoute } from "../define";

const FaultStats = z.object({
  data: z.object({
    faults: z.string().nullable().openapi({ description: "the FAULTS plan this deployment runs with (null: none)" }),
    paused: z.boolean(),
    injected: z.record(z.string(), z.number().int()).openapi({ description: "faults injected by this isolate, by `<target>.<kind>`" }),
  }),
});

export const DEV_ONLY =
  "Served only when `DEV_PAGES` is `true` in development (`SERVICE_ENV=development`); otherwise 404, or 503 naming `DEV_PAGES` when it is `true` in production.";

export const getRoute = createRoute(publicRoute({
  method: "get",
  operationId: "getDevFaults",
  path: "/dev/faults",
  summary: "Faults injected so far (development only)",
  description: `What the fault layer (\`FAULTS\`, docs/decisions/fault-layer.md) has injected in this isolate, by binding and kind: the soak's table. ${DEV_ONLY}`,
  tags: ["Development"],
  middleware: [devPagesOnly] as const,
  responses: { 200: jsonContent(FaultStats, "The plan and the counts"), ...errorResponses(404, 503) },
}));

export const getHandler: AppRouteHandler<typeof getRoute> = (c) => c.json({ data: { faults: c.env.FAULTS?.trim() || null, ...faultStats() } }, 200);

export const setRoute = createRoute(publicRoute({
  method: "post",
  operationId: "setDevFaults",
  path: "/dev/faults",
  summary: "Pause or resume the injected faults (development only)",
  description: `Pauses (or resumes) the fault layer in this isolate without a restart, so the soak can let the crons catch up with the faults off. ${DEV_ONLY}`,
  tags: ["Development"],
  middleware: [devPagesOnly] as const,
  request: { body: { content: { "application/json": { schema: z.object({ paused: z.boolean() }) } }, required: true } },
  responses: { 200: jsonContent(FaultStats, "The plan and the counts, after the change"), ...errorResponses(404, 422, 503) },
}));

export const setHandler: AppRouteHandler<typeof setRoute> = (c) => {
  setFaultsPaused(c.req.valid("json").paused);
  return c.json({ data: { faults: c.env.FAULTS?.trim() || null, ...faultStats() } }, 200);
};

const Report = z.object({
  data: z.object({
    checked: z.record(z.string(), z.number().int()),
    broken: z.record(z.string(), z.array(z.string())),
    broken_total: z.number().int(),
    retry_scheduled: z.array(z.object({ event_id: z.string(), endpoint_id: z.string(), next_attempt_at: z.string().nullable() })),
  }),
});

export const invariantsRoute = createRoute(publicRoute({
  method: "get",
  operationId: "checkDevInvariants",
  path: "/dev/invariants",
  summary: "Invariant check over every database and the bucket (development only)",
  description: `Reads every shard, the global database and the vaulted objects: every audit chain verifies, every vaulted record's object hashes to its document_hash, nothing a sweep should have moved is stuck, every webhook delivery succeeded once per event and endpoint. Reads only; the soak's last step. ${DEV_ONLY}`,
  tags: ["Development"],
  middleware: [devPagesOnly] as const,
  responses: { 200: jsonContent(Report, "What was checked and what broke"), ...errorResponses(404, 503) },
}));

export const invariantsHandler: AppRouteHandler<typeof invariantsRoute> = async (c) => c.json({ data: await checkInvariants(c.var.ctx) }, 200);
