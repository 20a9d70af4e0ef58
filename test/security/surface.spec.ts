import { env, SELF } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { mintSigningSession } from "../../src/services/signers/signing-session";
import { call } from "../helpers/api";
import { invitationSlug } from "../helpers/signing";
import { sentTwoSignerEnvelope } from "../helpers/signing-flow";
import { accessOf, operations, servedDocument, type Op } from "./matrix/document";
import { NON_OPENAPI_ROUTES, MOUNTS, PUBLIC_OPERATIONS, type PageKind } from "./matrix/reviewed";
import { unaccounted } from "./matrix/routes";
import { sampleBody } from "./matrix/samples";
import { changedTables, snapshot } from "./matrix/snapshot";
import { theWorld } from "./matrix/world";
import { shardDbOf } from "../helpers/shards";

/**
 * The whole surface, read from the app's router rather than from the document: every route the app
 * registers is either an OpenAPI operation (covered by matrix.test.ts) or a reviewed route checked
 * here; every `ALL` mount is reviewed; the public operations are a reviewed list, and each kind of
 * public credential (the signer's slug and its `es_` signing session, the signed storage URL, Stripe's
 * signature, the development switch) is attacked for what it is: a forged or stale one is refused in the
 * error shape, carries no data, and changes nothing.
 */
const doc = await servedDocument();
const ops = operations(doc);
const reviewed = { routes: NON_OPENAPI_ROUTES, mounts: MOUNTS };

/** The error shape of the spec: `{ error, details? }` (plus the project's `code`), never `data`. */
function expectError(res: { status: number; body: any }, status: number | number[], label: string) {
  expect(Array.isArray(status) ? status : [status], `${label}: ${JSON.stringify(res.body)}`).toContain(res.status);
  expect(typeof res.body?.error, `${label}: ${JSON.stringify(res.body)}`).toBe("string");
  expect(Object.keys(res.body).filter((k) => !["error", "details", "code"].includes(k)), label).toEqual([]);
}

async function fetchJson(path: string, init: RequestInit = {}) {
  const res = await SELF.fetch(`http://localhost${path}`, init);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body, text };
}

describe("security matrix: every route the app registers", () => {
  it("every served route is an OpenAPI operation or a reviewed one, every ALL mount is reviewed, and nothing reviewed is stale", () => {
    expect(unaccounted(app, ops, reviewed)).toEqual([]);
  });

  it("a route added outside the document (app.all, a page, a mount) is caught", () => {
    const grown = new Hono();
    grown.route("/", app);
    grown.all("/api/v2/partner/backdoor", (c) => c.text("ok"));
    grown.get("/sign/preview/:slug", (c) => c.text("ok"));
    grown.use("/api/v2/admin/*", async (_c, next) => next());
    expect(unaccounted(grown, ops, reviewed)).toEqual([
      "GET /sign/preview/{slug}: served, but neither in the OpenAPI document nor in NON_OPENAPI_ROUTES",
      "ALL /api/v2/partner/backdoor: sees every method under its path, but is not reviewed in MOUNTS",
      "ALL /api/v2/admin/*: sees every method under its path, but is not reviewed in MOUNTS",
    ]);
  });

  it("the public operations (`security: []`) are exactly the reviewed ones", () => {
    const publicIds = ops.filter((o) => accessOf(o.op).kind === "public").map((o) => o.id);
    expect(publicIds.sort(), "a route became public, or a public one gained auth: review PUBLIC_OPERATIONS").toEqual(Object.keys(PUBLIC_OPERATIONS).sort());
  });

  it("access is declared on each route, not on a path prefix: a path no operation serves is 404 under every surface, credential or not", async () => {
    const w = await theWorld();
    const unserved = [
      "/api/v2/partner/no-such-thing",
      "/api/v2/envelopes/no-such-thing/deeper/still",
      "/api/v2/templates/no-such-thing/deeper",
      "/api/v2/operator/no-such-thing",
      `/api/v2/signing/${UNKNOWN_SLUG}/no-such-thing`,
      "/api/v2/embed/no-such-thing",
      "/storage/no-such-thing",
    ];
    for (const path of unserved) {
      for (const headers of [{}, { "X-API-Key": w.self.key }, { Authorization: "Bearer forged" }] as Record<string, string>[]) {
        const res = await fetchJson(path, { headers });
        expectError(res, 404, `${path} ${JSON.stringify(headers)}`);
        expect(res.body.error).toBe(`No route for GET ${path}`);
      }
    }
  });
});

