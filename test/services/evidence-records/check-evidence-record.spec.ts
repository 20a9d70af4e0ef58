import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tryTimestampForDigest } from "../../../src/pdf";
import { checkEvidenceRecord } from "../../../src/services/vault/evidence-record/check";
import { encodeEvidenceRecord, newEvidenceRecord, readEvidenceRecord, renewedEvidenceRecord } from "../../../src/services/evidence/evidence-record";
import { caCertificate, tsaUrl } from "../../pdf/seal/evidence-helpers";

const hex = (b: Uint8Array | ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
const sha = async (b: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", b));

/** A real RFC 3161 token from the OpenSSL TSA stand-in over `imprint`. */
async function token(imprint: Uint8Array): Promise<Uint8Array> {
  const got = await tryTimestampForDigest({ url: tsaUrl("evidence-checker") }, imprint);
  if (!got.ok) throw new Error(got.reason);
  return got.der;
}

async function documentAndRecord() {
  const document = crypto.getRandomValues(new Uint8Array(64));
  const documentSha256 = await sha(document);
  const first = newEvidenceRecord(await token(documentSha256));
  const renewed = renewedEvidenceRecord(readEvidenceRecord(first), await token(await sha(readEvidenceRecord(first).chains[0]![0]!.der)));
  return { document, documentHex: hex(documentSha256), first, renewed };
}

/** Replaces the first occurrence of `find` in `bytes` by `replace` (same length). */
function patch(bytes: Uint8Array, find: Uint8Array, replace: Uint8Array): Uint8Array {
  const out = bytes.slice();
  for (let i = 0; i + find.length <= out.length; i++) {
    if (find.every((b, j) => out[i + j] === b)) {
      out.set(replace, i);
      return out;
    }
  }
  throw new Error("pattern not found");
}

describe("RFC 4998 evidence record checker", () => {
  it("accepts a record and its renewal: the first timestamp over the document, the second over the first, each signed by the TSA of the test CA", async () => {
    const { document, documentHex, first, renewed } = await documentAndRecord();
    expect(await checkEvidenceRecord(first, documentHex)).toEqual([]);
    expect(await checkEvidenceRecord(renewed, documentHex)).toEqual([]);

    const record = readEvidenceRecord(renewed);
    expect(record.version).toBe(1);
    expect(record.digestAlgorithms).toEqual(["2.16.840.1.101.3.4.2.1"]);
    expect(record.chains).toHaveLength(1);
    const [a, b] = record.chains[0]!;
    expect(a!.imprint).toBe(documentHex);
    expect(b!.imprint).toBe(hex(await sha(a!.der)));
    // the renewal keeps the first timestamp byte for byte
    expect(hex(a!.der)).toBe(hex(readEvidenceRecord(first).chains[0]![0]!.der));
    expect(b!.genTime.getTime()).toBeGreaterThanOrEqual(a!.genTime.getTime());
    expect(a!.tsaNotAfter!.getTime()).toBeGreaterThan(Date.now());
    // each token's chain up to the test CA, checked by pkijs independently of the checker
    // (pkijs checks each TSTInfo's imprint against the data it is given: the document, then the first token)
    expect(await a!.signedData.verify({ signer: 0, data: document.slice().buffer, checkChain: true, trustedCerts: [caCertificate()] })).toBe(true);
    expect(await b!.signedData.verify({ signer: 0, data: a!.der.slice().buffer, checkChain: true, trustedCerts: [caCertificate()] })).toBe(true);
  });

  it("refuses a record checked against another document, naming the imprint and the document's hash", async () => {
    const { renewed } = await documentAndRecord();
    const other = hex(await sha(new TextEncoder().encode("a swapped document")));
    const problems = await checkEvidenceRecord(renewed, other);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^Archive timestamp 1 timestamps [0-9a-f]{64}, not the document's SHA-256 ${other}$`));
  });

  it("refuses a record whose first imprint was edited: the imprint and the TSA's signature both fail", async () => {
    const { documentHex, renewed } = await documentAndRecord();
    const edited = hex(await sha(new TextEncoder().encode("forged")));
    const forged = patch(renewed, Uint8Array.from(documentHex.match(/../g)!, (x) => parseInt(x, 16)), Uint8Array.from(edited.match(/../g)!, (x) => parseInt(x, 16)));
    const problems = await checkEvidenceRecord(forged, documentHex);
    expect(problems).toContain(`Archive timestamp 1 timestamps ${edited}, not the document's SHA-256 ${documentHex}`);
    expect(problems).toContain("Archive timestamp 1: the TSA's signature over the timestamp does not verify");
    // the edit changed the first token, so the renewal no longer covers it either
    expect(problems.some((p) => p.startsWith("Archive timestamp 2 does not cover archive timestamp 1"))).toBe(true);
  });

  it("refuses a renewal that timestamps something else than the previous archive timestamp", async () => {
    const { documentHex, first } = await documentAndRecord();
    const unrelated = await token(crypto.getRandomValues(new Uint8Array(32)));
    const broken = encodeEvidenceRecord([readEvidenceRecord(first).chains[0]![0]!.der, unrelated]);
    const problems = await checkEvidenceRecord(broken, documentHex);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^Archive timestamp 2 does not cover archive timestamp 1: its imprint [0-9a-f]{64} is not the SHA-256 of that timestamp/);
  });

  it("refuses bytes that are not an evidence record", async () => {
    expect(await checkEvidenceRecord(new TextEncoder().encode("not DER at all"), "00".repeat(32))).toEqual([
      expect.stringMatching(/^The evidence record is not a readable RFC 4998 EvidenceRecord: /),
    ]);
    expect(env.TEST_TSA_URL).toBeTruthy();
  });
});
