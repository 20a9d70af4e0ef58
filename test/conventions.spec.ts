/// <reference types="vite/types/importMeta.d.ts" />
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../src/app";
import { AUDIT_ACTIONS } from "../src/services/audit/actions";
import { call, createEnvelope, newTenant } from "./helpers/api";
import { everyDb, withEveryDb } from "./helpers/shards";

describe("conventions every response follows", () => {
  it("puts a unique X-Request-Id on successes, errors and unknown routes", async () => {
    const t = await newTenant();
    const ok = await call("GET", "/partner/envelopes", { key: t.key });
    const missing = await SELF.fetch("http://localhost/api/v2/nope");
    const root404 = await SELF.fetch("http://localhost/definitely/not/here");
    const health = await SELF.fetch("http://localhost/health");
    const ids = [ok.headers.get("X-Request-Id"), missing.headers.get("X-Request-Id"), root404.headers.get("X-Request-Id"), health.headers.get("X-Request-Id")];
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-z]{26}$/);
    expect(new Set(ids).size).toBe(4);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "No route for GET /api/v2/nope", code: "not_found" });
  });

  it("turns an unexpected failure into a 500 in the error shape, with X-Request-Id and no internals", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const brokenDb = {
      prepare() {
        throw new Error("D1_ERROR: database is on fire at /srv/secret/path");
      },
    } as unknown as D1Database;
    const res = await app.request(
      `http://localhost/api/v2/partner/envelopes/${e.envelope_id}`,
      { headers: { "X-API-Key": t.key } },
      withEveryDb(env, () => brokenDb),
      { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
    );
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; details: { request_id: string } };
    expect(body.error).toBe("Internal server error");
    expect(body.details.request_id).toBe(res.headers.get("X-Request-Id"));
    expect(JSON.stringify(body)).not.toMatch(/fire|secret/);
  });

  it("wraps resources in { data } and lists in { data, meta }", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const one = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
    expect(Object.keys(one.body)).toEqual(["data"]);
    const many = await call("GET", "/partner/envelopes", { key: t.key });
    expect(Object.keys(many.body).sort()).toEqual(["data", "meta"]);
  });

  it("records only audit actions of the vocabulary (services/audit/actions.ts)", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const voided = await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "wrong buyer" } });
    expect(voided.status).toBe(200);
    // the organization's chain is global, its envelopes' chains on their shard: the entries of both
    const found = new Set<string>();
    for (const db of everyDb()) for (const r of (await db.prepare("SELECT DISTINCT action FROM audit_log WHERE org_id = ?").bind(t.orgId).all<{ action: string }>()).results) found.add(r.action);
    const actions = [...found].sort();
    expect(actions).toEqual(["api_key.created", "envelope.created", "envelope.void", "org.created"]);
    for (const action of actions) expect(Object.keys(AUDIT_ACTIONS)).toContain(action);
  });

  it("answers /health without credentials", async () => {
    const res = await SELF.fetch("http://localhost/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { status: "ok" } });
  });
});

/**
 * The layers, top to bottom. A file may import its own layer or any layer below it, never one above:
 * a route calls a service, a service the providers, the database and lib; lib imports none of them.
 */
