import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// Node-side checks of the OpenAPI document as tools read it, served by the same `wrangler dev` the
// browser tests use (the Workers-runtime suite cannot hand the document to Node).
const run = promisify(execFile);
const TSC = join(process.cwd(), "node_modules", "typescript", "bin", "tsc");

let source = "";
let dir = "";

beforeAll(async () => {
  const res = await fetch(`${inject("baseUrl")}/api/v2/openapi.json`);
  expect(res.status).toBe(200);
  source = await res.text();
  dir = mkdtempSync(join(tmpdir(), "esign-openapi-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Create an envelope, send it, poll its status: what a partner integration does first. */
const JOURNEY = `
import type { paths } from "./api";

type Create = paths["/api/v2/partner/envelopes"]["post"];
type Send = paths["/api/v2/partner/envelopes/{envelope_id}/send"]["post"];
type Status = paths["/api/v2/partner/envelopes/{envelope_id}/status"]["get"];
type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;

async function call<T>(base: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(base + path, { method, headers: { "X-API-Key": key, ...(body === undefined ? {} : { "Content-Type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await res.json()) as T;
}

export async function journey(base: string, key: string): Promise<"sent" | "viewed" | string> {
  const input: Json<Create["requestBody"]> = { envelope_name: "Retail installment contract", customer_email: "jane@example.com", customer_name: "Jane Doe" };
  // @ts-expect-error customer_email is required
  const incomplete: Json<Create["requestBody"]> = { envelope_name: "x", customer_name: "y" };
  void incomplete;
  const created = await call<Json<Create["responses"][201]>>(base, key, "POST", "/api/v2/partner/envelopes", input);
  const envelopeId: string = created.data.envelope_id;
  const path: Send["parameters"]["path"] = { envelope_id: envelopeId };
  // the send body is optional: a bodiless POST is allowed
  const sent = await call<Json<Send["responses"][200]>>(base, key, "POST", \`/api/v2/partner/envelopes/\${path.envelope_id}/send\`);
  const slug: string = sent.data.signers[0]!.slug;
  void slug;
  const status = await call<Json<Status["responses"][200]>>(base, key, "GET", \`/api/v2/partner/envelopes/\${envelopeId}/status\`);
  const vaulted: boolean = status.data.vaulted;
  void vaulted;
  return status.data.status;
}
`;

describe("the OpenAPI document, as tools read it", () => {
  it("passes @redocly/cli's recommended rules with 0 errors", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source, absoluteRef: "openapi.json", config });
    const errors = problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it("generates a typed client (openapi-typescript) against which a partner journey typechecks", async () => {
    writeFileSync(join(dir, "api.ts"), astToString(await openapiTS(source)));
    writeFileSync(join(dir, "journey.ts"), JOURNEY);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "ES2022", moduleResolution: "Bundler", lib: ["ES2022", "DOM"], strict: true, noUncheckedIndexedAccess: true, noEmit: true, skipLibCheck: true, types: [] },
        files: ["journey.ts"],
      }),
    );
    const result = await run(process.execPath, [TSC, "-p", join(dir, "tsconfig.json")]).then(
      () => "",
      (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ""}${err.stderr ?? ""}`,
    );
    expect(result).toBe("");
  });
});
