import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { api, browserSuite, expectAccessible, fillBuyerRequired, ok, phonePage, sentConsumerContract, sentContract, shot, status, webhookReceiver } from "./helpers";

// The consumer's side on a phone (docs/consumer-signing.md, issue 24 item 8): the E-SIGN disclosure and consent
// before the document, the signer's copy after completion, and a banner that follows the fields.
const suite = browserSuite("Consumer Auto Loans");

const untilDate = (iso: string) => new Date(iso).toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric" });

describe("E-SIGN consent and the signer's copy, on a phone", () => {
  it("shows the disclosure first, opens the document on consent, and offers the signed copy as a PDF", async () => {
    const contract = await sentConsumerContract(suite.org.key, { consumerConsent: true });
    const { consent } = await ok(api("GET", `/signing/${contract.slug}`));
    const page = await phonePage(suite.browser);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(contract.url);

    // the disclosure, its heading focused, and no document behind it yet
    const heading = page.getByRole("heading", { name: "Consent to electronic records and signatures" });
    await heading.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("consent-title");
    const firstParagraph = consent.disclosure.text.split(/\n\s*\n/)[0].trim();
    expect(await page.locator("#consent-text p").first().textContent()).toBe(firstParagraph);
    expect(await page.locator("#consent-paper-copy").textContent()).toBe(consent.disclosure.paper_copy_contact);
    expect(await page.textContent("#consent-withdrawal")).toContain(consent.disclosure.withdrawal_instructions.split(/\n/)[0].trim());
    expect(await page.locator(".page").count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, "consumer-1-disclosure");
    await expectAccessible(page, "consent");

    await page.getByRole("button", { name: "I agree to use electronic records and signatures" }).tap();
    await page.getByRole("textbox", { name: "Borrower name, required" }).fill("Casey Consumer");
    await expect.poll(() => status(suite.org.key, contract.envelopeId)).toBe("viewed");
    await page.getByRole("button", { name: /Sign: Borrower signature/ }).tap();
    await page.getByRole("dialog").getByRole("button", { name: "Adopt and sign" }).tap();
    await page.locator(".sig.filled").waitFor();
    await page.getByRole("button", { name: "Finish" }).tap();

    // the envelope completed in that submit: the copy, and until when it is there
    await page.getByRole("heading", { name: "Thank you, you have signed" }).waitFor();
    const download = page.getByRole("link", { name: "Download your copy" });
    await download.waitFor();
    const { copy } = await ok(api("GET", `/signing/${contract.slug}`));
    expect(await page.textContent("#copy-until")).toContain(`available here until ${untilDate(copy.expires_at)}`);
    await shot(page, "consumer-2-copy");
    await expectAccessible(page, "completion and copy");
    const [file] = await Promise.all([page.waitForEvent("download"), download.tap()]);
    const bytes = await readFile((await file.path())!);
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(await status(suite.org.key, contract.envelopeId)).toBe("completed");

    // the same link, opened again later: the copy instead of "no longer active"
    await page.goto(contract.url);
    await page.getByRole("heading", { name: "Everyone has signed" }).waitFor();
    expect(await page.getByRole("link", { name: "Download your copy" }).getAttribute("href")).toBe(copy.url);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("not agreeing, once confirmed, declines the envelope with reason consent_withdrawn", async () => {
    const hooks = await webhookReceiver(suite.org.orgId);
    const contract = await sentConsumerContract(suite.org.key, { consumerConsent: true, email: "drew@example.com" });
    const page = await phonePage(suite.browser);
    await page.goto(contract.url);
    await page.getByRole("button", { name: "I do not agree" }).tap();
    const confirm = page.getByRole("dialog", { name: "Do not agree?" });
    await confirm.getByRole("button", { name: "Go back" }).tap(); // changing one's mind changes nothing
    expect(await status(suite.org.key, contract.envelopeId)).toBe("sent");
    await page.getByRole("button", { name: "I do not agree" }).tap();
    await confirm.getByRole("button", { name: "I do not agree, decline" }).tap();
    await page.getByRole("heading", { name: "You declined to sign" }).waitFor();
    await shot(page, "consumer-3-withdrawn");
    expect(await page.locator(".page").count()).toBe(0);

    expect(await status(suite.org.key, contract.envelopeId)).toBe("declined");
    // what the partner is told: the signer declined, and why
    const declined = () => hooks.events().find((e) => e.event_type === "signer.declined" && e.envelope_id === contract.envelopeId);
    await expect.poll(declined, { timeout: 30_000 }).toBeDefined();
    expect(declined()!.data).toMatchObject({ reason: "consent_withdrawn" });
    await Promise.all([page.close(), hooks.close()]);
  });

  it("consent can be withdrawn from the open document until the signer finishes", async () => {
    const contract = await sentConsumerContract(suite.org.key, { consumerConsent: true, email: "fran@example.com" });
    const page = await phonePage(suite.browser);
    await page.goto(contract.url);
    await page.getByRole("button", { name: "I agree to use electronic records and signatures" }).tap();
    await page.getByRole("textbox", { name: "Borrower name, required" }).waitFor();
    await page.getByRole("button", { name: "Withdraw consent" }).tap();
    await page.getByRole("dialog", { name: "Withdraw your consent?" }).getByRole("button", { name: "Withdraw consent, decline" }).tap();
    await page.getByRole("heading", { name: "You declined to sign" }).waitFor();
    expect(await page.locator(".page").count()).toBe(0);
    expect(await status(suite.org.key, contract.envelopeId)).toBe("declined");
    await page.close();
  });
});

describe("the required-fields banner", () => {
  it("names the fields still empty and goes once every required field is filled", async () => {
    const contract = await sentContract(suite.org.key, { buyerEmail: "erin@example.com" });
    const page = await phonePage(suite.browser);
    await page.goto(contract.buyerUrl);
    await page.getByRole("textbox", { name: "Buyer name, required" }).waitFor();
    const notice = page.locator("#notice");
    await page.getByRole("button", { name: "Finish" }).tap();
    await expect.poll(() => notice.textContent()).toContain("Fill in the required fields first: Buyer name");

    await page.getByRole("textbox", { name: "Buyer name, required" }).fill("Ann Buyer");
    await expect.poll(() => notice.textContent()).toMatch(/^Fill in the required fields first: Monthly income, /);
    await fillBuyerRequired(page);
    expect(await page.locator("#progress").textContent()).toBe("8 of 8 required fields done");
    const banner = await notice.textContent();
    await shot(page, "consumer-4-fields-filled");
    expect(banner).not.toContain("Fill in");
    expect(banner).toContain("Every required field is filled");
    await page.close();
  });
});
