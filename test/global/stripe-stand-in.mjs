// A local stand-in for the part of Stripe's API that Sign + Pay calls, speaking Stripe's wire format so
// the real `stripe` package (in the Worker, with STRIPE_API_BASE pointing here) talks to it unchanged.
// Started once by vitest (Node side, like postmark-stand-in.mjs) on the loopback port vitest.config.ts
// chose (STRIPE_STAND_IN_PORT: the Worker's bindings are fixed before any global setup runs), and by
// the browser tests' global setup for `wrangler dev`.
//
// Stripe's side (https://docs.stripe.com/api):
//   POST /v1/payment_intents      form-encoded (`transfer_data[destination]=acct_…`), Bearer secret key;
//                                 honours `Idempotency-Key`: the same key with the same parameters answers
//                                 the first response again (header `Idempotent-Replayed: true`), with other
//                                 parameters 400 idempotency_error (a request refused by validation saves
//                                 nothing, as at Stripe); every PaymentIntent created is counted.
//   GET  /v1/payment_intents/:id  the object, or 404 resource_missing.
//   Errors are Stripe's `{ error: { type, code, message, param } }` with its statuses (400, 401, 404).
//
// The tests' side (never part of Stripe):
//   POST /_events { type, payment_intent, deliver_to? }  moves the PaymentIntent as Stripe would
//        (`payment_intent.succeeded` -> status succeeded; `payment_intent.payment_failed` -> back to
//        requires_payment_method with a card_declined last_payment_error), builds the Stripe event and
//        signs it with the webhook secret (`Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`).
//        Answers { event, payload, signature_header } and, with `deliver_to`, POSTs it there as Stripe
//        would and adds { delivered: { status, body } }. Any other `type` builds an event of that type
//        around the PaymentIntent without moving it.
//   POST /_sign { payload, timestamp?, secret? }  a Stripe-Signature for any payload (stale or forged ones).
//   GET  /_stats?envelope_id=<id>  { created, create_requests, replayed } for intents naming that envelope.
import { createHmac, randomBytes } from "node:crypto";
import { createServer } from "node:http";

export const STRIPE_TEST_SECRET_KEY = "sk_test_standin_0123456789abcdefghijklmn";
export const STRIPE_TEST_PUBLISHABLE_KEY = "pk_test_standin_0123456789abcdefghijklmn";
export const STRIPE_TEST_WEBHOOK_SECRET = "whsec_standin0123456789abcdefghijklmnopqrstuv";

const rand = (n) => randomBytes(n).toString("base64url").replace(/[-_]/g, "").slice(0, n);
const now = () => Math.floor(Date.now() / 1000);

/** `a[b][c]=v` form fields into nested objects, as Stripe's API reads them. */
function parseForm(raw) {
  const out = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = key.replace(/\]/g, "").split("[");
    let node = out;
    path.slice(0, -1).forEach((p) => (node = node[p] ??= {}));
    node[path.at(-1)] = value;
  }
  return out;
}

