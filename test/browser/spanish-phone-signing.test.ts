import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { api, base, browserSuite, contractPdf, expectAccessible, field, ok, phonePage, sentConsumerContract, shot, status } from "./helpers";

// Issue 36 item 5: a Spanish consumer on a phone, start to the copy: the texted code (sms_otp), the
// E-SIGN consent, the document with an attachment field, the signature, the copy. Every step in
// Spanish (<html lang="es">) and accessible (axe, WCAG 2.2 AA: docs/decisions/signing-page-languages.md).
const suite = browserSuite("Préstamos del Río Grande");

/** The last code texted to the phone ending `last4`, as GET /dev/sms shows the outbox. */
async function textedCode(last4: string): Promise<string> {
  const html = await (await fetch(`${base()}/dev/sms`)).text();
  const item = html.split("<li>").find((li) => li.includes(`******${last4}`));
  const code = item && /(\d{6}) is your code/.exec(item)?.[1];
  if (!code) throw new Error(`no text to …${last4} on /dev/sms`);
  return code;
}

const lang = (page: import("playwright-core").Page) => page.evaluate(() => document.documentElement.lang);

describe("a Spanish consumer signs on a phone, with a texted code and an attachment", () => {
  it("passcode, consent, document, attachment, signature, completion and copy: in Spanish and accessible at each step; the partner sees the signer verified and the file", async () => {
    const last4 = String(1000 + Math.floor(Math.random() * 9000));
    const contract = await sentConsumerContract(suite.org.key, {
      consumerConsent: true,
      locale: "es",
      email: "lucia@example.com",
      signer: { auth: "sms_otp", phone: `+1956555${last4}` },
      extraFields: [field("proof_of_income", "attachment", "borrower", [{ page: 1, x: 0.12, y: 0.75, w: 0.5, h: 0.04 }], { required: true, accept: ["application/pdf", "image/png"] })],
    });
    const page = await phonePage(suite.browser);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    // the HTML itself is in Spanish before the script reads the state: its language, title and "Loading…"
    const shell = await (await page.goto(contract.url))!.text();
    expect(shell).toContain('<html lang="es">');
    expect(shell).toContain("<title>Revisar y firmar</title>");
    expect(shell).toContain('<p class="loading">Cargando…</p>');
    expect(shell).toContain(">Ir al documento</a>");
    expect(shell).not.toMatch(/Loading|Review and sign|Skip to/);

    // 1. the passcode, before anything else
    await page.getByRole("heading", { name: "Verifique su teléfono" }).waitFor();
    expect(await lang(page)).toBe("es");
    expect(await page.locator(".otp-intro").textContent()).toContain(`+1******${last4}`);
    await expectAccessible(page, "passcode (es)");
    await page.getByRole("button", { name: "Envíenme un código" }).tap();
    await expect.poll(() => page.locator("#notice").textContent()).toContain(`Le enviamos un código al +1******${last4}`);
    const input = page.getByLabel("Código de 6 dígitos");
    await shot(page, "es-phone-1-passcode");
    await expectAccessible(page, "passcode sent (es)");
    await input.fill(await textedCode(last4));
    await page.getByRole("button", { name: "Verificar" }).tap();

    // 2. the E-SIGN disclosure
    await page.getByRole("heading", { name: "Consentimiento para usar documentos y firmas electrónicos" }).waitFor();
    expect(await lang(page)).toBe("es");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, "es-phone-2-consent");
    await expectAccessible(page, "consent (es)");
    await page.getByRole("button", { name: "Acepto usar documentos y firmas electrónicos" }).tap();

    // 3. the document, with its attachment field
    const name = page.getByRole("textbox", { name: "Borrower name, obligatorio" });
    await name.waitFor();
    expect(await lang(page)).toBe("es");
    expect(await page.getByRole("button", { name: "Terminar" }).isVisible()).toBe(true);
    const attach = page.getByRole("button", { name: "Adjuntar un archivo: Proof of income, obligatorio" });
    expect(await attach.textContent()).toBe("Adjuntar archivo");
    await expectAccessible(page, "document (es)");

    // 4. a file of a type the field does not take: the service's refusal, in Spanish (its code mapped to the page's words)
    await page.getByLabel("Archivo para Proof of income").setInputFiles({ name: "notas.txt", mimeType: "text/plain", buffer: Buffer.from("ingresos mensuales: 5200") });
    await expect.poll(() => page.locator(".attach-status").textContent()).toBe("Proof of income: no se adjuntó el archivo. Este campo acepta archivos PDF, PNG; el archivo enviado no es de ese tipo.");

    // the attachment uploaded
    await page.getByLabel("Archivo para Proof of income").setInputFiles({ name: "talon-de-pago.pdf", mimeType: "application/pdf", buffer: Buffer.from(await contractPdf(1, "Pay stub")) });
    await expect.poll(() => page.locator(".attach-status").textContent()).toBe("Proof of income: se adjuntó talon-de-pago.pdf");
    expect(await attach.textContent()).toBe("Reemplazar archivo: talon-de-pago.pdf");
    await shot(page, "es-phone-3-attached");
    await expectAccessible(page, "attachment uploaded (es)");

    // 5. the signature dialog (typed: the default, no drawing needed)
    await name.fill("Lucía Hernández");
    await page.getByRole("button", { name: /Firmar: Borrower signature/ }).tap();
    const dialog = page.getByRole("dialog", { name: /Adopte su firma/ });
    await dialog.waitFor();
    expect(await dialog.getByRole("tab", { name: "Escribir" }).getAttribute("aria-selected")).toBe("true");
    await shot(page, "es-phone-4-signature");
    await expectAccessible(page, "signature dialog (es)");
    await dialog.getByRole("button", { name: "Adoptar y firmar" }).tap();
    await page.locator(".sig.filled").waitFor();
    await expect.poll(() => page.textContent("#progress")).toBe("3 de 3 campos obligatorios llenos");
    await page.getByRole("button", { name: "Terminar" }).tap();

    // 6. completion, and 7. the copy
    await page.getByRole("heading", { name: "Gracias, ya firmó" }).waitFor();
    expect(await lang(page)).toBe("es");
    await expectAccessible(page, "completion (es)");
    const download = page.getByRole("link", { name: "Descargar su copia" });
    await download.waitFor();
    expect(await page.textContent("#copy-until")).toMatch(/estará disponible aquí hasta el \d{1,2} de [a-z]+ de \d{4}/);
    await shot(page, "es-phone-5-copy");
    await expectAccessible(page, "copy (es)");
    const [file] = await Promise.all([page.waitForEvent("download"), download.tap()]);
    const bytes = await readFile((await file.path())!);
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(errors).toEqual([]);
    await page.close();

    // the partner's side: completed, the signer verified by the texted code, the file there
    expect(await status(suite.org.key, contract.envelopeId)).toBe("completed");
    const read = await ok(api("GET", `/partner/envelopes/${contract.envelopeId}`, { key: suite.org.key }));
    const signer = read.signers[0];
    expect(signer).toMatchObject({ status: "completed", auth: "sms_otp", otp: { phone: `+1******${last4}`, verified: true } });
    expect(signer.otp.verified_at).toEqual(expect.any(String));
    const attachment = await ok(api("GET", `/partner/envelopes/${contract.envelopeId}/attachments/proof_of_income/signed-url`, { key: suite.org.key }));
    expect(attachment).toMatchObject({ filename: "talon-de-pago.pdf", content_type: "application/pdf" });
    // its timeline (the audit chain): the code verified, the file's hash, the signature recorded as typed
    const timeline = (await api("GET", `/partner/envelopes/${contract.envelopeId}/events?limit=100`, { key: suite.org.key })).body.data as { action: string; data: Record<string, unknown> }[];
    const entry = (action: string) => timeline.find((e) => e.action === action)?.data;
    expect(entry("signer.otp_verified")).toBeDefined();
    expect(entry("signer.attachment_uploaded")).toMatchObject({ field: "proof_of_income", filename: "talon-de-pago.pdf", sha256: attachment.sha256 });
    expect(entry("signer.completed")).toMatchObject({ signature_methods: { borrower_signature: "typed" } });
  });
});
