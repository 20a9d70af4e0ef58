import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { EsignVaultError, jwkKid, type ControlAction, type EsignVault } from "../../sdk/src/index";
import type { ToolDefinition } from "./tools";

export type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean };

/**
 * Runs one tool through the SDK (its retries, Idempotency-Key and errors included): the arguments are
 * split back into the operation's path, query, header and body. A refusal comes back as the tool's
 * error result, `{ status, code, error, details, request_id }`, for the model to read.
 */
export async function callTool(client: EsignVault, tool: ToolDefinition, args: Record<string, unknown>): Promise<ToolResult> {
  const path = Object.fromEntries(tool.pathParams.map((name) => [name, String(args[name] ?? "")]));
  const query = Object.fromEntries(tool.queryParams.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  const headers: Record<string, string> = {};
  for (const { arg, header } of tool.headerParams) if (typeof args[arg] === "string") headers[header] = args[arg] as string;
  let body: unknown;
  if (tool.body === "json") body = args.body;
  else if (tool.body === "multipart") body = await formOf(tool, args);
  try {
    const signs = tool.headerParams.some((h) => h.header.toLowerCase() === "control-signature");
    if (signs && !Object.keys(headers).some((h) => h.toLowerCase() === "control-signature")) Object.assign(headers, await signatureFor(client, tool, path, body));
    const request = client.api.request as unknown as (method: string, url: string, init: Record<string, unknown>) => Promise<{ data?: unknown; response: Response }>;
    const { data, response } = await request(tool.method.toLowerCase(), tool.path, {
      params: { path, query },
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(tool.body === "multipart" ? { bodySerializer: (b: unknown) => b } : {}),
      parseAs: "text",
    });
    const text = typeof data === "string" ? data : "";
    return { content: [{ type: "text", text: text || `${response.status} ${response.statusText}` }] };
  } catch (e) {
    if (!(e instanceof EsignVaultError)) throw e;
    const error = { status: e.status, code: e.code, error: e.message, details: e.details, request_id: e.requestId };
    return { content: [{ type: "text", text: JSON.stringify(error, null, 2) }], isError: true };
  }
}

/** The record actions whose record the tool's path names: signed by the server when it holds a control key. */
const RECORD_ACTIONS: Record<string, ControlAction> = {
  offer_vault_transfer: "transfer",
  release_vault_pledge: "release_pledge",
  pay_off_vault_record: "paid_off",
  paper_out_vault_record: "paper_out",
};

/**
 * The Control-Signature the server adds when it was given a control key (ESIGN_VAULT_CONTROL_JWK) and
 * the caller passed none: record actions on a vault_id (the record's control_seq read first) and key
 * changes. Answering a transfer names no record in its path, so accept/reject/cancel take the caller's
 * `control_signature`.
 */
async function signatureFor(client: EsignVault, tool: ToolDefinition, path: Record<string, string>, body: unknown): Promise<Record<string, string>> {
  const action = RECORD_ACTIONS[tool.name];
  if (action && path.vault_id) return client.recordSignature({ vaultId: path.vault_id, action, body });
  if (tool.name === "delete_control_key" && path.kid) return client.keySignature("delete_key", path.kid);
  const jwk = (body as { jwk?: Parameters<typeof jwkKid>[0] } | undefined)?.jwk;
  if (tool.name === "add_control_key" && jwk) return client.keySignature("add_key", await jwkKid(jwk));
  return {};
}

async function formOf(tool: ToolDefinition, args: Record<string, unknown>): Promise<FormData> {
  const form = new FormData();
  for (const [field, value] of Object.entries(args)) {
    if (value === undefined || tool.pathParams.includes(field) || tool.queryParams.includes(field)) continue;
    if (tool.headerParams.some((h) => h.arg === field)) continue;
    if (tool.fileFields.includes(field)) {
      const bytes = await readFile(String(value));
      form.append(field, new Blob([bytes], { type: String(value).endsWith(".pdf") ? "application/pdf" : "application/octet-stream" }), basename(String(value)));
    } else form.append(field, typeof value === "string" ? value : JSON.stringify(value));
  }
  return form;
}
