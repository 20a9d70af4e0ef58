import { createHash, randomUUID } from "node:crypto";
import { PDFDocument, StandardFonts } from "pdf-lib";
import type { Page } from "playwright-core";
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { api, browserSuite, expectAccessible, ok, shot, status } from "./helpers";

const suite = browserSuite("Prairie Auto Finance");

/** The sandbox rule of docs/decisions/sign-and-pay.md, computed here on its own. */
const correctIndex = (email: string, questionId: string) => createHash("sha256").update(`${email.toLowerCase()}:${questionId}`).digest()[0]! % 4;

/** A console KBA template (one tagged buyer signature), an envelope from it, sent by email. */
async function sentKbaContract(orgId: string, key: string, buyerEmail: string) {
  const token = inject("operatorToken");
  const user = await ok(api("POST", `/operator/orgs/${orgId}/users`, { token, body: { email: `admin-${randomUUID()}@prairie.example`, name: "Admin", role: "admin" } }));
  const bearer = (await ok(api("POST", `/operator/users/${user.user_id}/access-tokens`, { token, body: { org_id: orgId, ttl_seconds: 3600 } }))).access_token as string;
  const template = await ok(api("POST", "/templates", { token: bearer, body: { name: "Retail installment contract (KBA)", kba_required: true } }));
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText("Retail installment contract", { x: 72, y: 740, size: 16, font });
  page.drawText("Buyer: {{buyer_signature;type=signature;role=buyer;required=true}}", { x: 72, y: 600, size: 11, font });
  const form = new FormData();
  form.append("file", new File([Buffer.from(await doc.save())], "contract.pdf", { type: "application/pdf" }));
  const put = await fetch(`${inject("baseUrl")}/api/v2/templates/${template.template_id}/document`, { method: "PUT", headers: { authorization: `Bearer ${bearer}` }, body: form });
  if (!put.ok) throw new Error(`template document: ${put.status} ${await put.text()}`);
  const envelope = await ok(api("POST", "/partner/envelopes", { key, body: { envelope_name: "Retail installment contract", customer_email: buyerEmail, customer_name: "Jane Buyer", template_id: template.template_id } }));
  const sent = await ok(api("POST", `/partner/envelopes/${envelope.envelope_id}/send`, { key, body: {} }));
  return { envelopeId: envelope.envelope_id as string, url: sent.signers[0].embed_url as string };
}

/** Answers the questions on screen: right by the sandbox rule, or each one choice off. */
async function answerOnScreen(page: Page, email: string, wrong = false) {
  const questions = page.locator("fieldset.kba-question");
  await questions.first().waitFor();
  const ids = await questions.evaluateAll((els) => els.map((el) => el.getAttribute("data-question-id")!));
  expect(ids).toHaveLength(3);
  for (const id of ids) {
    const radios = page.locator(`fieldset[data-question-id="${id}"]`).getByRole("radio");
    expect(await radios.count()).toBe(4);
    const right = correctIndex(email, id);
    await radios.nth(wrong ? (right + 1) % 4 : right).check();
  }
  return ids;
}

describe("KBA on the signing page", () => {
  it("asks the identity questions first, then opens the document; the signer signs on a phone screen", async () => {
    const { browser, org } = suite;
    const email = `jane.${randomUUID().slice(0, 8)}@example.com`;
    const contract = await sentKbaContract(org.orgId, org.key, email);
    expect(contract.url).toContain("/sign/s/");

    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(contract.url);
    await page.getByRole("heading", { name: "Confirm your identity" }).waitFor();
    // the document is not shown, and not fetched, before the questions are answered
    expect(await page.locator("canvas").count()).toBe(0);
    expect(await status(org.key, contract.envelopeId)).toBe("sent");

    // submitting with a question unanswered is refused on the page
    await page.getByRole("button", { name: "Verify my identity" }).click();
    await expect.poll(() => page.locator("#kba-error").textContent()).toContain("Answer question 1 first");
    await shot(page, "kba-1-questions");
    await expectAccessible(page, "KBA questions");

    await answerOnScreen(page, email);
    await page.getByRole("button", { name: "Verify my identity" }).click();
    const sign = page.getByRole("button", { name: /Sign: Buyer signature/ });
    await sign.waitFor();
    await expect.poll(() => status(org.key, contract.envelopeId)).toBe("viewed");
    await shot(page, "kba-2-document");
    await expectAccessible(page, "document after KBA");

    await sign.click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("textbox", { name: "Type your name as you sign it" }).fill("Jane Buyer");
    await dialog.getByRole("button", { name: "Adopt and sign" }).click();
    await page.getByRole("button", { name: "Finish" }).click();
    await page.getByRole("heading", { name: "Thank you, you have signed" }).waitFor();
    await expectAccessible(page, "completion after KBA");
    expect(await status(org.key, contract.envelopeId)).toBe("completed");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("fails after two wrong sets of answers and locks the link, also after a reload", async () => {
    const { browser, org } = suite;
    const email = `sam.${randomUUID().slice(0, 8)}@example.com`;
    const contract = await sentKbaContract(org.orgId, org.key, email);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(contract.url);

    await expect.poll(() => page.locator(".kba-intro").textContent()).toContain("You have 2 attempts");
    const first = await answerOnScreen(page, email, true);
    await page.getByRole("button", { name: "Verify my identity" }).click();
    await expect.poll(() => page.locator("#notice").textContent()).toContain("did not match");
    await expect.poll(() => page.locator(".kba-intro").textContent()).toContain("This is your last attempt");
    await answerOnScreen(page, email, true);
    expect(first).toHaveLength(3);
    await page.getByRole("button", { name: "Verify my identity" }).click();
    await page.getByRole("heading", { name: "Identity not verified" }).waitFor();
    await shot(page, "kba-3-failed");

    await page.reload();
    await page.getByRole("heading", { name: "Identity not verified" }).waitFor();
    expect(await page.getByRole("button", { name: "Verify my identity" }).count()).toBe(0);
    // the envelope stays open for the sender
    expect(await status(org.key, contract.envelopeId)).toBe("sent");
    await page.close();
  });

  it("tells a signer with no record history that questions are unavailable and the sender decides", async () => {
    const { browser, org } = suite;
    const email = `lee.${randomUUID().slice(0, 8)}+kba-unavailable@example.com`;
    const contract = await sentKbaContract(org.orgId, org.key, email);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(contract.url);
    await page.getByRole("heading", { name: "Identity questions unavailable" }).waitFor();
    expect(await page.locator("main").textContent()).toContain("The sender can see this outcome");
    expect(await page.locator("canvas").count()).toBe(0);
    await shot(page, "kba-4-unavailable");
    await page.close();
  });
});
