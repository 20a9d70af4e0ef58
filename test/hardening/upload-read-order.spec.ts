import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { uploadBody } from "../../src/lib/multipart";
import { BASE, newTenant } from "../helpers/api";

const BOUNDARY = "readOrderBoundary";
const DECLARED = 40 * 1024 * 1024;

/**
 * A multipart body that declares 40 MB, sends its first part's headers, and then never sends another
 * byte: any reader of it waits forever (the test times out), while a refusal that does not read it
 * answers at once. `pulls` counts how far a reader got.
 */
function trickledUpload() {
  const state = { pulls: 0 };
  const head = new TextEncoder().encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulls += 1;
      if (state.pulls === 1) {
        controller.enqueue(head);
        return;
      }
      return new Promise(() => {}); // the rest never arrives
    },
  });
  return { body, state };
}

async function send(path: string, headers: Record<string, string>) {
  const { body } = trickledUpload();
  const stream = new FixedLengthStream(DECLARED);
  void body.pipeTo(stream.writable).catch(() => {});
  const res = await SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
    body: stream.readable,
  });
  return { status: res.status, body: (await res.json()) as { error: string } };
}

describe("large uploads are refused before their body is read", () => {
  it("a read-only key sending a 40 MB multipart upload with an Idempotency-Key is refused 403 without its body being read", async () => {
    const t = await newTenant({ scopes: ["envelopes:read", "vault:read"] });
    const res = await send("/partner/templates", { "X-API-Key": t.key, "Idempotency-Key": "read-only-upload-1" });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/^Missing required scope/);
  });

  it("a read-only key sending a 40 MB paper vault-in upload with an Idempotency-Key is refused 403 without its body being read", async () => {
    const t = await newTenant({ scopes: ["envelopes:read"] });
    const res = await send("/partner/envelopes/env_00000000000000000000000000/vault-in-upload", { "X-API-Key": t.key, "Idempotency-Key": "read-only-upload-2" });
    expect(res.status).toBe(403);
  });

  it("a 40 MB multipart body sent with an Idempotency-Key to a route that takes JSON is refused 415 without being read", async () => {
    const t = await newTenant();
    const res = await send("/partner/envelopes", { "X-API-Key": t.key, "Idempotency-Key": "wrong-type-1" });
    expect(res.status).toBe(415);
  });

  it("an upload that declares 40 MB but sends 1 KB holds a buffer the size of what arrived, not of what it declared", async () => {
    const bytes = new Uint8Array(1024).fill(0x41);
    const stream = new FixedLengthStream(bytes.length);
    const writer = stream.writable.getWriter();
    void writer.write(bytes).then(() => writer.close());
    const req = new Request("http://localhost/upload", {
      method: "POST",
      headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, "Content-Length": String(DECLARED) },
      body: stream.readable,
    });
    expect(req.headers.get("content-length")).toBe(String(DECLARED));
    const body = await uploadBody(req);
    expect(body.byteLength).toBe(1024);
    expect(body.buffer.byteLength).toBeLessThan(1024 * 1024);
  });
});
