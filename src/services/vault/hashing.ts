import { toHex } from "../../lib/crypto";

/**
 * Bytes handed to the digest per write. The runtime delivers an R2 body in small chunks (4 KiB each
 * in the local simulator); a write per chunk costs more than hashing it, so reads are gathered into
 * one buffer of this size, reused for the whole object (docs/decisions/integrity-sweep.md).
 */
export const DIGEST_SLICE_BYTES = 256 * 1024;

/**
 * SHA-256 of a stream, fed through the runtime's DigestStream: the bytes are never held whole. A byte
 * stream (an R2 body, a fetch body) is read with a BYOB reader into one reused buffer of
 * DIGEST_SLICE_BYTES (`readAtLeast` fills it before returning), so memory stays at one slice per
 * stream being hashed whatever the object's size; any other stream is piped in as it comes.
 */
export async function sha256OfStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  let reader: ReadableStreamBYOBReader;
  try {
    reader = stream.getReader({ mode: "byob" });
  } catch {
    await stream.pipeTo(digest); // not a byte stream: no BYOB reader
    return toHex(await digest.digest);
  }
  const writer = digest.getWriter();
  try {
    let slice = new Uint8Array(DIGEST_SLICE_BYTES);
    for (;;) {
      const { done, value } = await reader.readAtLeast(DIGEST_SLICE_BYTES, slice);
      if (value && value.byteLength > 0) {
        // The digest has consumed the chunk once the write resolves, so its buffer (transferred to
        // `value` by the read) can take the next read.
        await writer.write(value);
        slice = new Uint8Array(value.buffer);
      }
      if (done) break;
    }
    await writer.close();
  } catch (err) {
    await reader.cancel(err).catch(() => {});
    await writer.abort(err).catch(() => {});
    throw err;
  }
  return toHex(await digest.digest);
}

const PUT_SLICE_BYTES = 1024 * 1024;

/** Stores the concatenation of `parts` as one R2 object, streamed, so no joined copy is made. */
export async function putParts(bucket: R2Bucket, key: string, parts: Uint8Array[], options: R2PutOptions): Promise<void> {
  const length = parts.reduce((n, p) => n + p.byteLength, 0);
  const { readable, writable } = new FixedLengthStream(length);
  const writer = writable.getWriter();
  // A put that fails before reading its body (R2 refusing, a dropped connection) never drains the stream:
  // without the abort the writes below wait on backpressure forever and the request hangs until workerd
  // cancels it (found by the soak, docs/benchmarks.md). Aborting rejects the pending writes.
  const put = Promise.resolve()
    .then(() => bucket.put(key, readable, options))
    .catch(async (err: unknown) => {
      await writer.abort(err).catch(() => undefined);
      throw err;
    });
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
