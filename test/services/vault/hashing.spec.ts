import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DIGEST_SLICE_BYTES, sha256OfStream } from "../../../src/services/vault/hashing";

// FIPS 180-2 test vector: SHA-256 of one million repetitions of "a"
const MILLION_A = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

describe("re-hashing a stored object as a stream", () => {
  it("gives the published SHA-256 of a million 'a's read back from R2, across several digest slices", async () => {
    expect(1_000_000).toBeGreaterThan(3 * DIGEST_SLICE_BYTES);
    await env.DOCS.put("test/hashing/million-a", new Uint8Array(1_000_000).fill(0x61));
    const object = await env.DOCS.get("test/hashing/million-a");
    expect(await sha256OfStream(object!.body)).toBe(MILLION_A);
  });

  it("gives the same SHA-256 for a stream that is not a byte stream (chunks as a script produces them)", async () => {
    let sent = 0;
    const chunk = new Uint8Array(10_000).fill(0x61);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 100) return controller.close();
        sent += 1;
        controller.enqueue(chunk.slice());
      },
    });
    expect(await sha256OfStream(stream)).toBe(MILLION_A);
  });

  it("hashes an empty object to the SHA-256 of nothing", async () => {
    await env.DOCS.put("test/hashing/empty", new Uint8Array(0));
    const object = await env.DOCS.get("test/hashing/empty");
    expect(await sha256OfStream(object!.body)).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});
