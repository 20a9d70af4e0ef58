import type { Locale } from "../../db/schema/locales";

/**
 * Knowledge-based authentication (KBA): a provider asks a person questions built from their record
 * history (credit files, public records) and says whether they answered them well enough. The
 * service never stores questions or answers: it keeps the provider's session id and the outcome.
 */

/**
 * Who is being verified, and the language the questions are asked in (the envelope's `locale`: bureaus
 * offer Spanish question sets; a provider without one asks in English). A real bureau needs more (name,
 * address, date of birth); see docs/kba.md.
 */
export type KbaSubject = { email: string; name: string; locale: Locale };

export type KbaChoice = { choice_id: string; label: string };
export type KbaQuestion = { question_id: string; prompt: string; choices: KbaChoice[] };
export type KbaAnswer = { question_id: string; choice_id: string };

/**
 * A started session: its questions, or `unavailable` when the provider has too little record history
 * to build any (not a failure: the person could not be asked, DocuSign's "no questions" case).
 */
export type KbaStart =
  | { status: "questions"; providerSessionId: string; questions: KbaQuestion[] }
  | { status: "unavailable"; providerSessionId: string };

export interface KbaProvider {
  /** The name recorded with every session and result, e.g. `sandbox`. */
  readonly name: string;
  /** Starts one question set (one attempt) for the subject. */
  start(subject: KbaSubject): Promise<KbaStart>;
  /** The questions of a started session again (the page reloaded); the service does not keep them. */
  questions(providerSessionId: string, subject: KbaSubject): Promise<KbaQuestion[]>;
  /** Scores a complete set of answers (the service has checked every id against `questions`). */
  score(providerSessionId: string, subject: KbaSubject, answers: KbaAnswer[]): Promise<"passed" | "failed">;
}
