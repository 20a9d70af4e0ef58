import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { jsonContent } from "../../lib/openapi";
import { publishedVerifier } from "../../services/evidence/verify-script";
import { publicRoute } from "../define";

const VerifierSchema = z
  .object({
    sha256: z.string().openapi({ description: "SHA-256 (lower-case hex) of verify.mjs exactly as every evidence bundle of this deployment carries it: `sha256sum verify.mjs` must print it" }),
    size_bytes: z.number().int(),
    filename: z.literal("verify.mjs"),
    url: z.string().openapi({ description: "This route with `?format=raw`: the script itself" }),
  })
  .openapi("EvidenceVerifier");

export const route = createRoute(publicRoute({
  method: "get",
  operationId: "getEvidenceVerifier",
  path: "/evidence/verifier",
  summary: "The evidence bundles' verifier (verify.mjs) and its SHA-256",
  description:
    "Public, no credential. An auditor checks the `verify.mjs` inside a bundle before running it: its SHA-256 must be the one published here (docs/evidence.md). JSON `{ sha256, size_bytes, filename, url }`; with `?format=raw` the script itself (`text/javascript`), with the same hash in the `ETag` and `Repr-Digest` (RFC 9530) headers. Cacheable for 5 minutes.",
  tags: ["Meta"],
  request: { query: z.object({ format: z.enum(["json", "raw"]).optional().openapi({ description: "`raw`: the script itself" }) }) },
  responses: {
    200: {
      description: "The verifier's SHA-256 (JSON), or the script (?format=raw)",
      content: { ...jsonContent(VerifierSchema, "").content, "text/javascript": { schema: z.string() } },
    },
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { text, sha256, bytes } = await publishedVerifier();
  c.header("Cache-Control", "public, max-age=300");
  c.header("ETag", `"${sha256}"`);
  if (c.req.valid("query").format === "raw") {
    const b64 = btoa(String.fromCharCode(...sha256.match(/../g)!.map((h) => parseInt(h, 16))));
    c.header("Repr-Digest", `sha-256=:${b64}:`);
    c.header("Content-Disposition", 'inline; filename="verify.mjs"');
    return c.body(text, 200, { "Content-Type": "text/javascript; charset=utf-8" }) as never;
  }
  const url = new URL(c.req.url);
  url.search = "?format=raw";
  return c.json({ sha256, size_bytes: bytes, filename: "verify.mjs" as const, url: url.toString() }, 200);
};
