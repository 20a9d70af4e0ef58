import { describe, expect, inject, it } from "vitest";
import type { Page } from "playwright-core";
import { api, base, browserSuite, contractPdf, expectAccessible, expiredEmbedToken, mintEmbed, newOrg, ok, sentContract, shot, status } from "./helpers";

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

/** A date and time as the vault widget writes it in `locale` (the page's own Intl, its time zone). */
const writtenIn = (page: Page, locale: string, iso: string) =>
  page.evaluate(([l, at]) => new Date(at!).toLocaleString(l, { year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "2-digit" }), [locale, iso]);

describe("the vault widget's retention and legal holds", () => {
  /** A paper record vaulted by `key` (vault-in-upload): the quickest way to a vault record. */
  async function paperRecord(key: string, name: string) {
    const envelope = await ok(
      api("POST", "/partner/envelopes", { key, body: { envelope_name: name, customer_email: "pat@example.com", customer_name: "Pat Paper", document_source: "upload" } }),
    );
    const form = new FormData();
    form.append("file", new File([Buffer.from(await contractPdf(1, name))], "signed.pdf", { type: "application/pdf" }));
    const vaulted = await ok(api("POST", `/partner/envelopes/${envelope.envelope_id}/vault-in-upload`, { key, form }));
    return { envelopeId: envelope.envelope_id as string, vaultId: vaulted.vault_id as string };
  }

  it("a paid-off record under a hold shows the hold and its retention date; a record without one says so", async () => {
    const { browser, org } = suite;
    const control = await ok(api("POST", `/operator/orgs/${org.orgId}/api-keys`, { token: inject("operatorToken"), body: { scopes: ["vault:control", "vault:read"], rate_limit_rpm: 1000 } }));
    const held = await paperRecord(org.key, "Held retail installment contract");
    const plain = await paperRecord(org.key, "Open retail installment contract");
    const paid = await ok(api("POST", `/partner/vault/${held.vaultId}/paid-off`, { key: control.api_key, body: {} }));
    expect(paid.retain_until).toEqual(expect.any(String));
    await ok(api("POST", `/partner/vault/${held.vaultId}/holds`, { key: control.api_key, body: { reason: "Litigation: Smith v. Lender Direct", reference: "Case 26-cv-0412" } }));

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    await page.goto((await mintEmbed(org.key, held.envelopeId, "vault", "ops@lender.example")).embed_url);
    const section = page.getByRole("region", { name: "Retention and legal holds" });
    await section.waitFor();
    const table = section.getByRole("table", { name: "Legal holds in force" });
    const row = table.getByRole("row").filter({ hasText: "Smith v. Lender Direct" });
    expect(await row.getByRole("cell").allTextContents()).toEqual([
      "Lender Direct",
      "Litigation: Smith v. Lender Direct",
      "Case 26-cv-0412",
      expect.stringMatching(/\d/),
    ]);
    expect(await page.locator("#vault-retain-until").textContent()).toBe(await writtenIn(page, "en-US", paid.retain_until));
    expect(await section.textContent()).toContain("Paid off");
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("en");
    await shot(page, "6-vault-widget-held");
    await expectAccessible(page, "vault widget of a held record");

    // the same record in Spanish (the token's locale, in an English browser): every word of the widget, dates as Spanish writes them
    const spanish = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    await spanish.goto((await mintEmbed(org.key, held.envelopeId, "vault", "ops@lender.example", { locale: "es" })).embed_url);
    const seccion = spanish.getByRole("region", { name: "Conservación y retenciones legales" });
    await seccion.waitFor();
    expect(await spanish.evaluate(() => document.documentElement.lang)).toBe("es");
    expect(await spanish.title()).toBe("Held retail installment contract · Bóveda");
    await spanish.getByRole("heading", { name: "Copia autorizada" }).waitFor();
    await spanish.getByRole("link", { name: "Descargar la copia autorizada" }).waitFor();
    await spanish.getByRole("link", { name: "Descargar el certificado (PDF)" }).waitFor();
    const tabla = seccion.getByRole("table", { name: "Retenciones legales vigentes" });
    expect(await tabla.getByRole("columnheader").allTextContents()).toEqual(["Impuesta por", "Motivo", "Referencia", "Desde"]);
    const retainEs = await writtenIn(spanish, "es-US", paid.retain_until);
    expect(retainEs).toMatch(/ de \d{4}/);
    expect(await spanish.locator("#vault-retain-until").textContent()).toBe(retainEs);
    expect(await seccion.textContent()).toContain("Liquidado");
    expect(await seccion.textContent()).toContain("Desactivada: solo quien tiene el control puede destruirlo");
    // no English left outside the certificate, which is an English record marked as such
    const words = await spanish.evaluate(() => {
      const main = document.querySelector("main")!.cloneNode(true) as HTMLElement;
      main.querySelectorAll('[lang="en"], .document').forEach((el) => el.remove());
      return main.textContent ?? "";
    });
    expect(words).not.toMatch(/Authoritative|Retention|Legal holds|Download|Paid off|Kept until|Compliance/);
    await shot(spanish, "6-vault-widget-held-es");
    await expectAccessible(spanish, "vault widget of a held record, in Spanish");
    await spanish.close();

    await page.goto((await mintEmbed(org.key, plain.envelopeId, "vault", "ops@lender.example")).embed_url);
    await page.getByRole("region", { name: "Retention and legal holds" }).waitFor();
    expect(await page.locator("#vault-holds").textContent()).toBe("No legal hold is in force.");
    expect(await page.getByRole("table").count()).toBe(0);
    expect(await page.locator("#vault-retain-until").textContent()).toContain("Kept while open");
    await expectAccessible(page, "vault widget of an open record");
    await page.close();
  });
  it("a record destroyed at the end of its retention says when, keeps its hash and certificate, and offers nothing to download", async () => {
    const { browser } = suite;
    const token = inject("operatorToken");
    // its own organization: the only one of the run whose policy destroys records by itself
    const org = await newOrg("Retention Lender");
    const control = await ok(api("POST", `/operator/orgs/${org.orgId}/api-keys`, { token, body: { scopes: ["vault:control", "vault:read"], rate_limit_rpm: 1000 } }));
    const user = await ok(api("POST", `/operator/orgs/${org.orgId}/users`, { token, body: { email: "records@retention.example", name: "Records Admin", role: "admin" } }));
    const admin = await ok(api("POST", `/operator/users/${user.user_id}/access-tokens`, { token, body: { org_id: org.orgId, ttl_seconds: 3600 } }));
    await ok(api("PUT", "/org/retention", { token: admin.access_token, body: { retain_years_after_close: 1, auto_destroy: true } }));
    const record = await paperRecord(org.key, "Retail installment contract, paid in full");
    const paid = await ok(api("POST", `/partner/vault/${record.vaultId}/paid-off`, { key: control.api_key, body: {} }));
    // the minute's destruction job alone, a day after the record's retention ran out (a development route: the other jobs do not run at that date)
    const at = new Date(Date.parse(paid.retain_until) + 24 * 3600_000).toISOString();
    const res = await fetch(`${base()}/dev/jobs/destroy-expired`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ at }) });
    expect(res.status).toBe(200);
    const read = await ok(api("GET", `/partner/vault/${record.vaultId}`, { key: control.api_key }));
    expect(read.status).toBe("destroyed");

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
    await page.goto((await mintEmbed(org.key, record.envelopeId, "vault", "records@retention.example")).embed_url);
    const notice = page.locator("#vault-destroyed");
    await notice.waitFor();
    expect(await notice.textContent()).toBe(`Destroyed on ${await writtenIn(page, "en-US", read.destroyed_at)}: its files were deleted; its SHA-256, audit chain and certificate remain.`);
    expect(await page.getByRole("link", { name: "Download the authoritative copy" }).count()).toBe(0);
    expect(await page.locator("#vault-sha256").textContent()).toMatch(/^[0-9a-f]{64}$/);
    await page.getByRole("link", { name: "Download the certificate (PDF)" }).waitFor();
    const section = page.getByRole("region", { name: "Retention and legal holds" });
    expect(await section.textContent()).toContain("Destroyed");
    expect(await page.locator("#vault-retain-until").textContent()).toBe(`Destroyed on ${await writtenIn(page, "en-US", read.destroyed_at)}`);
    expect(await page.getByRole("region", { name: "The vaulted document" }).textContent()).toBe("This record was destroyed: there is no document to preview.");
    await shot(page, "6-vault-widget-destroyed");
    await expectAccessible(page, "vault widget of a destroyed record");
    await page.close();
  });
});
