import { PDFDocument, PDFName, PDFRawStream } from "pdf-lib";
import type { Frame, Page } from "playwright-core";
import { getDocumentProxy } from "unpdf";
import { describe, expect, it } from "vitest";
import { api, browserSuite, drawStroke, expectAccessible, fillBuyerRequired, mintEmbed, ok, phonePage, recordRequests, sentContract, sha256, shot, status } from "./helpers";

const suite = browserSuite("Dealer Finance");

async function textOf(bytes: Uint8Array) {
  const pdf = await getDocumentProxy(bytes.slice());
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    pages.push((content.items as { str?: string }[]).map((i) => i.str ?? "").join(" "));
  }
  return pages;
}

async function imageCount(bytes: Uint8Array) {
  const doc = await PDFDocument.load(bytes);
  return doc.context
    .enumerateIndirectObjects()
    .filter(([, obj]) => obj instanceof PDFRawStream && obj.dict.get(PDFName.of("Subtype")) === PDFName.of("Image")).length;
}

describe("signing a two-signer template envelope in the browser", () => {
  it("refuses an empty required field, keeps the signing order, and completes with a drawn and a typed signature", async () => {
    const { browser, partner, org } = suite;
    const contract = await sentContract(org.key);

    // --- the buyer, from the signer link, on a desktop screen
    const buyer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    buyer.on("pageerror", (e) => errors.push(e.message));
    await buyer.goto(contract.buyerUrl);
    const name = buyer.getByRole("textbox", { name: "Buyer name, required" });
    await name.waitFor();
    expect(await status(org.key, contract.envelopeId)).toBe("viewed");

    // Finish with required fields empty: refused on the page, nothing sent
    await buyer.getByRole("button", { name: "Finish" }).click();
    await expect.poll(() => buyer.locator("#notice").textContent()).toContain("Fill in the required fields first");
    expect(await buyer.locator("#notice").textContent()).toContain("Buyer name");
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => buyer.evaluate(() => document.activeElement?.getAttribute("data-field"))).toBe("buyer_name");
    await shot(buyer, "1-buyer-required-refused");

    // the dealer signs second: opening the link now shows the wait, with nothing to fill
    const early = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await early.goto(contract.dealerUrl);
    await expect.poll(() => early.locator("#notice").textContent()).toContain("It is not your turn yet");
    expect(await early.getByRole("button", { name: "Finish" }).count()).toBe(0);
    expect(await early.getByRole("button", { name: /Sign: Dealer signature/ }).isDisabled()).toBe(true);
    await early.close();

    // every field type; read-only and default values as the template set them
    const vin = buyer.getByRole("textbox", { name: "Vin, read only" });
    expect(await vin.inputValue()).toBe("1HGCM82633A004352");
    expect(await vin.getAttribute("readonly")).not.toBeNull();
    await name.fill("Ann Buyer");
    await buyer.getByRole("textbox", { name: "Buyer phone" }).fill("555-0100");
    await buyer.getByRole("spinbutton", { name: "Monthly income, required" }).fill("5200");
    await buyer.getByLabel("First payment, required").fill("2026-12-15");
    await buyer.getByRole("combobox", { name: "Term, required" }).selectOption("48 months");
    await buyer.getByRole("radio", { name: "Payment method: Card, required" }).check();
    await buyer.getByRole("checkbox", { name: "Agree terms, required" }).check();
    // initials typed (the dialog proposes the signer's initials)
    await buyer.getByRole("button", { name: /Initial: Buyer initials/ }).click();
    const dialog = buyer.getByRole("dialog");
    expect(await dialog.getByRole("textbox", { name: "Type your name as you sign it" }).inputValue()).toBe("AB");
    await dialog.getByRole("button", { name: "Adopt and sign" }).click();
    // the signature drawn with the mouse
    await buyer.getByRole("button", { name: /Sign: Buyer signature/ }).click();
    await dialog.getByRole("tab", { name: "Draw" }).click();
    await dialog.getByRole("button", { name: "Adopt and sign" }).click();
    await expect.poll(() => dialog.getByRole("alert").textContent()).toContain("Draw your signature");
    await drawStroke(buyer, ".sig-canvas");
    await dialog.getByRole("button", { name: "Adopt and sign" }).click();
    await buyer.getByRole("img", { name: "Buyer signature (drawn)" }).waitFor();
    expect(await buyer.locator("#progress").textContent()).toBe("8 of 8 required fields done");
    await buyer.locator(".page.painted").nth(1).waitFor();
    await shot(buyer, "2-buyer-filled");
    await buyer.getByRole("button", { name: "Finish" }).click();
    await buyer.getByRole("heading", { name: "Thank you, you have signed" }).waitFor();
    expect(await buyer.textContent("main")).toContain("The next signer has been invited");
    expect(errors).toEqual([]);

    // --- the dealer, embedded in the partner's portal, by keyboard alone on a phone-sized screen
    const embed = await mintEmbed(org.key, contract.envelopeId, "sign", "dale@dealer.example");
    expect(embed.embed_url).toMatch(new RegExp(`/embed/sign/${contract.envelopeId}#token=`));
    const portal = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const requests = recordRequests(portal);
    await portal.goto(partner.pageFor(embed.embed_url));
    const frame = await widgetFrame(portal);
    const sign = frame.getByRole("button", { name: /Sign: Dealer signature/ });
    await sign.waitFor();
    expect(await frame.getByRole("textbox", { name: "Dealer title, read only" }).inputValue()).toBe("Finance Manager");
    // the token left the address bar and never travelled in a URL; it went in a header
    expect(frame.url()).not.toContain("#");
    expect(requests.filter((r) => r.url.includes(embed.token))).toEqual([]);
    expect(requests.some((r) => r.url.endsWith("/api/v2/embed/session") && r.authorization === `Bearer ${embed.token}`)).toBe(true);
    await frame.locator("#next-field").focus();
    await portal.keyboard.press("Enter");
    await expect.poll(() => frame.evaluate(() => document.activeElement?.getAttribute("data-field"))).toBe("dealer_signature");
    await portal.keyboard.press("Enter"); // opens the dialog, the typed name focused
    await expect.poll(() => frame.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value)).toBe("Dale Dealer");
    await portal.keyboard.press("Enter"); // adopts
    await frame.locator(".sig.filled").waitFor();
    await frame.locator(".page.painted").nth(1).waitFor();
    await shot(portal, "3-dealer-embedded-phone");
    await frame.locator("#finish").focus();
    await portal.keyboard.press("Enter");
    await frame.getByRole("heading", { name: "Thank you, you have signed" }).waitFor();
    expect(await frame.textContent("main")).toContain("Everyone has signed");
    await expect
      .poll(() => portal.evaluate(() => (window as unknown as { messages: { type: string }[] }).messages.map((m) => m.type)))
      .toContain("signing:completed");
    expect(await status(org.key, contract.envelopeId)).toBe("completed");

    // --- the result: vaulted, then shown by the vault widget, whose download is the stamped PDF
    await ok(api("POST", `/partner/envelopes/${contract.envelopeId}/vault-in-signed`, { key: org.key, body: {} }));
    const certificate = await ok(api("GET", `/partner/envelopes/${contract.envelopeId}/vault/certificate`, { key: org.key }));
    const vaultEmbed = await mintEmbed(org.key, contract.envelopeId, "vault", "ops@dealer.example");
    const viewer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await viewer.goto(vaultEmbed.embed_url);
    const hash = viewer.locator("#vault-sha256");
    await hash.waitFor();
    const shown = (await hash.textContent())!.trim();
    expect(JSON.stringify(certificate)).toContain(shown);
    await viewer.locator(".page.painted").nth(2).waitFor(); // the two pages and the signing certificate
    await shot(viewer, "4-vault-widget");
    const href = (await viewer.locator("#vault-download").getAttribute("href"))!;
    const pdf = new Uint8Array(await (await fetch(new URL(href, viewer.url()))).arrayBuffer());
    expect(sha256(pdf)).toBe(shown);
    const text = (await textOf(pdf)).join("\n");
    for (const value of ["Ann Buyer", "555-0100", "5200", "2026-12-15", "48 months", "1HGCM82633A004352", "AB", "Finance Manager", "Dale Dealer", "dale@dealer.example"]) {
      expect(text).toContain(value);
    }
    expect(await imageCount(pdf)).toBeGreaterThanOrEqual(1); // the drawn signature
    await Promise.all([buyer.close(), portal.close(), viewer.close()]);
  });
});

