import { sha256Hex } from "../../lib/crypto";
import { randomToken } from "../../lib/ids";
import type { KbaAnswer, KbaProvider, KbaQuestion, KbaStart, KbaSubject } from "./interface";

/**
 * The sandbox KBA provider (KBA_PROVIDER=sandbox): deterministic, like a payment processor's test
 * cards, so tests, demos and integrators can pass, fail and get `unavailable` on purpose. It checks no
 * identity at all and must never be used to verify real people.
 *
 * The rule (docs/decisions/sign-and-pay.md): 3 questions of 4 choices; the correct choice of a question is the one at
 * index `sha256(lower(email) + ":" + question_id)[0] mod 4`, in the order the choices are listed; all
 * 3 correct -> `passed`. An email whose local part ends with `+kba-unavailable` gets `unavailable`.
 * The questions of a session are derived from its id, so nothing about them is stored anywhere. A subject
 * whose envelope is in Spanish is asked the same questions in Spanish.
 */

type BankEntry = { question_id: string; prompt: string; labels: [string, string, string, string] };

const BANK: BankEntry[] = [
  { question_id: "prior_street", prompt: "Which of these streets have you lived on?", labels: ["Maple Avenue", "Harbor Road", "Juniper Lane", "None of the above"] },
  { question_id: "vehicle_make", prompt: "Which make of vehicle have you financed before?", labels: ["Toyota", "Ford", "Subaru", "None of the above"] },
  { question_id: "county", prompt: "In which county have you had an address?", labels: ["Kings County", "Travis County", "Cook County", "None of the above"] },
  { question_id: "phone_prefix", prompt: "Which of these phone numbers' first digits have been yours?", labels: ["(212) 555", "(512) 555", "(312) 555", "None of the above"] },
  { question_id: "employer", prompt: "Which of these employers have you worked for?", labels: ["Northwind Traders", "Contoso Ltd", "Fabrikam Inc", "None of the above"] },
  { question_id: "lender", prompt: "With which lender have you had a loan?", labels: ["First Prairie Bank", "Summit Credit Union", "Harbor Savings", "None of the above"] },
  { question_id: "birth_month", prompt: "In which month were you born?", labels: ["January to March", "April to June", "July to September", "October to December"] },
  { question_id: "previous_city", prompt: "In which city have you lived?", labels: ["Springfield", "Riverside", "Fairview", "None of the above"] },
];

/**
 * The same questions as a bureau's Spanish set asks them (same ids and choices in the same order, so the
 * rule and the scoring do not change with the language): names of streets, places and companies stay as
 * they are on the record.
 */
const BANK_ES: Record<string, Pick<BankEntry, "prompt"> & { none: string; labels?: BankEntry["labels"] }> = {
  prior_street: { prompt: "¿En cuál de estas calles ha vivido?", none: "Ninguna de las anteriores" },
  vehicle_make: { prompt: "¿De qué marca es algún vehículo que haya financiado?", none: "Ninguna de las anteriores" },
  county: { prompt: "¿En qué condado ha tenido una dirección?", none: "Ninguno de los anteriores" },
  phone_prefix: { prompt: "¿Con cuál de estos dígitos ha empezado algún número de teléfono suyo?", none: "Ninguno de los anteriores" },
  employer: { prompt: "¿Para cuál de estas empresas ha trabajado?", none: "Ninguna de las anteriores" },
  lender: { prompt: "¿Con qué entidad ha tenido un préstamo?", none: "Ninguna de las anteriores" },
  birth_month: { prompt: "¿En qué meses nació?", none: "", labels: ["De enero a marzo", "De abril a junio", "De julio a septiembre", "De octubre a diciembre"] },
  previous_city: { prompt: "¿En qué ciudad ha vivido?", none: "Ninguna de las anteriores" },
};

/** An entry in the subject's language: Spanish when the envelope is in Spanish, else the English set. */
function localized(q: BankEntry, locale: KbaSubject["locale"]): BankEntry {
  const es = locale === "es" ? BANK_ES[q.question_id] : undefined;
  if (!es) return q;
  return { question_id: q.question_id, prompt: es.prompt, labels: es.labels ?? [q.labels[0], q.labels[1], q.labels[2], es.none] };
}

const QUESTIONS_PER_SESSION = 3;
const UNAVAILABLE_SUFFIX = "+kba-unavailable";

const isUnavailable = (email: string) => email.toLowerCase().split("@")[0]!.endsWith(UNAVAILABLE_SUFFIX);

/** The index of the correct choice of `questionId` for `email`: the sandbox rule, exported for docs and tests. */
export async function sandboxCorrectIndex(email: string, questionId: string): Promise<number> {
  const hex = await sha256Hex(`${email.toLowerCase()}:${questionId}`);
  return parseInt(hex.slice(0, 2), 16) % 4;
}

/** The three questions of a session: consecutive entries of the bank from an offset the session id picks, in the subject's language. */
async function questionsOf(providerSessionId: string, locale: KbaSubject["locale"]): Promise<KbaQuestion[]> {
  const offset = parseInt((await sha256Hex(providerSessionId)).slice(0, 2), 16) % BANK.length;
  return Array.from({ length: QUESTIONS_PER_SESSION }, (_, i) => {
    const q = localized(BANK[(offset + i) % BANK.length]!, locale);
    return { question_id: q.question_id, prompt: q.prompt, choices: q.labels.map((label, c) => ({ choice_id: `${q.question_id}.${"abcd"[c]}`, label })) };
  });
}

export class SandboxKbaProvider implements KbaProvider {
  readonly name = "sandbox";

  async start(subject: KbaSubject): Promise<KbaStart> {
    const providerSessionId = `kbasbx_${randomToken(16)}`;
    if (isUnavailable(subject.email)) return { status: "unavailable", providerSessionId };
    return { status: "questions", providerSessionId, questions: await questionsOf(providerSessionId, subject.locale) };
  }

  questions(providerSessionId: string, subject: KbaSubject): Promise<KbaQuestion[]> {
    return questionsOf(providerSessionId, subject.locale);
  }

  async score(providerSessionId: string, subject: KbaSubject, answers: KbaAnswer[]): Promise<"passed" | "failed"> {
    const questions = await questionsOf(providerSessionId, subject.locale);
    for (const q of questions) {
      const answer = answers.find((a) => a.question_id === q.question_id);
      const correct = q.choices[await sandboxCorrectIndex(subject.email, q.question_id)]!;
      if (answer?.choice_id !== correct.choice_id) return "failed";
    }
    return "passed";
  }
}
