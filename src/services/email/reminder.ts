import type { RequestContext } from "../../lib/context";
import type { Row } from "../../db/row";
import type { envelopes } from "../../db/schema/envelopes";
import { signerReminderLinkUpdate, type SignerRow } from "../signers/repository";
import type { OutboxEmail } from "../../providers/email";
import { queueSigningLinkEmail, renderLinkEmail, type RenderedEmail } from "./link-email";
import { emailDate, emailText } from "./catalog";
import type { Locale } from "../../db/schema/locales";

export type ReminderKind = "reminder" | "expiry_warning";

type Reminder = { kind: ReminderKind; orgName: string; envelopeName: string; signerName: string; role: string; url: string; expiresAt: string | null; kba: boolean; locale?: Locale };

/** Subject, plain text and HTML of a reminder or an expiry warning (./link-email.ts), in the envelope's locale. */
export function renderReminder(r: Reminder): RenderedEmail {
  const locale = r.locale ?? "en";
  const until = r.expiresAt ? emailDate(locale, r.expiresAt) : null;
  const v = { org: r.orgName, envelope: r.envelopeName, role: r.role, date: until ?? "" };
  const warning = r.kind === "expiry_warning";
  const subject = warning ? emailText(locale, until ? "expiry_subject_on" : "expiry_subject_soon", v) : emailText(locale, "reminder_subject", v);
  const lead = warning ? emailText(locale, until ? "expiry_lead_on" : "expiry_lead_soon", v) : emailText(locale, "reminder_lead", v);
  return renderLinkEmail({
    locale,
    subject,
    name: r.signerName,
    lines: [
      lead,
      ...(r.kba ? [emailText(locale, "kba_notice")] : []),
      emailText(locale, "link_replaces"),
      [emailText(locale, "link_personal"), ...(until && !warning ? [emailText(locale, "link_until", { date: until })] : [])].join(" "),
    ],
    action: emailText(locale, "action_sign"),
    url: r.url,
  });
}

/** One reminder: its email, the statement that re-issues the signer's link (goes first) and the outbox INSERT. */
export type QueuedReminder = { email: OutboxEmail; signerId: string; issueLink: D1PreparedStatement; statement: D1PreparedStatement };

/**
 * The reminders (or expiry warnings) of `signers` (those whose turn it is, not finished), each with a
 * working signing link: a fresh permanent slug whose hash replaces the signer's (as an invitation's
 * does; the links of earlier emails stop working, docs/decisions/reminders.md). Both statements hold
 * only while `guard` (the envelope's reminder columns as read, `reminderMarkCondition`) does and the
 * signer has not finished. A reminder row names no signer (a signer gets several; the outbox's unique
 * (signer, kind) index ignores nulls); an expiry warning names its signer and goes once.
 */
export async function reminderEmails(
  ctx: RequestContext,
  input: {
    kind: ReminderKind;
    envelope: Pick<Row<typeof envelopes>, "id" | "org_id" | "name" | "kba_required" | "expires_at" | "locale">;
    orgName: string;
    signers: SignerRow[];
    at: string;
    guard: { sql: string; binds: (string | number | null)[] };
    kbaSignerIds?: ReadonlySet<string>;
  },
): Promise<QueuedReminder[]> {
  const { envelope, kind, guard } = input;
  return Promise.all(
    input.signers.map(async (signer) => {
      const once = kind === "expiry_warning";
      const { slugHash, ...queued } = await queueSigningLinkEmail(
        ctx,
        {
          envelope,
          to: { email: signer.email, name: signer.name },
          signerId: once ? signer.id : null,
          kind,
          at: input.at,
          render: (url) =>
            renderReminder({
              kind,
              orgName: input.orgName,
              envelopeName: envelope.name,
              signerName: signer.name,
              role: signer.role,
              url,
              expiresAt: envelope.expires_at,
              kba: envelope.kba_required === 1 && (input.kbaSignerIds?.has(signer.id) ?? true),
              locale: envelope.locale,
            }),
        },
        { forSignerId: signer.id, guard },
      );
      const issueLink = signerReminderLinkUpdate(ctx.db, { signerId: signer.id, slugHash, guard, onceKind: once ? kind : null });
      return { ...queued, signerId: signer.id, issueLink };
    }),
  );
}
