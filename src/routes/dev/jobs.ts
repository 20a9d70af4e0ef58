import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { errorResponses, jsonContent } from "../../lib/openapi";
import { devPagesOnly } from "../../middleware/dev-pages";
import { MINUTE_JOB_NAMES, runMinuteJob } from "../../jobs/minute";
import { publicRoute } from "../define";
import { DEV_ONLY } from "./faults";

const JobRun = z.object({
  data: z.object({
    job: z.string(),
    at: z.string().openapi({ description: "the clock the job ran at" }),
    shards: z.array(z.number().int()).openapi({ description: "the shards it ran on (empty: a job of the global database)" }),
    failed: z.array(z.string()).openapi({ description: "failures, named with their shard: empty when it ran through" }),
  }),
});

export const route = createRoute(publicRoute({
  method: "post",
  operationId: "runDevJob",
  path: "/dev/jobs/{job}",
  summary: "Run one of the minute's jobs now, at a given clock (development only)",
  description: `Runs one job of the every-minute cron by itself, on every bound shard (or once, for a job of the global database), with its clock at \`at\`: a job's effect at a later date (a record's retention run out, a transfer expired) without every other job running at that date. ${DEV_ONLY}`,
  tags: ["Development"],
  middleware: [devPagesOnly] as const,
  request: {
    params: z.object({ job: z.enum(MINUTE_JOB_NAMES as [string, ...string[]]).openapi({ description: "the job's name, as the minute's log names it" }) }),
    body: { content: { "application/json": { schema: z.object({ at: z.iso.datetime().openapi({ description: "the job's clock" }) }) } }, required: true },
  },
  responses: { 200: jsonContent(JobRun, "The job ran"), ...errorResponses(400, 404, 422, 503) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { job } = c.req.valid("param");
  const at = new Date(c.req.valid("json").at);
  const { shards, failed } = await runMinuteJob(c.var.ctx, job, at);
  return c.json({ data: { job, at: at.toISOString(), shards, failed } }, 200);
};
