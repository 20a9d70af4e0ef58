// The page section of scripts/bench.mjs: the signing page as a consumer's phone opens it. Chromium
// (playwright-core; CHROMIUM_PATH, a system Chromium, else the @sparticuz/chromium devDependency, as
// test/browser/chromium.ts finds it: never downloaded) with a phone viewport, 4x CPU slowdown
// (CDP Emulation.setCPUThrottlingRate) and a slow 4G network (CDP Network.emulateNetworkConditions:
// 150 ms round trip, 1.6 Mbps down, 750 kbps up), a fresh profile (empty cache) each run, opens a
// sent envelope's signer link. Measured from the navigation's start: the first page of the document
// painted, and the page ready for input (the fields in place and "you are signing as" said), and the
// JavaScript the page downloads before the PDF viewer (pdf.js and its worker) starts loading.
//
// wrangler dev serves static assets uncompressed, where Cloudflare's edge compresses them; so the
// browser goes through a loopback proxy that compresses text responses as the edge does (brotli when
// the browser asks for it), and the throttled network carries the bytes a phone would receive.
// Env: BENCH_PAGE_RUNS (default 5 measured runs, after one unmeasured warm-up).
import { existsSync, mkdirSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { join } from "node:path";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { chromium } from "playwright-core";
import { api, fetchWithDeadline, startFreshServer, stopServer } from "./lib/dev-server.mjs";
import { fmt, log, percentile, positiveInt } from "./lib/bench-util.mjs";

const RUNS = positiveInt("BENCH_PAGE_RUNS", 5);
const READY_TARGET_MS = 3000;
const SCRIPT_TARGET_BYTES = 400 * 1024;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: "en-US" };
// 150 ms round trip, 1.6 Mbps down, 750 kbps up (Lighthouse's mobile profile); throughputs in bytes per second
const SLOW_4G = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8, connectionType: "cellular4g" };
const CPU_SLOWDOWN = 4;
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"];
/** What belongs to the PDF viewer: pdf.js (its own chunk once split off) and its worker. */
const VIEWER = /pdf\.worker|\/chunks\/pdf-view-|\/vendor\/pdfjs\//;

/** The browser, never downloaded: the same order as test/browser/chromium.ts. */
async function chromiumPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    const dirs = ["/usr/bin", ...(process.env.PATH ?? "").split(":").filter(Boolean)];
    const found = dirs.map((d) => join(d, name)).find((p) => existsSync(p));
    if (found) return found;
  }
  return (await import("@sparticuz/chromium")).default.executablePath();
}

