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
 * hashes it); then the control history against the chain's control entries; then the control
 * attestation: its payload against the manifest's document hash, the chain head, the history and the
 * controller the chain leads to, and its signature against the first certificate of its `x5c` header
 * (WebCrypto: `subtle`, the runtime's unless given). Returns what it checked, or the first broken link.
 */
export async function verifyEvidence(
  files: Record<string, Uint8Array>,
  sha256Hex: (bytes: Uint8Array) => Promise<string> | string,
  subtle: SubtleCrypto = (globalThis as { crypto?: { subtle: SubtleCrypto } }).crypto?.subtle as SubtleCrypto,
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

  // 4. The control history is the chain's control entries (DESIGN.md 9), in order.
  const CONTROL = [
    "vault.transfer_requested",
    "vault.control_transferred",
    "vault.transfer_rejected",
    "vault.transfer_cancelled",
    "vault.transfer_expired",
    "vault.pledge_released",
    "vault.paid_off",
    "vault.paper_out",
  ];
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  const controlEntries = entries.filter((e) => CONTROL.includes(e.action));
  const expectedHistory = controlEntries.map((e) => ({
    seq: e.seq,
    action: e.action,
    from_org_id: str(e.data?.from_org_id),
    to_org_id: str(e.data?.to_org_id),
    transfer_id: str(e.data?.transfer_id),
    actor_key_id: str(e.data?.actor_key_id),
    at: e.created_at,
    entry_hash: e.hash,
  }));
  let history: any[] = [];
  if (files["control-history.json"] || manifest.control_history) {
    try {
      const listed = json(manifest.control_history?.file ?? "control-history.json");
      history = Array.isArray(listed?.data) ? listed.data : [];
    } catch (err) {
      return fail((err as Error).message);
    }
    for (let i = 0; i < Math.max(history.length, expectedHistory.length); i++) {
      const want = expectedHistory[i];
      const got = history[i];
      if (!want) return fail(`control history: entry ${i + 1} (seq ${got?.seq}) is not a control entry of the audit chain`);
      if (!got) return fail(`control history: the audit chain's control entry seq ${want.seq} (${want.action}) is missing from control-history.json`);
      if (canonical(got) !== canonical(want)) {
        return fail(`control history: entry ${i + 1} (seq ${got.seq}, ${got.action}) does not match audit entry seq ${want.seq} (${want.action}) of the chain`);
      }
    }
    checks.push(`control history: ${history.length} control entries match the audit chain`);
  }

  // 5. The control attestation: the service's signed statement of control as of the chain head.
  const attestationFile = manifest.attestation?.file ?? (files["attestation.jws"] ? "attestation.jws" : null);
  if (attestationFile) {
    if (!files[attestationFile]) return fail(`${attestationFile} is missing from the bundle`);
    const b64u = (part: string) => {
      const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
      return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
    };
    const jws = text(attestationFile).trim();
    const parts = jws.split(".");
    let header: any;
    let payload: any;
    try {
      if (parts.length !== 3) throw new Error("not a compact JWS");
      header = JSON.parse(new TextDecoder().decode(b64u(parts[0]!)));
      payload = JSON.parse(new TextDecoder().decode(b64u(parts[1]!)));
    } catch {
      return fail(`attestation: ${attestationFile} is not a readable compact JWS`);
    }
    if (payload.document_hash !== documentHash) return fail(`attestation: it states document hash ${payload.document_hash}, not the document's ${documentHash}`);
    if (payload.vault_id !== manifest.vault_id) return fail(`attestation: it names vault record ${payload.vault_id}, not the bundle's ${manifest.vault_id}`);
    if (payload.chain_head !== prev) return fail(`attestation: it covers chain head ${payload.chain_head}, not the audit chain's ${prev}`);
    if (payload.history_length !== history.length) return fail(`attestation: it counts ${payload.history_length} control entries, the history has ${history.length}`);
    // the controller the chain leads to: the newest control entry's, else the vaulting organization
    const lastControl = controlEntries[controlEntries.length - 1];
    const controller = str(lastControl?.data?.controller_org_id) ?? vaulted.org_id;
    if (payload.controller?.org_id !== controller) return fail(`attestation: it names controller ${payload.controller?.org_id}, the audit chain leads to ${controller}`);
    checks.push(`attestation: states the document hash, the chain head, ${payload.history_length} control entries and controller ${controller}`);

    // its signature, by the key of the first x5c certificate (the SubjectPublicKeyInfo read from its DER)
    const algs: Record<string, { key: any; sign: any }> = {
      RS256: { key: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, sign: { name: "RSASSA-PKCS1-v1_5" } },
      ES256: { key: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
      ES384: { key: { name: "ECDSA", namedCurve: "P-384" }, sign: { name: "ECDSA", hash: "SHA-384" } },
    };
    const alg = algs[header.alg];
    if (!alg) return fail(`attestation: unsupported algorithm ${header.alg}`);
    if (!Array.isArray(header.x5c) || typeof header.x5c[0] !== "string") return fail("attestation: its header carries no x5c certificate");
    if (!subtle) return fail("attestation: no WebCrypto in this runtime to check its signature (Node.js 18 or later)");
    const tlv = (bytes: Uint8Array, at: number) => {
      let length = bytes[at + 1]!;
      let start = at + 2;
      if (length & 0x80) {
        const n = length & 0x7f;
        length = 0;
        for (let k = 0; k < n; k++) length = length * 256 + bytes[start + k]!;
        start += n;
      }
      return { tag: bytes[at]!, start, end: start + length };
    };
    let valid = false;
    try {
      const cert = Uint8Array.from(atob(header.x5c[0]), (c) => c.charCodeAt(0));
      const tbs = tlv(cert, tlv(cert, 0).start);
      let at = tbs.start;
      if (tlv(cert, at).tag === 0xa0) at = tlv(cert, at).end; // [0] version
      for (let k = 0; k < 5; k++) at = tlv(cert, at).end; // serial, signature algorithm, issuer, validity, subject
      const spki = cert.slice(at, tlv(cert, at).end);
      const key = await subtle.importKey("spki", spki, alg.key, false, ["verify"]);
      valid = await subtle.verify(alg.sign, key, b64u(parts[2]!), new TextEncoder().encode(`${parts[0]}.${parts[1]}`));
    } catch {
      valid = false;
    }
    if (!valid) return fail("attestation: its signature does not verify against the key of its x5c certificate");
    checks.push(`attestation: ${header.alg} signature verifies against its x5c certificate`);
  }
  return { verified: true as const, checks };
}
