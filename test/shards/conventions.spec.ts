/// <reference types="vite/types/importMeta.d.ts" />
import { describe, expect, it } from "vitest";

/**
 * The split of docs/decisions/shards.md 1, checked on the source: D1 has no statement across two
 * databases, so no SQL text may name a global table and a shard table together (a JOIN, a subquery, an
 * INSERT … SELECT). Tables that live on both sides by row (audit_log: org chains global, record chains on
 * shards; templates and their fields and provider templates: the organization's global, builder working
 * copies on shards) are neutral.
 */
const GLOBAL = new Set(["organizations", "users", "memberships", "api_keys", "idempotency_keys", "document_packages", "document_package_items", "webhook_endpoints", "esign_disclosures", "control_keys", "control_jtis", "shards", "org_shards"]);
const NEUTRAL = new Set(["audit_log", "templates", "template_fields", "signing_provider_templates"]);

const schema = import.meta.glob<string>("../../src/db/schema/*.ts", { query: "?raw", import: "default", eager: true });
const sources = {
  ...import.meta.glob<string>("../../src/**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob<string>("../../durable-objects/**/*.ts", { query: "?raw", import: "default", eager: true }),
};

const TABLES = new Set(Object.values(schema).flatMap((text) => [...text.matchAll(/sqliteTable\(\s*"([a-z_]+)"/g)].map((m) => m[1]!)));
const SHARD = new Set([...TABLES].filter((t) => !GLOBAL.has(t) && !NEUTRAL.has(t)));

/** The string and template literals of a source file (template literals without nested backticks). */
const literals = (text: string) => [...text.matchAll(/`[^`]*`|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g)].map((m) => m[0]);
const tablesNamed = (sql: string) => new Set([...sql.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+[`"]?([a-z_]+)/gi)].map((m) => m[1]!.toLowerCase()).filter((t) => TABLES.has(t)));

describe("no SQL statement spans the global database and a shard", () => {
  it("knows the schema's tables and places every one", () => {
    expect(TABLES.size).toBeGreaterThan(30);
    for (const t of [...GLOBAL, ...NEUTRAL]) expect(TABLES.has(t), t).toBe(true);
    expect(SHARD.has("envelopes") && SHARD.has("customers") && SHARD.has("webhook_deliveries")).toBe(true);
  });

  it("finds no statement naming a global table and a shard table together", () => {
    const offenders: string[] = [];
    for (const [file, text] of Object.entries(sources)) {
      for (const sql of literals(text)) {
        const named = tablesNamed(sql);
        const global = [...named].filter((t) => GLOBAL.has(t));
        const shard = [...named].filter((t) => SHARD.has(t));
        if (global.length > 0 && shard.length > 0) offenders.push(`${file}: ${global.join(",")} with ${shard.join(",")}: ${sql.replace(/\s+/g, " ").slice(0, 160)}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("would catch one (the check itself can fail)", () => {
    const sql = "`SELECT e.id, o.name FROM envelopes e JOIN organizations o ON o.id = e.org_id`";
    const named = tablesNamed(literals(sql)[0]!);
    expect([...named].some((t) => GLOBAL.has(t)) && [...named].some((t) => SHARD.has(t))).toBe(true);
  });
});
