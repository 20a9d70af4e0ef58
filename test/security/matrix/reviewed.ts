/**
 * The reviewed facts the security matrix holds the app to: each entry was read and its reason written
 * beside it. A route, mount, public operation or request id field the app gains and these lists do not
 * name is a failing test until someone reviews it and adds it here.
 */

/** How a page or document outside the OpenAPI document is checked (test/security/surface.spec.ts). */
export type PageKind = "openapi-document" | "docs-page" | "static-asset" | "signer-link-page" | "widget-page";

/** Routes the app serves that the OpenAPI document does not list (method, path in `{param}` syntax). */
export const NON_OPENAPI_ROUTES: Record<string, { kind: PageKind; why: string }> = {
  "GET /api/v2/openapi.json": { kind: "openapi-document", why: "the document itself" },
  "GET /api/v2/docs": { kind: "docs-page", why: "the API reference page (Swagger UI from the static assets); reads no data" },
  "GET /static/*": { kind: "static-asset", why: "the Worker's static assets: the signing page's and the reference page's scripts" },
  "GET /sign/s/{slug}": { kind: "signer-link-page", why: "the signer's link on the signing host: an HTML shell; the slug is the credential, the page's script reads everything through the signer API" },
  "GET /embed/s/{slug}": { kind: "signer-link-page", why: "the signer's link on the embed host (framed by the organization's origins)" },
  "GET /embed/sign/{envelopeId}": { kind: "widget-page", why: "the embedded sign widget: the embed token stays in the URL fragment, the shell holds no data" },
  "GET /embed/vault/{envelopeId}": { kind: "widget-page", why: "the embedded vault widget: as the sign widget" },
};

/**
 * `ALL` registrations by path: middleware (and any `app.all()` handler) that sees every method under
 * its path, whether or not the document lists an operation there. Only request-wide plumbing belongs
 * here: a credential check or a throttle is declared on its route (partnerRoute, sessionRoute,
 * operatorRoute, embedRoute, signerRoute, publicRoute; a page's own `.get(path, throttle, page)`), so
 * it runs for exactly the operations that declare it and no path glob decides who is checked.
 */
export const MOUNTS: Record<string, string> = {
  "/*": "request id and the request's context, for every request",
  "/api/v2/*": "the 1 MiB JSON body limit (multipart uploads enforce their own)",
};

/** What stands in for a credential on a public operation, and so how the matrix attacks it. */
export type PublicCredential = "none" | "signer-link" | "signed-url" | "stripe-signature" | "dev-switch";

const SIGNER_LINK = { credential: "signer-link", why: "the signer's slug (or signing session) in the path" } as const;

/** Operations declaring `security: []`. Becoming public, or leaving this list, is a reviewed change. */
export const PUBLIC_OPERATIONS: Record<string, { credential: PublicCredential; why: string }> = {
  getHealth: { credential: "none", why: "liveness; touches no binding, answers nothing about any organization" },
  getSigningState: SIGNER_LINK,
  getSigningDocument: SIGNER_LINK,
  recordSigningView: SIGNER_LINK,
  submitSigning: SIGNER_LINK,
  declineSigning: SIGNER_LINK,
  answerSigningConsent: SIGNER_LINK,
  getSigningKba: SIGNER_LINK,
  answerSigningKba: SIGNER_LINK,
  createSignerPaymentToken: SIGNER_LINK,
  sendSigningOtp: SIGNER_LINK,
  verifySigningOtp: SIGNER_LINK,
  uploadSigningAttachment: SIGNER_LINK,
  receiveStripeWebhook: { credential: "stripe-signature", why: "Stripe's notifications: the Stripe-Signature over the raw body" },
  downloadVaultDocument: { credential: "signed-url", why: "the vault's signed URL: an HMAC over the file and its expiry" },
  downloadSignerCopy: { credential: "signed-url", why: "the signer's copy link: an HMAC over the envelope, the recipient and its expiry (30 days after completion)" },
  listDevEmails: { credential: "dev-switch", why: "a development page: 404 unless DEV_PAGES is on (and refused in production)" },
  listDevSms: { credential: "dev-switch", why: "the SMS outbox page (one-time passcodes): 404 unless DEV_PAGES is on (and refused in production)" },
  downloadEnvelopeAttachment: { credential: "signed-url", why: "an attachment's signed URL: an HMAC over the envelope, the field, the file's SHA-256 and its expiry" },
  getDevFaults: { credential: "dev-switch", why: "the fault layer's counts (development only): 404 unless DEV_PAGES is on (and refused in production)" },
  setDevFaults: { credential: "dev-switch", why: "pauses the fault layer (development only): 404 unless DEV_PAGES is on (and refused in production)" },
  checkDevInvariants: { credential: "dev-switch", why: "the soak's invariant check over every database (development only): 404 unless DEV_PAGES is on (and refused in production)" },
  runDevJob: { credential: "dev-switch", why: "runs one of the minute's jobs at a given clock (development only): 404 unless DEV_PAGES is on (and refused in production)" },
  listSealCertificates: { credential: "none", why: "the seal certificates (public by nature) an auditor pins to verify evidence bundles; reads no organization's data" },
  getEvidenceVerifier: { credential: "none", why: "the bundles' verify.mjs and its SHA-256, the same text every bundle carries, published so an auditor checks the script before running it; reads no organization's data" },
};

