import { describe, expect, it } from "vitest";
import { LOCALES } from "../../../src/db/schema/locales";
import { EMAIL_CATALOGS } from "../../../src/services/email/catalog";
import { DEFAULT_DISCLOSURES } from "../../../src/services/consent/default-disclosure";
import { renderReminder } from "../../../src/services/email/reminder";
import { renderCompletedCopy } from "../../../src/services/email/completed-copy";
import { PAGE_CATALOGS } from "../../../web/i18n/catalogs";

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Every locale has every key of English, no other, each with the same placeholders, none left empty. */
function expectComplete(catalogs: Record<string, Record<string, unknown>>) {
  const english = catalogs.en!;
  for (const locale of LOCALES) {
    const catalog = catalogs[locale];
    expect(catalog, locale).toBeDefined();
    expect(Object.keys(catalog!).sort(), `${locale} has exactly the English keys`).toEqual(Object.keys(english).sort());
    for (const [key, value] of Object.entries(english)) {
      const other = catalog![key];
      expect(typeof other, `${locale}.${key}`).toBe(typeof value);
      if (typeof value === "string") {
        expect((other as string).trim().length, `${locale}.${key} is written`).toBeGreaterThan(0);
        expect(placeholders(other as string), `${locale}.${key} placeholders`).toEqual(placeholders(value));
      }
    }
  }
}

describe("message catalogs", () => {
  it("the signer emails' catalog has every key, with its placeholders, in every locale", () => {
    expectComplete(EMAIL_CATALOGS);
  });

  it("the signing page's catalog has every key, with its placeholders, in every locale", () => {
    expectComplete(PAGE_CATALOGS);
  });

  it("a catalog missing a key fails the check", () => {
    const { copy_action: _dropped, ...missing } = EMAIL_CATALOGS.es;
    expect(() => expectComplete({ ...EMAIL_CATALOGS, es: missing })).toThrow(/es has exactly the English keys/);
  });

  it("every locale ships a disclosure with its paper-copy and withdrawal text", () => {
    for (const locale of LOCALES) {
      const d = DEFAULT_DISCLOSURES[locale];
      expect(d.required).toBe(false);
      expect(d.text.split("\n\n")).toHaveLength(DEFAULT_DISCLOSURES.en.text.split("\n\n").length);
      expect(d.paper_copy_contact.length).toBeGreaterThan(20);
      expect(d.withdrawal_instructions.length).toBeGreaterThan(20);
    }
  });

  it("a Spanish reminder, expiry warning and completed copy read as Spanish, dates written out", () => {
    const base = { orgName: "Préstamos del Valle", envelopeName: "Contrato", signerName: "Rosa", role: "comprador", url: "https://sign.example/s/x", expiresAt: "2026-12-01T00:00:00.000Z", kba: true, locale: "es" as const };
    const reminder = renderReminder({ ...base, kind: "reminder" });
    expect(reminder.subject).toBe("Recordatorio: Préstamos del Valle todavía espera su firma en “Contrato”");
    expect(reminder.text).toContain("Puede usarlo hasta el 1 de diciembre de 2026 (hora UTC).");
    expect(reminder.text).toContain("contestar unas preguntas para confirmar su identidad");
    const warning = renderReminder({ ...base, kind: "expiry_warning" });
    expect(warning.subject).toBe("“Contrato” vence el 1 de diciembre de 2026: fírmelo antes de esa fecha");
    const copy = renderCompletedCopy({ orgName: base.orgName, envelopeName: "Contrato", recipientName: "Rosa", cc: false, url: base.url, expiresAt: base.expiresAt, locale: "es" });
    expect(copy.subject).toBe("Completado: “Contrato”: su copia del documento firmado");
    expect(copy.text).toContain("Descargar el documento firmado: https://sign.example/s/x");
    expect(copy.html).toContain('<html lang="es">');
  });
});
