import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { browserSuite, expectAccessible, phonePage, sentConsumerContract, status } from "./helpers";

// The signing page for every consumer (docs/decisions/signing-page-languages.md): in Spanish, by keyboard
// alone, at 320 CSS px, with axe-core finding no WCAG 2.2 AA violation at any step.
const suite = browserSuite("Préstamos del Valle");

const activeId = (page: import("playwright-core").Page) => page.evaluate(() => document.activeElement?.id ?? "");

describe("the signing page in Spanish, by keyboard and at 320 px", () => {
  it("a Spanish envelope: the disclosure, the document, the signature dialog and the copy in Spanish, each step accessible, focus on its heading", async () => {
    const contract = await sentConsumerContract(suite.org.key, { consumerConsent: true, locale: "es", email: "rosa@example.com" });
    const page = await phonePage(suite.browser);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(contract.url);

    await page.getByRole("heading", { name: "Consentimiento para usar documentos y firmas electrónicos" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("es");
    await expect.poll(() => activeId(page)).toBe("consent-title");
    expect(await page.locator("#consent-text p").first().textContent()).toBe("CONSENTIMIENTO PARA USAR DOCUMENTOS Y FIRMAS ELECTRÓNICOS");
    expect(await page.textContent("#notice")).toContain("acepte usar documentos y firmas electrónicos");
    await expectAccessible(page, "consent (es)");

    await page.getByRole("button", { name: "No acepto" }).tap();
    await page.getByRole("dialog", { name: "¿No acepta?" }).waitFor();
    await expectAccessible(page, "do not agree? (es)");
    await page.getByRole("button", { name: "Volver" }).tap();

    await page.getByRole("button", { name: "Acepto usar documentos y firmas electrónicos" }).tap();
    const name = page.getByRole("textbox", { name: "Borrower name, obligatorio" });
    await name.waitFor();
    await expect.poll(() => activeId(page)).toBe("title");
    await expect.poll(() => page.textContent("#notice")).toContain("Firma como Casey Consumer");
    expect(await page.getByRole("button", { name: "Terminar" }).isVisible()).toBe(true);
    await expectAccessible(page, "document (es)");

    await name.fill("Rosa Díaz");
    await page.getByRole("button", { name: /Firmar: Borrower signature/ }).tap();
    const dialog = page.getByRole("dialog", { name: /Adopte su firma/ });
    await dialog.waitFor();
    await expectAccessible(page, "signature dialog (es)");
    await dialog.getByRole("button", { name: "Adoptar y firmar" }).tap();
    await page.locator(".sig.filled").waitFor();
    await expect.poll(() => page.textContent("#progress")).toBe("2 de 2 campos obligatorios llenos");
    await page.getByRole("button", { name: "Terminar" }).tap();

    await page.getByRole("heading", { name: "Gracias, ya firmó" }).waitFor();
    await page.getByRole("link", { name: "Descargar su copia" }).waitFor();
    await expect.poll(() => activeId(page)).toBe("final-title");
    expect(await page.textContent("#copy-until")).toMatch(/estará disponible aquí hasta el \d{1,2} de [a-z]+ de \d{4}/);
    await expectAccessible(page, "copy (es)");
    expect(await status(suite.org.key, contract.envelopeId)).toBe("completed");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a signer finishes with the keyboard alone: Tab to each field, a typed signature, Finish", async () => {
    const contract = await sentConsumerContract(suite.org.key, { email: "kim@example.com" });
    const page = await suite.browser.newPage({ viewport: { width: 1024, height: 800 }, locale: "en-US" });
    await page.goto(contract.url);
    const name = page.getByRole("textbox", { name: "Borrower name, required" });
    await name.waitFor();
    await expect.poll(() => status(suite.org.key, contract.envelopeId)).toBe("viewed");

    // from the page's heading, Tab reaches the fields in document order (after the bar's buttons)
    const reach = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 15 && !(await check()); i++) await page.keyboard.press("Tab");
      expect(await check()).toBe(true);
    };
    await reach(() => page.evaluate(() => document.activeElement?.getAttribute("data-field") === "borrower_name"));
    // focus is visible: the outline of :focus-visible
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe("none");
    await page.keyboard.type("Kim Keyboard");
    await reach(() => page.evaluate(() => document.activeElement?.getAttribute("data-field") === "borrower_signature"));
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: /Adopt your signature/ });
    await dialog.waitFor();
    // Type is the default: the name is there, Enter adopts it (no drawing, no dragging: WCAG 2.5.7)
    await expect.poll(() => activeId(page)).toBe("sig-typed");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("Kim Keyboard");
    await page.keyboard.press("Enter");
    await page.locator(".sig.filled").waitFor();
    expect(await page.locator(".sig.filled .typed").first().textContent()).toBe("Kim Keyboard");
    await expect.poll(() => page.textContent("#notice")).toContain("Every required field is filled");
    await reach(() => page.evaluate(() => document.activeElement?.id === "finish"));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Thank you, you have signed" }).waitFor();
    await expect.poll(() => activeId(page)).toBe("final-title");
    await expect.poll(() => status(suite.org.key, contract.envelopeId)).toBe("completed");
    await page.close();
  });

  it("reflows at 320 CSS px: nothing overflows horizontally at the disclosure or the document, and a screenshot is saved", async () => {
    const contract = await sentConsumerContract(suite.org.key, { consumerConsent: true, email: "lee@example.com" });
    const page = await suite.browser.newPage({ viewport: { width: 320, height: 640 }, locale: "en-US" });
    const dir = process.env.BROWSER_SCREENSHOTS ?? join(tmpdir(), "signing-page-320");
    mkdirSync(dir, { recursive: true });
    const overflow = () => page.evaluate(() => ({ page: document.documentElement.scrollWidth, wider: Array.from(document.querySelectorAll("body *")).filter((el) => el.getBoundingClientRect().right > 320.5 && !el.closest(".document")).map((el) => el.tagName + (el.id ? `#${el.id}` : "")) }));
    await page.goto(contract.url);
    await page.getByRole("heading", { name: "Consent to electronic records and signatures" }).waitFor();
    expect(await overflow()).toEqual({ page: 320, wider: [] });
    await page.screenshot({ path: join(dir, "reflow-320-disclosure.png"), fullPage: true });
    await expectAccessible(page, "consent at 320 px");

    await page.getByRole("button", { name: "I agree to use electronic records and signatures" }).click();
    await page.getByRole("textbox", { name: "Borrower name, required" }).waitFor();
    expect((await overflow()).page).toBe(320);
    await page.screenshot({ path: join(dir, "reflow-320-document.png"), fullPage: true });
    expect(existsSync(join(dir, "reflow-320-document.png"))).toBe(true);
    await expectAccessible(page, "document at 320 px");
    await page.close();
  });
});
