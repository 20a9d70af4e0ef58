import type { GlobalDb, ShardDb } from "../../lib/shards";
import { chainRowsStatement, type ChainRow } from "../audit/verify-chain";
import { selectChainRowsOf } from "../audit/repository";
import { findDisclosure, type EsignDisclosureRow } from "../consent/repository";
import { readKeyHistory } from "../evidence/key-history";
import type { KeyHistory } from "../evidence/build-bundle";
import { listKbaResults, selectKbaResultsOf, type KbaResultRow } from "../kba/repository";
import { getOrganizationName, listOrganizationNames } from "../organizations/repository";
import { listSigners, selectSignersOf, type SignerRow } from "../signers/repository";
import { selectChainLengthsOf } from "../envelopes/repository";
import {
  findVaultFacts,
  latestCertificate,
  selectLatestCertificatesOf,
  selectVaultFactsOf,
  type CertificateRow,
  type VaultFactsRow,
} from "./repository";

/**
 * What a vaulted record's facts and certificate are built from, beside its control state: its chain
 * (with the length its envelope records), its vault facts, the parties' names and control-key history,
 * its KBA outcomes, signers and pinned disclosure, and its current certificate. `directReads` reads
 * each when asked (one record's step: a few statements each); `readRecordsOnce` reads a whole set of
 * records with one statement per kind, and each organization's name, key history and disclosure once
 * (a pool's chunk: move-pool.ts). The compliance facts (compliance/evaluate.ts gatherFacts) and the
 * certificate (certificate.ts issueCertificate) are built the same way from either.
 */
export type RecordReads = {
  /** the chain's rows, oldest first, and the number of entries its envelope records (null: no envelope) */
  chain(envelopeId: string): Promise<{ rows: ChainRow[]; recordedSeq: number | null }>;
  /** the record's facts as findVaultFacts answers them, its controller's and pledgor's names included */
  vaultFacts(envelopeId: string): Promise<VaultFactsRow | null>;
  /** an organization's name (null: none found) */
  orgName(orgId: string): Promise<string | null>;
  keyHistory(orgIds: string[]): Promise<KeyHistory>;
  kbaResults(envelopeId: string): Promise<KbaResultRow[]>;
  signers(envelopeId: string): Promise<SignerRow[]>;
  disclosure(envelope: { org_id: string; disclosure_id: string | null }): Promise<EsignDisclosureRow | null>;
  latestCertificate(envelopeId: string): Promise<CertificateRow | null>;
};

/**
 * The reads of records on one shard, with the global database the organizations' rows are read from
 * (the caller's choice: a control step's facts read them where its shard statements go, its
 * certificate in the global database; compliance/evaluate.ts gatherFacts).
 */
export type RecordReader = (global: GlobalDb) => RecordReads;

/** Each read made when asked, one statement (or a few) at a time: what a single control step does. */
export function directReads(db: D1Database): RecordReader {
  return (global) => ({
    async chain(envelopeId) {
      // the chain and its envelope's length in one batch, so the two are one snapshot (audit/verify-chain.ts)
      const [rows, owner] = await db.batch<unknown>([chainRowsStatement(db, envelopeId), selectChainLengthsOf(db, [envelopeId])]);
      const recorded = (owner!.results as { id: string; audit_seq: number }[])[0];
      return { rows: rows!.results as ChainRow[], recordedSeq: recorded?.audit_seq ?? null };
    },
    vaultFacts: (envelopeId) => findVaultFacts(db, envelopeId, global),
    orgName: async (orgId) => (await getOrganizationName(global, orgId))?.name ?? null,
    keyHistory: (orgIds) => readKeyHistory(global, orgIds),
    kbaResults: (envelopeId) => listKbaResults(db, envelopeId),
    signers: (envelopeId) => listSigners(db as ShardDb, envelopeId),
    disclosure: (envelope) => (envelope.disclosure_id ? findDisclosure(global, envelope.org_id, envelope.disclosure_id) : Promise.resolve(null)),
    latestCertificate: (envelopeId) => latestCertificate(db, envelopeId),
  });
}

/** Memoizes an async read by key (concurrent askers share one read). */
function once<T>(read: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const seen = new Map<string, Promise<T>>();
  return (key) => {
    let hit = seen.get(key);
    if (!hit) {
      hit = read(key);
      seen.set(key, hit);
    }
    return hit;
  };
}

/**
 * `once`, with the keys first asked while the set's records are being planned (concurrently) read
 * together: the keys asked before the next turn of the event loop go to `readMany` in one call. So a
 * chunk whose records name many organizations (each record's originator, its earlier controllers)
 * reads their names and key histories in a few statements, not a few per organization.
 */
