import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { toHex } from "../../lib/crypto";
import { joinParts } from "../../pdf";

/**
 * RFC 4998 Evidence Record Syntax (docs/evidence.md): proof that the authoritative copy's SHA-256 existed at
 * a time, renewable before the timestamping authority's certificate expires, without touching the copy.
 *
 *   EvidenceRecord ::= SEQUENCE { version INTEGER (1), digestAlgorithms SEQUENCE OF AlgorithmIdentifier,
 *                                 archiveTimeStampSequence SEQUENCE OF ArchiveTimeStampChain }
 *   ArchiveTimeStampChain ::= SEQUENCE OF ArchiveTimeStamp
 *   ArchiveTimeStamp ::= SEQUENCE { digestAlgorithm [0] OPTIONAL, attributes [1] OPTIONAL,
 *                                   reducedHashtree [2] OPTIONAL, timeStamp ContentInfo }
 *
 * Ours: version 1, digestAlgorithms [SHA-256], one chain. The first archive timestamp's RFC 3161 token
 * has the document's SHA-256 as its message imprint (one data object: no reduced hash tree); each
 * timestamp renewal (RFC 4998 5.2) appends one whose imprint is the SHA-256 of the DER of the previous
 * archive timestamp's `timeStamp` ContentInfo. Earlier timestamps are copied byte for byte.
 */

export const SHA256_OID = "2.16.840.1.101.3.4.2.1";
const SIGNED_DATA = "1.2.840.113549.1.7.2";
const TST_INFO = "1.2.840.113549.1.9.16.1.4";

/** One archive timestamp as read back. */
export type ArchiveTimestamp = {
  /** the token (ContentInfo) as stored in the record: what the next renewal hashes */
  der: Uint8Array;
  /** hex message imprint and its hash algorithm */
  imprint: string;
  imprintAlgorithm: string;
  genTime: Date;
  /** the TSA's signing certificate, from the token (null: the token carries none) */
  tsaCertificate: pkijs.Certificate | null;
  tsaNotAfter: Date | null;
  tsaSubject: string | null;
  signedData: pkijs.SignedData;
  /** a reduced hash tree or another digest algorithm than SHA-256 (not ours: reported by the checker) */
  hasReducedHashtree: boolean;
  digestAlgorithm: string | null;
};

export type EvidenceRecordContents = {
  version: number;
  digestAlgorithms: string[];
  /** the chains of the ArchiveTimeStampSequence (ours have one) */
  chains: ArchiveTimestamp[][];
};

// ---- minimal DER writing: wrappers around bytes kept as they are ----

function derLength(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}


function sequence(contents: Uint8Array[]): Uint8Array {
  const body = joinParts(contents);
  return joinParts([Uint8Array.of(0x30), derLength(body.byteLength), body]);
}

const SHA256_ALGORITHM = sequence([new Uint8Array(new asn1js.ObjectIdentifier({ value: SHA256_OID }).toBER(false))]);
const VERSION_1 = Uint8Array.of(0x02, 0x01, 0x01);

/** The DER EvidenceRecord with one chain of the given timestamp tokens (each a ContentInfo's DER), in order. */
export function encodeEvidenceRecord(tokens: Uint8Array[]): Uint8Array {
  const chain = sequence(tokens.map((token) => sequence([token])));
  return sequence([VERSION_1, sequence([SHA256_ALGORITHM]), sequence([chain])]);
}

/** A new record whose first archive timestamp is `token` (an RFC 3161 token over the document's SHA-256). */
export const newEvidenceRecord = (token: Uint8Array): Uint8Array => encodeEvidenceRecord([token]);

/** What a timestamp renewal must have timestamped: the SHA-256 of the newest archive timestamp's token DER. */
export async function renewalImprint(record: EvidenceRecordContents): Promise<Uint8Array> {
  const chain = record.chains.at(-1);
  const last = chain?.at(-1);
  if (!last) throw new Error("the evidence record holds no archive timestamp to renew");
  return new Uint8Array(await crypto.subtle.digest("SHA-256", last.der));
}

