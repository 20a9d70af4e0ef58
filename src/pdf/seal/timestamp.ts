import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { ApiError } from "../../lib/errors";

const SHA256 = "2.16.840.1.101.3.4.2.1";
const TST_INFO = "1.2.840.113549.1.9.16.1.4";

/** How the seal reaches a timestamp authority: its URL, and the fetch to use (tests hand in a stand-in). */
export type TimestampAuthority = { url: string; fetch?: typeof fetch };

/**
 * An RFC 3161 timestamp token over `signatureValue` (the CMS signer's signature: a PAdES signature
 * timestamp, B-T): a TimeStampReq (SHA-256 imprint, a random nonce, the TSA's certificate requested)
 * POSTed as application/timestamp-query. The answer must be granted and its token must name the same
 * imprint and nonce. Any failure is a 502 naming the TSA: the completing submit is refused rather
 * than sealed without the timestamp its configuration asks for.
 */
export async function requestTimestamp(tsa: TimestampAuthority, signatureValue: Uint8Array): Promise<pkijs.ContentInfo> {
  return requestTimestampForDigest(tsa, new Uint8Array(await crypto.subtle.digest("SHA-256", signatureValue)));
}

/** The outcome of asking a TSA, never thrown: the token, or why there is none (an outage, a refusal). */
export type TimestampResult = { ok: true; token: pkijs.ContentInfo; der: Uint8Array } | { ok: false; reason: string };

/**
 * `requestTimestampForDigest` that reports instead of throwing: what the evidence-level code (signature
 * and document timestamps) calls, so that a TSA outage lowers what is reached, never fails a submit.
 */
export async function tryTimestampForDigest(tsa: TimestampAuthority, imprint: Uint8Array): Promise<TimestampResult> {
  try {
    const token = await requestTimestampForDigest(tsa, imprint);
    return { ok: true, token, der: new Uint8Array(token.toSchema().toBER(false)) };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** `requestTimestamp` given the SHA-256 imprint itself (a document timestamp's: the byte ranges', hashed in parts). */
export async function requestTimestampForDigest(tsa: TimestampAuthority, imprint: Uint8Array): Promise<pkijs.ContentInfo> {
  const nonce = crypto.getRandomValues(new Uint8Array(8));
  // a positive INTEGER in minimal DER: a first byte of 0x01-0x7f (a leading 0x00 would be dropped by the
  // TSA when it echoes the nonce, and the echo would no longer match: one request in 128 refused)
  nonce[0] = (nonce[0]! % 0x7f) + 1;
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: imprint }),
    }),
    nonce: new asn1js.Integer({ valueHex: nonce }),
    certReq: true,
  });
  const failed = (why: string) => new ApiError(502, `Timestamp authority failure (SEAL_TSA_URL): ${why}`);
  let body: ArrayBuffer;
  try {
    const res = await (tsa.fetch ?? fetch)(tsa.url, {
      method: "POST",
      headers: { "Content-Type": "application/timestamp-query", Accept: "application/timestamp-reply" },
      body: request.toSchema().toBER(false),
    });
    if (!res.ok) throw failed(`it answered HTTP ${res.status}`);
    body = await res.arrayBuffer();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw failed(`it could not be reached (${err instanceof Error ? err.message : String(err)})`);
  }
  let response: pkijs.TimeStampResp;
  let info: pkijs.TSTInfo;
  try {
    response = pkijs.TimeStampResp.fromBER(body);
    if (response.status.status !== 0 && response.status.status !== 1) throw failed(`it refused the request (status ${response.status.status})`);
    if (response.timeStampToken?.contentType !== "1.2.840.113549.1.7.2") throw failed("its answer holds no timestamp token");
    const signed = new pkijs.SignedData({ schema: response.timeStampToken!.content });
    if (signed.encapContentInfo.eContentType !== TST_INFO || !signed.encapContentInfo.eContent) throw failed("its token holds no TSTInfo");
    info = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent.getValue());
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw failed("its answer is not a readable RFC 3161 response");
  }
  const sameImprint = info.messageImprint.hashedMessage.isEqual(new asn1js.OctetString({ valueHex: imprint }));
  const sameNonce = info.nonce?.isEqual(new asn1js.Integer({ valueHex: nonce })) ?? false;
  if (!sameImprint || !sameNonce) throw failed("its token does not answer this request (imprint or nonce differ)");
  return response.timeStampToken!;
}
