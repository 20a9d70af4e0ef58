/**
 * The evidence bundle's verifier. This one function is written out as the body of the bundle's
 * standalone `verify.mjs` (its source text, via Function.prototype.toString), so it must stay
 * self-contained: plain JavaScript with no imports and nothing from outside its own body. The
 * suite runs it in the Workers runtime on real bundles; `node verify.mjs` runs the very same text.
 *
 * `files` maps each bundle member's name to its bytes; `sha256Hex` hashes bytes to lower-case hex.
 * Checks, in order: the manifest; the document's SHA-256 against the manifest, the certificate and
 * the chain's vault entry; then the whole audit chain from its genesis hash (sequence, link to the
 * previous hash, and each entry's hash recomputed over its canonical JSON, exactly as the service
 * hashes it). Returns what it checked, or the first broken link.
 */
export async function verifyEvidence(
  files: Record<string, Uint8Array>,
  sha256Hex: (bytes: Uint8Array) => Promise<string> | string,
): Promise<{ verified: true; checks: string[] } | { verified: false; checks: string[]; broken: string }> {
  const checks: string[] = [];
  const text = (name: string) => new TextDecoder().decode(files[name]);
  const fail = (broken: string) => ({ verified: false as const, checks, broken });
  const json = (name: string): any => {
    if (!files[name]) throw new Error(`${name} is missing from the bundle`);
    try {
      return JSON.parse(text(name));
    } catch {
      throw new Error(`${name} is not valid JSON`);
    }
  };
  // Canonical JSON as the service hashes audit entries: keys sorted, no whitespace, undefined dropped.
  const canonical = (value: unknown): string => {
    if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
    if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
      .join(",")}}`;
  };

  let manifest: any;
  let certificate: any;
  let chain: any;
  try {
    manifest = json("manifest.json");
    certificate = json("certificate.json");
    chain = json("audit-chain.json");
  } catch (err) {
    return fail((err as Error).message);
  }

  // 1. The document.
  const document = files[manifest.document?.file ?? "document.pdf"];
  if (!document) return fail(`${manifest.document?.file ?? "document.pdf"} is missing from the bundle`);
  const documentHash = await sha256Hex(document);
  if (documentHash !== manifest.document.sha256) {
    return fail(`document: ${manifest.document.file} has SHA-256 ${documentHash}, but the vault recorded ${manifest.document.sha256} (the PDF was altered)`);
  }
  checks.push(`document ${manifest.document.file}: SHA-256 ${documentHash} matches the hash recorded at vaulting`);
  if (certificate?.document_integrity?.document_hash !== documentHash) {
    return fail(`certificate: certificate.json states document hash ${certificate?.document_integrity?.document_hash}, not the document's ${documentHash}`);
  }
  checks.push("certificate.json states the same document hash");

  // 2. The audit chain, from its genesis.
  const entries: any[] = Array.isArray(chain.entries) ? chain.entries : [];
  let prev = chain.genesis_hash;
  for (let i = 0; i < entries.length; i++) {
    const { hash, ...entry } = entries[i];
    const where = `audit entry seq ${entry.seq} (${entry.action}, id ${entry.id})`;
    if (entry.seq !== i + 1) return fail(`${where}: expected sequence number ${i + 1} (an entry was removed or reordered)`);
    if (entry.prev_hash !== prev) return fail(`${where}: previous hash ${entry.prev_hash} does not match the hash of entry ${i} (${prev})`);
    const recomputed = await sha256Hex(new TextEncoder().encode(canonical(entry)));
    if (recomputed !== hash) return fail(`${where}: content hashes to ${recomputed}, not the recorded ${hash} (the entry was altered)`);
    prev = hash;
  }
  if (entries.length !== chain.entries_count || prev !== chain.head_hash) {
    return fail(`audit chain: ${entries.length} entries ending in ${prev}, but the bundle states ${chain.entries_count} ending in ${chain.head_hash} (entries were removed)`);
  }
  checks.push(`audit chain: ${entries.length} entries verified from the genesis hash to head ${prev}`);

  // 3. The chain recorded this document being vaulted.
  const vaulted = entries.find((e) => e.action === "envelope.vault");
  if (!vaulted || vaulted.data?.hash !== documentHash) {
    return fail(`audit chain: no envelope.vault entry records the document hash ${documentHash}`);
  }
  checks.push(`audit entry seq ${vaulted.seq} (envelope.vault) records the document hash`);
  return { verified: true as const, checks };
}
