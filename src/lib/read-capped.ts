/**
 * The first `limit` bytes of an answer's body as text, for logs and error messages; the rest is never
 * downloaded, and the body is always cancelled so its connection is released. A body cut short (a
 * timeout, a reset) keeps what arrived. Null when the answer has no body.
 */
export async function readCapped(res: Response, limit: number): Promise<string | null> {
  if (!res.body) return null;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      const kept = value.subarray(0, limit - size);
      chunks.push(kept);
      size += kept.byteLength;
    }
  } catch {
    /* an answer cut short still shows what arrived */
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
