// The demo credentials box `npm run dev` prints once /health answers (scripts/dev.mjs), from the
// git-ignored .dev-demo.json that scripts/dev-setup.mjs wrote.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export function readDemo(root) {
  const file = join(root, ".dev-demo.json");
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

/** The box, with the base URL the server really answers on. */
export function banner(demo, baseUrl = demo.base_url ?? "http://localhost:8787") {
  const envelopeBody = JSON.stringify({ envelope_name: "Demo contract", customer_email: "jane@example.com", customer_name: "Jane Doe" });
  const lines = [
    "esign-vault local dev",
    "",
    `URL          ${baseUrl}`,
    `API docs     ${baseUrl}/api/v2/docs`,
    `Org          ${demo.org_id}  (${demo.org_name})`,
    ...(demo.second_org_id ? [`Second org   ${demo.second_org_id}  (${demo.second_org_name ?? "Demo Dealer"}, on shard 2; X-Org-Id in the console)`] : []),
    `Admin user   ${demo.user_id}  (${demo.user_email})`,
    `API key      ${demo.api_key}`,
    `Key id       ${demo.key_id}  (all scopes, ${demo.rate_limit_rpm ?? 60} rpm)`,
    `Operator     OPERATOR_TOKEN in .dev.vars  (npm run operator -- help)`,
    `Saved in     .dev-demo.json (git-ignored)`,
    "",
    "Create an envelope:",
    `curl -s -X POST ${baseUrl}/api/v2/partner/envelopes -H "X-API-Key: ${demo.api_key}" -H "Content-Type: application/json" -d '${envelopeBody}'`,
    "",
    "List envelopes:",
    `curl -s ${baseUrl}/api/v2/partner/envelopes -H "X-API-Key: ${demo.api_key}"`,
  ];
  // Long lines (the curl commands) are not wrapped, so they stay copy-pasteable; the box fits the rest.
  const width = Math.max(...lines.filter((l) => !l.startsWith("curl")).map((l) => l.length));
  const bar = "═".repeat(width + 2);
  const out = [`╔${bar}╗`];
  for (const l of lines) out.push(l.startsWith("curl") ? l : `║ ${l.padEnd(width)} ║`);
  out.push(`╚${bar}╝`);
  return `\n${out.join("\n")}\n`;
}
