// Local benchmark: `npm run bench`.
// Starts `wrangler dev` on a free loopback port with fresh local state, provisions an org, a partner
// key and an envelope through the operator API, load-tests a few routes with autocannon, and sizes
// the deploy bundle. Each entry of `sections` is an async function returning a table to print;
// later figures are added there. Env: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50),
// BENCH_ONLY (comma-separated section names: latency, vault, templates, signing, bulk, webhooks, bundle, pdfmem, pdfbombs, control, evidence, shards, capacity, devstart, portfolio, monthend, page).
// The devstart section (scripts/lib/bench-devstart.mjs) times `npm run dev` in a scratch copy of the working tree, fresh and
// restarted, until /health answers (BENCH_DEVSTART_RUNS, default 2); it needs no bench server: BENCH_ONLY=devstart starts none.
// The capacity section (scripts/bench-capacity.mjs) measures one envelope lifecycle's D1/R2/Queue/DO/CPU use in the
// Workers runtime (BENCH_CAPACITY_RUNS, default 10), writes scripts/bench-capacity.json and runs scripts/capacity-sim.mjs on it.
// The bulk section sends BENCH_BULK_CLIENTS (default 1000) clients one envelope each through bulk send.
// The webhook section (scripts/bench-webhooks.mjs; also a flood from one bulk send) runs BENCH_WEBHOOK_RATE (default 20) events/s for BENCH_WEBHOOK_SECONDS
// (default 60) and a flood of BENCH_WEBHOOK_EVENTS (default 2000) to 3 loopback receivers (BENCH_WEBHOOK_SCENARIOS picks).
// Every request the sections make to the service has a deadline (BENCH_REQUEST_TIMEOUT_S, default 120 s; the 50 MB
// vault upload five times that): one left unanswered fails with its method and URL instead of undici's bare
// "fetch failed" after 300 s. Exits non-zero if any measured request failed (non-2xx, connection error) or a step broke; a missed
// latency target is reported, not failed, since local figures depend on the machine's load.
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ANSI, api, fetchWithDeadline, freePort, logDigest, REQUEST_TIMEOUT_MS, root, run, startFreshServer, stopServer, WRANGLER } from "./lib/dev-server.mjs";
import { fmt, log, newEnvelope, positiveInt, ratio, sleep } from "./lib/bench-util.mjs";
import { prepareBulkBatch, uploadTemplateTimed, waitForBatch } from "./lib/bulk-setup.mjs";
import { sweepFigures, vaultSmallDocuments } from "./bench-sweep.mjs";
import { webhookSection } from "./bench-webhooks.mjs";
import { floorRows } from "./bench-floor.mjs";
import { capacitySection } from "./bench-capacity.mjs";
import { controlSection } from "./bench-control.mjs";
import { evidenceSection } from "./bench-evidence.mjs";
import { shardsSection } from "./bench-shards.mjs";
import { devStartSection } from "./lib/bench-devstart.mjs";
import { portfolioSection as portfolio } from "./bench-portfolio.mjs";
import { monthendSection } from "./bench-monthend.mjs";
import { pageSection } from "./bench-page.mjs";

const DURATION = positiveInt("BENCH_DURATION", 10);
const CONNECTIONS = positiveInt("BENCH_CONNECTIONS", 50);
const WARMUP_SECONDS = 1; // unreported warm-up per route so the first (baseline) run does not pay for cold start
const P99_TARGET = 1.5; // partner reads within 1.5x of the bare route's p99
const BUNDLE_LIMIT = 10 * 1024 * 1024; // Workers paid plan: 10 MB after gzip

async function provision(base, operatorToken) {
  const org = await api(base, "POST", "/operator/orgs", { token: operatorToken, body: { name: "Bench Org" } });
  const key = await api(base, "POST", `/operator/orgs/${org.org_id}/api-keys`, {
    token: operatorToken,
    body: { scopes: ["envelopes:read", "envelopes:write"], rate_limit_rpm: 1_000_000 },
  });
  const envelope = await api(base, "POST", "/partner/envelopes", { apiKey: key.api_key, body: newEnvelope() });
  return { apiKey: key.api_key, envelopeId: envelope.envelope_id };
}

/** One autocannon run; the first few distinct non-2xx answers are kept in `samples` to explain them. */
function cannon(opts, duration, samples = new Set()) {
  const onResponse = (status, body) => {
    if ((status < 200 || status > 299) && samples.size < 5) samples.add(`${status} ${String(body).slice(0, 300)}`);
  };
  return autocannon({ connections: CONNECTIONS, duration, ...opts, requests: [{ onResponse }] });
}

// --- sections: each gets the context and returns { title, columns, rows, notes?, failures? } -----

