// The pool half of the portfolio section (scripts/bench-portfolio.mjs): a pool of BENCH_POOL_RECORDS
// (default 10,000) vaulted records offered, its manifest read, accepted and moved to the end by its
// Durable Object, next to one record's transfer (offer, accept) timed in the same run.
//
// Seeding 10,000 records through vault-in would take hours on the 2-core machine, so two records are
// vaulted through the API (one on each shard) and each is cloned straight into its shard's local
// database while no server holds the files: every row the service wrote for the envelope (the envelope,
// its signer, documents, vault record, certificate rows, its audit chain) is copied with fresh ids of
// the same shape, the ids replaced wherever a row names them, the chain re-linked and re-hashed as
// services/audit/chain.ts makes it, and a signer's slug_hash recomputed from its new slug. Columns
// naming R2 objects (`*_key`) are kept: the clones point at their template's real objects, whose
// hashes they carry, so reading a clone's document still checks out. Outbox and delivery rows are
// not copied (nothing is owed to anyone for records that were never announced), nor usage lines (billing).
import { createHash, randomBytes } from "node:crypto";
import { api, fetchWithDeadline, timedRequest } from "./lib/dev-server.mjs";
import { fmt, log, newEnvelope, percentile, positiveInt, sleep } from "./lib/bench-util.mjs";
import { PDFDocument, StandardFonts } from "pdf-lib";

export const POOL_RECORDS = positiveInt("BENCH_POOL_RECORDS", 10_000);
const SINGLE_ROUNDS = positiveInt("BENCH_POOL_SINGLE_ROUNDS", 10);
const SCOPES = ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "vault:control"];
/** tables never copied: events owed to receivers and jobs' bookkeeping */
const SKIP_TABLE = /^events$|^usage_lines$|outbox|deliver|webhook|timeline|job|bulk|email|d1_migrations|sqlite_|_cf_/;
/** parents before the rows that reference them */
const FIRST = ["envelopes", "signers", "envelope_documents", "vault_records"];
const rank = (table) => (FIRST.includes(table) ? FIRST.indexOf(table) : FIRST.length);

/** JSON with sorted keys, as the service hashes chain entries (also the audit export's seeding). */
export const canonical = (v) =>
  v === null || typeof v !== "object"
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(",")}]`
      : `{${Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
const sql = (v) => (v === null || v === undefined ? "NULL" : typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const rnd26 = () => Array.from(randomBytes(26), (b) => ALPHABET[b % 36]).join("");
const sha256 = (s) => createHash("sha256").update(s).digest("hex");
/** A fresh id of the same shape (prefix, shard, 26 base-36 characters). */
const freshLike = (id) => (/[0-9a-z]{26}$/.test(id) ? id.slice(0, -26) + rnd26() : `${id}_${rnd26()}`);

async function contractPdf() {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 2; i++) doc.addPage([612, 792]).drawText(`Retail installment contract, page ${i}`, { x: 72, y: 720, size: 12, font });
  return doc.save();
}

async function vaultOne(base, key) {
  const envelope = await api(base, "POST", "/partner/envelopes", { apiKey: key, body: { ...newEnvelope(), document_source: "upload", secured_party: { name: "Bench Buyer" } } });
  const form = new FormData();
  form.append("file", new Blob([await contractPdf()], { type: "application/pdf" }), "contract.pdf");
  const res = await fetchWithDeadline(`${base}/api/v2/partner/envelopes/${envelope.envelope_id}/vault-in-upload`, { method: "POST", headers: { "x-api-key": key }, body: form });
  if (!res.ok) throw new Error(`vault-in-upload answered ${res.status}: ${res.text.slice(0, 200)}`);
  return { envelopeId: envelope.envelope_id, vaultId: JSON.parse(res.text).data.vault_id };
}

/**
 * With the server up: a seller and a buyer, a template record vaulted on each shard, and one record's
 * transfer (offer, accept) timed SINGLE_ROUNDS times back and forth. Returns what the offline seeding
 * and the pool run need.
 */
export async function preparePool(base, operatorToken) {
  const op = { token: operatorToken };
  const orgs = [];
  for (const name of ["Bench Seller", "Bench Buyer"]) {
    const org = await api(base, "POST", "/operator/orgs", { ...op, body: { name } });
    const key = await api(base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: SCOPES, rate_limit_rpm: 1_000_000 } });
    orgs.push({ orgId: org.org_id, key: key.api_key });
  }
  const [seller, buyer] = orgs;
  for (const n of [1, 2]) await api(base, "PATCH", `/operator/shards/${n}`, { ...op, body: { state: "open" } });
  const templates = [];
  for (const shard of [1, 2]) {
    await api(base, "PATCH", `/operator/orgs/${seller.orgId}`, { ...op, body: { current_shard_id: shard } });
    templates.push(await vaultOne(base, seller.key));
  }
  const single = await vaultOne(base, seller.key);
  const failures = [];
  const offers = [];
  const accepts = [];
  log(`portfolio: ${SINGLE_ROUNDS} single transfers (offer + accept) of one record, back and forth`);
  let [from, to] = [seller, buyer];
  for (let i = 0; i < SINGLE_ROUNDS; i++) {
    const offer = await timedRequest(base, "POST", `/partner/vault/${single.vaultId}/transfers`, from.key, { kind: "assignment", to_org_id: to.orgId }, failures);
    offers.push(offer.ms);
    if (!offer.data) break;
    accepts.push((await timedRequest(base, "POST", `/partner/vault/transfers/${offer.data.transfer_id}/accept`, to.key, {}, failures)).ms);
    [from, to] = [to, from];
  }
  return { seller, buyer, templates, single: { offers, accepts }, failures };
}