/** The record with `token` appended to its (one) chain: a timestamp renewal. Earlier tokens are kept byte for byte. */
export function renewedEvidenceRecord(record: EvidenceRecordContents, token: Uint8Array): Uint8Array {
  if (record.chains.length !== 1) throw new Error(`the evidence record holds ${record.chains.length} chains; this service writes one`);
  return encodeEvidenceRecord([...record.chains[0]!.map((ats) => ats.der), token]);
}

// ---- reading ----

const viewOf = (block: asn1js.BaseBlock): Uint8Array => new Uint8Array(block.valueBeforeDecodeView);

function children(block: asn1js.AsnType, what: string): asn1js.AsnType[] {
  if (!(block instanceof asn1js.Sequence)) throw new Error(`${what} is not a SEQUENCE`);
  return block.valueBlock.value;
}

const isContext = (block: asn1js.AsnType, n: number) => block.idBlock.tagClass === 3 && block.idBlock.tagNumber === n;

/** An RFC 3161 token (ContentInfo DER) read: its TSTInfo's imprint and genTime, its TSA certificate. */
export function readTimestampToken(der: Uint8Array): Pick<ArchiveTimestamp, "imprint" | "imprintAlgorithm" | "genTime" | "tsaCertificate" | "tsaNotAfter" | "tsaSubject" | "signedData"> {
  const info = pkijs.ContentInfo.fromBER(der);
  if (info.contentType !== SIGNED_DATA) throw new Error("its timeStamp is not a CMS SignedData");
  const signedData = new pkijs.SignedData({ schema: info.content });
  if (signedData.encapContentInfo.eContentType !== TST_INFO || !signedData.encapContentInfo.eContent) throw new Error("its timeStamp holds no TSTInfo");
  const tst = pkijs.TSTInfo.fromBER(signedData.encapContentInfo.eContent.getValue());
  const tsaCertificate = signerCertificate(signedData);
  return {
    imprint: toHex(tst.messageImprint.hashedMessage.valueBlock.valueHexView),
    imprintAlgorithm: tst.messageImprint.hashAlgorithm.algorithmId,
    genTime: tst.genTime,
    tsaCertificate,
    tsaNotAfter: tsaCertificate ? tsaCertificate.notAfter.value : null,
    tsaSubject: tsaCertificate ? tsaCertificate.subject.typesAndValues.map((tv) => `${tv.type}=${tv.value.valueBlock.value}`).join(",") : null,
    signedData,
  };
}

/** The certificate the token's signer names (issuer and serial, or subject key identifier), among those it carries. */
function signerCertificate(signed: pkijs.SignedData): pkijs.Certificate | null {
  const certs = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const sid = signed.signerInfos[0]?.sid;
  if (!sid) return null;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return certs.find((c) => c.serialNumber.isEqual(sid.serialNumber) && c.issuer.isEqual(sid.issuer)) ?? null;
  }
  const keyId = toHex((sid as asn1js.OctetString).valueBlock.valueHexView);
  return (
    certs.find((c) => {
      const ski = c.extensions?.find((e) => e.extnID === "2.5.29.14");
      return ski && toHex((ski.parsedValue as asn1js.OctetString).valueBlock.valueHexView) === keyId;
    }) ?? null
  );
}