async function latencySection(ctx) {
  const auth = { "x-api-key": ctx.apiKey };
  const statusUrl = `${ctx.base}/api/v2/partner/envelopes/${ctx.envelopeId}/status`;
  // Elimination rows: each stops after one more hop of the status read's path, so the differences between
  // consecutive rows are what each hop costs. The 403 key lacks envelopes:read: its request is admitted by
  // its RateLimiter object (authenticated and counted) and refused by the scope check before any D1 read.
  const probeOrg = await api(ctx.base, "POST", "/operator/orgs", { token: ctx.operatorToken, body: { name: "Bench probe org" } });
  const probeKey = await api(ctx.base, "POST", `/operator/orgs/${probeOrg.org_id}/api-keys`, {
    token: ctx.operatorToken,
    body: { scopes: ["vault:read"], rate_limit_rpm: 1_000_000 },
  });
  const routes = [
    { name: "GET /health (baseline)", opts: { url: `${ctx.base}/health` } },
    { name: "  status, no key: 401 before the limiter", expect: 401, opts: { url: statusUrl } },
    { name: "  status, key without scope: limiter, 403, no D1", expect: 403, opts: { url: statusUrl, headers: { "x-api-key": probeKey.api_key } } },
    { name: "GET /partner/envelopes/:id/status", read: true, opts: { url: statusUrl, headers: auth } },
    {
      name: "POST /partner/envelopes",
      opts: {
        url: `${ctx.base}/api/v2/partner/envelopes`,
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(newEnvelope()),
      },
    },
  ];
  const failures = [];
  const results = [];
  for (const route of routes) {
    log(`${route.name}: ${DURATION} s at ${CONNECTIONS} connections`);
    ctx.setPhase(route.name);
    await cannon(route.opts, WARMUP_SECONDS);
    const samples = new Set();
    const r = await cannon(route.opts, DURATION, samples);
    const codes = Object.entries(r.statusCodeStats).map(([code, s]) => `${code}x${s.count}`).join(" ");
    const unexpected = route.expect ? r.requests.total - (r.statusCodeStats[route.expect]?.count ?? 0) : r.non2xx;
    if (unexpected > 0 || r.errors > 0 || r.timeouts > 0) {
      const examples = [...samples].map((b) => `\n      e.g. ${b}`).join("");
      failures.push(`${route.name.trim()}: ${unexpected} unexpected (${route.expect ?? "non-2xx"}), ${r.errors} errors, ${r.timeouts} timeouts of ${r.requests.total} (${codes || "no answers"})${examples}`);
    }
    results.push({ route, r, codes });
  }
  const base = results[0].r;
  // One table row: throughput and latency, with ratios against the row's own bare route.
  const row = (name, r, bare, failed) => [
    name,
    fmt(r.requests.average, 0),
    fmt(r.latency.p50),
    fmt(r.latency.p99),
    ratio(r.requests.average, bare.requests.average),
    ratio(r.latency.p50, bare.latency.p50),
    ratio(r.latency.p99, bare.latency.p99),
    String(failed),
    Object.entries(r.statusCodeStats).map(([code, st]) => `${code}x${st.count}`).join(" "),
  ];
  const rows = results.map(({ route, r }) => row(route.name, r, base, (route.expect ? r.requests.total - (r.statusCodeStats[route.expect]?.count ?? 0) : r.non2xx) + r.errors));
  // The same hops in a bare Worker (no code of ours) in the same runtime: what the local runtime charges for them.
  const floor = await floorRows({ duration: DURATION, connections: CONNECTIONS, warmup: WARMUP_SECONDS, log });
  const floorBase = floor[0].r;
  for (const { route, r } of floor) rows.push(row(route.name, r, floorBase, r.non2xx + r.errors));
  const floorRead = floor[2].r;
  const floorWrite = floor[3].r;
  const reads = results.filter(({ route }) => route.read);
  const create = results[results.length - 1].r;
  const met = reads.every(({ r }) => r.latency.p99 <= P99_TARGET * base.latency.p99);
  const reloads = routes.filter((route) => ctx.reloadsDuring(route.name) > 0);
  const worst = Math.max(...reads.map(({ r }) => r.latency.p99 / base.latency.p99));
  return {
    title: `Latency: ${DURATION} s per route, ${CONNECTIONS} connections, wrangler dev (local), ratios against GET /health`,
    columns: ["route", "req/s", "p50 ms", "p99 ms", "req/s vs base", "p50 vs base", "p99 vs base", "failed", "status codes"],
    rows,
    notes: [
      `Target: partner reads within ${P99_TARGET}x of the bare route's p99 -> ${met ? "MET" : "NOT MET"} (status read p99 is ${fmt(worst, 2)}x the baseline)`,
      `The floor rows run a bare Worker (no code of ours) in the same runtime (workerd via Miniflare, disk-backed local D1, a Durable Object), their ratios against that Worker's own bare route: ` +
        `the same hops cost ${ratio(floorRead.latency.p99, floorBase.latency.p99)} (DO + D1 read) and ${ratio(floorWrite.latency.p99, floorBase.latency.p99)} (DO + write batch) of a bare route locally, whoever makes them. ` +
        `Against its floor the status read is ${ratio(reads[0].r.latency.p99, floorRead.latency.p99)} and the create ${ratio(create.latency.p99, floorWrite.latency.p99)} (p99).`,
      ...reloads.map(
        (route) =>
          `Warning: wrangler dev reloaded ${ctx.reloadsDuring(route.name)}x during ${route.name} (a watched file changed), so its figures are disturbed; ` +
          `in-flight non-GET requests then get wrangler's 503 "Your worker restarted mid-request".`,
      ),
    ],
    failures,
  };
}

async function bundleSection(ctx) {
  ctx.setPhase("bundle build");
  const outdir = join(ctx.tmp, "bundle");
  const output = await run(WRANGLER, ["deploy", "--dry-run", "--outdir", outdir]);
  const files = readdirSync(outdir, { recursive: true }).filter((f) => f.endsWith(".js"));
  if (files.length === 0) throw new Error(`wrangler deploy --dry-run produced no .js file in ${outdir}`);
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = readFileSync(join(outdir, f));
    raw += bytes.length;
    gz += gzipSync(bytes).length;
  }
  const kib = (n) => `${fmt(n / 1024)} KiB`;
  return {
    title: "Worker bundle (wrangler deploy --dry-run)",
    columns: ["files", "raw", "gzipped", "limit (gzipped)", "used"],
    rows: [[files.join(", "), kib(raw), kib(gz), "10 MB (10240 KiB)", `${fmt((100 * gz) / BUNDLE_LIMIT, 2)}%`]],
    notes: [`wrangler's own figure: ${/Total Upload:.*/.exec(output.replace(ANSI, ""))?.[0] ?? "(not printed)"}`],
    failures: gz > BUNDLE_LIMIT ? [`gzipped bundle ${kib(gz)} is over the 10 MB limit`] : [],
  };
}

// --- webhooks: scripts/bench-webhooks.mjs (nominal load, flood, failing receiver) ------------------

