/**
 * The evidence bundle's verifier. This one function is written out as the body of the bundle's
 * standalone `verify.mjs` (its source text, via Function.prototype.toString), so it must stay
 * self-contained: plain JavaScript with no imports and nothing from outside its own body. The
 * suite runs it in the Workers runtime on real bundles; `node verify.mjs` runs the very same text.
 *
 * It trusts nothing the bundle says about itself: the only outside fact is `sealSha256`, the SHA-256
 * fingerprints of the seal certificates the auditor pins (`--seal-sha256`, from the service's
 * `GET /api/v2/seal-certificates` or the organization's own records). Checks, in order:
 *
 * 1. `manifest.jws` (a compact JWS over the exact bytes of `manifest.json`): its x5c leaf is a pinned
 *    certificate and its key verifies the signature; the manifest names that certificate.
 * 2. Every file the manifest lists has the SHA-256 it states.
 * 3. The document's SHA-256 against the manifest, the compliance certificate and the chain's vault entry.
 * 4. The audit chain from the genesis hash (64 zeros) to the manifest's head and length.
 * 5. The control history against the chain; the control attestation's statements and its signature
 *    by a pinned certificate.
 * 6. The PDF's seal (the ETSI.CAdES.detached signature): made by a pinned certificate (its ESS
 *    signing-certificate-v2 hash), its messageDigest the SHA-256 of its byte ranges, its signature
 *    valid over the signed attributes. A paper record (source `upload`) carries no seal of the service.
 * 7. `manifest.tsr`, when present: an RFC 3161 token whose message imprint is the SHA-256 of the
 *    JWS signature (the TSA's own signature is for `openssl ts -verify`).
 * 8. `evidence-record.ers`, when the manifest lists one or the chain records one: an RFC 4998 evidence
 *    record whose SHA-256 is the chain's newest `vault.evidence_record` entry's, archive timestamp 1
 *    over the document's SHA-256 and each next one over the previous token (TSA signatures: openssl).
 *
 * `files` maps each bundle member's name to its bytes; `sha256Hex` hashes bytes to lower-case hex;
 * `subtle` is WebCrypto's (the runtime's unless given). Returns what it checked (and notes), or the
 * first thing that does not match.
 */