/** The shard tables holding an envelope's rows: name and columns. */
async function envelopeTables(db) {
  const tables = (await db.all(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map((r) => r.name).filter((n) => !SKIP_TABLE.test(n));
  const out = [];
  for (const name of tables) {
    const cols = (await db.all(`SELECT name FROM pragma_table_info(${sql(name)})`)).map((r) => r.name);
    out.push({ name, cols });
  }
  return out;
}

/** Offline: clones each template record into its shard until POOL_RECORDS exist besides the templates. Returns the clones' vault ids. */
export async function seedPool(local, prepared) {
  const vaultIds = [];
  const perTemplate = Math.ceil(POOL_RECORDS / prepared.templates.length);
  for (const [i, tpl] of prepared.templates.entries()) {
    const shard = Number(/^[a-z]+_(\d+)_/.exec(tpl.envelopeId)[1]);
    const db = local.db(`SHARD_${shard}`);
    const rows = [];
    for (const t of await envelopeTables(db)) {
      let where = null;
      if (t.name === "envelopes") where = `id = ${sql(tpl.envelopeId)}`;
      else if (t.name === "audit_log") where = `chain_id = ${sql(tpl.envelopeId)}`;
      else if (t.cols.includes("envelope_id")) where = `envelope_id = ${sql(tpl.envelopeId)}`;
      else if (t.cols.includes("vault_id")) where = `vault_id = ${sql(tpl.vaultId)}`;
      if (!where) continue;
      for (const row of await db.all(`SELECT * FROM ${t.name} WHERE ${where}`)) rows.push({ table: t.name, cols: t.cols, row });
    }
    const chain = rows.filter((r) => r.table === "audit_log").sort((a, b) => a.row.seq - b.row.seq);
    const others = rows.filter((r) => r.table !== "audit_log").sort((a, b) => rank(a.table) - rank(b.table));
    // every id a copied row owns (its `id`, a signer's slug), replaced wherever any copied row names it
    const owned = [...new Set(rows.flatMap((r) => [r.row.id, r.row.slug].filter((v) => typeof v === "string")))];
    const pattern = new RegExp(owned.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
    const count = Math.min(perTemplate, POOL_RECORDS - vaultIds.length);
    log(`portfolio: cloning ${tpl.vaultId} (shard ${shard}) ${count.toLocaleString("en")} times: ${rows.length} rows each (${[...new Set(rows.map((r) => r.table))].join(", ")})`);
    let batch = [];
    for (let n = 0; n < count; n++) {
      const map = new Map(owned.map((id) => [id, freshLike(id)]));
      const swap = (v) => (typeof v === "string" ? v.replace(pattern, (m) => map.get(m)) : v);
      const insert = (table, cols, row) => batch.push(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((c) => sql(row[c])).join(", ")})`);
      for (const { table, cols, row } of others) {
        const copy = Object.fromEntries(cols.map((c) => [c, c.endsWith("_key") ? row[c] : swap(row[c])]));
        if (cols.includes("slug_hash") && typeof copy.slug === "string" && row.slug_hash?.startsWith("sha256:")) copy.slug_hash = `sha256:${sha256(copy.slug)}`;
        insert(table, cols, copy);
      }
      let prev = chain[0]?.row.prev_hash ?? "0".repeat(64);
      for (const { cols, row } of chain) {
        const entry = {
          id: swap(row.id), org_id: row.org_id, chain_id: swap(row.chain_id), seq: row.seq, action: row.action, actor_type: row.actor_type, actor_id: swap(row.actor_id),
          ip: row.ip, user_agent: row.user_agent, data: JSON.parse(swap(row.data)), created_at: row.created_at, prev_hash: prev,
        };
        const hash = sha256(canonical(entry));
        insert("audit_log", cols, { ...row, ...entry, data: JSON.stringify(entry.data), hash });
        prev = hash;
      }
      vaultIds.push(map.get(tpl.vaultId));
      if (batch.length >= 400) {
        await db.batch(batch);
        batch = [];
      }
    }
    await db.batch(batch);
    if (i === 0) log(`portfolio: shard ${shard} done`);
  }
  return vaultIds;
}

const poll = async (done, timeoutMs, every = 500) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await sleep(every);
    const value = await done();
    if (value) return value;
    if (Date.now() > deadline) return null;
  }
};

/** With the server up again: offer the pool, read its manifest, accept it and wait until every record moved. */
export async function runPool(base, prepared, vaultIds) {
  const { seller, buyer } = prepared;
  const failures = [];
  log(`portfolio: offering a pool of ${vaultIds.length.toLocaleString("en")} records`);
  const t0 = performance.now();
  const offer = await timedRequest(base, "POST", "/partner/vault/pools", seller.key, { kind: "assignment", to_org_id: buyer.orgId, vault_ids: vaultIds, reference: "bench pool" }, failures);
  const offerMs = performance.now() - t0;
  if (!offer.data) return { failures };
  const poolId = offer.data.pool_id;
  const m0 = performance.now();
  // Under wrangler dev the manifest of a 10,000-record pool was seen parked, workerd idle, until another request
  // reached the server (docs/benchmarks.md, "Pools: a chunk's records read together"): a GET /health every 2 s
  // while it is out, counted, so the section runs unattended and says how often it had to wake the runtime.
  let wakes = 0;
  const pending = fetchWithDeadline(`${base}/api/v2/partner/vault/pools/${poolId}/manifest`, { headers: { "x-api-key": buyer.key } });
  let answered = false;
  pending.finally(() => (answered = true)).catch(() => {});
  while (!answered) {
    await Promise.race([pending.catch(() => {}), sleep(2000)]);
    if (!answered) {
      wakes += 1;
      await fetch(`${base}/health`).then((r) => r.arrayBuffer()).catch(() => {});
    }
  }
  const manifest = await pending;
  const manifestMs = performance.now() - m0;
  if (!manifest.ok) failures.push(`GET manifest answered ${manifest.status}`);
  const entries = manifest.ok ? JSON.parse(manifest.text).data : [];
  const listed = Array.isArray(entries) ? entries.length : (entries.entries ?? entries.data ?? []).length;
  log(`portfolio: accepting pool ${poolId}`);
  const a0 = performance.now();
  // after a 10,000-record offer the local runtime has restarted mid-request (503 "Your worker restarted
  // mid-request"; docs/benchmarks.md): the accept is sent again, up to three times, and only a last failure counts
  let accept;
  for (let attempt = 0; attempt < 3; attempt++) {
    const refused = [];
    accept = await timedRequest(base, "POST", `/partner/vault/pools/${poolId}/accept`, buyer.key, {}, refused);
    if (accept.data || attempt === 2) failures.push(...refused);
    if (accept.data) break;
    log(`portfolio: accept refused (${refused.join("; ").slice(0, 160)}), sent again`);
    await sleep(3000);
  }
  const acceptMs = performance.now() - a0;
  let lastMoved = -1;
  let unanswered = 0;
  const view = await poll(async () => {
    // a read the loaded local runtime leaves unanswered for 30 s is counted and read again, not a failure
    let res;
    try {
      res = await fetchWithDeadline(`${base}/api/v2/partner/vault/pools/${poolId}`, { headers: { "x-api-key": buyer.key } }, 30_000);
    } catch (err) {
      if (++unanswered > 20) throw err;
      return null;
    }
    if (!res.ok) throw new Error(`GET pool answered ${res.status}: ${res.text.slice(0, 200)}`);
    const read = JSON.parse(res.text).data;
    if (read.progress.moved !== lastMoved && Math.floor(read.progress.moved / 1000) !== Math.floor(lastMoved / 1000)) log(`portfolio: ${read.progress.moved} of ${read.count} moved after ${fmt((performance.now() - a0) / 1000, 0)} s`);
    lastMoved = read.progress.moved;
    return read.progress.completed_at ? read : null;
  }, 60 * 60_000, 2000);
  const movedMs = performance.now() - a0;
  if (!view) failures.push(`portfolio: the pool did not complete within an hour (${lastMoved} moved)`);
  if (unanswered) log(`portfolio: ${unanswered} reads of the pool unanswered within 30 s during the move`);
  return { poolId, offerMs, manifestMs, wakes, listed, acceptMs: accept.data ? acceptMs : NaN, movedMs, completed: Boolean(view), failures };
}

/**
 * Offline again: every record of the pool is the buyer's, each has exactly one accepted transfer naming
 * the pool and exactly one chain entry `vault.control_transferred` naming it; none is still held.
 */
export async function checkPool(local, prepared, vaultIds, poolId) {
  const failures = [];
  let buyerOwned = 0;
  let acceptedOnce = 0;
  let entriesOnce = 0;
  let stillPending = 0;
  for (const shard of [1, 2]) {
    const db = local.db(`SHARD_${shard}`);
    const [r] = await db.all(
      `SELECT
         (SELECT COUNT(*) FROM vault_records WHERE controller_org_id = ${sql(prepared.buyer.orgId)} AND id IN (SELECT vault_id FROM vault_transfers WHERE pool_id = ${sql(poolId)})) AS owned,
         (SELECT COUNT(*) FROM (SELECT vault_id FROM vault_transfers WHERE pool_id = ${sql(poolId)} AND status = 'accepted' GROUP BY vault_id HAVING COUNT(*) = 1)) AS accepted_once,
         (SELECT COUNT(*) FROM vault_transfers WHERE pool_id = ${sql(poolId)} AND status = 'pending') AS pending,
         (SELECT COUNT(*) FROM (SELECT chain_id FROM audit_log WHERE action = 'vault.control_transferred' AND json_extract(data, '$.pool_id') = ${sql(poolId)} GROUP BY chain_id HAVING COUNT(*) = 1)) AS entries_once`,
    );
    buyerOwned += r.owned;
    acceptedOnce += r.accepted_once;
    entriesOnce += r.entries_once;
    stillPending += r.pending;
  }
  const n = vaultIds.length;
  for (const [what, got] of [["owned by the buyer", buyerOwned], ["with exactly one accepted transfer of the pool", acceptedOnce], ["with exactly one chain entry naming the pool", entriesOnce]]) {
    if (got !== n) failures.push(`portfolio: ${got} of ${n} records ${what}`);
  }
  if (stillPending) failures.push(`portfolio: ${stillPending} holds of the pool still pending`);
  return { buyerOwned, acceptedOnce, entriesOnce, stillPending, failures };
}

/** The rows the section prints for the pool. */
export function poolRows(prepared, run, check) {
  const n = POOL_RECORDS;
  const p50 = (xs) => percentile(xs, 0.5);
  const s = (ms) => `${fmt(ms / 1000, 1)} s`;
  return [
    ["single transfer: offer (p50 of " + prepared.single.offers.length + ")", `${fmt(p50(prepared.single.offers), 0)} ms`, "POST /partner/vault/:vault_id/transfers, same run, same server"],
    ["single transfer: accept (p50 of " + prepared.single.accepts.length + ")", `${fmt(p50(prepared.single.accepts), 0)} ms`, "POST /partner/vault/transfers/:id/accept: one record moved"],
    [`pool of ${n.toLocaleString("en")}: offer`, s(run.offerMs), `POST /partner/vault/pools (read, check, hold every record; records on 2 shards); ${fmt(run.offerMs / n, 2)} ms a record`],
    [`pool of ${n.toLocaleString("en")}: manifest`, s(run.manifestMs), `GET …/manifest: ${(run.listed ?? 0).toLocaleString("en")} entries listed; GET /health sent beside it every 2 s while it was out: ${run.wakes ?? 0}`],
    [`pool of ${n.toLocaleString("en")}: offer → manifest ready`, s(run.offerMs + run.manifestMs), ""],
    [`pool of ${n.toLocaleString("en")}: accept answered`, s(run.acceptMs), "POST …/accept (settles the pool, starts its Durable Object)"],
    [`pool of ${n.toLocaleString("en")}: accept → every record moved`, run.completed ? s(run.movedMs) : "did not finish", `${fmt(run.movedMs / n, 1)} ms a record, against ${fmt(p50(prepared.single.accepts), 0)} ms for one accept (goal: 60 s)`],
    ["records moved exactly once (checked after)", `${check.entriesOnce.toLocaleString("en")} of ${n.toLocaleString("en")}`, `buyer controls ${check.buyerOwned.toLocaleString("en")}; one accepted transfer each: ${check.acceptedOnce.toLocaleString("en")}; holds left pending: ${check.stillPending}`],
  ];
}