// --- vault: vault-in of a ~50 MB PDF, and the integrity sweep's re-hash throughput ---------------

const VAULT_PDF_PAGES = 10;
const VAULT_IMAGE_BYTES = 5_200_000; // per page: 10 pages make a PDF just under the 50 MiB upload limit

/** A scanned-contract-like PDF: each page one uncompressed 8-bit grey image of random pixels. */
async function bigPdf() {
  const { PDFDocument, pushGraphicsState, popGraphicsState, concatTransformationMatrix, drawObject } = await import("pdf-lib");
  const doc = await PDFDocument.create();
  const width = 2600;
  const height = VAULT_IMAGE_BYTES / width;
  for (let i = 0; i < VAULT_PDF_PAGES; i++) {
    const page = doc.addPage([612, 792]);
    const image = doc.context.register(
      doc.context.stream(randomBytes(VAULT_IMAGE_BYTES), { Type: "XObject", Subtype: "Image", Width: width, Height: height, ColorSpace: "DeviceGray", BitsPerComponent: 8 }),
    );
    const name = page.node.newXObject("Scan", image);
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(612, 0, 0, 792, 0, 0), drawObject(name), popGraphicsState());
  }
  return doc.save({ useObjectStreams: false });
}

/** workerd processes of the wrangler dev process group (wrangler is the group leader). */
function workerdPids(groupId) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === groupId && stat.includes("(workerd)")) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** A kB figure of /proc/<pid>/status, or NaN once the process is gone (wrangler dev restarted it). */
function statusKib(pid, field) {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

async function vaultSection(ctx) {
  ctx.setPhase("vault");
  const op = { token: ctx.operatorToken };
  const org = await api(ctx.base, "POST", "/operator/orgs", { ...op, body: { name: "Bench Vault" } });
  const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, {
    ...op,
    body: { scopes: ["envelopes:write", "vault:write", "vault:read"], rate_limit_rpm: 1_000_000 },
  });
  const envelope = await api(ctx.base, "POST", "/partner/envelopes", {
    apiKey: key.api_key,
    body: { ...newEnvelope(), document_source: "upload", secured_party: { name: "Bench Lender" } },
  });
  log("vault: generating the PDF");
  const pdf = await bigPdf();
  const mb = pdf.length / 1e6;
  const failures = [];

  // Peak resident memory during the upload: every workerd process of wrangler dev (the Worker's runtime
  // and miniflare's own) has its high-water mark reset (clear_refs 5); the largest rise is reported.
  const pids = ctx.serverPid ? workerdPids(ctx.serverPid) : [];
  const memoryNotes = [];
  const rssBefore = new Map();
  for (const pid of pids) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, "5");
      rssBefore.set(pid, statusKib(pid, "VmRSS"));
    } catch (err) {
      memoryNotes.push(`Peak memory of workerd ${pid} not measurable here (${err.message}).`);
    }
  }
  if (pids.length === 0) memoryNotes.push("Peak memory not measurable here (no workerd process found in wrangler's process group).");

  log(`vault: POST vault-in-upload with a ${fmt(mb)} MB PDF`);
  const form = new FormData();
  form.append("file", new Blob([pdf], { type: "application/pdf" }), "scan.pdf");
  const started = performance.now();
  // a 50 MB upload on a loaded machine may take minutes: its own deadline, still named if it hangs
  const res = await fetchWithDeadline(`${ctx.base}/api/v2/partner/envelopes/${envelope.envelope_id}/vault-in-upload`, {
    method: "POST",
    headers: { "x-api-key": key.api_key },
    body: form,
  }, 5 * REQUEST_TIMEOUT_MS);
  const body = res.text;
  const vaultMs = performance.now() - started;
  if (res.status !== 200) failures.push(`vault-in-upload of ${fmt(mb)} MB answered ${res.status}: ${body.slice(0, 300)}`);
  const rises = [...rssBefore]
    .map(([pid, before]) => ({ pid, before, peak: statusKib(pid, "VmHWM") }))
    .filter((r) => Number.isFinite(r.peak))
    .sort((a, b) => b.peak - b.before - (a.peak - a.before));
  if (rssBefore.size > 0 && rises.length < rssBefore.size) memoryNotes.push("A workerd process exited during the upload (wrangler dev reloaded): its peak is not counted.");
  const top = rises[0];

  // The authoritative copy comes back byte-identical.
  const url = await api(ctx.base, "GET", `/partner/envelopes/${envelope.envelope_id}/vault/signed-url`, { apiKey: key.api_key });
  const downloadStarted = performance.now();
  const downloaded = (await fetchWithDeadline(url.signed_url.replace(/^https?:\/\/[^/]+/, ctx.base), {}, 5 * REQUEST_TIMEOUT_MS)).bytes;
  const downloadMs = performance.now() - downloadStarted;
  if (!downloaded.equals(Buffer.from(pdf))) failures.push("the authoritative download differs from the uploaded PDF");

  // Sweep (scripts/bench-sweep.mjs): more documents vaulted, then the weekly trigger over the whole vault
  // against bare digests of the same bytes in workerd.
  const small = await vaultSmallDocuments(ctx.base, key.api_key, { ...newEnvelope(), document_source: "upload", secured_party: { name: "Bench Lender" } }, log);
  const sweep = await sweepFigures({ base: ctx.base, persistDir: join(ctx.tmp, "state"), tmp: ctx.tmp, documents: [pdf, ...small], log });
  failures.push(...sweep.failures);
  const mib = (kib) => `${fmt(kib / 1024, 0)} MiB`;
  return {
    title: `Vault: a ${fmt(mb)} MB PDF (${VAULT_PDF_PAGES} scanned pages) through wrangler dev (local)`,
    columns: ["measure", "value", "detail"],
    rows: [
      ["vault-in-upload", `${fmt(vaultMs / 1000, 2)} s`, `${fmt(mb / (vaultMs / 1000))} MB/s; upload, PDF check, marked copy, R2 writes, certificate, one D1 batch`],
      [
        "workerd peak RSS during vault-in",
        top ? mib(top.peak) : "n/a",
        top ? `${mib(top.before)} before -> +${mib(top.peak - top.before)} for the request (largest rise of ${rises.length} workerd processes)` : "-",
      ],
      ["authoritative download (re-hash + stream)", `${fmt(downloadMs / 1000, 2)} s`, `${fmt(mb / (downloadMs / 1000))} MB/s, bytes identical`],
      ...sweep.rows,
    ],
    notes: [
      "Peak RSS is the workerd process's high-water mark (VmHWM, reset before the request): it includes the runtime, the local R2 and D1 simulators and " +
        "the request buffers, so it is an upper bound on what the isolate itself held; production's 128 MB limit counts the isolate's heap and buffers only.",
      ...sweep.notes,
      ...memoryNotes,
    ],
    failures,
  };
}