describe("the signing page before its PDF viewer has loaded", () => {
  it("places the fields from the state's page sizes: filled by keyboard and touch, Finish usable, then pdf.js paints the pages under them", async () => {
    const contract = await sentContract(suite.org.key);
    const page = await phonePage(suite.browser);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    // hold the PDF viewer (pdf.js, the page's own chunk) until the signer has done everything but finish
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const viewer: string[] = [];
    await page.route(/\/static\/app\/chunks\/pdf-view-[^/]+\.js$/, async (route) => {
      viewer.push(route.request().url());
      await held;
      await route.continue();
    });
    await page.goto(contract.buyerUrl);
    await page.getByRole("textbox", { name: "Buyer name, required" }).waitFor();
    expect(viewer).toHaveLength(1); // asked for, and held
    // the two letter pages are laid out at their size, not painted
    expect(await page.locator(".page").evaluateAll((els) => els.map((el) => [el.getAttribute("aria-label"), getComputedStyle(el).aspectRatio]))).toEqual([
      ["Page 1 of 2", "612 / 792"],
      ["Page 2 of 2", "612 / 792"],
    ]);
    expect(await page.locator(".page.painted").count()).toBe(0);
    await expectAccessible(page, "fields before the PDF viewer");

    // by keyboard: "Next field" reaches the first required field, which takes the typed name
    await page.locator("#next-field").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-field"))).toBe("buyer_name");
    await page.keyboard.type("Ann Buyer");
    await fillBuyerRequired(page);
    expect(await page.locator("#progress").textContent()).toBe("8 of 8 required fields done");
    expect(await page.getByRole("button", { name: "Finish" }).isEnabled()).toBe(true);
    expect(await page.locator(".page.painted").count()).toBe(0);
    expect(viewer).toHaveLength(1);

    // the viewer arrives: it paints both pages under the fields, which keep their values
    release();
    await page.locator(".page.painted").nth(1).waitFor();
    expect(await page.locator(".page").count()).toBe(2);
    expect(await page.getByRole("textbox", { name: "Buyer name, required" }).inputValue()).toBe("Ann Buyer");
    await expectAccessible(page, "the pages painted");
    await shot(page, "5-fields-before-viewer");
    await page.getByRole("button", { name: "Finish" }).tap();
    await page.getByRole("heading", { name: "Thank you, you have signed" }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});

/** The widget's frame inside the partner page, once it has navigated to the embed host. */
async function widgetFrame(page: Page): Promise<Frame> {
  const handle = await page.waitForSelector("#widget");
  for (let i = 0; i < 100; i++) {
    const frame = await handle.contentFrame();
    if (frame && frame.url().includes("/embed/")) return frame;
    await page.waitForTimeout(100);
  }
  throw new Error("the widget frame never loaded the embed page");
}
