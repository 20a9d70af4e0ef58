import { describe, expect, it } from "vitest";
import { browserSuite, contractPdf, expectAccessible, field, phonePage, sentConsumerContract, shot } from "./helpers";

const suite = browserSuite("Lone Star Motors");

const PNG_2x2 = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEUlEQVR42mNk+M9Qz0AEYBxVSF8BAPnFBvYmOF+wAAAAAElFTkSuQmCC", "base64");

describe("attachment fields on the signing page", () => {
  it("offers a labelled file input per attachment field, announces the upload and a refusal, replaces before Finish, and Finish needs the required file", async () => {
    const contract = await sentConsumerContract(suite.org.key, {
      consumerConsent: false,
      extraFields: [field("pay_stub", "attachment", "borrower", [{ page: 1, x: 0.12, y: 0.75, w: 0.5, h: 0.04 }], { required: true, accept: ["application/pdf"] })],
    });
    const page = await phonePage(suite.browser);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(contract.url);

    const attach = page.getByRole("button", { name: "Attach a file: Pay stub, required" });
    await attach.waitFor();
    expect(await attach.textContent()).toBe("Attach file");
    const input = page.getByLabel("File for Pay stub");
    expect(await input.getAttribute("type")).toBe("file");
    expect(await input.getAttribute("accept")).toBe("application/pdf");
    // a PDF-only field offers the files, not only the camera
    expect(await input.getAttribute("capture")).toBeNull();
    await expectAccessible(page, "document with an attachment field");

    // Finish without the file names it
    await page.getByRole("textbox", { name: "Borrower name, required" }).fill("Casey Consumer");
    await page.getByRole("button", { name: /Sign: Borrower signature/ }).tap();
    await page.getByRole("dialog").getByRole("button", { name: "Adopt and sign" }).tap();
    await page.getByRole("dialog").waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "Finish" }).tap();
    await expect.poll(() => page.locator("#notice").textContent()).toContain("Pay stub");
    await expectAccessible(page, "Finish without the required file");

    // a photo where only PDFs go: refused by the server, the refusal announced
    const status = page.locator(".attach-status");
    expect(await status.getAttribute("aria-live")).toBe("polite");
    await input.setInputFiles({ name: "stub.png", mimeType: "image/png", buffer: PNG_2x2 });
    await expect.poll(() => status.textContent()).toMatch(/^Pay stub: the file was not attached\. This field takes PDF files/);
    expect(await attach.getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page, "attachment refused");

    await input.setInputFiles({ name: "stub-october.pdf", mimeType: "application/pdf", buffer: Buffer.from(await contractPdf(1, "Pay stub, October")) });
    await expect.poll(() => status.textContent()).toBe("Pay stub: stub-october.pdf attached");
    expect(await attach.textContent()).toBe("Replace file: stub-october.pdf");
    expect(await attach.getAttribute("aria-invalid")).toBeNull();
    // replaced before Finish
    await input.setInputFiles({ name: "stub-november.pdf", mimeType: "application/pdf", buffer: Buffer.from(await contractPdf(1, "Pay stub, November")) });
    await expect.poll(() => status.textContent()).toBe("Pay stub: stub-november.pdf attached");
    await shot(page, "attachment-attached");
    await expectAccessible(page, "attachment replaced");

    await page.getByRole("button", { name: "Finish" }).tap();
    await expect.poll(() => page.locator(".final h2").textContent()).toBe("Thank you, you have signed");
    await expectAccessible(page, "completion");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("opens the camera on a phone for an image-only field", async () => {
    const contract = await sentConsumerContract(suite.org.key, {
      consumerConsent: false,
      extraFields: [field("license_photo", "attachment", "borrower", [{ page: 1, x: 0.12, y: 0.75, w: 0.5, h: 0.04 }], { accept: ["image/jpeg", "image/png"] })],
    });
    const page = await phonePage(suite.browser);
    await page.goto(contract.url);
    const input = page.getByLabel("File for License photo");
    await input.waitFor({ state: "attached" });
    expect(await input.getAttribute("accept")).toBe("image/jpeg,image/png");
    expect(await input.getAttribute("capture")).toBe("environment");
    await expectAccessible(page, "image-only attachment field");
    await page.close();
  });
});