// --- templates: anchor resolution against unpdf's bare extraction, memory, 50 MB template upload ----

const ANCHOR_PAGES = 200;
const MEMORY_PAGES = [200, 1600, 3200];
const ANCHOR_RUNS = 5;

/** scripts/<name>.ts bundled for Node with esbuild (the Worker's own modules run unchanged outside workerd); returns the file. */
async function bundleForNode(ctx, name) {
  const { build } = await import("esbuild");
  const outfile = join(ctx.tmp, `${name}.mjs`);
  await build({
    entryPoints: [join(root, "scripts", `${name}.ts`)],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" },
  });
  return outfile;
}

/**
 * scripts/bench-anchors.ts bundled for Node with esbuild: the Worker's own resolver (pdf-lib and
 * unpdf's pdf.js run unchanged outside workerd), so its cost is compared with unpdf's bare text
 * extraction of the same PDF in the same process.
 */
async function anchorModule(ctx) {
  const outfile = await bundleForNode(ctx, "bench-anchors");
  return { anchors: await import(outfile), outfile };
}

/** Peak live memory of one open + full scan, in a fresh Node process (see peakMemory in bench-anchors.ts). */
async function scanMemory(outfile, file) {
  const out = await run(process.execPath, ["--expose-gc", outfile, "memory", file]);
  return JSON.parse(out.split("\n").findLast((line) => line.startsWith("{")));
}

/** The largest VmHWM rise of wrangler dev's workerd processes while `fn` runs (clear_refs 5 resets it). */
async function workerdPeakKib(ctx, fn) {
  const before = new Map();
  for (const pid of ctx.serverPid ? workerdPids(ctx.serverPid) : []) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, "5");
      before.set(pid, statusKib(pid, "VmRSS"));
    } catch {
      // not measurable for this process
    }
  }
  const result = await fn();
  const rises = [...before].map(([pid, rss]) => statusKib(pid, "VmHWM") - rss).filter(Number.isFinite);
  return { result, riseKib: rises.length ? Math.max(...rises) : NaN };
}

