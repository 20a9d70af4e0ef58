import { z } from "@hono/zod-openapi";
import { LOCALES } from "../../db/schema/locales";

// The signer's state (GET /signing/{slug}). Defined once: the route documents and checks it, and the
// signing page (web/signing/types.ts) imports its inferred type. Keep this file free of Worker types:
// web/ typechecks it with the DOM library only.

const Area = z.object({ page: z.number().int(), x: z.number(), y: z.number(), w: z.number(), h: z.number() });

export const SigningStateSchema = z.object({
  envelope: z.object({
    id: z.string(),
    name: z.string(),
    status: z.string(),
    expires_at: z.string().nullable(),
    locale: z.enum(LOCALES).openapi({ description: "The language the signing page is shown in (`en`, `es`): the envelope's `locale`" }),
  }),
  signer: z.object({
    name: z.string(),
    email: z.string(),
    role: z.string(),
    routing_order: z.number().int(),
    status: z.string(),
    viewed_at: z.string().nullable(),
    signed_at: z.string().nullable(),
  }),
  is_your_turn: z.boolean(),
  view_only: z.boolean().openapi({ description: "A view-only session (signing links handed to a key without `esign:write`): the page shows the document and acts on nothing; consent, KBA answers, view, submit, decline and payment answer 403 `view_only_session`" }),
  kba: z
    .object({ required: z.boolean(), status: z.enum(["required", "passed", "failed", "unavailable"]).nullable() })
    .openapi({ description: "Identity verification (KBA envelopes): while `required` is true and `status` is not `passed`, `fields` is empty and the document, view, submit and decline answer 403 `kba_required`; answer the questions of GET /signing/:slug/kba first" }),
  otp: z
    .object({
      required: z.boolean(),
      verified: z.boolean(),
      phone: z.string().nullable().openapi({ description: "The phone the code goes to, masked (`+1******4567`)" }),
      verified_at: z.string().nullable(),
    })
    .openapi({
      description:
        "SMS one-time passcode (a signer sent with `auth: \"sms_otp\"`): while `required` is true and `verified` false (after KBA, before consent), `fields` is empty and the document, view, consent, submit and decline answer 403 `otp_required`; POST /signing/:slug/otp then /otp/verify first",
    }),
  consent: z
    .object({
      required: z.literal(true),
      given_at: z.string().nullable().openapi({ description: "When this signer consented; null until then" }),
      disclosure: z.object({ version: z.number().int(), text: z.string(), paper_copy_contact: z.string(), withdrawal_instructions: z.string() }),
    })
    .nullable()
    .openapi({
      description:
        "E-SIGN consumer consent (15 U.S.C. §7001(c)), on an envelope that asks for it (null otherwise): the disclosure the envelope pinned at create. While `given_at` is null `fields` is empty (their prefilled values are the contract's terms) and the document, view, submit and the payment step (also POST /embed/payment-intent) answer 403 `consent_required`; answer POST /signing/:slug/consent (`agree: true`, or `agree: false` to withdraw, which declines). KBA, where required, comes first.",
    }),
  fields: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      required: z.boolean(),
      readonly: z.boolean(),
      default_value: z.string().nullable(),
      options: z
        .array(z.string())
        .nullable()
        .openapi({
          description:
            "select and radio: the choices, in order; the value submitted must be one of them. A radio with one area per option places `options[i]` at `areas[i]`; with one area its choices are shown inside it. null for other types",
          example: ["Monthly", "Quarterly"],
        }),
      accept: z
        .array(z.enum(["application/pdf", "image/jpeg", "image/png"]))
        .optional()
        .openapi({ description: "attachment fields: the file types accepted (upload with PUT /signing/{slug}/attachments/{field_name}, at most 10 MB); absent on other types" }),
      value: z.unknown().openapi({ description: "Prefilled or default value (drawn signatures as `{ kind: \"drawn\" }`; an attachment as `{ kind: \"attachment\", filename, content_type, size, sha256, uploaded_at }` once uploaded)" }),
      areas: z.array(Area).openapi({ description: "Fractions of the displayed page, top-left origin" }),
    }),
  ),
  pages: z
    .array(z.object({ width: z.number().openapi({ example: 612 }), height: z.number().openapi({ example: 792 }) }))
    .nullable()
    .openapi({
      description:
        "The document's pages in order, each as displayed (PDF points, CropBox with /Rotate applied: the page `areas` are fractions of), so a page can be laid out and its fields placed before the PDF itself is read. null while `fields` is held back (KBA, passcode, consent, completed) and for documents stored before page sizes were recorded (read the sizes from GET /signing/{slug}/document)",
      example: [{ width: 612, height: 792 }, { width: 792, height: 612 }],
    }),
  signers: z.array(z.object({ name: z.string(), role: z.string(), routing_order: z.number().int(), status: z.string(), is_you: z.boolean() })),
  copy: z
    .object({ url: z.string(), expires_at: z.string() })
    .optional()
    .openapi({
      description:
        "Once the envelope is completed (or vaulted), for 30 days after completion: the signer's copy of the signed document, a signed download link that needs no login and stops working at `expires_at`; `fields` is then empty. Absent while the envelope is open; after the 30 days the link answers 410",
    }),
});

export type SigningState = z.infer<typeof SigningStateSchema>;
