import { z } from "@hono/zod-openapi";
import { KBA_CHECK_STATUSES, KBA_OUTCOMES } from "../../db/schema/kba";

const Choice = z.object({ choice_id: z.string(), label: z.string() });
const Question = z.object({ question_id: z.string(), prompt: z.string(), choices: z.array(Choice) }).openapi("KbaQuestion");

export const KbaSessionSchema = z
  .object({
    session_id: z.string().openapi({ description: "Send it back with the answers; good for one answer, until expires_at" }),
    expires_at: z.string(),
    questions: z.array(Question),
  })
  .openapi("KbaSession");

export const KbaStepSchema = z
  .object({
    status: z.enum(KBA_CHECK_STATUSES).openapi({ description: "`required` until answered; `passed` unlocks the document; `failed` locks this link; `unavailable`: no questions could be built, the sender decides" }),
    attempts_left: z.int(),
    session: KbaSessionSchema.nullable().openapi({ description: "The question set to answer, while `required`; null otherwise" }),
  })
  .openapi("KbaStep", {
    example: {
      status: "required",
      attempts_left: 2,
      session: {
        session_id: "kbas_8k2m4p6r8t0v2x4z6b8d0f2h4j",
        expires_at: "2026-11-23T14:12:00.000Z",
        questions: [{ question_id: "vehicle_make", prompt: "Which make of vehicle have you financed before?", choices: [{ choice_id: "vehicle_make.a", label: "Toyota" }] }],
      },
    },
  });

export const KbaAnswersBody = z
  .object({
    session_id: z.string().min(1).max(100),
    answers: z
      .array(z.object({ question_id: z.string().min(1).max(100), choice_id: z.string().min(1).max(100) }))
      .min(1)
      .max(20)
      .openapi({ description: "One answer per question of the session" }),
  })
  .openapi("KbaAnswers", { example: { session_id: "kbas_8k2m4p6r8t0v2x4z6b8d0f2h4j", answers: [{ question_id: "vehicle_make", choice_id: "vehicle_make.a" }] } });
export type KbaAnswersInput = z.infer<typeof KbaAnswersBody>;

export const KbaAnswerResultSchema = z.object({ status: z.enum(KBA_CHECK_STATUSES), attempts_left: z.int() }).openapi("KbaAnswerResult");

/** The KBA result of spec part 2, as GET /envelopes/:id/kba lists it. */
export const KbaResultSchema = z
  .object({
    signer_email: z.string(),
    status: z.enum(KBA_OUTCOMES),
    occurred_at: z.string(),
    provider: z.string().openapi({ description: "The KBA provider that verified (or tried to verify) the signer. `sandbox` is the deterministic development provider: it verifies nobody" }),
    provider_session_id: z.string(),
    ip_address: z.string().nullable(),
    price_cents: z.int(),
  })
  .openapi("KbaResult", {
    example: { signer_email: "jane.doe@example.com", status: "passed", occurred_at: "2026-11-23T14:02:11.000Z", provider: "sandbox", provider_session_id: "kbasbx_3n6p0r2t4w6y8a0c2e4g6j8m0p", ip_address: "203.0.113.7", price_cents: 400 },
  });
