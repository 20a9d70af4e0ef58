import { describe, expect, it } from "vitest";
import { browserSuite, expectAccessible, expiredEmbedToken, mintEmbed, newOrg, sentContract, shot, status } from "./helpers";

const suite = browserSuite("Lender Direct");

const phone = () => suite.browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });

describe("declining on a phone", () => {
  it("asks for a reason, declines the envelope, and the link stops working", async () => {
    const { org } = suite;
    const contract = await sentContract(org.key);
    const page = await phone();
    await page.goto(contract.buyerUrl);
    await page.getByRole("textbox", { name: "Buyer name, required" }).waitFor();
    await page.locator(".page.painted").first().waitFor();
    // nothing wider than the phone: no sideways scrolling
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, "5-phone-signing");
    await expectAccessible(page, "document on a phone");
    await page.getByRole("button", { name: "Decline" }).tap();
    const dialog = page.getByRole("dialog", { name: "Decline to sign" });
    await dialog.getByRole("button", { name: "Decline" }).tap();
    await expect.poll(() => dialog.getByRole("alert").textContent()).toContain("Give a reason");
    await expectAccessible(page, "decline dialog");
    expect(await status(org.key, contract.envelopeId)).toBe("viewed");
    await dialog.getByRole("textbox", { name: "Reason for declining" }).fill("The APR is not what we agreed");
    await dialog.getByRole("button", { name: "Decline" }).tap();
    await page.getByRole("heading", { name: "You declined to sign" }).waitFor();
    await expectAccessible(page, "declined");
    expect(await status(org.key, contract.envelopeId)).toBe("declined");

    await page.goto(contract.dealerUrl);
    await page.getByRole("heading", { name: "Signing link" }).waitFor();
    expect(await page.textContent("main")).toContain("no longer active");
    await page.close();
  });
});

describe("embed tokens in the browser", () => {
  it("an expired token shows that the link expired, and nothing of the envelope", async () => {
    const { org } = suite;
    const contract = await sentContract(org.key);
    const token = await expiredEmbedToken({ envelopeId: contract.envelopeId, orgId: org.orgId, userEmail: "ann@example.com", widgetType: "sign" });
    const page = await suite.browser.newPage();
    await page.goto(`${new URL(contract.buyerUrl).origin}/embed/sign/${contract.envelopeId}#token=${token}`);
    await page.getByRole("heading", { name: "Cannot open this document" }).waitFor();
    expect(await page.textContent("main")).toContain("expired");
    expect(await page.locator(".page").count()).toBe(0);
    expect(await page.title()).not.toContain("Retail installment contract");
    expect(await status(org.key, contract.envelopeId)).toBe("sent"); // not even viewed
    await page.close();
  });

  it("a token for another envelope, or for the other widget, opens nothing", async () => {
    const { browser, org } = suite;
    const mine = await sentContract(org.key);
    const other = await sentContract(org.key);
    const token = (await mintEmbed(org.key, mine.envelopeId, "sign", "ann@example.com")).token;
    const page = await browser.newPage();
    await page.goto(`${new URL(mine.buyerUrl).origin}/embed/sign/${other.envelopeId}#token=${token}`);
    await page.getByRole("heading", { name: "Cannot open this document" }).waitFor();
    expect(await page.textContent("main")).toContain("another envelope");
    expect(await status(org.key, other.envelopeId)).toBe("sent");

    await page.goto(`${new URL(mine.buyerUrl).origin}/embed/vault/${mine.envelopeId}#token=${token}`);
    await page.getByRole("heading", { name: "Cannot open the vault" }).waitFor();
    expect(await page.textContent("main")).toContain("another envelope or widget");
    await page.close();
  });

  it("a site the organization did not allow cannot frame the signing page", async () => {
    const { browser, partner } = suite;
    const stranger = await newOrg("No Embedding Allowed");
    const contract = await sentContract(stranger.key);
    const embed = await mintEmbed(stranger.key, contract.envelopeId, "sign", "ann@example.com");
    const page = await browser.newPage();
    const refused = page.waitForEvent("console", (m) => m.text().includes("frame-ancestors"));
    await page.goto(partner.pageFor(embed.embed_url));
    expect((await refused).text()).toMatch(/violates the following Content Security Policy directive: "frame-ancestors 'self'"/);
    const frame = await (await page.waitForSelector("#widget")).contentFrame();
    expect(await frame?.locator("#main").count()).toBe(0);
    expect(await status(stranger.key, contract.envelopeId)).toBe("sent");
    await page.close();
  });
});
