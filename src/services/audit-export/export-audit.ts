import { Zip, ZipDeflate } from "fflate";
import type { OrgContext } from "../../lib/context";
import { shardDb } from "../../lib/shards";
import { loadSealKey, requestTimestamp, type SealKey } from "../../pdf";
import { sha256Hex, toHex } from "../../lib/crypto";
import type { AuditLogRow } from "../audit/repository";
import { chainPage } from "../audit/repository";
import { auditedEnvelopeIdsPage } from "../envelopes/repository";
import { signWithSeal } from "../evidence/attestation";
import { addZipMembers } from "../evidence/build-bundle";
import { verifyScript } from "../evidence/verify-script";
import { orgShardSet } from "../shards/repository";

/** The manifest's signed-JWS `typ`: what `verify.mjs --audit-export` expects. */
export const AUDIT_EXPORT_TYP = "audit-export-manifest+jws";
const PAGE = 500;

/** One chain as the manifest states it; `first_prev_hash` is what the first exported entry links to (the genesis hash unless a window cut the chain). */
export type ExportedChain = { chain: string; count: number; first_seq: number; last_seq: number; first_prev_hash: string; first_hash: string; last_hash: string };

/**
 * The organization's audit export (docs/evidence.md, "Audit export"): a ZIP streamed as it is made.
 * `entries.ndjson` comes first, page by page (chains of `PAGE` entries, envelope ids `PAGE` at a time
 * on each shard of the organization), hashed as it is written, so that no more than a page sits in
 * memory; then `manifest.json` (per chain its count and first and last hash, and entries.ndjson's
 * SHA-256), `manifest.jws` by the seal, `manifest.tsr` with a TSA, and `verify.mjs`.
 *
 * The seal is loaded before the first byte (no seal: 503, an answer, not a broken stream).
 */
export async function exportAudit(ctx: OrgContext, input: { from: string | null; to: string | null }): Promise<ReadableStream<Uint8Array>> {
  const seal = await loadSealKey(ctx.env);
  const shards = (await orgShardSet(ctx.global, ctx.orgId)).filter((n) => shardDb(ctx.env, n) !== null);
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, undefined, { highWaterMark: 16 });
  const writer = writable.getWriter();
  const work = writeExport(ctx, input, seal, shards, writer).then(
    () => writer.close(),
    (err) => writer.abort(err),
  );
  ctx.waitUntil(work.catch(() => {}));
  return readable;
}

async function writeExport(
  ctx: OrgContext,
  input: { from: string | null; to: string | null },
  seal: SealKey,
  shards: number[],
  writer: WritableStreamDefaultWriter<Uint8Array>,
): Promise<void> {
  const producedAt = new Date().toISOString();
  const mtime = new Date(producedAt);
  let failure: Error | null = null;
  const zip = new Zip((err, chunk) => {
    if (err) failure = err;
    else void writer.write(chunk).catch(() => {});
  });
  const encoder = new TextEncoder();
  const digest = new crypto.DigestStream("SHA-256");
  const hashing = digest.getWriter();
  const entries = new ZipDeflate("entries.ndjson", { level: 6 });
  entries.mtime = mtime;
  zip.add(entries);
  const chains: ExportedChain[] = [];
  let total = 0;

  const exportChain = async (db: D1Database, chainId: string) => {
    let afterSeq = 0;
    let chain: ExportedChain | null = null;
    for (;;) {
      const rows = await chainPage(db, { chainId, afterSeq, from: input.from, to: input.to, limit: PAGE });
      if (rows.length === 0) break;
      const bytes = encoder.encode(rows.map((r) => `${JSON.stringify(exportedEntry(r))}\n`).join(""));
      await hashing.write(bytes);
      entries.push(bytes);
      if (failure) throw failure;
      await writer.ready; // the reader's pace: the next page waits until the stream has room
      const first = rows[0]!;
      const last = rows.at(-1)!;
      chain ??= { chain: chainId, count: 0, first_seq: first.seq, last_seq: first.seq, first_prev_hash: first.prev_hash, first_hash: first.hash, last_hash: first.hash };
      chain.count += rows.length;
      chain.last_seq = last.seq;
      chain.last_hash = last.hash;
      total += rows.length;
      if (rows.length < PAGE) break;
      afterSeq = last.seq;
    }
    if (chain) chains.push(chain);
  };

  await exportChain(ctx.global, ctx.orgId);
  for (const shard of shards) {
    const db = shardDb(ctx.env, shard)!;
    let afterId = "";
    for (;;) {
      const ids = await auditedEnvelopeIdsPage(db, { orgId: ctx.orgId, afterId, limit: PAGE });
      for (const id of ids) await exportChain(db, id);
      if (ids.length < PAGE) break;
      afterId = ids.at(-1)!;
    }
  }
  entries.push(new Uint8Array(0), true);
  await hashing.close();
  const entriesSha256 = toHex(await digest.digest);

  const sealSha256 = await sha256Hex(seal.chainDer[0]!);
  const manifest = encoder.encode(
    `${JSON.stringify(
      {
        kind: "audit-export",
        org_id: ctx.orgId,
        from: input.from,
        to: input.to,
        produced_at: producedAt,
        entries: { file: "entries.ndjson", sha256: entriesSha256, count: total },
        chains,
        seal_certificate: { sha256: sealSha256, subject_common_name: seal.commonName },
        signature: { file: "manifest.jws", timestamp: ctx.env.SEAL_TSA_URL ? "manifest.tsr" : null },
      },
      null,
      2,
    )}\n`,
  );
  const jws = await signWithSeal(seal, manifest, AUDIT_EXPORT_TYP);
  const members: { name: string; bytes: Uint8Array; store?: boolean }[] = [
    { name: "manifest.json", bytes: manifest },
    { name: "manifest.jws", bytes: encoder.encode(`${jws}\n`) },
  ];
  if (ctx.env.SEAL_TSA_URL) {
    const signature = base64urlDecode(jws.split(".")[2]!);
    const token = await requestTimestamp({ url: ctx.env.SEAL_TSA_URL }, signature);
    members.push({ name: "manifest.tsr", bytes: new Uint8Array(token.toSchema().toBER(false)), store: true });
  }
  members.push({ name: "verify.mjs", bytes: encoder.encode(verifyScript()) });
  addZipMembers(zip, members, mtime);
  zip.end();
  if (failure) throw failure;
  await writer.ready;
}

/** One line of entries.ndjson: the entry with every column its hash covers, so the verifier recomputes it. */
function exportedEntry(r: AuditLogRow) {
  return {
    chain: r.chain_id,
    seq: r.seq,
    action: r.action,
    at: r.created_at,
    actor: { type: r.actor_type, id: r.actor_id, ip: r.ip, user_agent: r.user_agent },
    data: JSON.parse(r.data) as unknown,
    prev_hash: r.prev_hash,
    hash: r.hash,
    id: r.id,
    org_id: r.org_id,
  };
}

const base64urlDecode = (part: string) => {
  const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
};
