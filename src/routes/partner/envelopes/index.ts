import { createOrgRouter } from "../../../lib/hono";
import * as attachmentUrl from "./attachment-url";
import * as compliance from "./compliance";
import * as create from "./create";
import * as events from "./events";
import * as get from "./get";
import * as list from "./list";
import * as send from "./send";
import * as correctSigner from "./signers/correct";
import * as resendInvitation from "./signers/resend";
import * as signingLinks from "./signing-links";
import * as status from "./status";
import * as voidEnvelope from "./void";

export const envelopesRouter = createOrgRouter()
  .openapi(list.route, list.handler)
  .openapi(create.route, create.handler)
  .openapi(get.route, get.handler)
  .openapi(events.route, events.handler)
  .openapi(status.route, status.handler)
  .openapi(voidEnvelope.route, voidEnvelope.handler)
  .openapi(compliance.route, compliance.handler)
  .openapi(send.route, send.handler)
  .openapi(signingLinks.route, signingLinks.handler)
  .openapi(resendInvitation.route, resendInvitation.handler)
  .openapi(correctSigner.route, correctSigner.handler)
  .openapi(attachmentUrl.route, attachmentUrl.handler);
