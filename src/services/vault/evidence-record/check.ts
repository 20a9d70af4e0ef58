import { toHex } from "../../../lib/crypto";
import * as pkijs from "pkijs";
import { readEvidenceRecord, SHA256_OID, type EvidenceRecordContents } from "../../evidence/evidence-record";

/**
 * Checks an RFC 4998 evidence record against the document's SHA-256 (lower-case hex), from the record's
 * bytes alone. Returns every problem found, each a sentence naming the archive timestamp (1 = the
 * first); none: the record proves the document existed at the first timestamp's time, kept provable
 * by each renewal. Checked:
 * - the form: version 1, SHA-256 among the digest algorithms, one chain, no reduced hash tree;
 * - archive timestamp 1's message imprint is the document's SHA-256;
 * - archive timestamp n+1's imprint is the SHA-256 of archive timestamp n's token (the renewal's link);
 * - each token's signature by the certificate it carries (the TSA's trust is the auditor's:
 *   `openssl ts -verify -CAfile`), and each renewal made before the previous TSA certificate expired.
 */
export async function checkEvidenceRecord(der: Uint8Array, documentSha256: string): Promise<string[]> {
  let record: EvidenceRecordContents;
  try {
    record = readEvidenceRecord(der);
  } catch (err) {
    return [`The evidence record is not a readable RFC 4998 EvidenceRecord: ${err instanceof Error ? err.message : String(err)}`];
  }
  const problems: string[] = [];
  if (record.version !== 1) problems.push(`The evidence record's version is ${record.version}, not 1`);
  if (!record.digestAlgorithms.includes(SHA256_OID)) problems.push("The evidence record does not name SHA-256 among its digest algorithms");
  if (record.chains.length !== 1) problems.push(`The evidence record holds ${record.chains.length} archive timestamp chains, not one`);
  const chain = record.chains[0] ?? [];
  if (chain.length === 0) problems.push("The evidence record holds no archive timestamp");
  const expected = documentSha256.toLowerCase();
  for (let i = 0; i < chain.length; i++) {
    const ats = chain[i]!;
    const name = `Archive timestamp ${i + 1}`;
    if (ats.hasReducedHashtree) problems.push(`${name} carries a reduced hash tree; this record covers one document, hashed directly`);
    if (ats.digestAlgorithm && ats.digestAlgorithm !== SHA256_OID) problems.push(`${name} names digest algorithm ${ats.digestAlgorithm}, not SHA-256`);
    if (ats.imprintAlgorithm !== SHA256_OID) problems.push(`${name}'s message imprint is not a SHA-256 (${ats.imprintAlgorithm})`);
    if (i === 0) {
      if (ats.imprint !== expected) problems.push(`${name} timestamps ${ats.imprint}, not the document's SHA-256 ${expected}`);
    } else {
      const previous = chain[i - 1]!;
      const link = toHex(await crypto.subtle.digest("SHA-256", previous.der));
      if (ats.imprint !== link) problems.push(`${name} does not cover archive timestamp ${i}: its imprint ${ats.imprint} is not the SHA-256 of that timestamp (${link})`);
      if (previous.tsaNotAfter && ats.genTime > previous.tsaNotAfter) {
        problems.push(`${name} was made at ${ats.genTime.toISOString()}, after archive timestamp ${i}'s TSA certificate expired (${previous.tsaNotAfter.toISOString()}): the renewal came too late`);
      }
      if (ats.genTime < previous.genTime) problems.push(`${name} was made at ${ats.genTime.toISOString()}, before archive timestamp ${i} (${previous.genTime.toISOString()})`);
    }
    if (!ats.tsaCertificate) {
      problems.push(`${name} carries no TSA certificate`);
      continue;
    }
    const signed = await tokenSignatureVerifies(ats.der);
    if (!signed) problems.push(`${name}: the TSA's signature over the timestamp does not verify`);
  }
  return problems;
}

/**
 * The TSA's signature over the token (signed attributes, message digest of the TSTInfo) by the
 * certificate it names. pkijs verifies a TSTInfo only with the timestamped data in hand, and the
 * first timestamp's data is the document, known here by its hash (compared above): the signature is
 * checked as over any encapsulated content.
 */
async function tokenSignatureVerifies(der: Uint8Array): Promise<boolean> {
  try {
    const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(der).content });
    signed.encapContentInfo.eContentType = "1.2.840.113549.1.7.1";
    return await signed.verify({ signer: 0, checkChain: false });
  } catch {
    return false;
  }
}