export async function verifyEvidence(
  files: Record<string, Uint8Array>,
  sha256Hex: (bytes: Uint8Array) => Promise<string> | string,
  options: { sealSha256?: string[]; subtle?: SubtleCrypto } = {},
): Promise<{ verified: true; checks: string[]; notes: string[] } | { verified: false; checks: string[]; notes: string[]; broken: string }> {
  const checks: string[] = [];
  const notes: string[] = [];
  const subtle: SubtleCrypto | undefined = options.subtle ?? (globalThis as { crypto?: { subtle: SubtleCrypto } }).crypto?.subtle;
  const GENESIS = "0".repeat(64);
  const text = (name: string) => new TextDecoder().decode(files[name]);
  const fail = (broken: string) => ({ verified: false as const, checks, notes, broken });
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
  const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const unhex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
  const b64u = (part: string) => {
    const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  };
  const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

  // --- Minimal DER reading: a node is { tag, at (header), start (content), end } ---
  type Node = { tag: number; at: number; start: number; end: number };
  const tlv = (bytes: Uint8Array, at: number): Node => {
    if (at + 2 > bytes.length) throw new Error("truncated DER");
    let length = bytes[at + 1]!;
    let start = at + 2;
    if (length & 0x80) {
      const n = length & 0x7f;
      length = 0;
      for (let k = 0; k < n; k++) length = length * 256 + bytes[start + k]!;
      start += n;
    }
    if (start + length > bytes.length) throw new Error("truncated DER");
    return { tag: bytes[at]!, at, start, end: start + length };
  };
  const kids = (bytes: Uint8Array, node: Node): Node[] => {
    const out: Node[] = [];
    for (let p = node.start; p < node.end; ) {
      const child = tlv(bytes, p);
      out.push(child);
      p = child.end;
    }
    return out;
  };
  const content = (bytes: Uint8Array, node: Node) => bytes.slice(node.start, node.end);
  const OID = {
    rsa: "2a864886f70d010101",
    ec: "2a8648ce3d0201",
    p256: "2a8648ce3d030107",
    p384: "2b81040022",
    sha256: "608648016503040201",
    sha384: "608648016503040202",
    sha512: "608648016503040203",
    data: "2a864886f70d010701",
    tstInfo: "2a864886f70d0109100104",
    messageDigest: "2a864886f70d010904",
    signingCertificateV2: "2a864886f70d010910022f",
  };
  const HASHES: Record<string, string> = { [OID.sha256]: "SHA-256", [OID.sha384]: "SHA-384", [OID.sha512]: "SHA-512" };
  /** A certificate's SubjectPublicKeyInfo and what kind of key it holds. */
  const publicKeyOf = (cert: Uint8Array) => {
    const tbs = kids(cert, tlv(cert, 0))[0]!;
    const fields = kids(cert, tbs);
    const spki = fields[fields[0]!.tag === 0xa0 ? 6 : 5]!; // after [0] version, serial, signature algorithm, issuer, validity, subject
    const algorithm = kids(cert, kids(cert, spki)[0]!);
    const kind = hex(content(cert, algorithm[0]!));
    const curve = algorithm[1] && algorithm[1].tag === 0x06 ? hex(content(cert, algorithm[1])) : null;
    return { spki: cert.slice(spki.at, spki.end), kind, curve };
  };
  /** Does `signature` (raw r||s for ECDSA when `derEcdsa` is false) over `data` verify with the certificate's key? */
  const verifiedBy = async (cert: Uint8Array, hash: string, signature: Uint8Array, data: Uint8Array, derEcdsa: boolean): Promise<boolean> => {
    if (!subtle) throw new Error("no WebCrypto in this runtime (Node.js 18 or later is needed)");
    try {
      const key = publicKeyOf(cert);
      if (key.kind === OID.rsa) {
        const imported = await subtle.importKey("spki", key.spki, { name: "RSASSA-PKCS1-v1_5", hash }, false, ["verify"]);
        return await subtle.verify({ name: "RSASSA-PKCS1-v1_5" }, imported, signature, data);
      }
      if (key.kind !== OID.ec) return false;
      const namedCurve = key.curve === OID.p256 ? "P-256" : key.curve === OID.p384 ? "P-384" : null;
      if (!namedCurve) return false;
      let raw = signature;
      if (derEcdsa) {
        // CMS carries ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }; WebCrypto wants r || s
        const size = namedCurve === "P-256" ? 32 : 48;
        const [r, s] = kids(signature, tlv(signature, 0)).map((n) => {
          let v = content(signature, n);
          while (v.length > size && v[0] === 0) v = v.slice(1);
          const padded = new Uint8Array(size);
          padded.set(v, size - v.length);
          return padded;
        });
        raw = new Uint8Array(2 * size);
        raw.set(r!, 0);
        raw.set(s!, size);
      }
      const imported = await subtle.importKey("spki", key.spki, { name: "ECDSA", namedCurve }, false, ["verify"]);
      return await subtle.verify({ name: "ECDSA", hash }, imported, raw, data);
    } catch {
      return false;
    }
  };
  /** A compact JWS: header, payload, signature and whether its x5c leaf verifies it. */
  const readJws = async (name: string) => {
    const parts = text(name).trim().split(".");
    let header: any;
    if (parts.length !== 3) return null;
    try {
      header = JSON.parse(new TextDecoder().decode(b64u(parts[0]!)));
    } catch {
      return null;
    }
    const hashOf: Record<string, string> = { RS256: "SHA-256", ES256: "SHA-256", ES384: "SHA-384" };
    const leaf = Array.isArray(header.x5c) && typeof header.x5c[0] === "string" ? Uint8Array.from(atob(header.x5c[0]), (c) => c.charCodeAt(0)) : null;
    const leafSha256 = leaf ? await sha256Hex(leaf) : null;
    const hash = hashOf[header.alg];
    const valid = !!leaf && !!hash && (await verifiedBy(leaf, hash, b64u(parts[2]!), new TextEncoder().encode(`${parts[0]}.${parts[1]}`), false));
    return { header, payload: b64u(parts[1]!), signature: b64u(parts[2]!), leafSha256, valid };
  };

  // 0. The pinned seal certificates: the only thing taken from outside the bundle.
  const pins = (options.sealSha256 ?? []).map((p) => String(p).replace(/[:\s]/g, "").toLowerCase());
  if (pins.length === 0) return fail("no seal certificate pinned: give the SHA-256 fingerprint of the service's seal certificate (--seal-sha256 <hex>, published at GET /api/v2/seal-certificates); without it anyone could have made this bundle");
  const badPin = pins.find((p) => !/^[0-9a-f]{64}$/.test(p));
  if (badPin !== undefined) return fail(`--seal-sha256 ${badPin} is not a SHA-256 fingerprint (64 hex digits, colons allowed)`);
  const pinned = (sha: string | null) => sha !== null && pins.includes(sha);

  // 1. The manifest's signature, by a pinned certificate, over the exact bytes of manifest.json.
  if (!files["manifest.json"]) return fail("manifest.json is missing from the bundle");
  if (!files["manifest.jws"]) return fail("manifest: manifest.jws is missing: the manifest is unsigned, nothing in this bundle can be trusted");
  const signedManifest = await readJws("manifest.jws");
  if (!signedManifest) return fail("manifest: manifest.jws is not a readable compact JWS");
  if (!signedManifest.leafSha256) return fail("manifest: manifest.jws carries no x5c certificate");
  if (!pinned(signedManifest.leafSha256)) {
    return fail(`manifest: manifest.jws is signed by certificate SHA-256 ${signedManifest.leafSha256}, not a pinned seal certificate (${pins.join(", ")})`);
  }
  if (!signedManifest.valid) return fail(`manifest: manifest.jws's signature does not verify against its pinned certificate ${signedManifest.leafSha256} (the JWS was altered)`);
  if (!sameBytes(signedManifest.payload, files["manifest.json"]!)) return fail("manifest: manifest.json is not the manifest manifest.jws signed (manifest.json was rewritten)");
  checks.push(`manifest: manifest.jws (${signedManifest.header.alg}) signs manifest.json byte for byte, by the pinned seal certificate ${signedManifest.leafSha256}`);

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
  if (manifest.seal_certificate?.sha256 !== signedManifest.leafSha256) {
    return fail(`manifest: it names seal certificate ${manifest.seal_certificate?.sha256}, but manifest.jws is signed by ${signedManifest.leafSha256}`);
  }

  // 2. Every file the manifest lists.
  const listed: any[] = Array.isArray(manifest.files) ? manifest.files : [];
  if (listed.length === 0) return fail("manifest: it lists no files");
  for (const file of listed) {
    if (!files[file.name]) return fail(`file ${file.name}: listed in the manifest but missing from the bundle`);
    const sha = await sha256Hex(files[file.name]!);
    if (sha !== file.sha256) return fail(`file ${file.name}: SHA-256 ${sha}, but the signed manifest states ${file.sha256} (the file was altered or replaced)`);
  }
  checks.push(`files: ${listed.length} files match the SHA-256 the signed manifest states (${listed.map((f) => f.name).join(", ")})`);
  const covered = new Set(["manifest.json", "manifest.jws", "manifest.tsr", ...listed.map((f) => f.name)]);
  const extra = Object.keys(files).filter((name) => !covered.has(name));
  if (extra.length > 0) notes.push(`not covered by the signed manifest, so ignored: ${extra.join(", ")}`);
  const isListed = (name: string) => listed.some((f) => f.name === name);

  // 3. The document.
  const documentName = "document.pdf";
  if (!isListed(documentName)) return fail(`manifest: it does not list ${documentName}`);
  const document = files[documentName]!;
  const documentHash = await sha256Hex(document);
  if (documentHash !== manifest.document?.sha256) {
    return fail(`document: ${documentName} has SHA-256 ${documentHash}, but the vault recorded ${manifest.document?.sha256} (the PDF was altered)`);
  }
  checks.push(`document ${documentName}: SHA-256 ${documentHash} matches the hash recorded at vaulting`);
  if (certificate?.document_integrity?.document_hash !== documentHash) {
    return fail(`certificate: certificate.json states document hash ${certificate?.document_integrity?.document_hash}, not the document's ${documentHash}`);
  }
  checks.push("certificate.json states the same document hash");

  // 4. The audit chain, from the genesis hash (64 zeros, whatever the file says) to the signed head.
  const entries: any[] = Array.isArray(chain.entries) ? chain.entries : [];
  let prev = GENESIS;
  for (let i = 0; i < entries.length; i++) {
    const { hash, ...entry } = entries[i];
    const where = `audit entry seq ${entry.seq} (${entry.action}, id ${entry.id})`;
    if (entry.seq !== i + 1) return fail(`${where}: expected sequence number ${i + 1} (an entry was removed or reordered)`);
    if (entry.prev_hash !== prev) return fail(`${where}: previous hash ${entry.prev_hash} does not match the hash of entry ${i} (${prev})`);
    const recomputed = await sha256Hex(new TextEncoder().encode(canonical(entry)));
    if (recomputed !== hash) return fail(`${where}: content hashes to ${recomputed}, not the recorded ${hash} (the entry was altered)`);
    prev = hash;
  }
  if (entries.length !== manifest.audit_chain?.entries || prev !== manifest.audit_chain?.head_hash) {
    return fail(`audit chain: ${entries.length} entries from the genesis hash ending in ${prev}, but the signed manifest states ${manifest.audit_chain?.entries} ending in ${manifest.audit_chain?.head_hash}`);
  }
  checks.push(`audit chain: ${entries.length} entries verified from the genesis hash to head ${prev}, as the signed manifest states`);
  const vaulted = entries.find((e) => e.action === "envelope.vault");
  if (!vaulted || vaulted.data?.hash !== documentHash) return fail(`audit chain: no envelope.vault entry records the document hash ${documentHash}`);
  checks.push(`audit entry seq ${vaulted.seq} (envelope.vault) records the document hash`);
  if (manifest.vault_id !== undefined && vaulted.data?.vault_id !== undefined && vaulted.data.vault_id !== manifest.vault_id) {
    return fail(`audit chain: the envelope.vault entry names vault record ${vaulted.data.vault_id}, the signed manifest ${manifest.vault_id}`);
  }

  // 5a. The control history is the chain's control entries (DESIGN.md 9), in order.
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
  if (manifest.control_history) {
    try {
      const historyFile = json(manifest.control_history.file ?? "control-history.json");
      history = Array.isArray(historyFile?.data) ? historyFile.data : [];
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

  // 5b. The control attestation: the service's signed statement of control as of the chain head.
  const attestationFile = manifest.attestation?.file ?? null;
  if (attestationFile) {
    if (!files[attestationFile]) return fail(`${attestationFile} is missing from the bundle`);
    const attestation = await readJws(attestationFile);
    let payload: any;
    try {
      payload = attestation ? JSON.parse(new TextDecoder().decode(attestation.payload)) : null;
    } catch {
      payload = null;
    }
    if (!attestation || !payload) return fail(`attestation: ${attestationFile} is not a readable compact JWS`);
    if (payload.document_hash !== documentHash) return fail(`attestation: it states document hash ${payload.document_hash}, not the document's ${documentHash}`);
    if (payload.vault_id !== manifest.vault_id) return fail(`attestation: it names vault record ${payload.vault_id}, not the bundle's ${manifest.vault_id}`);
    if (payload.chain_head !== prev) return fail(`attestation: it covers chain head ${payload.chain_head}, not the audit chain's ${prev}`);
    if (payload.history_length !== history.length) return fail(`attestation: it counts ${payload.history_length} control entries, the history has ${history.length}`);
    // the controller the chain leads to: the newest control entry's, else the vaulting organization
    const lastControl = controlEntries[controlEntries.length - 1];
    const controller = str(lastControl?.data?.controller_org_id) ?? vaulted.org_id;
    if (payload.controller?.org_id !== controller) return fail(`attestation: it names controller ${payload.controller?.org_id}, the audit chain leads to ${controller}`);
    checks.push(`attestation: states the document hash, the chain head, ${payload.history_length} control entries and controller ${controller}`);
    if (!attestation.valid) return fail("attestation: its signature does not verify against the key of its x5c certificate");
    if (!pinned(attestation.leafSha256)) return fail(`attestation: it is signed by certificate SHA-256 ${attestation.leafSha256}, not a pinned seal certificate`);
    checks.push(`attestation: ${attestation.header.alg} signature verifies against its x5c certificate, a pinned seal certificate`);
  }

  // 6. The PDF's seal: the CAdES detached signature made by a pinned certificate.
  if (manifest.document?.source === "upload") {
    notes.push("document.pdf carries no seal of the service: a paper record, vaulted exactly as uploaded; its integrity rests on the signed manifest and the audit chain");
  } else {
    const pdfText = new TextDecoder("latin1").decode(document);
    const seals: { range: number[]; cms: Uint8Array }[] = [];
    for (const m of pdfText.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
      const range = m.slice(1, 5).map(Number);
      if (range[0] !== 0 || range[1]! + 2 > range[2]! || range[2]! + range[3]! > document.length) continue;
      const der = unhex(pdfText.slice(range[1]! + 1, range[2]! - 1));
      try {
        seals.push({ range, cms: der.slice(0, tlv(der, 0).end) });
      } catch {
        // not a readable signature value
      }
    }
    let found: string | null = null;
    const makers: string[] = [];
    for (const seal of seals) {
      let signedAttrs: Node;
      let signerInfo: Node[];
      let certs: Uint8Array[];
      const cms = seal.cms;
      try {
        const sd = kids(cms, kids(cms, kids(cms, tlv(cms, 0))[1]!)[0]!); // ContentInfo > [0] > SignedData's fields
        if (hex(content(cms, kids(cms, sd[2]!)[0]!)) !== OID.data) continue; // a document timestamp (RFC 3161), not a seal
        const certSet = sd.find((n) => n.tag === 0xa0);
        certs = certSet ? kids(cms, certSet).map((n) => cms.slice(n.at, n.end)) : [];
        signerInfo = kids(cms, kids(cms, sd[sd.length - 1]!)[0]!);
        signedAttrs = signerInfo.find((n) => n.tag === 0xa0)!;
        if (!signedAttrs) continue;
      } catch {
        continue;
      }
      // the signed attributes: messageDigest and the ESS signing-certificate-v2's certificate hash
      let messageDigest: string | null = null;
      let certHash: string | null = null;
      for (const attr of kids(cms, signedAttrs)) {
        const [type, values] = kids(cms, attr);
        const oid = hex(content(cms, type!));
        const value = kids(cms, values!)[0]!;
        if (oid === OID.messageDigest) messageDigest = hex(content(cms, value));
        if (oid === OID.signingCertificateV2) {
          const certId = kids(cms, kids(cms, kids(cms, value)[0]!)[0]!); // SigningCertificateV2 > certs > first ESSCertIDv2
          const hashNode = certId.find((n) => n.tag === 0x04);
          certHash = hashNode ? hex(content(cms, hashNode)) : null;
        }
      }
      makers.push(certHash ?? "(no signing-certificate-v2 attribute)");
      if (!pinned(certHash)) continue;
      const [a, b, c, d] = seal.range as [number, number, number, number];
      const where = `document: the seal over bytes 0-${b} and ${c}-${c + d}`;
      const signedBytes = new Uint8Array(b + d);
      signedBytes.set(document.subarray(a, a + b), 0);
      signedBytes.set(document.subarray(c, c + d), b);
      const digestAlgorithm = HASHES[hex(content(cms, kids(cms, signerInfo[2]!)[0]!))];
      if (digestAlgorithm !== "SHA-256") return fail(`${where}: digest algorithm ${digestAlgorithm ?? "unknown"} (this verifier reads SHA-256 seals)`);
      const rangeHash = await sha256Hex(signedBytes);
      if (messageDigest !== rangeHash) return fail(`${where}: its messageDigest ${messageDigest} is not the SHA-256 of its byte ranges ${rangeHash} (the sealed bytes were changed)`);
      let signer: Uint8Array | null = null;
      for (const der of certs) if ((await sha256Hex(der)) === certHash) signer = der;
      if (!signer) return fail(`${where}: it names certificate ${certHash} but does not carry it`);
      const attrs = cms.slice(signedAttrs.at, signedAttrs.end);
      attrs[0] = 0x31; // signed over as a SET OF, not the [0] IMPLICIT it is stored as (RFC 5652 5.4)
      const signatureNode = signerInfo.find((n, i) => i > 3 && n.tag === 0x04)!;
      if (!(await verifiedBy(signer, "SHA-256", content(cms, signatureNode), attrs, true))) {
        return fail(`${where}: its signature does not verify over its signed attributes with the pinned certificate ${certHash}`);
      }
      const whole = c + d === document.length;
      checks.push(`document: sealed by the pinned certificate ${certHash}: messageDigest = SHA-256 of the byte ranges, signature valid over the signed attributes${whole ? ", the whole document signed" : `; ${document.length - c - d} bytes of later incremental updates follow it (long-term validation data, a document timestamp)`}`);
      found = certHash;
      break;
    }
    if (!found) {
      if (seals.length === 0) return fail("document: document.pdf carries no seal, but the manifest says it was signed through the service (source signed)");
      return fail(`document: its seal was made by certificate ${makers.join(", ")}, not a pinned seal certificate (${pins.join(", ")})`);
    }
  }

  // 7. The timestamp over the manifest's signature, if any; one the signed manifest names must be there.
  const namedTimestamp = manifest.signature?.timestamp;
  if (typeof namedTimestamp === "string" && !files[namedTimestamp]) {
    return fail(`timestamp: the signed manifest names ${namedTimestamp}, a timestamp over its signature, but the bundle does not carry it`);
  }
  if (files["manifest.tsr"]) {
    const token = files["manifest.tsr"]!;
    let imprint: string | null = null;
    let genTime: string | null = null;
    try {
      const sd = kids(token, kids(token, kids(token, tlv(token, 0))[1]!)[0]!); // ContentInfo > [0] > SignedData's fields
      const eContent = kids(token, sd[2]!);
      if (hex(content(token, eContent[0]!)) !== OID.tstInfo) throw new Error("not a TSTInfo");
      const octets = kids(token, eContent[1]!)[0]!;
      const info = content(token, octets);
      const fields = kids(info, tlv(info, 0));
      imprint = hex(content(info, kids(info, fields[2]!)[1]!));
      genTime = new TextDecoder().decode(content(info, fields[4]!));
    } catch {
      return fail("timestamp: manifest.tsr is not a readable RFC 3161 timestamp token");
    }
    const expected = await sha256Hex(signedManifest.signature);
    if (imprint !== expected) return fail(`timestamp: manifest.tsr's message imprint ${imprint} is not the SHA-256 of manifest.jws's signature ${expected}`);
    checks.push(`timestamp: manifest.tsr (time ${genTime}) covers manifest.jws's signature`);
    notes.push(`the TSA's own signature on manifest.tsr is not checked here; with the TSA's CA certificate: openssl ts -verify -in manifest.tsr -token_in -digest ${expected} -CAfile tsa-ca.pem`);
  }

  // 8. The RFC 4998 evidence record, when the signed manifest lists one: the record the audit chain
  // names, archive timestamp 1 over the document's SHA-256, each next one over the previous token.
  const recordEntry = entries.findLast((e: any) => e?.action === "vault.evidence_record");
  if (manifest.evidence_record || recordEntry) {
    const name = "evidence-record.ers";
    if (!isListed(name)) {
      return fail(`evidence record: ${manifest.evidence_record ? "the manifest describes one" : "the audit chain records one"} but the signed manifest does not list ${name}`);
    }
    const er = files[name]!;
    const erHash = await sha256Hex(er);
    if (recordEntry && recordEntry.data?.sha256 !== erHash) {
      return fail(`evidence record: ${name} has SHA-256 ${erHash}, but the audit chain's newest vault.evidence_record entry states ${recordEntry.data?.sha256}`);
    }
    const tokens: { der: Uint8Array; imprint: string; genTime: string }[] = [];
    try {
      const top = kids(er, tlv(er, 0));
      if (tlv(er, 0).end !== er.length) throw new Error("trailing bytes");
      if (hex(content(er, top[0]!)) !== "01") throw new Error("version is not 1");
      if (!kids(er, top[1]!).some((alg) => hex(content(er, kids(er, alg)[0]!)) === OID.sha256)) throw new Error("SHA-256 is not among its digest algorithms");
      const sequence = top.slice(2).filter((n) => n.tag === 0x30);
      const chains = sequence.length === 1 ? kids(er, sequence[0]!) : [];
      if (chains.length !== 1) throw new Error("it does not hold exactly one archive timestamp chain");
      for (const ats of kids(er, chains[0]!)) {
        const parts = kids(er, ats);
        if (parts.some((n) => n.tag === 0xa2)) throw new Error("an archive timestamp carries a reduced hash tree");
        const ts = parts.at(-1)!;
        const token = er.slice(ts.at, ts.end);
        const sd = kids(token, kids(token, kids(token, tlv(token, 0))[1]!)[0]!);
        const eContent = kids(token, sd[2]!);
        if (hex(content(token, eContent[0]!)) !== OID.tstInfo) throw new Error("a timestamp holds no TSTInfo");
        const info = content(token, kids(token, eContent[1]!)[0]!);
        const fields = kids(info, tlv(info, 0));
        const mi = kids(info, fields[2]!);
        if (hex(content(info, kids(info, mi[0]!)[0]!)) !== OID.sha256) throw new Error("a timestamp's imprint is not a SHA-256");
        tokens.push({ der: token, imprint: hex(content(info, mi[1]!)), genTime: new TextDecoder().decode(content(info, fields[4]!)) });
      }
      if (tokens.length === 0) throw new Error("it holds no archive timestamp");
    } catch (err) {
      return fail(`evidence record: ${name} is not a readable RFC 4998 evidence record (${(err as Error).message})`);
    }
    if (tokens[0]!.imprint !== documentHash) {
      return fail(`evidence record: archive timestamp 1 timestamps ${tokens[0]!.imprint}, not the document's SHA-256 ${documentHash}`);
    }
    for (let i = 1; i < tokens.length; i++) {
      const link = await sha256Hex(tokens[i - 1]!.der);
      if (tokens[i]!.imprint !== link) return fail(`evidence record: archive timestamp ${i + 1} does not cover archive timestamp ${i} (its imprint ${tokens[i]!.imprint} is not that token's SHA-256 ${link})`);
    }
    checks.push(`evidence record: ${tokens.length} archive timestamp(s) (${tokens.map((t) => t.genTime).join(", ")}), the first over the document's SHA-256, each next over the one before`);
    notes.push(`the TSA signatures in ${name} are not checked here: cut out each token and run openssl ts -verify (the first with -digest ${documentHash}, each next with -data <previous token>) -CAfile tsa-ca.pem (docs/evidence.md)`);
  }
  return { verified: true as const, checks, notes };
}
