import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compactVerify, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodySha256 } from "../../sdk/src/index";
// @ts-expect-error: a plain ES module script
import { buildServer } from "../scripts/build.mjs";

const doc = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "sdk", "openapi.json"), "utf8")) as { paths: Record<string, Record<string, { operationId: string }>> };
const partnerOperations = Object.entries(doc.paths)
  .filter(([path]) => path.startsWith("/api/v2/partner"))
  .flatMap(([, ops]) => Object.values(ops).map((op) => op.operationId));

/** A stand-in for the service: records what reached it, answers 404 for envelopes it does not know. */
const seen: { method: string; url: string; apiKey: string | undefined; signature?: string }[] = [];
let service: HttpServer;
let origin = "";
let client: Client;
let signing: Client;
const controlKey = await generateKeyPair("ES256", { extractable: true });

beforeAll(async () => {
  service = createHttpServer((req, res) => {
    const signature = req.headers["control-signature"] as string | undefined;
    seen.push({ method: req.method!, url: req.url!, apiKey: req.headers["x-api-key"] as string | undefined, ...(signature ? { signature } : {}) });
    if (req.url === "/api/v2/partner/vault/vlt_1") {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ data: { vault_id: "vlt_1", control_seq: 7 } }));
    } else if (req.url === "/api/v2/partner/vault/vlt_1/transfers") {
      res.writeHead(201, { "Content-Type": "application/json" }).end(JSON.stringify({ data: { transfer_id: "vtr_1", status: "pending" } }));
    } else if (req.url!.includes("env_known")) {
      res.writeHead(200, { "Content-Type": "application/json", "X-Request-Id": "req_1" }).end(JSON.stringify({ data: { envelope_id: "env_known", status: "sent" } }));
    } else res.writeHead(404, { "Content-Type": "application/json", "X-Request-Id": "req_2" }).end(JSON.stringify({ error: "Envelope not found", code: "envelope_not_found" }));
  });
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(service.address() as { port: number }).port}`;
  // built where it ships (dist/): Node resolves the bundle's npm dependencies from the file's own place
  const server = await buildServer();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [server],
    cwd: join(import.meta.dirname, ".."),
    env: { ...(process.env as Record<string, string>), ESIGN_VAULT_API_KEY: "ev_test_key", ESIGN_VAULT_BASE_URL: origin },
  });
  client = new Client({ name: "tools-test", version: "0.0.0" });
  await client.connect(transport);
  signing = new Client({ name: "tools-test-signing", version: "0.0.0" });
  await signing.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [server],
      env: { ...(process.env as Record<string, string>), ESIGN_VAULT_API_KEY: "ev_test_key", ESIGN_VAULT_BASE_URL: origin, ESIGN_VAULT_CONTROL_JWK: JSON.stringify(await exportJWK(controlKey.privateKey)) },
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await signing?.close();
  await new Promise((resolve) => service?.close(resolve));
});

describe("MCP server (stdio)", () => {
  it("lists one tool per partner operation of the OpenAPI document, each with an object input schema", async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(partnerOperations.length);
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["create_envelope", "send_envelope", "get_envelope", "list_envelopes", "vault_signed_envelope", "offer_vault_transfer", "accept_vault_transfer", "create_template"]));
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(JSON.stringify(tool.inputSchema)).not.toContain("$ref");
    }
    const create = tools.find((t) => t.name === "create_envelope")!;
    expect(create.inputSchema.required).toContain("body");
    expect(JSON.stringify(create.inputSchema.properties!.body)).toContain("customer_email");
    const get = tools.find((t) => t.name === "get_envelope")!;
    expect(get.inputSchema.required).toEqual(["envelope_id"]);
    const accept = tools.find((t) => t.name === "accept_vault_transfer")!;
    expect(Object.keys(accept.inputSchema.properties!)).toEqual(expect.arrayContaining(["transfer_id", "control_signature"]));
    const upload = tools.find((t) => t.name === "create_template")!;
    expect(JSON.stringify(upload.inputSchema.properties!.file)).toContain("local file");
  });

  it("calls the service through the SDK with the API key, and gives a refusal back as an error result", async () => {
    const ok = await client.callTool({ name: "get_envelope", arguments: { envelope_id: "env_known" } });
    expect(ok.isError).toBeFalsy();
    expect(JSON.parse((ok.content as { text: string }[])[0]!.text)).toEqual({ data: { envelope_id: "env_known", status: "sent" } });
    expect(seen.at(-1)).toEqual({ method: "GET", url: "/api/v2/partner/envelopes/env_known", apiKey: "ev_test_key" });

    const missing = await client.callTool({ name: "get_envelope", arguments: { envelope_id: "env_gone" } });
    expect(missing.isError).toBe(true);
    expect(JSON.parse((missing.content as { text: string }[])[0]!.text)).toMatchObject({ status: 404, code: "envelope_not_found", request_id: "req_2" });
  });

  it("signs a record action with its control key when it has one: the record's control_seq read first, the body hashed", async () => {
    const body = { kind: "assignment", to_org_id: "org_2" };
    const offered = await signing.callTool({ name: "offer_vault_transfer", arguments: { vault_id: "vlt_1", body } });
    expect(offered.isError).toBeFalsy();
    const post = seen.at(-1)!;
    expect(post).toMatchObject({ method: "POST", url: "/api/v2/partner/vault/vlt_1/transfers" });
    expect(seen.at(-2)).toMatchObject({ method: "GET", url: "/api/v2/partner/vault/vlt_1" });
    const { payload } = await compactVerify(post.signature!, controlKey.publicKey);
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ vault_id: "vlt_1", action: "transfer", control_seq: 7, body_sha256: await bodySha256(body) });
  });
});
