import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { accessOf, documents, operations, pathParams, servedDocument, type Op } from "./matrix/document";
import { PUBLIC_OPERATIONS } from "./matrix/reviewed";
import { sampleBody, sampleQuery, unknownValue } from "./matrix/samples";
import { OPERATOR_TOKEN, theWorld, type Org } from "./matrix/world";

/**
 * The security matrix, generated from the served OpenAPI document: every operation, classified by the
 * `security` it declares, gets the cases that apply to it, each its own test named by operationId. An
 * operation the matrix cannot classify is a failing test, so a route added later is covered the day it
 * lands (or fails until it declares who may call it). What the document does not show is held by
 * surface.spec.ts (routes outside the document, ALL mounts, the reviewed public operations attacked
 * through their own credentials) and foreign-ids.spec.ts (other organizations' ids in bodies and queries).
 */
const doc = await servedDocument();
const ops = operations(doc);

type Credential = { headers: Record<string, string> };
const apiKey = (key: string): Credential => ({ headers: { "X-API-Key": key } });
const bearer = (token: string): Credential => ({ headers: { Authorization: `Bearer ${token}` } });
const none: Credential = { headers: {} };

/** Calls the operation with its sample body, path ids from `ids` (unknown ids where it names none). */
async function request(o: Op, credential: Credential, ids: Record<string, string> = {}) {
  let path = o.path;
  for (const p of pathParams(o.op)) path = path.replace(`{${p.name}}`, encodeURIComponent(ids[p.name] ?? unknownValue(p.schema)));
  const { body, contentType } = await sampleBody(doc, o.op);
  const headers: Record<string, string> = { ...credential.headers };
  if (contentType) headers["Content-Type"] = contentType;
  const res = await SELF.fetch(`http://localhost${path}${sampleQuery(doc, o.op)}`, { method: o.method, headers, body });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

const FOREIGN_KINDS = ["envelope_id", "template_id", "package_id", "endpoint_id", "delivery_id", "batch_id", "vault_id", "transfer_id", "kid", "signer_id", "field_name", "hold_id", "pool_id"];

/** Another organization's resource: 404, never 200, 403 or 500. */
function foreignCase(o: Op, as: (w: Awaited<ReturnType<typeof theWorld>>) => Credential) {
  const params = pathParams(o.op).map((p) => p.name);
  if (params.length === 0) return;
  const unknown = params.filter((p) => !FOREIGN_KINDS.includes(p));
  if (unknown.length > 0) {
    it(`${o.id}: classified (path parameter ${unknown.join(", ")} has a resource to test with)`, () => {
      expect.fail(`${o.method} ${o.path}: the matrix has no resource for {${unknown.join("}, {")}}; add one to test/security/matrix/world.ts`);
    });
    return;
  }
  it(`${o.id}: another organization's ${params.join(", ")} -> 404`, async () => {
    const w = await theWorld();
    const res = await request(o, as(w), w.owner.ids);
    expect(res.status, JSON.stringify(res.body)).toBe(404);
  });
}

function unknownIdCase(o: Op, credential: () => Credential, also403 = false) {
  const params = pathParams(o.op);
  if (params.length === 0 || !documents(o.op, 404)) return;
  it(`${o.id}: an unknown ${params.map((p) => p.name).join(", ")} -> 404`, async () => {
    const res = await request(o, credential());
    expect(also403 ? [403, 404] : [404], JSON.stringify(res.body)).toContain(res.status);
  });
}

function unauthenticated(o: Op, wrong: Record<string, (w: Awaited<ReturnType<typeof theWorld>>) => Credential>) {
  it(`${o.id}: no credential -> 401`, async () => {
    const w = await theWorld();
    const res = await request(o, none, w.owner.ids);
    expect(res.status, JSON.stringify(res.body)).toBe(401);
  });
  for (const [name, credential] of Object.entries(wrong)) {
    it(`${o.id}: ${name} (wrong kind) -> 401`, async () => {
      const w = await theWorld();
      const res = await request(o, credential(w), w.owner.ids);
      expect(res.status, JSON.stringify(res.body)).toBe(401);
    });
  }
}

const idsOf = (org: Org) => org.ids;

describe("security matrix: every operation of the OpenAPI document", () => {
  it("the document names every operation with a unique camelCase operationId", () => {
    const ids = ops.map((o) => o.op.operationId);
    const bad = ops.filter((o) => !/^[a-z][a-zA-Z0-9]*$/.test(o.op.operationId ?? "")).map((o) => `${o.method} ${o.path}`);
    expect(bad).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  for (const o of ops) {
    const access = accessOf(o.op);
    describe(o.id, () => {
      switch (access.kind) {
        case "unclassified":
          it(`${o.id}: classified by its declared security`, () => expect.fail(`${o.method} ${o.path} ${access.reason}`));
          break;

        case "partner":
          unauthenticated(o, {
            "a console access token": (w) => bearer(w.owner.admin),
            "the operator token": () => bearer(OPERATOR_TOKEN),
          });
          it(`${o.id}: a key without ${access.scopes.join(" or ")} -> 403 naming it`, async () => {
            const w = await theWorld();
            const res = await request(o, apiKey(await w.keyWithout(access.scopes)), w.owner.ids);
            expect(res.status).toBe(403);
            expect(res.body.error).toBe(`Missing required scope: ${access.scopes.join(" or ")}`);
          });
          it(`${o.id}: a key holding only ${access.scopes[0]} ${o.method === "GET" ? "is served (200)" : "gets past the access check"}`, async () => {
            const w = await theWorld();
            const res = await request(o, apiKey(await w.keyWithOnly(access.scopes[0]!)), idsOf(w.self));
            // a read the resource's state refuses (a documented 409: links of a never-sent envelope) still found it
            if (o.method === "GET") expect(documents(o.op, 409) ? [200, 409] : [200], JSON.stringify(res.body)).toContain(res.status);
            expect([401, 403], JSON.stringify(res.body)).not.toContain(res.status);
            expect(res.status).toBeLessThan(500);
          });
          foreignCase(o, (w) => apiKey(w.intruder.key));
          break;

        case "console": {
          unauthenticated(o, {
            "a partner API key": (w) => apiKey(w.owner.key),
            "the operator token": () => bearer(OPERATOR_TOKEN),
          });
          const roles = access.roles;
          if (roles.length > 0 && !roles.includes("member")) {
            it(`${o.id}: a member where ${roles.join(" or ")} is required -> 403`, async () => {
              const w = await theWorld();
              const res = await request(o, bearer(w.owner.member), w.owner.ids);
              expect(res.status).toBe(403);
              expect(res.body.error).toMatch(new RegExp(`requires the ${roles.join(" or ")} role`));
            });
          }
          it(`${o.id}: ${roles.length > 0 ? `an ${roles[0]}` : "a member"} of the organization gets past the access check`, async () => {
            const w = await theWorld();
            const res = await request(o, bearer(roles.length > 0 ? w.self.admin : w.self.member), idsOf(w.self));
            expect([401, 403], JSON.stringify(res.body)).not.toContain(res.status);
            expect(res.status).toBeLessThan(500);
          });
          foreignCase(o, (w) => bearer(w.intruder.admin));
          break;
        }

        case "operator":
          unauthenticated(o, {
            "a console access token": (w) => bearer(w.owner.admin),
            "a partner API key": (w) => apiKey(w.owner.key),
          });
          // The operator acts on every organization: there is no "another organization" to refuse.
          unknownIdCase(o, () => bearer(OPERATOR_TOKEN));
          break;

        case "embed":
          // The embed token names its own envelope and widget: another envelope is refused (403) by design.
          unauthenticated(o, {
            "a partner API key": (w) => apiKey(w.owner.key),
            "a console access token": (w) => bearer(w.owner.admin),
            "the operator token": () => bearer(OPERATOR_TOKEN),
          });
          break;

        case "public":
          it(`${o.id}: public by review (PUBLIC_OPERATIONS names what stands in for its credential)`, () => {
            expect(PUBLIC_OPERATIONS[o.id], `${o.method} ${o.path} declares \`security: []\`: review it in test/security/matrix/reviewed.ts`).toBeDefined();
          });
          it(`${o.id}: asks for no credential (never 401, never 500)`, async () => {
            const res = await request(o, none);
            expect(res.status, JSON.stringify(res.body)).not.toBe(401);
            expect(res.status, JSON.stringify(res.body)).not.toBe(500);
          });
          // A signed link (documented 403) refuses an unknown id for its signature before looking it up.
          unknownIdCase(o, () => none, documents(o.op, 403));
          break;
      }
    });
  }
});
