import { describe, expect, it } from "vitest";
import { kbaProvider } from "../../../src/providers/kba";
import { correctChoiceIndex } from "../../helpers/kba";

const subject = (email: string, locale: "en" | "es" = "en") => ({ email, name: "Jane Buyer", locale });

describe("the sandbox KBA provider (docs/decisions/sign-and-pay.md)", () => {
  it("asks 3 questions of 4 choices, the same ones again for the same session, and passes exactly the rule's answers", async () => {
    const sandbox = kbaProvider({ KBA_PROVIDER: "sandbox", SERVICE_ENV: "development" });
    expect(sandbox.name).toBe("sandbox");
    const email = "Jane.Doe@Example.com";
    const started = await sandbox.start(subject(email));
    if (started.status !== "questions") throw new Error("expected questions");
    expect(started.questions).toHaveLength(3);
    expect(new Set(started.questions.map((q) => q.question_id)).size).toBe(3);
    for (const q of started.questions) expect(q.choices).toHaveLength(4);
    expect(await sandbox.questions(started.providerSessionId, subject(email))).toEqual(started.questions);

    // the rule uses the lower-cased email, in the order the choices are listed
    const right = await Promise.all(started.questions.map(async (q) => ({ question_id: q.question_id, choice_id: q.choices[await correctChoiceIndex("jane.doe@example.com", q.question_id)]!.choice_id })));
    expect(await sandbox.score(started.providerSessionId, subject(email), right)).toBe("passed");
    for (let i = 0; i < 3; i++) {
      const oneWrong = right.map((a, j) => (j === i ? { ...a, choice_id: started.questions[j]!.choices.find((c) => c.choice_id !== a.choice_id)!.choice_id } : a));
      expect(await sandbox.score(started.providerSessionId, subject(email), oneWrong)).toBe("failed");
    }
    // another signer's right answers are not this signer's
    const answersOf = (who: string) => Promise.all(started.questions.map(async (q) => ({ question_id: q.question_id, choice_id: q.choices[await correctChoiceIndex(who, q.question_id)]!.choice_id })));
    let other = await answersOf("someone.else@example.com");
    for (let i = 0; JSON.stringify(other) === JSON.stringify(right); i++) other = await answersOf(`someone.else.${i}@example.com`);
    expect(await sandbox.score(started.providerSessionId, subject(email), other)).toBe("failed");
  });

  it("asks a subject whose envelope is in Spanish the same questions in Spanish: same ids and choices in the same order, scored by the same rule", async () => {
    const sandbox = kbaProvider({ KBA_PROVIDER: "sandbox", SERVICE_ENV: "development" });
    const email = "rosa.diaz@example.com";
    const started = await sandbox.start(subject(email, "es"));
    if (started.status !== "questions") throw new Error("expected questions");
    const english = await sandbox.questions(started.providerSessionId, subject(email));
    const spanish = await sandbox.questions(started.providerSessionId, subject(email, "es"));
    expect(spanish).toEqual(started.questions);
    expect(spanish.map((q) => q.question_id)).toEqual(english.map((q) => q.question_id));
    expect(spanish.map((q) => q.choices.map((c) => c.choice_id))).toEqual(english.map((q) => q.choices.map((c) => c.choice_id)));
    for (const [i, q] of spanish.entries()) {
      expect(q.prompt).toMatch(/^¿.+\?$/);
      expect(q.prompt).not.toBe(english[i]!.prompt);
      expect(q.choices.map((c) => c.label).join(" ")).not.toMatch(/None of the above|January/);
    }
    const right = await Promise.all(spanish.map(async (q) => ({ question_id: q.question_id, choice_id: q.choices[await correctChoiceIndex(email, q.question_id)]!.choice_id })));
    expect(await sandbox.score(started.providerSessionId, subject(email, "es"), right)).toBe("passed");
  });

  it("answers unavailable (no questions) for a local part ending in +kba-unavailable, in any case", async () => {
    const sandbox = kbaProvider({ KBA_PROVIDER: "sandbox", SERVICE_ENV: "development" });
    for (const email of ["jane+kba-unavailable@example.com", "JANE+KBA-Unavailable@example.com"]) {
      const started = await sandbox.start(subject(email));
      expect(started.status).toBe("unavailable");
      expect(started.providerSessionId).toMatch(/^kbasbx_/);
    }
    expect((await sandbox.start(subject("kba-unavailable@example.com"))).status).toBe("questions");
    expect((await sandbox.start(subject("jane@kba-unavailable.example.com"))).status).toBe("questions");
  });

  it("is not configured without KBA_PROVIDER, or with an unknown name: 503 naming the variable", () => {
    for (const value of [undefined, "", "  ", "acme-bureau"]) {
      expect(() => kbaProvider({ KBA_PROVIDER: value }), String(value)).toThrow(/KBA_PROVIDER/);
      try {
        kbaProvider({ KBA_PROVIDER: value });
      } catch (err) {
        expect((err as { status: number }).status).toBe(503);
      }
    }
  });
});
