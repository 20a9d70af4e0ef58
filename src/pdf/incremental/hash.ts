import { toHex } from "../../lib/crypto";
import { joinParts } from "./parts";

/**
 * SHA-256 (hex) of the concatenation of `parts`, never joined in the Worker (the runtime's
 * DigestStream). Where the runtime has none (Node, for the interop script and the benchmark's
 * tools) it hashes a joined copy.
 */
export async function sha256HexOfParts(parts: Uint8Array[]): Promise<string> {
  const DigestStream = (crypto as unknown as { DigestStream?: new (algorithm: string) => WritableStream<Uint8Array> & { digest: Promise<ArrayBuffer> } }).DigestStream;
  let digest: ArrayBuffer;
  if (DigestStream) {
    const stream = new DigestStream("SHA-256");
    const writer = stream.getWriter();
    for (const part of parts) await writer.write(part);
    await writer.close();
    digest = await stream.digest;
  } else {
    digest = await crypto.subtle.digest("SHA-256", joinParts(parts));
  }
  return toHex(digest);
}
