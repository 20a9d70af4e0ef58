import { createRoute, z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "./lib/errors";
import { onError, onNotFound, STATUS_CODES } from "./lib/error-handler";
import { createRouter } from "./lib/hono";
import { completeDocument, fixNullableRefs, jsonContent } from "./lib/openapi";
import { refuseFaultsInProduction } from "./middleware/refuse-faults";
import { requestId } from "./middleware/request-id";
import { docsPage } from "./pages/docs";
import { pagesRouter } from "./pages";
import { publicRoute } from "./routes/define";
import { devRouter } from "./routes/dev";
import { embedRouter } from "./routes/embed";
import { operatorRouter } from "./routes/operator";
import { partnerRouter } from "./routes/partner";
import { sessionRouter } from "./routes/session";
import { signingRouter } from "./routes/signing";
import { storageRouter } from "./routes/storage";
import { stripeRouter } from "./routes/stripe";
import * as sealCertificates from "./routes/meta/seal-certificates";
import * as evidenceVerifier from "./routes/meta/evidence-verifier";

export const API_BASE = "/api/v2";
const JSON_BODY_LIMIT = 1024 * 1024;

const healthRoute = createRoute(publicRoute({
  method: "get",
  operationId: "getHealth",
  path: "/health",
  summary: "Liveness: answers without touching any binding",
  tags: ["Meta"],
  responses: { 200: jsonContent(z.object({ data: z.object({ status: z.literal("ok") }) }), "The service is up") },
}));

function buildApi() {
  const api = createRouter();
  const jsonBodyLimit = bodyLimit({
    maxSize: JSON_BODY_LIMIT,
    onError: () => {
      throw new ApiError(413, `Payload too large: JSON bodies are limited to ${JSON_BODY_LIMIT} bytes`);
    },
  });
  // File uploads (multipart) are exempt: their routes read the body with readMultipartForm, which
  // enforces the upload limit (50 MB) itself. Every other write is JSON and refused as such.
  api.use("*", (c, next) => (/^multipart\/form-data/i.test(c.req.header("content-type") ?? "") ? next() : jsonBodyLimit(c, next)));
  api.route("/", partnerRouter);
  api.route("/", sessionRouter);
  api.route("/", operatorRouter);
  api.route("/", signingRouter);
  api.route("/", embedRouter);
  // Stripe's notifications: outside every auth middleware, the Stripe-Signature is the credential
  api.route("/", stripeRouter);
  // the seal certificates an auditor pins (verify.mjs --seal-sha256): public, no credential
  api.openapi(sealCertificates.route, sealCertificates.handler);
  api.openapi(evidenceVerifier.route, evidenceVerifier.handler);
  api.get("/docs", docsPage);
  return api;
}

export function buildApp() {
  const app = createRouter();
  app.use("*", requestId);
  app.use("*", refuseFaultsInProduction);
  app.openapi(healthRoute, (c) => c.json({ data: { status: "ok" as const } }, 200));
  app.route(API_BASE, buildApi());
  app.route("/", storageRouter);
  app.route("/", devRouter);
  app.route("/", pagesRouter);
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyAuth", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "Partner API key (`lk_` + 40 hex). The scopes each route needs are listed on its security requirement.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "BearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "Console access token; send `X-Org-Id` to choose the organization.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "OperatorToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator's OPERATOR_TOKEN.",
  });
  // the document as zod-openapi writes it, with nullable references made to accept null and the headers
  // and error codes every operation shares declared (lib/openapi.ts)
  app.get(`${API_BASE}/openapi.json`, (c) =>
    c.json(
      completeDocument(fixNullableRefs(
        app.getOpenAPI31Document({
          openapi: "3.1.0",
          info: {
            title: "Electronic Signature and Vaulting Service API",
            version: "2.0.0",
            description:
              "Send documents for e-signature, vault the signed result as the authoritative copy under UCC §9-105, and evaluate compliance. Every 2xx body is `{ data }` (lists add `meta`); every error is `{ error, details?, code }`; every response carries `X-Request-Id`.",
          },
          servers: [{ url: new URL("/", c.req.url).origin }],
        }),
      ), STATUS_CODES),
    ),
  );
  app.get("/static/*", (c) => c.env.ASSETS.fetch(c.req.raw));
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}

export const app = buildApp();
