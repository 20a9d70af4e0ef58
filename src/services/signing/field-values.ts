import { unprocessable } from "../../lib/errors";
import { signaturePngProblem } from "../../lib/signature-png";
import { attachmentOf, publicAttachment } from "../attachments/value";
import { optionsOf, type EnvelopeFieldRow } from "./repository";

/**
 * Drawn signatures arrive as PNG data URLs. A pen stroke at screen resolution is a few KiB; the cap is
 * 512 KiB because the whole JSON body is limited to 1 MiB (app.ts) and base64 adds a third, so a cap of
 * 1 MiB could never be reached and the signer would see a 413 instead of a field-level 422.
 */
export const MAX_SIGNATURE_PNG_BYTES = 512 * 1024;
const PNG_DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/=\s]+)$/;

export type SubmittedValue = string | number | boolean | null;

/** A validated value: what is stored on the field (`value`), and a drawn signature's bytes to upload. */
export type AcceptedValue = { field: EnvelopeFieldRow; stored: string; png?: Uint8Array };

type Issue = { path: (string | number)[]; message: string; code: string };

/**
 * Checks the signer's values against their fields. Signatures and initials: a PNG data URL (drawn) or
 * text (typed, stamped in a script face). Dates ISO 8601 (YYYY-MM-DD), numbers finite, checkboxes
 * boolean, select/radio one of the field's options. Readonly fields keep their default or prefilled value: a
 * different value is refused rather than ignored, so the signer's page and the document never disagree.
 * Required fields without a value: 422 listing them.
 */
export function acceptValues(fields: EnvelopeFieldRow[], values: Record<string, SubmittedValue>): AcceptedValue[] {
  const issues: Issue[] = [];
  const byName = new Map(fields.map((f) => [f.name, f]));
  for (const name of Object.keys(values)) {
    if (!byName.has(name)) issues.push({ path: ["values", name], code: "unknown_field", message: `No field named ${name} belongs to this signer` });
  }
  const accepted: AcceptedValue[] = [];
  const missing: string[] = [];
  for (const field of fields) {
    const given = values[field.name];
    const path = ["values", field.name];
    if (field.readonly === 1) {
      if (given !== undefined && given !== null && String(given) !== (field.value ?? "")) {
        issues.push({ path, code: "readonly", message: `${field.name} is read-only; it keeps its value` });
      }
      continue;
    }
    const empty = given === undefined || given === null || given === "" || (field.type === "checkbox" && given === false && field.required === 1);
    if (empty) {
      if (field.required === 1 && !field.value) missing.push(field.name);
      else if (field.value && given === undefined) accepted.push({ field, stored: field.value });
      continue;
    }
    const result = acceptOne(field, given);
    if ("message" in result) issues.push({ path, code: "invalid_value", message: result.message });
    else accepted.push(result);
  }
  for (const name of missing) issues.push({ path: ["values", name], code: "required", message: `${name} is required` });
  if (issues.length) {
    throw unprocessable(missing.length ? `Required fields are not filled: ${missing.join(", ")}` : "Validation failed", issues);
  }
  return accepted;
}

