import type { SecuredParty } from "../../db/schema";
import { sha256HexOfParts } from "../../lib/crypto";
import { ApiError, conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { newShardId, shardOf } from "../../lib/shards";
import { isChainConflict } from "../audit/chain";
import { verifyChain } from "../audit/verify-chain";
import type { RequestContext } from "../../lib/context";
import { insertSignedDocumentIfAbsent } from "../documents/repository";
import { getEnvelope, type EnvelopeRow, type LoadedEnvelope } from "../envelopes/repository";
import { commitPlanned, planChange, type EnvelopeMove, type PlannedChange } from "../envelopes/commit";
import { compliantSince, issueCertificate, type CertificateEvidence } from "./certificate";
import { factsFrom } from "./compliance-checks";
import { putParts } from "./hashing";
import { envelopeVaultPrefix, vaultKeys } from "./keys";
import { findVaultRecordById, integrityCheckInsert, vaultRecordInsert } from "./repository";
import { loadSealKey, markNonAuthoritativeCopy } from "../../pdf";
import { COPY_FORMAT, COPY_FORMAT_KEY } from "./copy-format";

export type VaultDocumentInput = {
  envelope: LoadedEnvelope;
  /** the signed PDF (checked to be one here: 415 otherwise) and its SHA-256 */
  bytes: Uint8Array;
  hash: string;
  source: "signed" | "upload";
  /** auto-vault: the user whose consent the system acts on */
  onBehalfOf?: string | null;
  /** names the secured party on an envelope that has none yet */
  securedParty?: SecuredParty;
  /**
   * Paper path: the upload is the signed document. An envelope not yet `completed` is first recorded
   * as signed at `signedAt` (record_paper_signed) in the same batch, and the upload becomes its
   * `signed` document.
   */
  paper?: { signedAt: string };
  /**
   * E-sign path: the PAdES level of `bytes` (recorded on the vault record and the certificate) and,
   * when below the configured target, the target and why it was vaulted without it (docs/evidence.md).
   * Absent (paper uploads): the record keeps its column default and the certificate names no level.
   */
  evidence?: CertificateEvidence;
};

const stored = (role: string, envelopeId: string, vaultId: string): R2PutOptions => ({
  httpMetadata: { contentType: "application/pdf" },
  customMetadata: { envelope_id: envelopeId, vault_id: vaultId, role },
});

/**
 * Vaults a signed PDF: the authoritative copy (byte-identical, SHA-256 verified by R2 on write), the
 * marked non-authoritative copy and the certificate go to R2 first, under keys unique to this
 * attempt; then one D1 batch moves the envelope to `vaulted` (with `vault.stored` and its audit
 * entries) and inserts the vault record, the first integrity check and the certificate.
 *
 * That batch is the only thing that makes an authoritative copy exist:
 * - a crash before it leaves unreferenced objects and an envelope still `completed` (the retry vaults
 *   afresh, and the winner deletes every object under the envelope's vault prefix but its own);
 * - of two concurrent attempts only one batch commits (the guarded status update, the chain's unique
 *   sequence and the unique vault record all collide); the loser deletes its objects and answers
 *   with the vaulted envelope, as an idempotent retry would.
 */
export async function vaultDocument(ctx: RequestContext, input: VaultDocumentInput): Promise<LoadedEnvelope> {
  const { envelope, bytes, hash } = input;
  const db = ctx.db;
  const bucket = ctx.env.DOCS;
  const vaultId = newShardId("vault", shardOf(envelope.id));
  const keys = vaultKeys(envelope.org_id, envelope.id, vaultId);
  const now = new Date();
  const at = now.toISOString();
  const securedParty = input.securedParty ? JSON.stringify(input.securedParty) : null;
  // The envelope as the batch will leave it: the certificate describes that state.
  const vaulted: EnvelopeRow = { ...envelope, status: "vaulted", secured_party: securedParty ?? envelope.secured_party };

  // The marked copy is a re-serialized, sealed document of its own (never the AC with an update appended):
  // what every party but the controller is given (./marked-copy.ts).
  const copy = await markNonAuthoritativeCopy(bytes, { vaultId, documentHash: hash, envelopeId: envelope.id, markedAt: now }, await loadSealKey(ctx.env));
  const { pageCount, pagesMarked } = copy;
  const copyParts = copy.parts;
  const copyHash = await sha256HexOfParts(copyParts);
  const copyMarked = pagesMarked === pageCount;
  const chain = await verifyChain(db, envelope.id);
  const facts = factsFrom(vaulted, { vaultId, documentHash: hash, custodianOrgId: envelope.org_id, copyMarked, lastIntegrityMatched: true }, chain.verified);

  const attemptKeys = [keys.authoritative, keys.copy];
  let planned: PlannedChange | undefined;
  let committing = false;
  try {
    const puts = await Promise.allSettled([
      // `sha256` makes R2 refuse the write unless the stored bytes hash to the recorded value.
      putParts(bucket, keys.authoritative, [bytes], { ...stored("authoritative", envelope.id, vaultId), sha256: hash }),
      putParts(bucket, keys.copy, copyParts, {
        httpMetadata: { contentType: "application/pdf" },
        customMetadata: { envelope_id: envelope.id, vault_id: vaultId, role: "non-authoritative-copy", [COPY_FORMAT_KEY]: COPY_FORMAT },
        sha256: copyHash,
      }),
    ]);
    for (const put of puts) if (put.status === "rejected") throw put.reason;
    const certificate = await issueCertificate(ctx, { envelope: vaulted, vaultId, facts, issuedAt: at, reason: "vault_in", evidence: input.evidence ?? null });
    attemptKeys.push(certificate.pdfKey);

    const moves: EnvelopeMove[] = [];
    const recordsPaper = input.paper !== undefined && envelope.status !== "completed";
    if (input.paper && recordsPaper) {
      moves.push({
        action: "record_paper_signed",
        set: { signed_at: input.paper.signedAt },
        data: { signed_at: input.paper.signedAt, document_hash: hash },
      });
    }
    const set: EnvelopeMove["set"] = { vaulted_at: at, certificate_issued_at: compliantSince(certificate) };
    if (securedParty) set.secured_party = securedParty;
    if (input.paper && !recordsPaper && envelope.signed_at === null) set.signed_at = input.paper.signedAt;
    moves.push({
      action: "vault",
      set,
      data: {
        vault_id: vaultId,
        hash,
        source: input.source,
        ...(input.onBehalfOf ? { on_behalf_of: input.onBehalfOf } : {}),
        ...(input.evidence ? input.evidence : {}),
        ...(input.securedParty ? { secured_party: input.securedParty } : {}),
      },
      // Spec 6.5: the vault path travels in the webhook event only, never in the audit log or a response.
      eventData: { path: keys.authoritative, hash },
    });

    const extra = [
      vaultRecordInsert(db, {
        id: vaultId,
        envelope_id: envelope.id,
        org_id: envelope.org_id,
        custodian_org_id: envelope.org_id,
        authoritative_key: keys.authoritative,
        document_hash: hash,
        size_bytes: bytes.byteLength,
        page_count: pageCount,
        copy_key: keys.copy,
        copy_hash: copyHash,
        copy_size_bytes: copy.size,
        copy_marked: copyMarked ? 1 : 0,
        source: input.source,
        actor_type: ctx.actor.type,
        actor_id: ctx.actor.id,
        on_behalf_of: input.onBehalfOf ?? null,
        stored_at: at,
        evidence_level: input.evidence?.evidence_level ?? "B-B",
      }),
      // R2 verified the checksum of the bytes it stored: the first integrity check.
      integrityCheckInsert(db, {
        id: newShardId("integrityCheck", shardOf(envelope.id)),
        vault_id: vaultId,
        envelope_id: envelope.id,
        org_id: envelope.org_id,
        source: "vault_in",
        matched: 1,
        expected_hash: hash,
        observed_hash: hash,
        observed_size_bytes: bytes.byteLength,
        checked_at: at,
      }),
      certificate.insert(db, 1),
      ...(input.paper
        ? [
            // The upload is the envelope's signed document; it is stored once, as the authoritative copy.
            insertSignedDocumentIfAbsent(db, {
              id: newShardId("document", shardOf(envelope.id)),
              envelopeId: envelope.id,
              orgId: envelope.org_id,
              key: keys.authoritative,
              sha256: hash,
              sizeBytes: bytes.byteLength,
              pageCount,
              at,
            }),
          ]
        : []),
    ];
    // The envelope's one commit (envelopes/commit.ts): of two concurrent vault-ins exactly one commits.
    planned = await planChange(ctx, envelope, { moves, statements: extra, at });
    committing = true;
    await commitPlanned(ctx, [planned]);
  } catch (err) {
    // A commit that failed ambiguously (a D1 timeout: the batch may have landed) must not delete the objects
    // a committed record points at (found by the soak: a vault record whose authoritative object was gone).
    // They are deleted only once this attempt's record is known absent; a record that landed is this
    // request's success; an outcome unknown keeps them (a later attempt's winner deletes them as strays).
    if (committing && planned && !lostRace(err)) {
      const landed = await findVaultRecordById(db, vaultId).catch(() => undefined);
      if (landed === undefined) throw err;
      if (landed) {
        await deleteStrayObjects(bucket, envelope, keys.dir);
        return { ...planned.updated, vault_id: vaultId };
      }
    }
    await bucket.delete(attemptKeys).catch((cleanup: unknown) => console.error("vault-in: could not delete the objects of a failed attempt", cleanup));
    if (!lostRace(err)) throw err;
    const now = await getEnvelope(db, envelope.org_id, envelope.id);
    if (now.status === "vaulted") return now;
    throw conflict("The envelope changed while this request was processed; retry");
  }

  await deleteStrayObjects(bucket, envelope, keys.dir);
  return { ...planned!.updated, vault_id: vaultId };
}

function lostRace(err: unknown): boolean {
  if (isChainConflict(err)) return true;
  if (err instanceof Error && /UNIQUE constraint failed: vault_records\.envelope_id/.test(err.message)) return true;
  return err instanceof ApiError && err.status === 409;
}

/**
 * Objects under the envelope's vault prefix that are not the committed attempt's: left by an attempt
 * that crashed between its R2 writes and its batch, or by a concurrent attempt that lost (which will
 * fail to commit now that this one has). None of them is authoritative.
 */
async function deleteStrayObjects(bucket: R2Bucket, envelope: EnvelopeRow, keepDir: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: envelopeVaultPrefix(envelope.org_id, envelope.id), cursor });
    const stray = page.objects.map((o) => o.key).filter((k) => !k.startsWith(keepDir));
    if (stray.length > 0) await bucket.delete(stray);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}