// ---- public operations, by what stands in for their credential ------------------------------------------

const signerOps = ops.filter((o) => PUBLIC_OPERATIONS[o.id]?.credential === "signer-link");

/** A signer operation called with `credential` in place of the slug, with the operation's sample body. */
async function asSigner(o: Op, credential: string) {
  const { body, contentType } = await sampleBody(doc, o.op);
  return fetchJson(o.path.replace("{slug}", credential), { method: o.method, headers: contentType ? { "Content-Type": contentType } : {}, body });
}

type Signer = { slug: string; signerId: string; envelopeId: string };
let signer: Promise<Signer> | undefined;

/** A sent envelope's first signer: the permanent slug as its invitation carries it, and its id. */
function aSigner(): Promise<Signer> {
  signer ??= (async () => {
    const { envelopeId } = await sentTwoSignerEnvelope((await theWorld()).self.key);
    const slug = await invitationSlug(envelopeId, "ann@example.com");
    const row = await shardDbOf(envelopeId).prepare("SELECT id FROM signers WHERE envelope_id = ? AND email = ?").bind(envelopeId, "ann@example.com").first<{ id: string }>();
    return { slug, signerId: row!.id, envelopeId };
  })();
  return signer;
}

/** A signing session for the signer ending at `expiresAt` (epoch seconds), sealed as the service seals them. */
function signingSession(s: Signer, expiresAt: number) {
  // the session seals the signer (it sealed the slug before slugs were stored hashed): both are named
  const sealed = { signerId: s.signerId, slug: s.slug, expiresAt };
  return mintSigningSession(env, sealed);
}

const UNKNOWN_SLUG = "Zz00000000000000000000000q";
const FORGED_SESSION = `es_${"A".repeat(87)}`;

describe("security matrix: public operations, each attacked through its own credential", () => {
  it("the signer's link: the real slug and a fresh signing session are served (the refusals below are about the credential)", async () => {
    const s = await aSigner();
    const bySlug = await fetchJson(`/api/v2/signing/${s.slug}`);
    expect(bySlug.status, bySlug.text).toBe(200);
    const session = await signingSession(s, Math.floor(Date.now() / 1000) + 600);
    const bySession = await fetchJson(`/api/v2/signing/${session}`);
    expect(bySession.status, bySession.text).toBe(200);
    expect(bySession.body.data).toEqual(bySlug.body.data);
  });

  for (const o of signerOps) {
    it(`${o.id}: an unknown slug, a forged signing session and an expired one -> 404, 404, 410 in the error shape; nothing changes`, async () => {
      const expired = await signingSession(await aSigner(), Math.floor(Date.now() / 1000) - 60);
      const before = await snapshot();
      const unknown = await asSigner(o, UNKNOWN_SLUG);
      expectError(unknown, 404, "unknown slug");
      expect(unknown.body.error).toBe("Signing link not found");
      const forged = await asSigner(o, FORGED_SESSION);
      expectError(forged, 404, "forged signing session");
      expect(forged.body).toEqual(unknown.body);
      const stale = await asSigner(o, expired);
      expectError(stale, 410, "expired signing session");
      expect(stale.body.code).toBe("signing_session_expired");
      expect(changedTables(before, await snapshot())).toEqual([]);
    });
  }

  it("getHealth: answers without a credential, about nothing but the service", async () => {
    const res = await fetchJson("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: "ok" } });
  });

  it("downloadVaultDocument: the signed URL is served; a changed signature, expiry or file is 403 in the error shape", async () => {
    const w = await theWorld();
    const minted = await call("GET", `/partner/envelopes/${w.owner.ids.envelope_id}/vault/signed-url`, { key: w.owner.key });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const url = new URL(minted.body.data.signed_url);
    const real = await SELF.fetch(`http://localhost${url.pathname}${url.search}`);
    expect(real.status).toBe(200);
    expect(real.headers.get("content-type")).toBe("application/pdf");
    await real.arrayBuffer();
    const sig = url.searchParams.get("sig")!;
    const exp = url.searchParams.get("exp")!;
    const tampered = {
      "another signature": `${url.pathname}?exp=${exp}&sig=${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`,
      "a later expiry": `${url.pathname}?exp=${Number(exp) + 3600}&sig=${sig}`,
      "another file": `${url.pathname.replace(/\/[^/]+$/, "/evidence")}?exp=${exp}&sig=${sig}`,
    };
    for (const [label, path] of Object.entries(tampered)) expectError(await fetchJson(path), 403, label);
  });

  it("receiveStripeWebhook: no signature or a forged one is 400 in the error shape, and nothing is recorded", async () => {
    const event = JSON.stringify({ id: "evt_matrix", type: "payment_intent.succeeded", data: { object: { id: "pi_matrix", object: "payment_intent" } } });
    const before = await snapshot();
    for (const [label, signature] of [
      ["no signature", null],
      ["a forged signature", `t=${Math.floor(Date.now() / 1000)},v1=${"ab".repeat(32)}`],
    ] as const) {
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (signature) headers["Stripe-Signature"] = signature;
      expectError(await fetchJson("/api/v2/stripe/webhook", { method: "POST", headers, body: event }), 400, label);
    }
    expect(changedTables(before, await snapshot())).toEqual([]);
  });

  it("listDevEmails: off unless DEV_PAGES is on (404 in the error shape), so the outbox's links stay unlisted", async () => {
    expectError(await fetchJson("/dev/emails"), 404, "DEV_PAGES off");
  });

  it("getDevFaults, setDevFaults, checkDevInvariants, runDevJob: off unless DEV_PAGES is on (404 in the error shape), and pausing changes nothing", async () => {
    expectError(await fetchJson("/dev/faults"), 404, "DEV_PAGES off");
    expectError(await fetchJson("/dev/faults", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ paused: true }) }), 404, "DEV_PAGES off");
    expectError(await fetchJson("/dev/invariants"), 404, "DEV_PAGES off");
    expectError(await fetchJson("/dev/jobs/destroy-expired", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ at: new Date().toISOString() }) }), 404, "DEV_PAGES off");
  });
});

