import type { RouteConfig } from "@hono/zod-openapi";
import { ErrorSchema, jsonContent } from "../../../lib/openapi";
import type { Scope } from "../../../lib/scopes";

type RequestBody = NonNullable<NonNullable<RouteConfig["request"]>["body"]>;
type TextField = { type: "string"; maxLength?: number; description?: string; enum?: string[]; default?: string };

/**
 * Template reads: `envelopes:read` (reading what envelopes are made from), or `envelopes:write`, the
 * scope that creates templates (spec 4.7), so a key that uploads a template can read it back
 * (docs/decisions/partner-templates.md).
 */
export const TEMPLATE_READ_SCOPES: readonly Scope[] = ["envelopes:read", "envelopes:write"];

/**
 * The multipart body of a route taking a PDF, for the OpenAPI document only: a plain schema (not zod),
 * so the router does not parse the body; the route reads it itself, once and bounded.
 */
export const pdfUploadBody = (fields: Record<string, TextField> = {}, required: string[] = []): RequestBody => ({
  required: true,
  content: {
    "multipart/form-data": {
      schema: {
        type: "object",
        required: ["file", ...required],
        properties: { file: { type: "string", format: "binary", description: "The PDF, at most 50 MB, checked by its bytes" }, ...fields },
      },
    },
  },
});

export const TooLarge = jsonContent(ErrorSchema, "The file is larger than 50 MB");

/** The statuses of template writes beyond the common ones, with what they mean with the built-in provider. */
export const ProviderErrors = {
  502: jsonContent(ErrorSchema, "The signing provider rejected the write (built-in provider: its store refused it)"),
  503: jsonContent(ErrorSchema, "Signing provider not configured (never with the built-in provider)"),
};
