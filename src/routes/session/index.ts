import { createOrgRouter } from "../../lib/hono";
import { builderRouter } from "./builder";
import { bulkSendRouter } from "./bulk-send";
import { documentPackagesRouter } from "./document-packages";
import * as audit from "./envelopes/audit";
import * as autoVaultConsent from "./envelopes/auto-vault-consent";
import * as getEnvelope from "./envelopes/get";
import * as envelopeKba from "./envelopes/kba";
import * as send from "./envelopes/send";
import * as signingLinks from "./envelopes/signing-links";
import * as voidEnvelope from "./envelopes/void";
import { orgRouter } from "./org";
import { templatesRouter } from "./templates";
import { webhooksRouter } from "./webhooks";

/** The console API: each route declares its access (sessionRoute), which checks the access token and the membership. */
export const sessionRouter = createOrgRouter();
sessionRouter.openapi(voidEnvelope.route, voidEnvelope.handler).openapi(audit.route, audit.handler);
sessionRouter.route("/", webhooksRouter);
sessionRouter.openapi(autoVaultConsent.route, autoVaultConsent.handler);
sessionRouter.openapi(send.route, send.handler).openapi(signingLinks.route, signingLinks.handler);
sessionRouter.openapi(envelopeKba.route, envelopeKba.handler).openapi(getEnvelope.route, getEnvelope.handler);
sessionRouter.route("/", templatesRouter);
sessionRouter.route("/", documentPackagesRouter);
sessionRouter.route("/", builderRouter);
sessionRouter.route("/", bulkSendRouter);
sessionRouter.route("/", orgRouter);