/** Parses a DER EvidenceRecord; throws (with a sentence) on anything not of its form. */
export function readEvidenceRecord(der: Uint8Array): EvidenceRecordContents {
  const parsed = asn1js.fromBER(der);
  if (parsed.offset === -1 || parsed.offset !== der.byteLength) throw new Error("it is not one DER structure");
  const top = children(parsed.result, "the EvidenceRecord");
  const [version, algorithms, ...rest] = top;
  if (!(version instanceof asn1js.Integer)) throw new Error("its version is not an INTEGER");
  const digestAlgorithms = children(algorithms!, "digestAlgorithms").map((alg) => {
    const [oid] = children(alg, "an AlgorithmIdentifier");
    if (!(oid instanceof asn1js.ObjectIdentifier)) throw new Error("an AlgorithmIdentifier has no OID");
    return oid.valueBlock.toString();
  });
  // cryptoInfos [0] and encryptionInfo [1] may come before the sequence; ours carry neither
  const sequenceBlock = rest.find((b) => !isContext(b, 0) && !isContext(b, 1));
  if (!sequenceBlock) throw new Error("it has no archiveTimeStampSequence");
  const chains = children(sequenceBlock, "the archiveTimeStampSequence").map((chain, c) =>
    children(chain, `chain ${c + 1}`).map((ats, i): ArchiveTimestamp => {
      const parts = children(ats, `archive timestamp ${i + 1}`);
      const timeStamp = parts.at(-1);
      if (!timeStamp || !(timeStamp instanceof asn1js.Sequence)) throw new Error(`archive timestamp ${i + 1} has no timeStamp`);
      const digest = parts.find((b) => isContext(b, 0));
      let digestAlgorithm: string | null = null;
      if (digest) {
        const oid = (digest as asn1js.Constructed).valueBlock.value[0];
        digestAlgorithm = oid instanceof asn1js.ObjectIdentifier ? oid.valueBlock.toString() : "unreadable";
      }
      const tokenDer = viewOf(timeStamp);
      let token: ReturnType<typeof readTimestampToken>;
      try {
        token = readTimestampToken(tokenDer);
      } catch (err) {
        throw new Error(`archive timestamp ${i + 1}: ${err instanceof Error ? err.message : String(err)}`);
      }
      return { der: tokenDer, ...token, hasReducedHashtree: parts.some((b) => isContext(b, 2)), digestAlgorithm };
    }),
  );
  return { version: Number(version.valueBlock.valueDec), digestAlgorithms, chains };
}

/** The chain's timestamps as a person reads them: when each was made, by whom, and until when its TSA certificate holds. */
export function describeTimestamps(record: EvidenceRecordContents) {
  return (record.chains[0] ?? []).map((ats) => ({
    gen_time: ats.genTime.toISOString(),
    tsa: ats.tsaSubject,
    tsa_certificate_not_after: ats.tsaNotAfter?.toISOString() ?? null,
    imprint: ats.imprint,
  }));
}

// ---- the evidence bundle's record: the stored one extended by a timestamp over the bundle's members ----

function octetString(bytes: Uint8Array): Uint8Array {
  return joinParts([Uint8Array.of(0x04), derLength(bytes.byteLength), bytes]);
}

function contextConstructed(tag: number, contents: Uint8Array[]): Uint8Array {
  const body = joinParts(contents);
  return joinParts([Uint8Array.of(0xa0 | tag), derLength(body.byteLength), body]);
}

/** RFC 4998 4.3: a group's hash values in binary ascending order, concatenated and hashed: the value the timestamp covers. */
export async function hashTreeRoot(leaves: Uint8Array[]): Promise<Uint8Array> {
  const sorted = [...leaves].sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  });
  return new Uint8Array(await crypto.subtle.digest("SHA-256", joinParts(sorted)));
}

/**
 * The evidence record an evidence bundle carries: the record as stored (its one renewal chain, byte for
 * byte, so its SHA-256 can be recomputed against the audit chain's `vault.evidence_record` entry), and a
 * second chain of one archive timestamp whose reduced hash tree (one group) holds the SHA-256 of each
 * member the bundle's manifest covers, plus the stored record's SHA-256; `token` is the TSA's timestamp
 * over that group's root (hashTreeRoot). Without a stored record, the bundle's chain alone.
 */
export function bundleEvidenceRecord(stored: EvidenceRecordContents | null, leaves: Uint8Array[], token: Uint8Array): Uint8Array {
  const chains: Uint8Array[] = [];
  if (stored) {
    if (stored.chains.length !== 1) throw new Error(`the evidence record holds ${stored.chains.length} chains; this service writes one`);
    chains.push(sequence(stored.chains[0]!.map((ats) => sequence([ats.der]))));
  }
  const reduced = contextConstructed(2, [sequence(leaves.map(octetString))]);
  chains.push(sequence([sequence([reduced, token])]));
  return sequence([VERSION_1, sequence([SHA256_ALGORITHM]), sequence(chains)]);
}
