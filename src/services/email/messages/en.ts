/**
 * The signer emails in English (docs/decisions/signing-page-languages.md): data, one string per key,
 * `{name}` placeholders filled by ../catalog.ts. Every locale has exactly these keys and placeholders
 * (test/services/email/catalogs.spec.ts).
 */
export const en = {
  lang: "en",
  greeting: "Hello {name},",
  kba_notice: "Before the document opens you will answer a few questions that confirm your identity.",
  link_personal: "This link is personal to you: do not forward it.",
  link_until: "It can be used until {date} (UTC).",
  link_replaces: "This link replaces the one in earlier emails about this document, which no longer opens it.",
  action_sign: "Review and sign",
  invitation_subject: '{org} sent you "{envelope}" to sign',
  invitation_lead: '{org} has sent you "{envelope}" to sign (as {role}).',
  reminder_subject: 'Reminder: {org} is waiting for you to sign "{envelope}"',
  reminder_lead: '{org} is still waiting for you to sign "{envelope}" (as {role}).',
  expiry_subject_on: '"{envelope}" expires on {date}: sign it before then',
  expiry_subject_soon: '"{envelope}" expires soon: sign it before then',
  expiry_lead_on: '"{envelope}", sent to you by {org} to sign (as {role}), expires on {date} (UTC). After that it can no longer be signed.',
  expiry_lead_soon: '"{envelope}", sent to you by {org} to sign (as {role}), expires soon. After that it can no longer be signed.',
  copy_subject: 'Completed: "{envelope}": your copy of the signed document',
  copy_lead_cc: '{org} copied you on "{envelope}". Every party has signed it; here is a copy of the signed document.',
  copy_lead_signer: 'Every party has signed "{envelope}", which {org} sent you. Here is your copy of the signed document.',
  copy_until: "The link downloads the signed PDF until {date} (UTC); save the file to keep it. It is marked as a copy: the authoritative copy is held by {org} or its vault.",
  copy_personal: "The link is personal to you: do not forward it.",
  copy_action: "Download the signed document",
} as const;