async function templatesSection(ctx) {
  ctx.setPhase("templates");
  const failures = [];
  const { anchors, outfile } = await anchorModule(ctx);
  log(`templates: ${ANCHOR_PAGES}-page PDF, ${anchors.ANCHORS} anchors, ${ANCHOR_RUNS} runs each`);
  const pdf = await anchors.contractPdf(ANCHOR_PAGES);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const bare = [];
  const pageByPage = [];
  const resolved = [];
  const anchorsOnly = [];
  for (let i = 0; i < ANCHOR_RUNS; i++) {
    bare.push(await anchors.bareExtraction(pdf));
    pageByPage.push(await anchors.pageByPageExtraction(pdf));
    resolved.push((await anchors.resolveAnchors(pdf, true)).ms);
    anchorsOnly.push((await anchors.resolveAnchors(pdf, false)).ms);
  }
  const vs = (ms) => `${ratio(ms, median(bare))} of bare extraction, ${ratio(ms, median(pageByPage))} of the page-by-page read`;
  const rows = [
    [`unpdf extractText, ${ANCHOR_PAGES} pages (bare)`, `${fmt(median(bare), 0)} ms`, `${fmt(median(bare) / ANCHOR_PAGES, 2)} ms/page, Node`],
    [`pdf.js text content page by page, nothing matched`, `${fmt(median(pageByPage), 0)} ms`, `${ratio(median(pageByPage), median(bare))} of bare extraction: the resolver's own read`],
    [`resolve ${anchors.ANCHORS} anchors + tag scan (upload path)`, `${fmt(median(resolved), 0)} ms`, vs(median(resolved))],
    [`resolve ${anchors.ANCHORS} anchors only (POST .../fields)`, `${fmt(median(anchorsOnly), 0)} ms`, vs(median(anchorsOnly))],
  ];

  log("templates: peak live memory of a full scan, growing PDFs");
  const sizes = [];
  for (const pages of MEMORY_PAGES) {
    const file = join(ctx.tmp, `contract-${pages}.pdf`);
    writeFileSync(file, await anchors.contractPdf(pages));
    sizes.push({ label: `${pages}-page text PDF`, file });
  }
  const scanned = await bigPdf();
  const scannedFile = join(ctx.tmp, "scanned.pdf");
  writeFileSync(scannedFile, scanned);
  sizes.push({ label: `${VAULT_PDF_PAGES}-page scanned PDF`, file: scannedFile });
  for (const { label, file } of sizes) {
    const m = await scanMemory(outfile, file);
    rows.push([`scan memory: ${label}`, `${fmt(m.peak_mb)} MiB`, `file ${fmt(m.bytes_mb)} MiB; peak live heap + buffers during open + scan`]);
  }

  log(`templates: POST /partner/templates through wrangler dev (${fmt(scanned.length / 1e6)} MB, and the ${ANCHOR_PAGES}-page PDF with and without anchors)`);
  await uploadTemplateTimed(ctx, await anchors.contractPdf(anchors.ANCHORS)); // warm-up: the isolate compiles pdf.js once
  const big = await workerdPeakKib(ctx, () => uploadTemplateTimed(ctx, scanned));
  const plainRuns = [];
  const anchorRuns = [];
  for (let i = 0; i < 3; i++) {
    plainRuns.push(await uploadTemplateTimed(ctx, pdf));
    anchorRuns.push(await uploadTemplateTimed(ctx, pdf, anchors.anchorFields()));
  }
  for (const r of [big.result, ...plainRuns, ...anchorRuns]) {
    if (r.status !== 200) failures.push(`templates: POST /partner/templates answered ${r.status}: ${r.text.slice(0, 300)}`);
  }
  const plain = { ms: median(plainRuns.map((r) => r.ms)) };
  const withAnchors = { ms: median(anchorRuns.map((r) => r.ms)) };
  rows.push(
    [`upload ${fmt(scanned.length / 1e6)} MB scanned PDF (wrangler dev)`, `${fmt(big.result.ms / 1000, 2)} s`, `${fmt(scanned.length / 1e6 / (big.result.ms / 1000))} MB/s; workerd peak RSS +${Number.isFinite(big.riseKib) ? `${fmt(big.riseKib / 1024, 0)} MiB` : " n/a"}`],
    [`upload ${ANCHOR_PAGES}-page PDF, no fields (wrangler dev)`, `${fmt(plain.ms, 0)} ms`, "median of 3: store + tag scan + template row"],
    [`upload ${ANCHOR_PAGES}-page PDF, ${anchors.ANCHORS} anchors (wrangler dev)`, `${fmt(withAnchors.ms, 0)} ms`, `median of 3: ${ratio(withAnchors.ms, plain.ms)} of the plain upload`],
  );
  return {
    title: `Templates: anchor resolution (Node, the Worker's resolver) and template uploads (wrangler dev, local)`,
    columns: ["measure", "value", "detail"],
    rows,
    notes: [
      "Anchors are spread evenly, the last on the last page, so every page is read; the upload path also scans every page for embedded tags.",
      "Scan memory: a fresh Node process reads the PDF, hands it to unpdf's pdf.js and scans every page as an upload does; as the scan starts and " +
        "every 250 ms a full GC runs and heap in use plus external buffers is read; the peak rise over the baseline before the file was read is shown. Text-dense pages cost " +
        "about 10 KiB each on top of the file; a scanned page only its bytes (images are never decoded).",
      "workerd peak RSS is the process high-water mark (runtime, local R2/D1 simulators and request buffers included), an upper bound on the isolate's share.",
    ],
    failures,
  };
}

const SIGNING_PAGES = 10;
const SIGNING_RUNS = positiveInt("BENCH_SIGNING_RUNS", 7);

// A 10-page letter PDF with a line of text per page, and a buyer/cosigner template on it: text and a
// typed signature for the buyer on page 1, a typed signature and a checkbox for the cosigner on page 10.
async function signingTemplate(ctx, apiKey) {
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= SIGNING_PAGES; i++) doc.addPage([612, 792]).drawText(`Retail installment contract, page ${i}`, { x: 72, y: 740, size: 12, font });
  const bytes = await doc.save();
  const field = (name, type, role, page, y, extra = {}) => ({ name, type, role, placement: { mode: "absolute", areas: [{ page, x: 0.1, y, w: 0.4, h: 0.04 }] }, ...extra });
  const form = new FormData();
  form.append("file", new Blob([bytes], { type: "application/pdf" }), "contract.pdf");
  form.append("name", "Bench signing template");
  form.append(
    "fields_json",
    JSON.stringify([
      field("buyer_name", "text", "buyer", 1, 0.3, { required: true }),
      field("buyer_signature", "signature", "buyer", SIGNING_PAGES, 0.6, { required: true }),
      field("cosigner_signature", "signature", "cosigner", SIGNING_PAGES, 0.7, { required: true }),
      field("cosigner_agree", "checkbox", "cosigner", SIGNING_PAGES, 0.8),
    ]),
  );
  const res = await fetchWithDeadline(`${ctx.base}/api/v2/partner/templates`, { method: "POST", headers: { "x-api-key": apiKey }, body: form });
  if (!res.ok) throw new Error(`template upload answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text).data.template_id;
}

async function signingSection(ctx) {
  ctx.setPhase("signing");
  const failures = [];
  const org = await api(ctx.base, "POST", "/operator/orgs", { token: ctx.operatorToken, body: { name: "Bench Signing Org" } });
  const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, {
    token: ctx.operatorToken,
    body: { scopes: ["envelopes:read", "envelopes:write", "esign:write"], rate_limit_rpm: 1_000_000 },
  });
  const apiKey = key.api_key;
  const templateId = await signingTemplate(ctx, apiKey);
  const submit = async (slug, values) => {
    const started = performance.now();
    const res = await fetchWithDeadline(`${ctx.base}/api/v2/signing/${slug}/submit`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ values }) });
    return { ms: performance.now() - started, status: res.status, text: res.text };
  };
  log(`signing: ${SIGNING_RUNS + 1} two-signer envelopes on a ${SIGNING_PAGES}-page PDF (first unreported: warm-up)`);
  const first = [];
  const last = [];
  for (let i = 0; i <= SIGNING_RUNS; i++) {
    const envelope = await api(ctx.base, "POST", "/partner/envelopes", { apiKey, body: { ...newEnvelope(), template_id: templateId } });
    const sent = await api(ctx.base, "POST", `/partner/envelopes/${envelope.envelope_id}/send`, {
      apiKey,
      body: {
        send_email: false,
        signers: [
          { role: "buyer", email: "buyer@example.com", name: "Bench Buyer", routing_order: 1 },
          { role: "cosigner", email: "cosigner@example.com", name: "Bench Cosigner", routing_order: 2 },
        ],
      },
    });
    const slug = (role) => sent.signers.find((s) => s.role === role).slug;
    const a = await submit(slug("buyer"), { buyer_name: "Bench Buyer", buyer_signature: "Bench Buyer" });
    const b = await submit(slug("cosigner"), { cosigner_signature: "Bench Cosigner", cosigner_agree: true });
    const after = await api(ctx.base, "GET", `/partner/envelopes/${envelope.envelope_id}`, { apiKey });
    for (const r of [a, b]) if (r.status !== 200) failures.push(`signing: submit answered ${r.status}: ${r.text.slice(0, 300)}`);
    if (after.status !== "completed") failures.push(`signing: envelope ${envelope.envelope_id} is ${after.status} after the last submit`);
    if (i === 0) continue;
    first.push(a.ms);
    last.push(b.ms);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return {
    title: `Signing: last signer's submit to completed with the stamped PDF stored (${SIGNING_PAGES}-page document, wrangler dev, local)`,
    columns: ["measure", "median", "min", "max"],
    rows: [
      ["last signer's submit -> completed (stamp + certificate + R2 + batch)", `${fmt(median(last), 0)} ms`, `${fmt(Math.min(...last), 0)} ms`, `${fmt(Math.max(...last), 0)} ms`],
      ["first signer's submit (values + events only)", `${fmt(median(first), 0)} ms`, `${fmt(Math.min(...first), 0)} ms`, `${fmt(Math.max(...first), 0)} ms`],
    ],
    notes: [
      `Median of ${SIGNING_RUNS} envelopes (BENCH_SIGNING_RUNS). The last submit answers only after the signed PDF is in R2 and the envelope is completed, so its round trip is the time to completion; ` +
        "the GET that follows checks the status. Typed signatures (text); a drawn PNG adds its decode and embed.",
    ],
    failures,
  };
}

