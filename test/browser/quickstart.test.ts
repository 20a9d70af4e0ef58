import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { api, base, ok } from "./helpers";

// The README's quickstart, run as written: its ```sh blocks, in one `bash -euo pipefail`, against the suite's
// `wrangler dev`. The test sets only the variables the README's first block tells the reader to fill in from
// `npm run dev`'s banner (BASE, API_KEY, DEALER_ORG), made here as scripts/dev-setup.mjs makes them: a
// "Demo Lender" with the demo key's scopes and rate, and a "Demo Dealer" (placed where the operator API
// places them: opening shard 2 here would move other test files' organizations). The one other input is the
// operator CLI's token, which the reader's CLI reads from .dev.vars: OPERATOR_TOKEN in the environment
// stands in for it. Every `# -> value` in the README is an answer the reader sees: stdout must be exactly
// those lines, in order.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const README_BASE = "http://localhost:8787/api/v2";
const VARS_MARKER = "@@quickstart-vars@@";

/** The ```sh blocks between the "## Quickstart" heading and the next "## " heading. */
export function quickstartBlocks(readme: string): string[] {
  const start = readme.search(/^## Quickstart/m);
  if (start < 0) throw new Error('README.md has no "## Quickstart" section');
  const rest = readme.slice(start + 3);
  const next = rest.search(/^## /m);
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Lines of the first block that assign a literal (a value the reader pastes in): name and value. */
export function handSetVariables(block: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of block.split("\n")) {
    const m = /^([A-Z][A-Z0-9_]*)=([^\s$"'(][^\s]*)\s*(#.*)?$/.exec(line);
    if (m) vars.set(m[1]!, m[2]!);
  }
  return vars;
}

/** Every `# -> value` comment, in order: what the reader is told each command prints. */
export const expectedAnswers = (script: string) => [...script.matchAll(/#\s*->\s*(\S.*?)\s*$/gm)].map((m) => m[1]!);

/** Every variable a block computes (`NAME=$(…)`), in order. */
export const computedVariables = (script: string) => [...script.matchAll(/^([A-Z][A-Z0-9_]*)=\$\(/gm)].map((m) => m[1]!);

/** The demo key's scopes and rate as scripts/dev-setup.mjs seeds them (read from the script, so they cannot drift). */
function demoKeySettings() {
  const source = readFileSync(join(root, "scripts", "dev-setup.mjs"), "utf8");
  const scopes = /const DEMO_SCOPES = (\[[^\]]*\]);/.exec(source)?.[1];
  const rpm = /const DEMO_RPM = (\d+);/.exec(source)?.[1];
  if (!scopes || !rpm) throw new Error("scripts/dev-setup.mjs no longer declares DEMO_SCOPES and DEMO_RPM as this test reads them");
  return { scopes: JSON.parse(scopes) as string[], rpm: Number(rpm) };
}

function runBash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the README quickstart", () => {
  it("runs as written: template with a tag and an anchor, send, sign, vault, certificate, transfer accepted by the second organization", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const blocks = quickstartBlocks(readme);
    expect(blocks.length).toBeGreaterThanOrEqual(3);

    // the variables the reader fills in, and only those, are the ones this test sets
    const handSet = handSetVariables(blocks[0]!);
    expect([...handSet.keys()].sort()).toEqual(["API_KEY", "BASE", "DEALER_ORG"]);
    expect(handSet.get("BASE")).toBe(README_BASE);
    expect(handSet.get("API_KEY")).toMatch(/^lk_/);
    expect(handSet.get("DEALER_ORG")).toMatch(/^org_/);

    // what npm run dev seeds and prints: Demo Lender with the demo key, and Demo Dealer
    const token = inject("operatorToken");
    const lender = await ok(api("POST", "/operator/orgs", { token, body: { name: "Demo Lender" } }));
    const dealer = await ok(api("POST", "/operator/orgs", { token, body: { name: "Demo Dealer" } }));
    const { scopes, rpm } = demoKeySettings();
    const key = await ok(api("POST", `/operator/orgs/${lender.org_id}/api-keys`, { token, body: { scopes, rate_limit_rpm: rpm, name: "Demo key (npm run dev)" } }));
    const values: Record<string, string> = { BASE: `${base()}/api/v2`, API_KEY: key.api_key, DEALER_ORG: dealer.org_id };

    const first = blocks[0]!
      .split("\n")
      .map((line) => {
        const m = /^([A-Z][A-Z0-9_]*)=/.exec(line);
        return m && handSet.has(m[1]!) ? `${m[1]}=${values[m[1]!]}` : line;
      })
      .join("\n");
    const script = [first, ...blocks.slice(1)].join("\n");
    const computed = computedVariables(script);
    const epilogue = `\nprintf '%s\\n' '${VARS_MARKER}'\n${computed.map((v) => `printf '%s=%s\\n' ${v} "$${v}"`).join("\n")}\n`;

    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", OPERATOR_TOKEN: token };
    const run = await runBash(script + epilogue, env);
    if (run.code !== 0) throw new Error(`the quickstart failed (exit ${run.code}).\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`);

    const [answers, vars] = run.stdout.split(`${VARS_MARKER}\n`);
    const printed = answers!.split("\n").filter((l) => l.trim() !== "");
    expect(printed, `stderr:\n${run.stderr}`).toEqual(expectedAnswers(script));
    // the answers that matter, whatever the README's comments say
    expect(printed).toEqual(expect.arrayContaining(["sent", "completed", "vaulted", "accepted", "Demo Dealer"]));

    const got = Object.fromEntries(vars!.trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    expect(Object.keys(got)).toEqual(expect.arrayContaining(["DEALER_KEY", "TEMPLATE", "ENVELOPE", "SLUG", "VAULT", "TRANSFER"]));
    expect(got.DEALER_KEY).toMatch(/^lk_/);
    expect(got.TEMPLATE).toMatch(/^tmpl_/);
    expect(got.ENVELOPE).toMatch(/^env_/);
    expect(got.VAULT).toMatch(/^vlt_/);
    expect(got.TRANSFER).toMatch(/^vtr_/);

    // read back with the service: the tag and the anchor made the fields, the second organization controls the copy
    const envelope = await ok(api("GET", `/partner/envelopes/${got.ENVELOPE}`, { key: key.api_key }));
    expect(envelope.status).toBe("vaulted");
    const template = await ok(api("GET", `/partner/templates/${got.TEMPLATE}`, { key: key.api_key }));
    const modes = Object.fromEntries((template.fields as { name: string; placement_mode: string }[]).map((f) => [f.name, f.placement_mode]));
    expect(modes).toEqual({ buyer_name: "tag", buyer_signature: "anchor" });
    const record = await ok(api("GET", `/partner/vault/${got.VAULT}`, { key: got.DEALER_KEY }));
    expect(record.controller.org_id).toBe(dealer.org_id);
    expect(record.originator.org_id).toBe(lender.org_id);
  }, 300_000);

  it("signs the committed examples/sample-contract.pdf, byte for byte what scripts/make-sample-pdf.mjs makes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sample-pdf-"));
    try {
      const out = join(dir, "sample-contract.pdf");
      const made = await runBash(`node scripts/make-sample-pdf.mjs ${JSON.stringify(out)}`, { PATH: process.env.PATH ?? "/usr/bin:/bin" });
      expect(made.code, made.stderr).toBe(0);
      expect(readFileSync(out).equals(readFileSync(join(root, "examples", "sample-contract.pdf"))), "run npm run sample-pdf and commit the PDF").toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