/** A five-page retail contract with a line of text on each, as a dealer's would be. */
async function contractPdf(pages = 5) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Retail installment sale contract - page ${i} of ${pages}`, { x: 72, y: 740, size: 16, font });
    for (let line = 0; line < 40; line++) page.drawText(`${line + 1}. The buyer agrees to pay the amount financed under the terms and schedule below.`, { x: 72, y: 700 - line * 15, size: 10, font });
  }
  return doc.save();
}

/** A sent one-signer contract (name, date, signature); returns the signer's link. */
async function sentEnvelope(base, operatorToken) {
  const org = await api(base, "POST", "/operator/orgs", { token: operatorToken, body: { name: "Bench Page Motors" } });
  const { api_key: apiKey } = await api(base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { token: operatorToken, body: { scopes: ["envelopes:read", "envelopes:write", "esign:write"], rate_limit_rpm: 10_000 } });
  const area = (page, y) => ({ mode: "absolute", areas: [{ page, x: 0.12, y, w: 0.4, h: 0.04 }] });
  const fields = [
    { name: "buyer_name", type: "text", role: "buyer", required: true, placement: area(1, 0.85) },
    { name: "first_payment", type: "date", role: "buyer", required: true, placement: area(4, 0.85) },
    { name: "buyer_signature", type: "signature", role: "buyer", required: true, placement: area(5, 0.85) },
  ];
  const form = new FormData();
  form.append("file", new File([await contractPdf()], "contract.pdf", { type: "application/pdf" }));
  form.append("name", "Retail installment sale contract");
  form.append("fields_json", JSON.stringify(fields));
  const upload = await fetchWithDeadline(`${base}/api/v2/partner/templates`, { method: "POST", headers: { "x-api-key": apiKey }, body: form });
  if (!upload.ok) throw new Error(`POST /partner/templates answered ${upload.status}: ${upload.text}`);
  const template = JSON.parse(upload.text).data;
  const envelope = await api(base, "POST", "/partner/envelopes", {
    apiKey,
    body: { envelope_name: "Retail installment sale contract", customer_email: "pat@example.com", customer_name: "Pat Buyer", template_id: template.template_id },
  });
  const sent = await api(base, "POST", `/partner/envelopes/${envelope.envelope_id}/send`, {
    apiKey,
    body: { send_email: false, signers: [{ role: "buyer", email: "pat@example.com", name: "Pat Buyer", routing_order: 1 }] },
  });
  return sent.signers[0].embed_url;
}

const COMPRESSIBLE = /^(text\/|application\/(javascript|json|xml)|image\/svg)/;

/**
 * A loopback proxy to `target` that compresses text responses as Cloudflare's edge does for a browser
 * (brotli when accepted, else gzip); every other response passes through untouched. Compressed
 * bodies are cached by URL and content, so the proxy's own CPU stays out of the measured times.
 */
function compressingProxy(target) {
  const cache = new Map();
  const server = createServer((req, res) => {
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: { ...req.headers, host: new URL(target).host, "accept-encoding": "identity" } }, (up) => {
      const type = String(up.headers["content-type"] ?? "");
      const accepts = String(req.headers["accept-encoding"] ?? "");
      const encoding = accepts.includes("br") ? "br" : accepts.includes("gzip") ? "gzip" : null;
      if (!encoding || !COMPRESSIBLE.test(type) || up.headers["content-encoding"]) {
        res.writeHead(up.statusCode, up.headers);
        return up.pipe(res);
      }
      const chunks = [];
      up.on("data", (c) => chunks.push(c));
      up.on("end", () => {
        const body = Buffer.concat(chunks);
        const key = `${encoding} ${req.url} ${body.length}`;
        let packed = cache.get(key);
        if (!packed) {
          packed = encoding === "br" ? brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }) : gzipSync(body);
          if (req.url.startsWith("/static/")) cache.set(key, packed);
        }
        const headers = { ...up.headers, "content-encoding": encoding, "content-length": String(packed.length), vary: "accept-encoding" };
        delete headers["transfer-encoding"];
        res.writeHead(up.statusCode, headers);
        res.end(packed);
      });
    });
    upstream.on("error", (err) => res.destroy(err));
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => (server.close(r), server.closeAllConnections())) })));
}

/** The compressed size of `url` as the proxy sends it to a browser (for requests CDP's page target does not see finish: a worker's script). */
function transferBytes(url) {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers: { "accept-encoding": "gzip, deflate, br" } }, (res) => {
      let n = 0;
      res.on("data", (c) => (n += c.length));
      res.on("end", () => resolve(n));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

/** The moments (ms from the navigation's start) the page painted its first document page and became ready. */
const MARKS = `(() => {
  const marks = (window.__benchMarks = {});
  const look = () => {
    if (!marks.painted && document.querySelector(".page.painted")) marks.painted = performance.now();
    if (!marks.ready && document.getElementById("progress")?.textContent) marks.ready = performance.now();
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"], characterData: true });
})();`;

/** One visit with an empty cache: the two moments, and every script with the bytes that crossed the network. */
async function visit(browser, url) {
  const context = await browser.newContext(PHONE);
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", SLOW_4G);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    const requests = new Map();
    cdp.on("Network.requestWillBeSent", (e) => requests.set(e.requestId, { url: e.request.url, at: e.timestamp }));
    cdp.on("Network.responseReceived", (e) => Object.assign(requests.get(e.requestId) ?? {}, { type: e.type, encoding: e.response.headers["content-encoding"] ?? e.response.headers["Content-Encoding"] }));
    cdp.on("Network.loadingFinished", (e) => Object.assign(requests.get(e.requestId) ?? {}, { bytes: e.encodedDataLength, done: e.timestamp }));
    const errors = [];
    page.on("pageerror", (err) => errors.push(err.message));
    await page.addInitScript(MARKS);
    await page.goto(url, { waitUntil: "commit" });
    await page.waitForFunction(() => window.__benchMarks?.painted && window.__benchMarks?.ready, null, { timeout: 120_000, polling: 200 });
    const marks = await page.evaluate(() => window.__benchMarks);
    const all = [...requests.values()];
    if (process.env.BENCH_PAGE_TRACE) {
      const t0 = Math.min(...all.map((r) => r.at));
      for (const r of all) log(`  ${fmt((r.at - t0) * 1000, 0).padStart(6)} -> ${fmt(((r.done ?? NaN) - t0) * 1000, 0).padStart(6)} ms ${String(r.bytes ?? "?").padStart(8)} B ${r.type ?? "?"} ${new URL(r.url).pathname.slice(0, 80)}`);
      log(`  painted ${fmt(marks.painted, 0)} ms, ready ${fmt(marks.ready, 0)} ms`);
    }
    const viewerStart = Math.min(...all.filter((r) => VIEWER.test(r.url)).map((r) => r.at));
    // the PDF viewer's worker is fetched by the worker, whose end the page's CDP session does not see: its body's compressed size, headers aside
    for (const r of all) if (r.bytes === undefined && VIEWER.test(r.url)) Object.assign(r, { bytes: await transferBytes(r.url), encoding: "br" });
    const scripts = all.filter((r) => (r.type === "Script" || VIEWER.test(r.url)) && r.bytes !== undefined && /\.m?js$/.test(new URL(r.url).pathname));
    return { ...marks, errors, scripts, viewerStart };
  } finally {
    await context.close();
  }
}

export async function pageSection(ctx) {
  const dir = join(ctx.tmp, "page");
  mkdirSync(dir, { recursive: true });
  const server = await startFreshServer(join(dir, "state"));
  const proxy = await compressingProxy(server.base);
  let browser;
  try {
    const link = (await sentEnvelope(server.base, server.secrets.OPERATOR_TOKEN)).replace(server.base, proxy.origin);
    browser = await chromium.launch({ executablePath: await chromiumPath(), args: CHROMIUM_FLAGS });
    log(`page: ${RUNS} visits of a signer link on a phone profile (one unmeasured warm-up first)`);
    await visit(browser, link); // the Worker's modules loaded and the proxy's compressed assets cached
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await visit(browser, link));
    const failures = runs.flatMap((r) => r.errors.map((e) => `page: the page threw: ${e}`));
    const last = runs.at(-1);
    const beforeViewer = last.scripts.filter((s) => !VIEWER.test(s.url));
    const viewer = last.scripts.filter((s) => VIEWER.test(s.url));
    const sum = (list) => list.reduce((n, s) => n + s.bytes, 0);
    const name = (s) => new URL(s.url).pathname.replace("/static/app/", "").replace("/static/vendor/pdfjs/", "");
    const kb = (b) => `${fmt(b / 1024, 0)} KB`;
    const stat = (key) => {
      const values = runs.map((r) => r[key]);
      return [`${fmt(percentile(values, 0.5) / 1000, 2)} s`, `${fmt(Math.max(...values) / 1000, 2)} s`];
    };
    const ready = percentile(runs.map((r) => r.ready), 0.5);
    const scriptBytes = sum(beforeViewer);
    const encodings = [...new Set(last.scripts.map((s) => s.encoding ?? "none"))].join(", ");
    return {
      title: `Signing page on a phone (Chromium, ${CPU_SLOWDOWN}x CPU slowdown, slow 4G: 150 ms RTT, 1.6 Mbps down, 750 kbps up; ${RUNS} cold visits)`,
      columns: ["measure", "median", "worst"],
      rows: [
        ["first page of the document painted", ...stat("painted")],
        ["ready for input (fields placed, notice said)", ...stat("ready")],
        [`script before the PDF viewer (${beforeViewer.map(name).join(" + ")})`, kb(scriptBytes), `${beforeViewer.length} file(s)`],
        [`PDF viewer script (${viewer.map(name).join(" + ") || "none separate"})`, kb(sum(viewer)), `${viewer.length} file(s)`],
      ],
      notes: [
        `Goal: ready under ${READY_TARGET_MS / 1000} s -> ${ready < READY_TARGET_MS ? "MET" : "NOT MET"}; under ${SCRIPT_TARGET_BYTES / 1024} KB of script before the PDF viewer -> ${scriptBytes < SCRIPT_TARGET_BYTES ? "MET" : "NOT MET"}.`,
        `Bytes are what crossed the throttled network (CDP encodedDataLength, headers included; content-encoding ${encodings}), through a loopback proxy compressing as the edge does. ` +
          "Times are from the navigation's start, local wrangler dev behind it: the network profile, not the server, sets most of them.",
      ],
      failures,
    };
  } finally {
    await browser?.close();
    await proxy.close();
    await stopServer(server);
  }
}