// --- bulk send: BENCH_BULK_CLIENTS (default 1000) clients from submit to the last item settled -----------

const BULK_CLIENTS = positiveInt("BENCH_BULK_CLIENTS", 1000);
const BULK_TARGET_S = 30;
const BULK_POLL_CONNECTIONS = 10;

/** autocannon until `stop()` is called; resolves with its result. */
function cannonUntilStopped(opts) {
  let instance;
  const done = new Promise((resolve, reject) => {
    instance = autocannon({ connections: BULK_POLL_CONNECTIONS, duration: 600, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
  return { stop: () => instance.stop(), done };
}

async function bulkSection(ctx) {
  ctx.setPhase("bulk setup");
  const { org, admin, console_, batch } = await prepareBulkBatch(ctx, { name: "Bench Bulk Dealer Group", clients: BULK_CLIENTS });

  ctx.setPhase("bulk run");
  log(`bulk: submit; polling GET /bulk-send/:id and GET /health with ${BULK_POLL_CONNECTIONS} connections each until the batch ends`);
  const progressUrl = `${ctx.base}/api/v2/bulk-send/${batch.batch_id}`;
  const auth = { authorization: `Bearer ${admin}`, "x-org-id": org.org_id };
  const started = performance.now();
  await console_("POST", `/bulk-send/${batch.batch_id}/submit`);
  const progress = cannonUntilStopped({ url: progressUrl, headers: auth });
  const bare = cannonUntilStopped({ url: `${ctx.base}/health` });
  const last = await waitForBatch(console_, batch.batch_id);
  const seconds = (performance.now() - started) / 1000;
  progress.stop();
  bare.stop();
  const [p, b] = await Promise.all([progress.done, bare.done]);
  const failures = [];
  if (last.batch.status !== "completed" || last.counts.sent !== BULK_CLIENTS) failures.push(`bulk: batch ended ${last.batch.status} with counts ${JSON.stringify(last.counts)}`);
  if (p.non2xx > 0 || p.errors > 0) failures.push(`bulk: progress route ${p.non2xx} non-2xx, ${p.errors} errors`);
  return {
    title: `Bulk send: ${BULK_CLIENTS} clients from submit to the last item settled (wrangler dev, local)`,
    columns: ["measure", "value", "vs GET /health"],
    rows: [
      ["total time", `${fmt(seconds)} s`, ""],
      ["envelopes/s", fmt(last.counts.sent / seconds), ""],
      [`GET /bulk-send/:id p99 while it runs (${BULK_POLL_CONNECTIONS} conn, ${p.requests.total} req)`, `${fmt(p.latency.p99)} ms`, ratio(p.latency.p99, b.latency.p99)],
      [`GET /bulk-send/:id p50`, `${fmt(p.latency.p50)} ms`, ratio(p.latency.p50, b.latency.p50)],
      [`GET /health p99 in the same run (${b.requests.total} req)`, `${fmt(b.latency.p99)} ms`, "1.00x"],
    ],
    notes: [
      `Target: under ${BULK_TARGET_S} s for ${BULK_CLIENTS} clients -> ${seconds < BULK_TARGET_S ? "MET" : "NOT MET"}.`,
      "Bound: one Durable Object runs the batch, one chunk of 50 clients per alarm, and a chunk is six round trips whatever its size " +
        "(read, claim, create 50 envelopes in one D1 transaction, read them back, send 50 and record the items in one transaction, next alarm), ~850 D1 statements. " +
        "Locally every hop (D1 call, alarm) is served by the same workerd process as the 20 polling connections, so the pollers' share of that process and " +
        "the single SQLite writer set the pace; the Worker's own CPU per envelope (two audit hashes, one invitation) is small.",
    ],
    failures,
  };
}

// --- pdfmem: peak memory of completion and vault-in on growing PDFs (Node, the Worker's own code) ---

const PDFMEM_SIZES_MB = [5, 10, 12, 15, 20, 35, 50];
const PDFMEM_PAGES = 5000;

/**
 * scripts/bench-pdfmem.ts bundled for Node: completion's PDF work (stamp, certificate page, seal) and
 * vault-in's (parse, copy marking, append) on scanned PDFs of growing size, each run in a fresh
 * process (--expose-gc). Reported, never asserted: they show how large an upload completion can still finish in 128 MB
 * (both write incremental updates on the original, so the figures stay near the file's own size).
 */
async function pdfMemorySection(ctx) {
  ctx.setPhase("pdfmem");
  const { generateSealCertificate } = await import("./lib/seal-cert.mjs");
  const outfile = await bundleForNode(ctx, "bench-pdfmem");
  const sealFile = join(ctx.tmp, "seal.json");
  writeFileSync(sealFile, JSON.stringify(await generateSealCertificate({ commonName: "esign-vault bench seal" })));
  const rows = [];
  for (const mb of PDFMEM_SIZES_MB) {
    const file = join(ctx.tmp, `scanned-${mb}.pdf`);
    await run(process.execPath, [outfile, "make", file, String(mb)]);
    log(`pdfmem: ${mb} MB scanned PDF`);
    for (const which of ["completion", "vault"]) {
      const out = await run(process.execPath, ["--expose-gc", outfile, "memory", file, sealFile, which]);
      const m = JSON.parse(out.split("\n").findLast((line) => line.startsWith("{")));
      rows.push([`${which === "completion" ? "completion (stamp + certificate + seal, incremental)" : "vault-in (mark copy, incremental)"}, ${fmt(m.bytes_mb)} MiB file`, `${fmt(m.peak_mb, 0)} MiB`, `${fmt(m.peak_mb / m.bytes_mb, 1)}x the file; RSS high-water +${fmt(m.hwm_rise_mb, 0)} MiB`]);
    }
    rmSync(file, { force: true });
  }
  // A long text document: the page count, not the bytes, is what the page tree costs.
  const long = join(ctx.tmp, `pages-${PDFMEM_PAGES}.pdf`);
  await run(process.execPath, [outfile, "make-pages", long, String(PDFMEM_PAGES)]);
  log(`pdfmem: ${PDFMEM_PAGES}-page text PDF`);
  for (const which of ["completion", "vault"]) {
    const out = await run(process.execPath, ["--expose-gc", outfile, "memory", long, sealFile, which]);
    const m = JSON.parse(out.split("\n").findLast((line) => line.startsWith("{")));
    rows.push([`${which === "completion" ? "completion" : "vault-in (marks every page)"}, ${PDFMEM_PAGES.toLocaleString("en")}-page text PDF of ${fmt(m.bytes_mb)} MiB`, `${fmt(m.peak_mb, 0)} MiB`, `RSS high-water +${fmt(m.hwm_rise_mb, 0)} MiB`]);
  }
  rmSync(long, { force: true });
  return {
    title: "PDF memory: completion and vault-in on scanned PDFs (Node, the Worker's own modules)",
    columns: ["measure", "peak live", "detail"],
    rows,
    notes: [
      "Peak live = V8 heap in use + external buffers after a full GC, sampled every 100 ms and at the end, over the baseline before the file was read (the input included). " +
        "pdf-lib works in long synchronous stretches, so it is a floor; the RSS high-water rise (garbage included) is the ceiling.",
      "Completion and the copy marking open the PDF lazily (src/pdf/incremental/: cross-reference sections, then only the objects looked up, streams as views) and append incremental updates, never rewriting the file: " +
        "both stay near 1x the file (the input itself), so the 128 MB isolate less ~30 MiB for the Worker completes and vaults the spec's 50 MB limit (MAX_PDF_BYTES).",
    ],
  };
}

// Webhooks run last of the server sections: they load wrangler dev the hardest.
// --- pdfbombs: workerd's peak memory over the decode budget's bomb corpus against a plain upload ---

const PDFBOMB_CASES = positiveInt("BENCH_PDFBOMB_CASES", 40);

/**
 * The generated bombs of test/helpers/pdf-bomb-grammar.ts (every obfuscation, a fixed seed), uploaded
 * as partner templates to wrangler dev one after another, against a plain ~100 KB text PDF: each must be
 * refused (413/422), the plain one stored. workerd's peak RSS rise (VmHWM reset before) over the whole
 * corpus is set beside the plain upload's, measured in the same run.
 */
async function pdfBombsSection(ctx) {
  ctx.setPhase("pdfbombs");
  const outfile = await bundleForNode(ctx, "bench-pdfmem");
  const dir = join(ctx.tmp, "bombs");
  mkdirSync(dir, { recursive: true });
  await run(process.execPath, [outfile, "bombs", dir, String(PDFBOMB_CASES)]);
  const plain = readFileSync(join(dir, "plain-100k.pdf"));
  const bombs = readdirSync(dir).filter((f) => f.startsWith("bomb-")).map((f) => readFileSync(join(dir, f)));
  const failures = [];
  await uploadTemplateTimed(ctx, plain); // unmeasured: the first upload also pays for loading pdf.js and pdf-lib
  const plainRun = await workerdPeakKib(ctx, () => uploadTemplateTimed(ctx, plain));
  if (plainRun.result.status !== 200) failures.push(`pdfbombs: the plain upload answered ${plainRun.result.status}`);
  log(`pdfbombs: ${bombs.length} bombs`);
  const statuses = new Map();
  let slowest = 0;
  let largest = 0;
  const bombRun = await workerdPeakKib(ctx, async () => {
    for (const bytes of bombs) {
      largest = Math.max(largest, bytes.length);
      const r = await uploadTemplateTimed(ctx, bytes);
      slowest = Math.max(slowest, r.ms);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status !== 413 && r.status !== 422) failures.push(`pdfbombs: a bomb answered ${r.status}`);
    }
  });
  const plainAgain = await workerdPeakKib(ctx, () => uploadTemplateTimed(ctx, plain));
  const mib = (kib) => (Number.isFinite(kib) ? `+${fmt(kib / 1024, 0)} MiB` : "n/a");
  const codes = [...statuses].map(([code, n]) => `${code}x${n}`).join(" ");
  return {
    title: "Decode budget: workerd peak memory over the PDF bomb corpus (wrangler dev, POST /partner/templates)",
    columns: ["upload", "workerd peak RSS rise", "time", "answers"],
    rows: [
      [`plain ${fmt(plain.length / 1024, 0)} KB text PDF`, mib(plainRun.riseKib), `${fmt(plainRun.result.ms, 0)} ms`, String(plainRun.result.status)],
      [`${bombs.length} generated bombs (<= ${fmt(largest / 1024, 0)} KB each, ~20 MiB decoded)`, mib(bombRun.riseKib), `slowest ${fmt(slowest, 0)} ms`, codes],
      [`plain ${fmt(plain.length / 1024, 0)} KB again, after the bombs`, mib(plainAgain.riseKib), `${fmt(plainAgain.result.ms, 0)} ms`, String(plainAgain.result.status)],
    ],
    notes: [
      `Each bomb decodes to about 20 MiB (or 2 x 10 MiB of object streams) and is refused by the tokenizer-based budget (src/pdf/budget/) before pdf-lib or pdf.js sees it; BENCH_PDFBOMB_CASES (default ${PDFBOMB_CASES}) sets the corpus size, the seed is fixed. ` +
        "The peak is the largest VmHWM rise of wrangler dev's workerd processes over the whole corpus (runtime and local simulators included): an upper bound on what the isolate held.",
    ],
    failures,
  };
}

// --- portfolio: an audit export of 100,000 chain entries on its own wrangler dev (scripts/bench-portfolio.mjs) ---
function portfolioSection(ctx) {
  return portfolio(ctx, workerdPeakKib);
}

const ALL_SECTIONS = { latency: latencySection, vault: vaultSection, templates: templatesSection, signing: signingSection, bulk: bulkSection, webhooks: webhookSection, bundle: bundleSection, pdfmem: pdfMemorySection, pdfbombs: pdfBombsSection, control: controlSection, evidence: evidenceSection, shards: shardsSection, capacity: capacitySection, devstart: devStartSection, portfolio: portfolioSection, monthend: monthendSection, page: pageSection };
// sections that start their own servers: when only these are chosen, no bench server is started
const SERVERLESS = new Set([devStartSection, portfolioSection, monthendSection, pageSection]);
// BENCH_ONLY=latency,vault runs a subset (names: the keys above); default: all, in this order.
const only = (process.env.BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const unknownSections = only.filter((name) => !(name in ALL_SECTIONS));
if (unknownSections.length > 0) {
  console.error(`bench: FAILED: unknown BENCH_ONLY section(s) ${unknownSections.join(", ")}; known: ${Object.keys(ALL_SECTIONS).join(", ")}`);
  process.exit(2);
}
const sections = only.length > 0 ? only.map((name) => ALL_SECTIONS[name]) : Object.values(ALL_SECTIONS);

function printTable({ title, columns, rows, notes = [] }) {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ").trimEnd();
  console.log(`\n${title}\n`);
  console.log(line(columns));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
  for (const n of notes) console.log(`\n${n}`);
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), "esign-bench-"));
  let server;
  const stop = async (signal) => {
    console.error(`\nbench: interrupted (${signal}); stopping wrangler dev`);
    await stopServer(server);
    rmSync(tmp, { recursive: true, force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", stop).once("SIGTERM", stop);
  try {
    if (sections.every((section) => SERVERLESS.has(section))) {
      const failures = [];
      for (const section of sections) {
        const result = await section({ tmp });
        printTable(result);
        failures.push(...(result.failures ?? []));
      }
      if (failures.length > 0) throw new Error(`${failures.length} check(s) failed:\n${failures.map((f) => `  - ${f}`).join("\n")}`);
      console.error("\nbench: OK");
      return;
    }
    log("building assets, applying D1 migrations to a fresh local state, starting wrangler dev");
    server = await startFreshServer(join(tmp, "state"));
    const { secrets } = server;
    log(`wrangler dev answers on ${server.base}; provisioning`);
    server.watching = true;
    server.phase = "provisioning";
    const ctx = {
      tmp,
      base: server.base,
      ...(await provision(server.base, secrets.OPERATOR_TOKEN)),
      operatorToken: secrets.OPERATOR_TOKEN,
      serverPid: server.child.pid, // wrangler leads the process group that workerd runs in
      setPhase: (p) => (server.phase = p), // labels wrangler's log lines with what was running
      reloadsDuring: (p) => server.reloads.get(p) ?? 0,
    };

    const failures = [];
    // A section that breaks is reported and the others still run, so one failure hides no figures.
    for (const section of sections) {
      try {
        const result = await section(ctx);
        printTable(result);
        failures.push(...(result.failures ?? []));
      } catch (err) {
        console.error(`\nbench: section ${section.name} FAILED: ${err.message}`);
        failures.push(`${section.name}: ${err.message}`);
      }
    }
    if (failures.length > 0) throw new Error(`${failures.length} check(s) failed:\n${failures.map((f) => `  - ${f}`).join("\n")}`);
  } catch (err) {
    console.error(`\nbench: FAILED: ${err.message}`);
    process.exitCode = 1;
  } finally {
    const digest = logDigest(server);
    if (digest.length > 0) console.error(`\nbench: wrangler dev log during the run (2xx request lines omitted):\n${digest.join("\n")}`);
    await stopServer(server);
    rmSync(tmp, { recursive: true, force: true });
  }
  if (!process.exitCode) console.error("\nbench: OK");
}

await main();
