import { describe, expect, it } from "vitest";
import { base, browserSuite, expectAccessible, phonePage, recordRequests, sentConsumerContract, shot } from "./helpers";

const suite = browserSuite("Lone Star Motors");

/** The last code texted to the phone ending `last4`, as GET /dev/sms shows the outbox. */
async function textedCode(last4: string): Promise<string> {
  const html = await (await fetch(`${base()}/dev/sms`)).text();
  const item = html.split("<li>").find((li) => li.includes(`******${last4}`));
  const code = item && /(\d{6}) is your code/.exec(item)?.[1];
  if (!code) throw new Error(`no text to …${last4} on /dev/sms`);
  return code;
}

describe("SMS one-time passcode on the signing page", () => {
  it("asks for a texted code before the document, announces each step, counts down the resend, refuses a wrong code, then opens the document", async () => {
    const last4 = String(1000 + Math.floor(Math.random() * 9000));
    const contract = await sentConsumerContract(suite.org.key, { consumerConsent: false, signer: { auth: "sms_otp", phone: `+1512555${last4}` } });
    const page = await phonePage(suite.browser);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const requests = recordRequests(page);
    await page.goto(contract.url);

    await page.getByRole("heading", { name: "Verify your phone" }).waitFor();
    expect(await page.locator(".otp-intro").textContent()).toContain(`+1******${last4}`);
    expect(requests.some((r) => new URL(r.url).pathname.endsWith("/document"))).toBe(false);
    const send = page.getByRole("button", { name: "Text me a code" });
    expect(await send.evaluate((el) => el === document.activeElement)).toBe(true);
    await expectAccessible(page, "passcode: send");
    await send.click();

    const status = page.locator("#notice");
    await expect.poll(() => status.textContent()).toContain(`We texted a code to +1******${last4}`);
    expect(await status.getAttribute("aria-live")).toBe("polite");
    const input = page.getByLabel("6-digit code");
    expect(await input.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await input.getAttribute("autocomplete")).toBe("one-time-code");
    expect(await input.getAttribute("inputmode")).toBe("numeric");
    const resend = page.locator("#otp-resend");
    expect(await resend.isDisabled()).toBe(true);
    expect(await resend.textContent()).toMatch(/^Send a new code in \d+ s$/);
    await shot(page, "otp-code");
    await expectAccessible(page, "passcode: code sent, resend counting down");

    const code = await textedCode(last4);
    await input.fill(String((Number(code) + 1) % 1_000_000).padStart(6, "0"));
    await page.getByRole("button", { name: "Verify" }).click();
    const alert = page.locator("#otp-error");
    await expect.poll(() => alert.textContent()).toBe("That code is not right. 4 tries left.");
    expect(await alert.getAttribute("role")).toBe("alert");
    expect(await input.getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page, "passcode: wrong code");

    await input.fill(code);
    await input.press("Enter");
    // the document opens: its fields, and the bar's Finish
    await page.getByRole("button", { name: "Finish" }).waitFor();
    await expectAccessible(page, "document after the passcode");
    expect(requests.some((r) => new URL(r.url).pathname.endsWith("/document"))).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the Spanish text when the page is in Spanish", async () => {
    const last4 = String(1000 + Math.floor(Math.random() * 9000));
    // the page takes the envelope's language once it reads the state (docs/decisions/signing-page-languages.md)
    const contract = await sentConsumerContract(suite.org.key, { consumerConsent: false, locale: "es", signer: { auth: "sms_otp", phone: `+1512555${last4}` } });
    const page = await phonePage(suite.browser);
    await page.goto(contract.url);
    await page.getByRole("heading", { name: "Verifique su teléfono" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("es");
    await page.getByRole("button", { name: "Envíenme un código" }).click();
    await expect.poll(() => page.locator("#notice").textContent()).toContain(`Le enviamos un código al +1******${last4}`);
    await expectAccessible(page, "passcode: code sent (es)");
    await page.close();
  });
});
