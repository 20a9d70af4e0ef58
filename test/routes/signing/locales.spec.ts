import { describe, expect, it } from "vitest";
import { call, newTenant } from "../../helpers/api";
import { invitationSlug, outboxOf, sendableEnvelope, sendEnvelope } from "../../helpers/signing";
import { signing } from "../../helpers/signing-flow";
import { adminToken } from "../../helpers/webhooks";

const SIGNER = { role: "buyer", email: "rosa@example.com", name: "Rosa Díaz" };

/** A pending envelope with one buyer field, created with `overrides`, sent to Rosa: her invitation and her slug. */
async function sentTo(key: string, overrides: Record<string, unknown> = {}) {
  const e = await sendableEnvelope(key, ["buyer"], overrides);
  const sent = await sendEnvelope(key, e.envelope_id, { signers: [SIGNER] });
  expect(sent.status).toBe(200);
  const invitation = (await outboxOf(e.envelope_id)).find((m) => m.kind === "invitation")!;
  return { envelopeId: e.envelope_id, invitation, slug: await invitationSlug(e.envelope_id, SIGNER.email) };
}

describe("envelope locale (English, Spanish)", { timeout: 180_000 }, () => {
  it("an envelope created in Spanish: the partner reads es, Rosa's invitation is in Spanish, and her page is told es with the Spanish disclosure", async () => {
    const t = await newTenant({ name: "Préstamos del Valle" });
    const e = await sentTo(t.key, { locale: "es", consumer_consent: true });
    expect((await call("GET", `/partner/envelopes/${e.envelopeId}`, { key: t.key })).body.data.locale).toBe("es");

    expect(e.invitation.subject).toMatch(/^Préstamos del Valle le envió “Retail installment contract #\d+” para que lo firme$/);
    expect(e.invitation.text).toContain("Hola, Rosa Díaz:");
    expect(e.invitation.text).toContain("Revisar y firmar: ");
    expect(e.invitation.text).toContain("no se lo reenvíe a nadie");
    expect(e.invitation.html).toContain('<html lang="es">');
    expect(e.invitation.text).not.toMatch(/Hello|Review and sign/);

    const page = await signing("GET", e.slug);
    expect(page.status).toBe(200);
    expect(page.body.data.envelope.locale).toBe("es");
    expect(page.body.data.consent.disclosure).toMatchObject({ version: 0 });
    expect(page.body.data.consent.disclosure.text).toMatch(/^CONSENTIMIENTO PARA USAR DOCUMENTOS Y FIRMAS ELECTRÓNICOS/);
    expect(page.body.data.consent.disclosure.text).toContain("Retirar consentimiento");
    expect(page.body.data.consent.disclosure.paper_copy_contact).toMatch(/copia en papel/);
  });

  it("the organization's default_locale applies when the create names none; an explicit locale wins; only admins change it", async () => {
    const t = await newTenant();
    const admin = await adminToken(t.orgId);
    const member = await adminToken(t.orgId, "member");
    expect((await call("GET", "/org/settings", { bearer: member })).body.data).toMatchObject({ org_id: t.orgId, default_locale: "en" });
    expect((await call("PUT", "/org/settings", { bearer: member, body: { default_locale: "es" } })).status).toBe(403);
    const bad = await call("PUT", "/org/settings", { bearer: admin, body: { default_locale: "fr" } });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBeTruthy();
    const set = await call("PUT", "/org/settings", { bearer: admin, body: { default_locale: "es" } });
    expect(set.status).toBe(200);
    expect(set.body.data.default_locale).toBe("es");

    const byDefault = await sentTo(t.key);
    expect((await call("GET", `/partner/envelopes/${byDefault.envelopeId}`, { key: t.key })).body.data.locale).toBe("es");
    expect(byDefault.invitation.text).toContain("Hola, Rosa Díaz:");
    const english = await sentTo(t.key, { locale: "en" });
    expect(english.invitation.text).toContain("Hello Rosa Díaz,");
    expect((await signing("GET", english.slug)).body.data.envelope.locale).toBe("en");
    const refused = await call("POST", "/partner/envelopes", { key: t.key, body: { envelope_name: "x", customer_email: "a@example.com", customer_name: "A", locale: "pt" } });
    expect(refused.status).toBe(422);
  });

  it("one disclosure per locale: PUT ?locale=es saves the Spanish series, which Spanish envelopes pin; English keeps its own", async () => {
    const t = await newTenant();
    const admin = await adminToken(t.orgId);
    const es = {
      required: true,
      text: "Consentimiento para documentos electrónicos de Préstamos del Valle. Puede pedir copias en papel y retirar su consentimiento.",
      paper_copy_contact: "Llame al (555) 010-2000; las copias en papel son gratis.",
      withdrawal_instructions: "Elija “Retirar consentimiento” o llame al (555) 010-2000.",
    };
    const saved = await call("PUT", "/org/esign-disclosure?locale=es", { bearer: admin, body: es });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ locale: "es", version: 1, is_default: false, text: es.text });
    expect((await call("GET", "/org/esign-disclosure?locale=es", { bearer: admin })).body.data).toMatchObject({ locale: "es", version: 1, text: es.text });
    const english = (await call("GET", "/org/esign-disclosure", { bearer: admin })).body.data;
    expect(english).toMatchObject({ locale: "en", version: 0, is_default: true, required: false });
    expect(english.text).toMatch(/^CONSENT TO USE ELECTRONIC RECORDS AND SIGNATURES/);
    const unknown = await call("GET", "/org/esign-disclosure?locale=de", { bearer: admin });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBeTruthy();

    // a Spanish envelope asks for consent (the Spanish series says required) and shows the Spanish version 1
    const e = await sentTo(t.key, { locale: "es" });
    const page = (await signing("GET", e.slug)).body.data;
    expect(page.consent.disclosure).toMatchObject({ version: 1, text: es.text, paper_copy_contact: es.paper_copy_contact });
    // an English one asking for consent is shown the English shipped default
    const en = await sentTo(t.key, { locale: "en", consumer_consent: true });
    expect((await signing("GET", en.slug)).body.data.consent.disclosure.text).toMatch(/^CONSENT TO USE ELECTRONIC RECORDS/);
  });
});
