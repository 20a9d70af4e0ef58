import { env } from "cloudflare:test";
import { openOutboxEmail } from "../../src/services/email/outbox";
import { signerByCredential } from "../../src/services/signers/resolve-credential";
import { call, createEnvelope } from "./api";
import { jobContext } from "./context";
import { shardDbOf } from "./shards";
import { absolute, buildPdf, consoleTemplate, memberToken, uploadTemplate } from "./templates";

/** A partner template with one required signature field per role (in that order) and a text field for the first. */
export async function templateWithRoles(key: string, roles: string[]): Promise<string> {
  const { bytes } = await buildPdf([{ lines: [{ text: "Retail installment contract", x: 72, y: 700 }] }]);
  const fields = roles.map((role, i) => absolute(`${role}_signature`, [{ page: 1, x: 0.1, y: 0.5 + i * 0.1, w: 0.3, h: 0.05 }], { role, required: true }));
  fields.push(absolute(`${roles[0]}_phone`, [{ page: 1, x: 0.5, y: 0.2, w: 0.3, h: 0.03 }], { role: roles[0], type: "text" }));
  const res = await uploadTemplate(key, { file: bytes, fields });
  if (res.status !== 200) throw new Error(`template upload failed: ${JSON.stringify(res.body)}`);
  return res.body.data.template_id as string;
}

/** A pending envelope from a template whose fields name `roles`: ready to send. */
export async function sendableEnvelope(key: string, roles: string[] = ["buyer"], overrides: Record<string, unknown> = {}) {
  return createEnvelope(key, { template_id: await templateWithRoles(key, roles), ...overrides });
}

/** A pending KBA envelope (its template lives in the `cloud` instance) with one `buyer` signature field. */
export async function kbaEnvelope(key: string, orgId: string) {
  const bearer = await memberToken(orgId);
  const template = await consoleTemplate(bearer, { kba: true, pages: [{ lines: [{ text: "Sign {{buyer_signature;type=signature;role=buyer;required=true}}", x: 72, y: 700 }] }] });
  return createEnvelope(key, { template_id: template.template_id });
}

export const sendEnvelope = (key: string, envelopeId: string, body: Record<string, unknown> = {}) =>
  call("POST", `/partner/envelopes/${envelopeId}/send`, { key, body });

export type OutboxEmailRow = {
  id: string;
  signer_id: string;
  to_email: string;
  to_name: string;
  subject: string;
  text: string;
  html: string;
  link_url: string;
  link_sealed: string | null;
  status: string;
  kind: string;
};

export async function outboxOf(envelopeId: string): Promise<OutboxEmailRow[]> {
  return (await shardDbOf(envelopeId).prepare("SELECT * FROM email_outbox WHERE envelope_id = ? ORDER BY rowid").bind(envelopeId).all<OutboxEmailRow>()).results;
}

export async function signerRows(envelopeId: string) {
  return (await shardDbOf(envelopeId).prepare("SELECT * FROM signers WHERE envelope_id = ? ORDER BY routing_order, rowid").bind(envelopeId).all<Record<string, any>>()).results;
}

export async function eventsOf(envelopeId: string) {
  const { results } = await shardDbOf(envelopeId).prepare("SELECT type, data FROM events WHERE envelope_id = ? ORDER BY created_at, rowid").bind(envelopeId).all<{ type: string; data: string }>();
  return results.map((r) => ({ type: r.type, data: JSON.parse(r.data) as Record<string, any> }));
}

/**
 * The permanent slug of a signer's invitation link, read from the invitation email in the outbox (the
 * only place it exists: the database keeps its hash) the way the transport reads it: the row's sealed
 * link, opened. Throws when the signer has not been invited, or the email was delivered (its link is
 * then withheld for good).
 */
export async function invitationSlug(envelopeId: string, email: string): Promise<string> {
  const invitation = (await outboxOf(envelopeId)).find((m) => m.kind === "invitation" && m.to_email === email);
  if (!invitation) throw new Error(`${email} has no invitation for ${envelopeId}`);
  if (!invitation.link_sealed) throw new Error(`the invitation of ${email} for ${envelopeId} holds no sealed link (delivered, or never to be)`);
  const opened = await openOutboxEmail(env, invitation);
  if (!opened?.linkUrl) throw new Error(`the invitation of ${email} for ${envelopeId} does not open`);
  return new URL(opened.linkUrl).pathname.split("/").pop()!;
}

/** The id of the signer a credential (slug or signing session) names, as the signer API resolves it. */
export async function signerIdOf(credential: string): Promise<string> {
  return (await signerByCredential(jobContext(), credential)).signerId;
}