export function signStripePayload(payload, { secret = STRIPE_TEST_WEBHOOK_SECRET, timestamp = now() } = {}) {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

/** @param {{ port?: number }} opts */
export async function startStripeStandIn({ port = 0 } = {}) {
  const intents = new Map(); // id -> PaymentIntent
  const idempotency = new Map(); // key -> { fingerprint, status, body }
  const stats = new Map(); // envelope_id -> { created, create_requests, replayed }
  const statsOf = (envelopeId) => stats.get(envelopeId) ?? stats.set(envelopeId, { created: 0, create_requests: 0, replayed: 0 }).get(envelopeId);

  const send = (res, status, body, headers = {}) =>
    res.writeHead(status, { "content-type": "application/json", "request-id": `req_${rand(14)}`, ...headers }).end(JSON.stringify(body));
  const stripeError = (res, status, type, message, extra = {}) => send(res, status, { error: { type, message, ...extra } });

  function createIntent(params) {
    const amount = Number(params.amount);
    if (!params.amount) return { status: 400, body: { error: { type: "invalid_request_error", code: "parameter_missing", param: "amount", message: "Missing required param: amount." } } };
    if (!/^\d+$/.test(params.amount) || amount < 1 || amount > 99_999_999) {
      return { status: 400, body: { error: { type: "invalid_request_error", code: "parameter_invalid_integer", param: "amount", message: "Invalid integer: " + params.amount } } };
    }
    if (!/^[a-z]{3}$/.test(params.currency ?? "")) {
      return { status: 400, body: { error: { type: "invalid_request_error", code: "parameter_invalid_string", param: "currency", message: `Invalid currency: ${params.currency}` } } };
    }
    const destination = params.transfer_data?.destination;
    if (destination !== undefined && !/^acct_/.test(destination)) {
      return { status: 400, body: { error: { type: "invalid_request_error", code: "resource_missing", param: "transfer_data[destination]", message: `No such destination: '${destination}'` } } };
    }
    const fee = params.application_fee_amount === undefined ? null : Number(params.application_fee_amount);
    if (fee !== null && (!Number.isInteger(fee) || fee < 0 || fee > amount)) {
      return { status: 400, body: { error: { type: "invalid_request_error", param: "application_fee_amount", message: "The application fee amount must be a non-negative integer no larger than the amount." } } };
    }
    const id = `pi_${rand(24)}`;
    const intent = {
      id,
      object: "payment_intent",
      amount,
      amount_capturable: 0,
      amount_received: 0,
      application_fee_amount: fee,
      automatic_payment_methods: params.automatic_payment_methods ? { enabled: params.automatic_payment_methods.enabled === "true" } : null,
      capture_method: "automatic",
      client_secret: `${id}_secret_${rand(24)}`,
      confirmation_method: "automatic",
      created: now(),
      currency: params.currency,
      description: params.description ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: params.metadata ?? {},
      payment_method: null,
      payment_method_types: ["card"],
      receipt_email: params.receipt_email ?? null,
      status: "requires_payment_method",
      transfer_data: destination ? { destination } : null,
    };
    intents.set(id, intent);
    if (intent.metadata.envelope_id) statsOf(intent.metadata.envelope_id).created += 1;
    return { status: 200, body: intent };
  }

  function buildEvent(type, intent) {
    if (type === "payment_intent.succeeded") {
      Object.assign(intent, { status: "succeeded", amount_received: intent.amount, last_payment_error: null, latest_charge: `ch_${rand(24)}` });
    } else if (type === "payment_intent.payment_failed") {
      Object.assign(intent, {
        status: "requires_payment_method",
        last_payment_error: { type: "card_error", code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." },
      });
    }
    return {
      id: `evt_${rand(24)}`,
      object: "event",
      api_version: "2026-10-28.endive",
      created: now(),
      data: { object: structuredClone(intent) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
  }

  async function testApi(req, res, url, raw) {
    if (req.method === "GET" && url.pathname === "/_stats") return send(res, 200, statsOf(url.searchParams.get("envelope_id") ?? ""));
    let body;
    try {
      body = JSON.parse(raw || "{}");
    } catch {
      return send(res, 400, { error: "JSON body expected" });
    }
    if (req.method === "POST" && url.pathname === "/_sign") {
      return send(res, 200, { signature_header: signStripePayload(body.payload, { secret: body.secret, timestamp: body.timestamp }) });
    }
    if (req.method === "POST" && url.pathname === "/_events") {
      const intent = intents.get(body.payment_intent);
      if (!intent) return send(res, 404, { error: `no PaymentIntent ${body.payment_intent}` });
      const event = buildEvent(body.type, intent);
      const payload = JSON.stringify(event, null, 2);
      const signature_header = signStripePayload(payload);
      const answer = { event, payload, signature_header };
      if (body.deliver_to) {
        const delivered = await fetch(body.deliver_to, {
          method: "POST",
          headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": signature_header, "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" },
          body: payload,
        });
        answer.delivered = { status: delivered.status, body: await delivered.text() };
      }
      return send(res, 200, answer);
    }
    return send(res, 404, { error: "unknown stand-in route" });
  }

  function stripeApi(req, res, url, raw) {
    const auth = req.headers.authorization ?? "";
    const key = auth.startsWith("Bearer ") ? auth.slice(7) : auth.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString().replace(/:$/, "") : "";
    if (key !== STRIPE_TEST_SECRET_KEY) {
      return stripeError(res, 401, "invalid_request_error", `Invalid API Key provided: ${key.slice(0, 8)}***`);
    }
    if (req.method === "POST" && url.pathname === "/v1/payment_intents") {
      const params = parseForm(raw);
      const envelopeStats = params.metadata?.envelope_id ? statsOf(params.metadata.envelope_id) : null;
      if (envelopeStats) envelopeStats.create_requests += 1;
      const idemKey = req.headers["idempotency-key"];
      if (idemKey) {
        const seen = idempotency.get(idemKey);
        if (seen) {
          if (seen.fingerprint !== raw) {
            return stripeError(res, 400, "idempotency_error", `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`);
          }
          if (envelopeStats) envelopeStats.replayed += 1;
          // as Stripe does: the saved response of the first request, status and body
          return send(res, seen.status, seen.body, { "idempotent-replayed": "true", "idempotency-key": idemKey });
        }
      }
      const created = createIntent(params);
      // as Stripe does, a request refused by parameter validation saves no idempotent result
      if (idemKey && created.status === 200) idempotency.set(idemKey, { fingerprint: raw, status: created.status, body: structuredClone(created.body) });
      return send(res, created.status, created.body, idemKey ? { "idempotency-key": idemKey } : {});
    }
    const match = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && match) {
      const intent = intents.get(decodeURIComponent(match[1]));
      if (!intent) return stripeError(res, 404, "invalid_request_error", `No such payment_intent: '${match[1]}'`, { code: "resource_missing", param: "intent" });
      return send(res, 200, intent);
    }
    return stripeError(res, 404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`);
  }

  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const raw = Buffer.concat(chunks).toString("utf8");
      const handle = url.pathname.startsWith("/_") ? testApi(req, res, url, raw) : stripeApi(req, res, url, raw);
      Promise.resolve(handle).catch((err) => send(res, 500, { error: { type: "api_error", message: String(err) } }));
    });
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** vitest global setup: the port vitest.config.ts put into the Worker's STRIPE_API_BASE. */
/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  const port = Number(process.env.STRIPE_STAND_IN_PORT);
  if (!port) throw new Error("STRIPE_STAND_IN_PORT is not set: vitest.config.ts chooses it");
  const standIn = await startStripeStandIn({ port });
  project.provide("stripePort", standIn.port);
  return standIn.close;
}