function onceTogether<T>(readMany: (keys: string[]) => Promise<Map<string, T>>, missing: T): (key: string) => Promise<T> {
  let waiting: string[] = [];
  let flush: Promise<Map<string, T>> | null = null;
  return once((key) => {
    waiting.push(key);
    flush ??= new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
      const keys = waiting;
      waiting = [];
      flush = null;
      return readMany(keys);
    });
    return flush.then((found) => (found.has(key) ? found.get(key)! : missing));
  });
}

const groupBy = <R>(rows: R[], key: (row: R) => string): Map<string, R[]> => {
  const out = new Map<string, R[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
};

/**
 * The reads of every record of `envelopeIds` (all on the shard of `db`), done now with one statement per
 * kind in one batch (one snapshot): chains, chain lengths, vault facts, KBA outcomes, signers, current
 * certificates. The organizations' names, key histories and disclosures are read from the global
 * database given when first asked and kept for the set: a pool's records name the same few
 * organizations. Asking for an envelope outside the set is a programming error.
 */
export async function readRecordsOnce(db: D1Database, envelopeIds: string[]): Promise<RecordReader> {
  const ids = [...new Set(envelopeIds)];
  const [chains, lengths, facts, kba, signers, certificates] = await db.batch<unknown>([
    selectChainRowsOf(db, ids),
    selectChainLengthsOf(db, ids),
    selectVaultFactsOf(db, ids),
    selectKbaResultsOf(db, ids),
    selectSignersOf(db as ShardDb, ids),
    selectLatestCertificatesOf(db, ids),
  ]);
  const chainRows = groupBy(chains!.results as ChainRow[], (r) => r.chain_id);
  const recorded = new Map((lengths!.results as { id: string; audit_seq: number }[]).map((r) => [r.id, r.audit_seq]));
  const factRows = new Map((facts!.results as (VaultFactsRow & { envelope_id: string })[]).map(({ envelope_id, ...row }) => [envelope_id, row as VaultFactsRow]));
  const kbaRows = groupBy(kba!.results as KbaResultRow[], (r) => r.envelope_id);
  const signerRows = groupBy(signers!.results as SignerRow[], (r) => r.envelope_id);
  const certificateRows = new Map((certificates!.results as CertificateRow[]).map((r) => [r.envelope_id, r]));
  const known = new Set(ids);
  const inSet = (envelopeId: string) => {
    if (!known.has(envelopeId)) throw new Error(`envelope ${envelopeId} was not read with its set`);
  };
  const byGlobal = new Map<GlobalDb, RecordReads>();
  return (global) => {
    const cached = byGlobal.get(global);
    if (cached) return cached;
    const orgName = onceTogether<string | null>(async (orgIds) => new Map((await listOrganizationNames(global, orgIds)).map((o) => [o.id, o.name])), null);
    const keyHistoryOf = onceTogether<KeyHistory["organizations"][number]>(
      async (orgIds) => new Map((await readKeyHistory(global, orgIds)).organizations.map((o) => [o.org_id, o])),
      // readKeyHistory answers for every organization asked
      { org_id: "", name: null, events: [] },
    );
    const disclosureOf = once((key) => {
      const [orgId, disclosureId] = JSON.parse(key) as [string, string];
      return findDisclosure(global, orgId, disclosureId);
    });
    const reads: RecordReads = {
      async chain(envelopeId) {
        inSet(envelopeId);
        return { rows: chainRows.get(envelopeId) ?? [], recordedSeq: recorded.get(envelopeId) ?? null };
      },
      async vaultFacts(envelopeId) {
        inSet(envelopeId);
        const row = factRows.get(envelopeId);
        if (!row) return null;
        // as findVaultFacts names them (an empty name is no name)
        const [controller, pledgor] = await Promise.all([orgName(row.controller_org_id), row.pledgor_org_id ? orgName(row.pledgor_org_id) : null]);
        return { ...row, controller_name: controller || null, pledgor_name: pledgor || null };
      },
      orgName,
      // readKeyHistory's answer: each organization once, sorted by id
      keyHistory: async (orgIds) => ({ organizations: await Promise.all([...new Set(orgIds)].sort().map(keyHistoryOf)) }),
      async kbaResults(envelopeId) {
        inSet(envelopeId);
        return kbaRows.get(envelopeId) ?? [];
      },
      async signers(envelopeId) {
        inSet(envelopeId);
        return signerRows.get(envelopeId) ?? [];
      },
      disclosure: (envelope) => (envelope.disclosure_id ? disclosureOf(JSON.stringify([envelope.org_id, envelope.disclosure_id])) : Promise.resolve(null)),
      async latestCertificate(envelopeId) {
        inSet(envelopeId);
        return certificateRows.get(envelopeId) ?? null;
      },
    };
    byGlobal.set(global, reads);
    return reads;
  };
}
