import { call, createEnvelope, newTenant, operator } from "./api";
import { allShardDbs, shardDbOf } from "./shards";
import { signing } from "./signing-flow";
import { consoleTemplate, memberToken } from "./templates";

/** The sandbox rule of docs/decisions/sign-and-pay.md, written out independently of the service's code. */
export async function correctChoiceIndex(email: string, questionId: string): Promise<number> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${email.toLowerCase()}:${questionId}`)));
  return digest[0]! % 4;
}

type Session = { session_id: string; questions: { question_id: string; choices: { choice_id: string }[] }[] };

/** Every question answered right (or, with `wrong`, every one answered wrong) by the sandbox rule. */
export async function answersFor(email: string, session: Session, wrong = false) {
  return Promise.all(
    session.questions.map(async (q) => {
      const right = await correctChoiceIndex(email, q.question_id);
      return { question_id: q.question_id, choice_id: q.choices[wrong ? (right + 1) % 4 : right]!.choice_id };
    }),
  );
}

export const kbaStep = (slug: string) => signing("GET", slug, "kba");
export const answer = (slug: string, body: unknown, headers: Record<string, string> = {}) => signing("POST", slug, "kba", body, headers);

/** GET the step and answer its questions right (or wrong). */
export async function takeKba(slug: string, email: string, opts: { wrong?: boolean; ip?: string } = {}) {
  const step = await kbaStep(slug);
  if (step.status !== 200 || !step.body.data.session) throw new Error(`no KBA session: ${JSON.stringify(step.body)}`);
  const session = step.body.data.session as Session;
  const res = await answer(slug, { session_id: session.session_id, answers: await answersFor(email, session, opts.wrong) }, opts.ip ? { "cf-connecting-ip": opts.ip } : {});
  return { session, res };
}

const SIGN = (role: string) => `Sign {{${role}_signature;type=signature;role=${role};required=true}}`;

/**
 * A sent KBA envelope (console template with `kba_required`, lines tagged per role). `dealerIsMember`
 * adds a second role signed by a member of the sending organization, sent by the partner key;
 * `dealerIsSender` makes that member the sender too (sent from the console with their own token: the
 * sender added as a signer, whose links are `signing_url`s).
 */
export async function sentKbaEnvelope(opts: { buyerEmail?: string; dealerIsMember?: boolean; dealerIsSender?: boolean; locale?: "en" | "es" } = {}) {
  const t = await newTenant({ name: "Prairie Auto Finance" });
  const bearer = await memberToken(t.orgId, "admin");
  const withDealer = opts.dealerIsMember || opts.dealerIsSender;
  const roles = withDealer ? ["buyer", "dealer"] : ["buyer"];
  const template = await consoleTemplate(bearer, { kba: true, pages: [{ lines: roles.map((r, i) => ({ text: SIGN(r), x: 72, y: 700 - i * 100 })) }] });
  const buyerEmail = opts.buyerEmail ?? `jane.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const dealerEmail = `dealer.${crypto.randomUUID().slice(0, 8)}@prairie.example`;
  let dealerBearer: string | null = null;
  if (withDealer) {
    const user = await operator("POST", `/orgs/${t.orgId}/users`, { email: dealerEmail, name: "Dana Dealer", role: "member" });
    if (user.status !== 201) throw new Error(`user create failed: ${JSON.stringify(user.body)}`);
    if (opts.dealerIsSender) {
      const token = await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: t.orgId, ttl_seconds: 3600 });
      dealerBearer = token.body.data.access_token as string;
    }
  }
  const e = await createEnvelope(t.key, { template_id: template.template_id, secured_party: { name: "Prairie Auto Finance LLC", role: "lender" }, ...(opts.locale ? { locale: opts.locale } : {}) });
  const signers = [{ role: "buyer", email: buyerEmail, name: "Jane Buyer", routing_order: 1 }];
  if (withDealer) signers.push({ role: "dealer", email: dealerEmail.toUpperCase(), name: "Dana Dealer", routing_order: 2 });
  const sent = dealerBearer
    ? await call("POST", `/envelopes/${e.envelope_id}/send`, { bearer: dealerBearer, body: { signers } })
    : await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { signers } });
  if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const slugOf = (role: string) => sent.body.data.signers.find((s: { role: string }) => s.role === role)?.slug as string;
  return { ...t, bearer, envelopeId: e.envelope_id, buyer: slugOf("buyer"), dealer: slugOf("dealer"), buyerEmail, dealerEmail, sent: sent.body.data };
}

/** The organization's KBA usage lines (every envelope also has its `esign_envelope` line: pass `kind` for those). */
export async function usageLinesOf(orgId: string, kind = "kba_verification") {
  const lines: Record<string, any>[] = [];
  for (const db of allShardDbs()) lines.push(...(await db.prepare("SELECT * FROM usage_lines WHERE org_id = ? AND kind = ? ORDER BY rowid").bind(orgId, kind).all<Record<string, any>>()).results);
  return lines;
}

export async function auditOf(envelopeId: string) {
  type Row = { action: string; actor_type: string; actor_id: string | null; ip: string | null; data: string };
  const { results } = await shardDbOf(envelopeId).prepare("SELECT action, actor_type, actor_id, ip, data FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(envelopeId).all<Row>();
  return results.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, any> }));
}