// ---- routes outside the document ----------------------------------------------------------------------

/** What each kind of reviewed page must (not) show, given a signer whose envelope it would be about. */
const PAGE_CHECKS: Record<PageKind, (path: string) => Promise<void>> = {
  "openapi-document": async (path) => {
    const res = await fetchJson(path);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
  },
  "docs-page": async (path) => {
    const res = await fetchJson(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBeTruthy();
  },
  "static-asset": async (path) => {
    // a file that is not among the assets: the assets binding's 404, never the API or a 500
    const res = await SELF.fetch(`http://localhost${path.replace("*", "no-such-asset.js")}`);
    await res.arrayBuffer();
    expect(res.status).toBe(404);
  },
  "signer-link-page": async (path) => {
    const { slug, envelopeId } = await aSigner();
    const envelope = await shardDbOf(envelopeId).prepare("SELECT name FROM envelopes WHERE id = ?").bind(envelopeId).first<{ name: string }>();
    for (const credential of [slug, UNKNOWN_SLUG, FORGED_SESSION]) {
      const res = await fetchJson(path.replace("{slug}", credential));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("content-security-policy")).toMatch(/frame-ancestors/);
      // the shell carries nothing about the signer or the envelope: the page asks the signer API for it
      for (const secret of ["Ann Buyer", "ann@example.com", "Cole Signer", "cole@example.com", envelope!.name]) expect(res.text).not.toContain(secret);
    }
  },
  "widget-page": async (path) => {
    const { envelopeId } = await aSigner();
    const envelope = await shardDbOf(envelopeId).prepare("SELECT name FROM envelopes WHERE id = ?").bind(envelopeId).first<{ name: string }>();
    const res = await fetchJson(path.replace("{envelopeId}", envelopeId));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toMatch(/frame-ancestors/);
    for (const secret of ["Ann Buyer", "ann@example.com", envelope!.name]) expect(res.text).not.toContain(secret);
  },
};

describe("security matrix: reviewed routes outside the OpenAPI document", () => {
  for (const [route, { kind, why }] of Object.entries(NON_OPENAPI_ROUTES)) {
    it(`${route} (${why}): serves without a credential and shows no organization's data`, async () => {
      await PAGE_CHECKS[kind](route.slice(route.indexOf(" ") + 1));
    });
  }
});
