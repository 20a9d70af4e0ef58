import type { RequestContext } from "../../lib/context";
import type { OutboxEmail } from "../../providers/email";
import { renderLinkEmail, type RenderedEmail } from "./link-email";
import { queueEmail } from "./outbox";

/** One recipient of the completed copy: a signer (`sgn_…`) or a cc recipient (`ccr_…`), with their copy link. */
export type CopyRecipient = { id: string; name: string; email: string; cc: boolean; url: string; expiresAt: string };

type CompletedCopy = { orgName: string; envelopeName: string; recipientName: string; cc: boolean; url: string; expiresAt: string };

/** Subject, plain text and HTML of the completed copy (./link-email.ts). */
export function renderCompletedCopy(c: CompletedCopy): RenderedEmail {
  const until = c.expiresAt.slice(0, 10);
  const subject = `Completed: "${c.envelopeName}": your copy of the signed document`;
  const lead = c.cc
    ? `${c.orgName} copied you on "${c.envelopeName}". Every party has signed it; here is a copy of the signed document.`
    : `Every party has signed "${c.envelopeName}", which ${c.orgName} sent you. Here is your copy of the signed document.`;
  return renderLinkEmail({
    subject,
    name: c.recipientName,
    lines: [
      lead,
      `The link downloads the signed PDF until ${until} (UTC); save the file to keep it. It is marked as a copy: the authoritative copy is held by ${c.orgName} or its vault.`,
      "The link is personal to you: do not forward it.",
    ],
    action: "Download the signed document",
    url: c.url,
  });
}

/**
 * The `completed_copy` emails of an envelope's completion (docs/consumer-signing.md), for the completion's own
 * batch: one per recipient, the row naming the recipient's id as `signer_id` (a cc recipient's
 * `ccr_…` too), so the outbox's unique (signer_id, kind) index makes a second one a no-op. The link is
 * stored withheld and sealed as every email link is (./link-at-rest.ts).
 */
export async function completedCopyEmails(
  ctx: RequestContext,
  input: { envelope: { id: string; org_id: string; name: string }; orgName: string; recipients: CopyRecipient[]; at: string },
): Promise<{ email: OutboxEmail; statement: D1PreparedStatement }[]> {
  return Promise.all(
    input.recipients.map((r) =>
      queueEmail(ctx, {
        orgId: input.envelope.org_id,
        envelopeId: input.envelope.id,
        signerId: r.id,
        kind: "completed_copy",
        to: { email: r.email, name: r.name },
        ...renderCompletedCopy({ orgName: input.orgName, envelopeName: input.envelope.name, recipientName: r.name, cc: r.cc, url: r.url, expiresAt: r.expiresAt }),
        linkUrl: r.url,
        at: input.at,
      }),
    ),
  );
}
