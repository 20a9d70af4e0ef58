import { ATTACHMENT_TYPES, type AttachmentType } from "../documents/schema";
import type { SigningFieldRow } from "../documents/repository";

/** What an attachment field's value holds once the signer uploaded (docs/decisions/attachments.md). */
export type StoredAttachment = { key: string; sha256: string; size: number; content_type: AttachmentType; filename: string; uploaded_at: string };

/** The attachment an `attachment` field holds, or null (not uploaded, or not an attachment field). */
export function attachmentOf(field: Pick<SigningFieldRow, "type" | "value">): StoredAttachment | null {
  if (field.type !== "attachment" || !field.value) return null;
  try {
    const parsed = JSON.parse(field.value) as { attachment?: StoredAttachment };
    const a = parsed.attachment;
    return a && typeof a.key === "string" && typeof a.sha256 === "string" ? a : null;
  } catch {
    return null;
  }
}

export const attachmentValue = (a: StoredAttachment) => JSON.stringify({ attachment: a });

/** An attachment field's accepted types: its options, or all of them. */
export const acceptOf = (field: Pick<SigningFieldRow, "options">): AttachmentType[] => {
  const listed = field.options ? (JSON.parse(field.options) as string[]) : null;
  return listed ? ATTACHMENT_TYPES.filter((t) => listed.includes(t)) : [...ATTACHMENT_TYPES];
};

/** A file name a signer's device gave, made safe to show and to offer as a download name. */
export function safeFilename(name: string | null, type: AttachmentType): string {
  const ext = { "application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png" }[type];
  const base = (name ?? "")
    .replace(/[\u0000-\u001f\u007f"\\/<>:|?*]+/g, "")
    .trim()
    .slice(0, 120);
  return base || `attachment.${ext}`;
}

/** What the signer, the partner and `envelope.completed` see of an attachment: never its storage key. */
export const publicAttachment = (a: StoredAttachment) => ({ kind: "attachment" as const, filename: a.filename, content_type: a.content_type, size: a.size, sha256: a.sha256, uploaded_at: a.uploaded_at });