function acceptOne(field: EnvelopeFieldRow, given: SubmittedValue): AcceptedValue | { message: string } {
  switch (field.type) {
    case "attachment":
      // the file arrives on its own (PUT /signing/:slug/attachments/:field_name); submit keeps what was uploaded
      return { message: `${field.name} is an attachment: upload the file with PUT /signing/{slug}/attachments/${field.name}, and leave it out of values` };
    case "signature":
    case "initials": {
      if (typeof given !== "string") return { message: `${field.name} must be a PNG data URL or typed text` };
      if (given.startsWith("data:")) {
        const png = decodePng(given);
        return typeof png === "string" ? { message: `${field.name}: ${png}` } : { field, stored: "", png };
      }
      if (given.trim().length === 0 || given.length > 200) return { message: `${field.name}: a typed signature is 1 to 200 characters` };
      return { field, stored: JSON.stringify({ typed: given.trim() }) };
    }
    case "date": {
      if (typeof given !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(given) || Number.isNaN(Date.parse(`${given}T00:00:00Z`))) {
        return { message: `${field.name} must be an ISO date (YYYY-MM-DD)` };
      }
      return { field, stored: given };
    }
    case "number": {
      const n = typeof given === "number" ? given : typeof given === "string" && given.trim() !== "" ? Number(given) : Number.NaN;
      return Number.isFinite(n) ? { field, stored: String(n) } : { message: `${field.name} must be a number` };
    }
    case "checkbox":
      return typeof given === "boolean" ? { field, stored: given ? "true" : "false" } : { message: `${field.name} must be true or false` };
    case "select":
    case "radio": {
      const options = optionsOf(field);
      // Fields placed before templates had options keep the old rule: any text.
      if (options === null) break;
      if (typeof given === "string" && options.includes(given)) return { field, stored: given };
      return { message: `${field.name} must be one of its options: ${options.join(", ")}` };
    }
  }
  if (typeof given !== "string" || given.length > 1000) return { message: `${field.name} must be text of at most 1000 characters` };
  return { field, stored: given };
}

function decodePng(dataUrl: string): Uint8Array | string {
  const match = PNG_DATA_URL.exec(dataUrl);
  if (!match) return "a drawn signature must be a data:image/png;base64 URL";
  const b64 = match[1]!.replace(/\s+/g, "");
  if ((b64.length * 3) / 4 > MAX_SIGNATURE_PNG_BYTES + 3) return `the image is larger than ${MAX_SIGNATURE_PNG_BYTES} bytes`;
  let binary: string;
  try {
    binary = atob(b64);
  } catch {
    return "the image is not valid base64";
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  if (bytes.length > MAX_SIGNATURE_PNG_BYTES) return `the image is larger than ${MAX_SIGNATURE_PNG_BYTES} bytes`;
  // Dimensions, colour format and the inflated pixel data are checked here, before anything is stored:
  // completion decodes the image in full (lib/signature-png.ts).
  return signaturePngProblem(bytes) ?? bytes;
}

/** The shape of a stored drawn signature: `image:signatures/<org>/<envelope>/<signer>-<uuid>.png` (submit-signing.ts). */
const DRAWN = /^image:signatures\/([A-Za-z0-9_]+)\/([A-Za-z0-9_]+)\/([A-Za-z0-9_]+)-[0-9a-f-]{36}\.png$/;

/**
 * The R2 key of a drawn signature, or null when the value is text. Only a signature or initials field
 * can carry a drawing, and only one uploaded by the signer holding the field's role, under this envelope's
 * own prefix: any other value (a text field's "image:...", a default naming another object) is a value,
 * stamped as text, so a signer or partner can never make completion read, stamp or choke on another object.
 */
export function drawnImageKey(
  field: Pick<EnvelopeFieldRow, "type" | "value">,
  owner: { orgId: string; envelopeId: string; signerId: string | undefined },
): string | null {
  if ((field.type !== "signature" && field.type !== "initials") || field.value === null) return null;
  const m = DRAWN.exec(field.value);
  if (!m || m[1] !== owner.orgId || m[2] !== owner.envelopeId || owner.signerId === undefined || m[3] !== owner.signerId) return null;
  return field.value.slice("image:".length);
}

/** What a stored value means on the page and in `envelope.completed`. */
export function publicValue(field: Pick<EnvelopeFieldRow, "type" | "value">): unknown {
  const v = field.value;
  if (v === null) return null;
  if (field.type === "signature" || field.type === "initials") {
    if (DRAWN.test(v)) return { kind: "drawn" };
    try {
      const parsed = JSON.parse(v) as { typed?: string };
      if (typeof parsed.typed === "string") return { kind: "typed", text: parsed.typed };
    } catch {
      /* a default value that is plain text */
    }
    return { kind: "typed", text: v };
  }
  if (field.type === "attachment") {
    const a = attachmentOf(field);
    return a ? publicAttachment(a) : null;
  }
  if (field.type === "checkbox") return v === "true";
  if (field.type === "number") return Number(v);
  return v;
}
