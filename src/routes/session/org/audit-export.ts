import { createRoute, z } from "@hono/zod-openapi";
import { badRequest } from "../../../lib/errors";
import type { OrgRouteHandler } from "../../../lib/hono";
import { exportAudit } from "../../../services/audit-export/export-audit";
import { sessionRoute } from "../common";
import { ORG_TAGS } from "./params";

const isoDate = (what: string) =>
  z
    .string()
    .datetime({ offset: true })
    .or(z.string().date())
    .optional()
    .openapi({ description: `ISO 8601 date or date-time: ${what}`, example: "2026-01-01" });

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "get",
      operationId: "exportAudit",
      path: "/org/audit-export",
      tags: ORG_TAGS,
      summary: "Export the organization's audit chains as a signed ZIP (admin)",
      description:
        "A ZIP streamed as it is made: `entries.ndjson` (one audit entry a line, each naming its chain) of the organization's own chain and of every chain of its envelopes and of the vault records it is a party of, on every shard; `manifest.json` (per chain its count and first and last hash, and the SHA-256 of entries.ndjson), `manifest.jws` (the seal's compact JWS over manifest.json), `manifest.tsr` when a timestamp authority is configured, and `verify.mjs` (`node verify.mjs --audit-export <folder or zip> --seal-sha256 <hex>`). With `from`/`to` only the entries created in `[from, to)` are exported; a chain cut by `from` starts mid-way and the manifest gives its first entry's `prev_hash`.",
      request: { query: z.object({ from: isoDate("entries created at or after"), to: isoDate("entries created before") }) },
      responses: { 200: { description: "The export's ZIP", content: { "application/zip": { schema: { type: "string", format: "binary" } } } } },
    },
    [400, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const { from, to } = c.req.valid("query");
  const [fromIso, toIso] = [from, to].map((d) => (d ? new Date(d).toISOString() : null));
  if (fromIso && toIso && fromIso >= toIso) throw badRequest("`from` must be before `to`", [{ code: "invalid_value", path: ["from"], message: "must be before to" }]);
  const body = await exportAudit(c.var.ctx, { from: fromIso ?? null, to: toIso ?? null });
  const day = new Date().toISOString().slice(0, 10);
  return c.body(body, 200, {
    "Content-Type": "application/zip",
    "Content-Disposition": `attachment; filename="audit-export-${day}.zip"`,
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  });
};