/** Request id fields (body or query) naming a resource of the caller's organization -> the world's id of that kind. */
export const ID_FIELD_KINDS: Record<string, string> = {
  envelope_id: "envelope_id",
  template_id: "template_id",
  source_template_id: "template_id",
  master_template_id: "template_id",
  template_ids: "template_id",
  package_template_ids: "template_id",
  package_id: "package_id",
  source_package_id: "package_id",
  customer_id: "customer_id",
  customer_ids: "customer_id",
  batch_id: "batch_id",
  endpoint_id: "endpoint_id",
  delivery_id: "delivery_id",
  vault_ids: "vault_id",
};

/** Id-named request fields that name no resource of another organization, and why. */
export const NOT_ORGANIZATION_IDS: Record<string, string> = {
  external_id: "the partner's own reference, stored as given and never looked up",
  tag_ids: "labels copied onto the batch's envelopes; there is no tag resource to look up",
  "answerSigningKba.session_id": "the KBA question set, looked up under the signer the slug names",
  "answerSigningKba.question_id": "a question of that question set (answers[]), matched within the set the slug's signer was asked",
  "answerSigningKba.choice_id": "a choice of one of those questions (answers[]), matched within the question it answers",
  "openEmbedSession.envelope_id": "must equal the envelope the embed token names (else 403), whatever organization holds it",
  "offerVaultTransfer.to_org_id": "the organization control is offered to: by design another organization (docs/control.md); an unknown one (or the caller) is 422",
  "offerVaultPool.to_org_id": "the organization a pool is offered to: by design another organization (docs/control.md \"Pools\"); an unknown one (or the caller) is 422",
};

/**
 * How a partner or console operation answers another organization's id in its body or query, where the
 * spec or a recorded decision says other than 404. Every case is also answered exactly as an id that
 * exists nowhere (no way to learn another organization's ids), and leaves the database as it was (but
 * for `writes`: the caller's own records of a request that was served).
 */
export const FOREIGN_ID_ANSWERS: Record<string, { status: number; why: string; writes?: string[] }> = {
  "listEnvelopes.customer_id": { status: 200, why: "a filter: another organization's customer matches no envelope (empty list)" },
  "setBulkItems.customer_ids": {
    status: 200,
    why: "spec 4.8: ids outside the organization are rejected, listed in `rejected`; the caller's own batch records the (empty) replacement list: its audit entry, the batch's update time, the organization's chain head; no item is added",
    writes: ["audit_log", "bulk_batches", "organizations"],
  },
  "setBulkItems.customer_id": {
    status: 200,
    why: "`items[].customer_id`, the per-item form of customer_ids: rejected and listed in `rejected` the same way, the same records written",
    writes: ["audit_log", "bulk_batches", "organizations"],
  },
  "createEnvelope.template_id": { status: 422, why: "decisions/partner-envelopes.md: an unknown template_id is 422 on the field; nothing is written" },
  "createDocumentPackage.template_ids": { status: 422, why: "a validation issue at template_ids[i], as createEnvelope's template_id" },
  "updateDocumentPackage.template_ids": { status: 422, why: "a validation issue at template_ids[i], as createEnvelope's template_id" },
  "createBulkBatch.source_template_id": { status: 422, why: "a validation issue at source_template_id, as createEnvelope's template_id" },
  "createBulkBatch.source_package_id": { status: 422, why: "a validation issue at source_package_id, as createEnvelope's template_id" },
  "updateBulkBatch.master_template_id": { status: 422, why: "a validation issue at master_template_id, as createEnvelope's template_id" },
  "openBuilderSession.template_ids": { status: 400, why: "spec 7: invalid template id lists for the editor session are 400" },
  "openBuilderSession.package_template_ids": { status: 400, why: "spec 7: invalid package/template id lists for the editor session are 400" },
  "offerVaultPool.vault_ids": { status: 422, why: "all or nothing (docs/control.md \"Pools\"): a record the caller does not control is an offender listed at vault_ids[i], as one that exists nowhere; nothing is written" },
};

/** World ids a case adds to its body so the request reaches the id under test (own ids of the caller). */
export const FOREIGN_ID_CONTEXT: Record<string, (own: Record<string, string>) => Record<string, unknown>> = {
  // the editor opens an envelope or a batch; a source on its own is refused before it is looked up
  "openBuilderSession.template_id": (own) => ({ envelope_id: own.pending_envelope_id }),
  "openBuilderSession.package_id": (own) => ({ envelope_id: own.pending_envelope_id }),
  "openBuilderSession.template_ids": (own) => ({ envelope_id: own.pending_envelope_id }),
  "openBuilderSession.package_template_ids": (own) => ({ envelope_id: own.pending_envelope_id, package_id: own.package_id }),
  "createBulkBatch.source_package_id": () => ({ document_source: "package" }),
};

/** List fields whose rules need more than one id: the caller's own first, then the foreign one. */
export const FOREIGN_ID_WITH_OWN = new Set(["openBuilderSession.template_ids"]);