const LAYERS: { name: string; holds: (path: string) => boolean }[] = [
  { name: "entry", holds: (p) => p === "src/index.ts" || p === "src/app.ts" },
  { name: "routes, pages and jobs", holds: (p) => /^src\/(routes|pages|jobs)\//.test(p) },
  { name: "middleware", holds: (p) => p.startsWith("src/middleware/") },
  { name: "services", holds: (p) => p.startsWith("src/services/") },
  { name: "providers", holds: (p) => p.startsWith("src/providers/") },
  { name: "durable objects", holds: (p) => p.startsWith("durable-objects/") },
  { name: "pdf", holds: (p) => p.startsWith("src/pdf/") },
  { name: "db and lib", holds: (p) => /^src\/(db|lib)\//.test(p) },
  { name: "env", holds: (p) => p === "src/env.ts" },
];
/** env.ts declares the bindings, so it names the Durable Object classes (type only); the objects declare the bindings they use. */
const ALLOWED_UP = [{ from: "src/env.ts", to: /^durable-objects\// }];

const sources = {
  ...import.meta.glob<string>("../src/**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob<string>("../durable-objects/**/*.ts", { query: "?raw", import: "default", eager: true }),
};
const files = new Map(Object.entries(sources).map(([key, text]) => [key.replace(/^\.\.\//, ""), text]));

function resolve(tree: Map<string, string>, from: string, spec: string): string | undefined {
  const parts = from.split("/").slice(0, -1);
  for (const part of spec.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  const base = parts.join("/");
  return [base, `${base}.ts`, `${base}/index.ts`].find((p) => tree.has(p));
}

function relativeImports(text: string): string[] {
  const specs = [...text.matchAll(/\bfrom\s*["'](\.[^"']*)["']|\bimport\s*\(?\s*["'](\.[^"']*)["']/g)];
  return specs.map((m) => (m[1] ?? m[2])!);
}

const layerOf = (path: string) => LAYERS.findIndex((l) => l.holds(path));

/** Every import of `tree` that points from a layer to one above it, as "<file> (<layer>) imports <file> (<layer>)". */
function upwardImports(tree: Map<string, string>): string[] {
  const upward: string[] = [];
  for (const [path, text] of tree) {
    for (const spec of relativeImports(text)) {
      const target = resolve(tree, path, spec);
      if (!target || layerOf(target) >= layerOf(path)) continue;
      if (ALLOWED_UP.some((a) => a.from === path && a.to.test(target))) continue;
      upward.push(`${path} (${LAYERS[layerOf(path)]!.name}) imports ${target} (${LAYERS[layerOf(target)]!.name})`);
    }
  }
  return upward;
}

describe("layers only point down", () => {
  it("places every source file in a layer", () => {
    expect(files.has("src/app.ts")).toBe(true);
    expect(files.has("durable-objects/rate-limiter.ts")).toBe(true);
    for (const path of files.keys()) expect(layerOf(path), `${path} belongs to no layer`).toBeGreaterThanOrEqual(0);
  });

  it("has no import from a layer to one above it", () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it("keeps Env and the Durable Objects out of a circle", () => {
    for (const [path, text] of files) {
      if (!path.startsWith("durable-objects/")) continue;
      expect(relativeImports(text).map((spec) => resolve(files, path, spec)), path).not.toContain("src/env.ts");
    }
  });

  it("lets the browser code (web/) take only types from the server, so no server code is bundled into a page", () => {
    const web = import.meta.glob<string>("../web/**/*.ts", { query: "?raw", import: "default", eager: true });
    expect(Object.keys(web).length).toBeGreaterThan(0);
    const valueImports = Object.entries(web).flatMap(([path, text]) =>
      [...text.matchAll(/^(import|export)\s+(?!type\b)[^;]*?from\s*["']((?:\.\.\/)+src\/[^"']*)["']/gm)].map((m) => `${path}: ${m[2]}`),
    );
    expect(valueImports).toEqual([]);
  });

  it("would name an upward import: lib reaching into services, a provider into a service, the PDF room into a service", () => {
    const tree = new Map([
      ["src/lib/hono.ts", 'import type { Actor } from "../services/audit/actor";\nimport { ok } from "./errors";'],
      ["src/lib/errors.ts", ""],
      ["src/services/audit/actor.ts", ""],
      ["src/providers/signing/builtin.ts", 'import {\n  stampDocument,\n} from "../../services/signing/stamp-document";'],
      ["src/services/signing/stamp-document.ts", 'import { Stamp } from "../../providers/signing/interface";'],
      ["src/providers/signing/interface.ts", ""],
      ["src/pdf/vault/render-certificate.ts", 'import type { Certificate } from "../../services/vault/certificate";'],
      ["src/services/vault/certificate.ts", 'import { renderCertificatePdf } from "../../pdf";'],
      ["src/pdf/index.ts", ""],
    ]);
    expect(upwardImports(tree)).toEqual([
      "src/lib/hono.ts (db and lib) imports src/services/audit/actor.ts (services)",
      "src/providers/signing/builtin.ts (providers) imports src/services/signing/stamp-document.ts (services)",
      "src/pdf/vault/render-certificate.ts (pdf) imports src/services/vault/certificate.ts (services)",
    ]);
  });
});

/** The services/ folders each folder imports (its entity imports), from the relative imports of `tree`. */
function folderImports(tree: Map<string, string>): Map<string, Set<string>> {
  const folderOf = (path: string) => /^src\/services\/([^/]+)\//.exec(path)?.[1];
  const edges = new Map<string, Set<string>>();
  for (const [path, text] of tree) {
    const from = folderOf(path);
    if (!from) continue;
    for (const spec of relativeImports(text)) {
      const to = folderOf(resolve(tree, path, spec) ?? "");
      if (!to || to === from) continue;
      edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

/** Each cycle among the services/ folders, as "a -> b -> a" (one per strongly connected group). */
function folderCycles(tree: Map<string, string>): string[] {
  const edges = folderImports(tree);
  const reach = (from: string, to: string, seen = new Set<string>()): string[] | null => {
    for (const next of edges.get(from) ?? []) {
      if (next === to) return [from, to];
      if (seen.has(next)) continue;
      seen.add(next);
      const rest = reach(next, to, seen);
      if (rest) return [from, ...rest];
    }
    return null;
  };
  const cycles = new Map<string, string>();
  for (const folder of edges.keys()) {
    const path = reach(folder, folder);
    // named from its alphabetically first folder, so each circle is reported once
    if (path && [...path].sort()[0] === folder) cycles.set([...new Set(path)].sort().join(","), path.join(" -> "));
  }
  return [...cycles.values()];
}

describe("services/ folders form a hierarchy", () => {
  it("has no two folders importing each other, directly or around a circle", () => {
    expect(folderCycles(files)).toEqual([]);
  });

  it("would name a circle of folders", () => {
    const tree = new Map([
      ["src/services/envelopes/send.ts", 'import { invite } from "../email/invite";'],
      ["src/services/email/invite.ts", 'import { getEnvelope } from "../envelopes/repository";'],
      ["src/services/envelopes/repository.ts", ""],
      ["src/services/kba/a.ts", 'import { b } from "../payments/b";'],
      ["src/services/payments/b.ts", 'import { c } from "../vault/c";'],
      ["src/services/vault/c.ts", 'import { a } from "../kba/a";'],
      ["src/services/usage/d.ts", 'import { a } from "../kba/a";'],
    ]);
    expect(folderCycles(tree).sort()).toEqual(["email -> envelopes -> email", "kba -> payments -> vault -> kba"].sort());
  });

  it("keeps the audit chain free of entities: audit/ imports no other services/ folder", () => {
    expect([...(folderImports(files).get("audit") ?? [])]).toEqual([]);
  });

  it("keeps SQL in repositories: a statement elsewhere is a documented `// SQL exception:`", () => {
    const stray = [...files]
      .filter(([path]) => path.startsWith("src/") && !/\/repository(\.ts|\/)/.test(path))
      .filter(([, text]) => /\.prepare\(/.test(text) && !text.includes("// SQL exception:"))
      .map(([path]) => path);
    expect(stray).toEqual([]);
  });
});

describe("the test suite's layout (docs/decisions/test-suite-time.md)", () => {
  // Small test files are `*.spec.ts`, run by a `*.test.ts` suite of their folder that imports each in its
  // own describe: a spec no suite imports would never run, and one imported twice would run twice.
  // (a glob never lists the file that holds it: this one is added by hand)
  const specs = [...Object.keys(import.meta.glob("./**/*.spec.ts")), "./conventions.spec.ts"].filter((p) => !p.startsWith("./browser/"));
  const suites = import.meta.glob<string>("./**/*.test.ts", { query: "?raw", import: "default", eager: true });

  it("runs every spec file exactly once, from a suite in its folder or above", () => {
    const runs = new Map<string, string[]>();
    for (const [suite, text] of Object.entries(suites)) {
      const folder = suite.slice(0, suite.lastIndexOf("/") + 1);
      for (const [, rel] of text.matchAll(/await import\("(\.[^"]+)"\)/g)) {
        const spec = new URL(`${rel}.ts`, `file:///t/${folder}`).pathname.replace(/^\/t\//, "./");
        runs.set(spec, [...(runs.get(spec) ?? []), suite]);
      }
    }
    expect(specs.length).toBeGreaterThan(100);
    expect(specs.filter((s) => (runs.get(s) ?? []).length !== 1)).toEqual([]);
    expect([...runs.keys()].filter((s) => !specs.includes(s))).toEqual([]);
  });
});
