import { z } from "@hono/zod-openapi";
import { PHONE_PATTERN, SIGNER_STATUSES } from "../signers/schema";

export { PHONE_PATTERN };

export const CorrectSignerBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    email: z.email().max(254).optional(),
    phone: z
      .string()
      .regex(PHONE_PATTERN, "an E.164 phone number such as +15551234567")
      .nullable()
      .optional()
      .openapi({ description: "E.164 (`+15551234567`); null removes it" }),
  })
  .refine((b) => b.name !== undefined || b.email !== undefined || b.phone !== undefined, { message: "Give at least one of name, email, phone" })
  .openapi("CorrectSigner", { example: { email: "jane.doe@example.net", name: "Jane Doe" } });
export type CorrectSignerInput = z.infer<typeof CorrectSignerBody>;

const signerFields = {
  signer_id: z.string(),
  email: z.string(),
  name: z.string(),
  phone: z.string().nullable(),
  role: z.string(),
  routing_order: z.int(),
  status: z.enum(SIGNER_STATUSES),
  invitation_sent: z.boolean().openapi({ description: "Whether a new invitation email was queued: false when the signer's turn (routing order) has not come; their invitation goes out then" }),
  next_resend_at: z.string().nullable().openapi({ description: "The earliest time `…/resend` answers for this signer (one re-send per 10 minutes)" }),
};
const example = {
  signer_id: "sgn_4k7q1c8v5b3n6p0r2t4w6y9x2m",
  email: "jane.doe@example.net",
  name: "Jane Doe",
  phone: null,
  role: "buyer",
  routing_order: 1,
  status: "pending",
  invitation_sent: true,
  next_resend_at: "2026-11-23T09:40:00.000Z",
};

/** A signer after a correction or a re-sent invitation. No link: the new one is only in the email (ask `…/signing-links` for a session). */
export const ReissuedSignerSchema = z.object(signerFields).openapi("ReissuedSigner", { example });
