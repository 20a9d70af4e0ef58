import { toHex } from "../../lib/crypto";

/** SHA-256 of a stream, fed through the runtime's DigestStream: the bytes are never held whole. */
export async function sha256OfStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  await stream.pipeTo(digest);
  return toHex(await digest.digest);
}

const PUT_SLICE_BYTES = 1024 * 1024;

/** Stores the concatenation of `parts` as one R2 object, streamed, so no joined copy is made. */
export async function putParts(bucket: R2Bucket, key: string, parts: Uint8Array[], options: R2PutOptions): Promise<void> {
  const length = parts.reduce((n, p) => n + p.byteLength, 0);
  const { readable, writable } = new FixedLengthStream(length);
  const put = bucket.put(key, readable, options);
  const writer = writable.getWriter();
  // In slices (views, not copies), so the runtime buffers at most one slice on its side of the stream.
  const write = (async () => {
    for (const part of parts) {
      for (let at = 0; at < part.byteLength; at += PUT_SLICE_BYTES) await writer.write(part.subarray(at, at + PUT_SLICE_BYTES));
    }
    await writer.close();
  })();
  const [stored, written] = await Promise.allSettled([put, write]);
  if (stored.status === "rejected") throw stored.reason;
  if (written.status === "rejected") throw written.reason;
}
