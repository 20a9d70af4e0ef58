#!/usr/bin/env node
// The partner API as MCP tools over stdio. Configuration, from the environment:
//   ESIGN_VAULT_API_KEY   the partner API key (required)
//   ESIGN_VAULT_BASE_URL  the service's origin (default http://localhost:8787, `npm run dev`)
//   ESIGN_VAULT_CONTROL_JWK  optional: the organization's private control key (a JWK, JSON); record
//                         actions and key changes are then signed (Control-Signature) by the server
//   ESIGN_VAULT_CONTROL_KID  optional: that key's kid, when it is not the key's thumbprint
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import document from "../../sdk/openapi.json";
import { EsignVault } from "../../sdk/src/index";
import { callTool } from "./call";
import { partnerTools, type OpenApiDocument } from "./tools";

export function createServer(client: EsignVault): Server {
  const tools = partnerTools(document as unknown as OpenApiDocument);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new Server({ name: "esign-vault", version: "0.1.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) return { content: [{ type: "text", text: `No tool named ${request.params.name}` }], isError: true };
    return callTool(client, tool, request.params.arguments ?? {});
  });
  return server;
}

const apiKey = process.env.ESIGN_VAULT_API_KEY;
if (!apiKey) {
  console.error("ESIGN_VAULT_API_KEY is not set: the partner API key the tools act with");
  process.exit(1);
}
const controlJwk = process.env.ESIGN_VAULT_CONTROL_JWK;
const client = new EsignVault({
  apiKey,
  baseUrl: process.env.ESIGN_VAULT_BASE_URL ?? "http://localhost:8787",
  ...(controlJwk ? { controlKey: { privateJwk: JSON.parse(controlJwk), kid: process.env.ESIGN_VAULT_CONTROL_KID || undefined } } : {}),
});
await createServer(client).connect(new StdioServerTransport());
