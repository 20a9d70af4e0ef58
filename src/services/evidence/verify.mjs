// Offline verifier of an evidence bundle. Run it in the unzipped folder:
//   node verify.mjs --seal-sha256 <hex> [--seal-sha256 <hex> ...] [--tsa-sha256 <hex> ...] [folder]
// An organization's audit export (GET /org/audit-export), as a folder or the ZIP itself:
//   node verify.mjs --audit-export <folder or zip> --seal-sha256 <hex> [--tsa-sha256 <hex> ...]
// checks manifest.jws as below, entries.ndjson's SHA-256, every entry's hash and each chain's links
// from its first entry (whose prev_hash the manifest states) to its last, the counts, and manifest.tsr.
// Check this script first: its SHA-256 is published at GET /api/v2/evidence/verifier and in the
// service's README; `sha256sum verify.mjs` must print it.
// Needs Node.js 18 or later; nothing else, no network. It trusts nothing the bundle says of itself:
// the seal certificate's SHA-256 comes from you (the service publishes its seal certificates at
// GET /api/v2/seal-certificates; give a retired one too for a document sealed before a renewal).
// It checks that manifest.jws is signed by a pinned certificate over manifest.json's exact bytes,
// every file against the signed manifest, the document hash against the certificate and the audit
// chain, the chain from the genesis hash to the signed head, the control history and attestation,
// the control-key history (every move by an organization holding a key signed by one of its keys),
// the PDF's seal (made by a pinned certificate, its digest and signature), and every RFC 3161 token:
// its imprint, the TSA's signature and its certificate path, pinned by --tsa-sha256 (the TSA's
// certificate or its CA's). Prints the bundle's production time and the attestation's time, then
// "verified" (exit 0), or what does not match (exit 1); without a pinned seal certificate, exit 2;
// verified but carrying a timestamp whose TSA was not pinned: "timestamp not pinned" (exit 3).
//
// This file is the verifier's one source: the service serves these exact bytes and packs them into
// every bundle, and its test suite imports `verifyEvidence` from it and runs it on real bundles.
import { createHash, webcrypto } from "node:crypto";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";

/**
 * Verifies the bundle's members (`files`, each name to its bytes); what `node verify.mjs` runs.
 *
 * It trusts nothing the bundle says about itself: the outside facts are `sealSha256`, the SHA-256
 * fingerprints of the seal certificates the auditor pins (`--seal-sha256`, from the service's
 * `GET /api/v2/seal-certificates` or the organization's own records), and `tsaSha256`, those of the
 * timestamp authority's certificates (`--tsa-sha256`). Checks, in order:
 *
 * 1. `manifest.jws` (a compact JWS over the exact bytes of `manifest.json`): its x5c leaf is a pinned
 *    certificate and its key verifies the signature; the manifest names that certificate.
 * 2. Every file the manifest lists has the SHA-256 it states.
 * 3. The document: the controller's bundle carries the authoritative copy (`document.pdf`, its SHA-256
 *    the one recorded at vaulting); every other party's carries the marked copy (`copy.pdf`) and the
 *    authoritative copy's SHA-256, against the compliance certificate and the chain's vault entry.
 * 4. The audit chain from the genesis hash (64 zeros) to the manifest's head and length.
 * 5. The control history against the chain; the control-key history (`key-history.json`): every move
 *    by an organization that held a control key at the time carries a valid Control-Signature by one
 *    of the keys it held then, made for this record, action, transfer (and `control_seq`); operator
 *    recoveries are named; the control attestation's statements and its signature by a pinned certificate.
 * 6. The PDF's seal (the ETSI.CAdES.detached signature): made by a pinned certificate (its ESS
 *    signing-certificate-v2 hash), its messageDigest the SHA-256 of its byte ranges, its signature
 *    valid over the signed attributes. On a copy, the service's seal of the copy, whose signed bytes
 *    name the authoritative copy's SHA-256. A paper record (source `upload`) carries no seal.
 * 7. `manifest.tsr`, when present: an RFC 3161 token whose message imprint is the SHA-256 of the
 *    JWS signature, the TSA's signature over it valid, its certificate path signed link by link, and
 *    (with `tsaSha256`) a pinned TSA certificate on that path.
 * 8. `evidence-record.ers`, when the manifest lists one or the chain records one: an RFC 4998 evidence
 *    record holding the stored record the chain names (archive timestamp 1 over the document's
 *    SHA-256, each next over the previous token) and, made with the bundle, an archive timestamp whose
 *    reduced hash tree covers every other member the manifest lists; every token checked as in 7.
 *
 * `files` maps each bundle member's name to its bytes; `sha256Hex` hashes bytes to lower-case hex;
 * `subtle` is WebCrypto's (the runtime's unless given). Returns what it checked (and notes), the
 * bundle's production time, the attestation's time and whether its timestamps were pinned
 * (`timestamps`: none, pinned, unpinned: verify.mjs exits 3 on unpinned), or the first thing that
 * does not match.
 */
export async function verifyEvidence(files, sha256Hex, options = {}) {
  const checks = [];
  const notes = [];
  let producedAt = null;
  let attestedAt = null;
  const subtle = options.subtle ?? (globalThis).crypto?.subtle;
  const GENESIS = "0".repeat(64);
  const text = (name) => new TextDecoder().decode(files[name]);
  const fail = (broken) => ({ verified: false, checks, notes, broken, producedAt, attestedAt });
  const json = (name) => {
    if (!files[name]) throw new Error(`${name} is missing from the bundle`);
    try {
      return JSON.parse(text(name));
    } catch {
      throw new Error(`${name} is not valid JSON`);
    }
  };
  // Canonical JSON as the service hashes audit entries: keys sorted, no whitespace, undefined dropped.
  const canonical = (value) => {
    if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
    if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
    const obj = value;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
      .join(",")}}`;
  };
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const unhex = (h) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
  const b64u = (part) => {
    const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  };
  const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

  // --- Minimal DER reading: a node is { tag, at (header), start (content), end } ---
  const tlv = (bytes, at) => {
    if (at + 2 > bytes.length) throw new Error("truncated DER");
    let length = bytes[at + 1];
    let start = at + 2;
    if (length & 0x80) {
      const n = length & 0x7f;
      length = 0;
      for (let k = 0; k < n; k++) length = length * 256 + bytes[start + k];
      start += n;
    }
    if (start + length > bytes.length) throw new Error("truncated DER");
    return { tag: bytes[at], at, start, end: start + length };
  };
  const kids = (bytes, node) => {
    const out = [];
    for (let p = node.start; p < node.end; ) {
      const child = tlv(bytes, p);
      out.push(child);
      p = child.end;
    }
    return out;
  };
  const content = (bytes, node) => bytes.slice(node.start, node.end);
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
  const HASHES = { [OID.sha256]: "SHA-256", [OID.sha384]: "SHA-384", [OID.sha512]: "SHA-512" };
  /** A certificate's SubjectPublicKeyInfo and what kind of key it holds. */
  const publicKeyOf = (cert) => {
    const tbs = kids(cert, tlv(cert, 0))[0];
    const fields = kids(cert, tbs);
    const spki = fields[fields[0].tag === 0xa0 ? 6 : 5]; // after [0] version, serial, signature algorithm, issuer, validity, subject
    const algorithm = kids(cert, kids(cert, spki)[0]);
    const kind = hex(content(cert, algorithm[0]));
    const curve = algorithm[1] && algorithm[1].tag === 0x06 ? hex(content(cert, algorithm[1])) : null;
    return { spki: cert.slice(spki.at, spki.end), kind, curve };
  };
  /** Does `signature` (raw r||s for ECDSA when `derEcdsa` is false) over `data` verify with the certificate's key? */
  const verifiedBy = async (cert, hash, signature, data, derEcdsa) => {
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
        raw.set(r, 0);
        raw.set(s, size);
      }
      const imported = await subtle.importKey("spki", key.spki, { name: "ECDSA", namedCurve }, false, ["verify"]);
      return await subtle.verify({ name: "ECDSA", hash }, imported, raw, data);
    } catch {
      return false;
    }
  };
  /** A compact JWS: header, payload, signature and whether its x5c leaf verifies it. */
  const readJws = async (name) => {
    const parts = text(name).trim().split(".");
    let header;
    if (parts.length !== 3) return null;
    try {
      header = JSON.parse(new TextDecoder().decode(b64u(parts[0])));
    } catch {
      return null;
    }
    const hashOf = { RS256: "SHA-256", ES256: "SHA-256", ES384: "SHA-384" };
    const leaf = Array.isArray(header.x5c) && typeof header.x5c[0] === "string" ? Uint8Array.from(atob(header.x5c[0]), (c) => c.charCodeAt(0)) : null;
    const leafSha256 = leaf ? await sha256Hex(leaf) : null;
    const hash = hashOf[header.alg];
    const valid = !!leaf && !!hash && (await verifiedBy(leaf, hash, b64u(parts[2]), new TextEncoder().encode(`${parts[0]}.${parts[1]}`), false));
    return { header, payload: b64u(parts[1]), signature: b64u(parts[2]), leafSha256, valid };
  };

  // 0. The pinned seal certificates: the only thing taken from outside the bundle.
  const pins = (options.sealSha256 ?? []).map((p) => String(p).replace(/[:\s]/g, "").toLowerCase());
  if (pins.length === 0) return fail("no seal certificate pinned: give the SHA-256 fingerprint of the service's seal certificate (--seal-sha256 <hex>, published at GET /api/v2/seal-certificates); without it anyone could have made this bundle");
  const badPin = pins.find((p) => !/^[0-9a-f]{64}$/.test(p));
  if (badPin !== undefined) return fail(`--seal-sha256 ${badPin} is not a SHA-256 fingerprint (64 hex digits, colons allowed)`);
  const pinned = (sha) => sha !== null && pins.includes(sha);

  // RFC 3161 tokens: the TSA's signature over its TSTInfo (messageDigest, signed attributes), the
  // certificate path the token carries (each certificate's signature by the next), and whether a
  // pinned TSA certificate (`tsaSha256`) is on that path.
  const tsaPins = (options.tsaSha256 ?? []).map((p) => String(p).replace(/[:\s]/g, "").toLowerCase()).filter(Boolean);
  const badTsaPin = tsaPins.find((p) => !/^[0-9a-f]{64}$/.test(p));
  if (badTsaPin !== undefined) return fail(`--tsa-sha256 ${badTsaPin} is not a SHA-256 fingerprint (64 hex digits, colons allowed)`);
  const SIG_HASH = {
    "2a864886f70d01010b": "SHA-256",
    "2a864886f70d01010c": "SHA-384",
    "2a864886f70d01010d": "SHA-512",
    "2a8648ce3d040302": "SHA-256",
    "2a8648ce3d040303": "SHA-384",
    "2a8648ce3d040304": "SHA-512",
  };
  const certParts = (cert) => {
    const [tbs, alg, sig] = kids(cert, tlv(cert, 0));
    const fields = kids(cert, tbs);
    const o = fields[0].tag === 0xa0 ? 1 : 0;
    const name = (n) => cert.slice(n.at, n.end);
    return { tbs: cert.slice(tbs.at, tbs.end), sigHash: SIG_HASH[hex(content(cert, kids(cert, alg)[0]))], signature: content(cert, sig).slice(1), issuer: name(fields[o + 2]), subject: name(fields[o + 4]) };
  };
  const commonName = (cert) => {
    try {
      const subject = certParts(cert).subject;
      for (const rdn of kids(subject, tlv(subject, 0))) {
        for (const atv of kids(subject, rdn)) {
          const [type, value] = kids(subject, atv);
          if (hex(content(subject, type)) === "550403") return new TextDecoder().decode(content(subject, value));
        }
      }
    } catch {
      // no readable subject
    }
    return "(no common name)";
  };
  let timestampsSeen = 0;
  let timestampsUnpinned = 0;
  const verifyToken = async (token, label) => {
    let imprint;
    let genTime;
    let certs;
    let signerInfo;
    let tstInfo;
    try {
      const sd = kids(token, kids(token, kids(token, tlv(token, 0))[1])[0]); // ContentInfo > [0] > SignedData's fields
      const eContent = kids(token, sd[2]);
      if (hex(content(token, eContent[0])) !== OID.tstInfo) throw new Error("not a TSTInfo");
      const octets = kids(token, eContent[1])[0];
      // a BER producer may send the OCTET STRING constructed (0x24): its pieces, joined
      if (octets.tag === 0x24) {
        const pieces = kids(token, octets).map((n) => content(token, n));
        tstInfo = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
        pieces.reduce((at, p) => (tstInfo.set(p, at), at + p.length), 0);
      } else tstInfo = content(token, octets);
      const fields = kids(tstInfo, tlv(tstInfo, 0));
      imprint = hex(content(tstInfo, kids(tstInfo, fields[2])[1]));
      genTime = new TextDecoder().decode(content(tstInfo, fields[4]));
      const certSet = sd.find((n) => n.tag === 0xa0);
      certs = certSet ? kids(token, certSet).filter((n) => n.tag === 0x30).map((n) => token.slice(n.at, n.end)) : [];
      signerInfo = kids(token, kids(token, sd[sd.length - 1])[0]);
    } catch {
      return `${label} is not a readable RFC 3161 timestamp token`;
    }
    timestampsSeen++;
    const signedAttrs = signerInfo.find((n) => n.tag === 0xa0);
    const signatureNode = signerInfo.find((n, i) => i > 3 && n.tag === 0x04);
    const digestAlgorithm = HASHES[hex(content(token, kids(token, signerInfo[2])[0]))];
    if (!signedAttrs || !signatureNode || !digestAlgorithm || !subtle) return `${label}: its signer information is not readable (signed attributes, a SHA-2 digest)`;
    let messageDigest = null;
    for (const attr of kids(token, signedAttrs)) {
      const [type, values] = kids(token, attr);
      if (hex(content(token, type)) === OID.messageDigest) messageDigest = hex(content(token, kids(token, values)[0]));
    }
    const tstDigest = hex(new Uint8Array(await subtle.digest(digestAlgorithm, tstInfo)));
    if (messageDigest !== tstDigest) return `${label}: its messageDigest is not the ${digestAlgorithm} of its TSTInfo (the timestamp was altered)`;
    const attrs = token.slice(signedAttrs.at, signedAttrs.end);
    attrs[0] = 0x31;
    let signer = null;
    for (const cert of certs) if (await verifiedBy(cert, digestAlgorithm, content(token, signatureNode), attrs, true)) signer = cert;
    if (!signer) return `${label}: the TSA's signature does not verify with any certificate the token carries (the token was forged or altered)`;
    // the certificate path: each certificate's signature by its issuer among those the token carries
    const path = [signer];
    for (let current = signer; path.length < 8; ) {
      const parts = certParts(current);
      if (sameBytes(parts.issuer, parts.subject)) {
        if (!parts.sigHash || !(await verifiedBy(current, parts.sigHash, parts.signature, parts.tbs, true))) return `${label}: its self-signed certificate ${commonName(current)} does not verify`;
        break;
      }
      const issuer = certs.find((c) => c !== current && sameBytes(certParts(c).subject, parts.issuer));
      if (!issuer) break;
      if (!parts.sigHash || !(await verifiedBy(issuer, parts.sigHash, parts.signature, parts.tbs, true))) {
        return `${label}: certificate ${commonName(current)} is not signed by its issuer ${commonName(issuer)} in the token`;
      }
      path.push(issuer);
      current = issuer;
    }
    const pathShas = await Promise.all(path.map((c) => sha256Hex(c)));
    const pinnedAt = pathShas.findIndex((s) => tsaPins.includes(s));
    const who = `TSA ${commonName(signer)} (certificate SHA-256 ${pathShas[0]})`;
    if (tsaPins.length > 0 && pinnedAt < 0) {
      return `${label}: issued by ${who}, whose certificate path (${path.map(commonName).join(" <- ")}) holds no pinned TSA certificate (${tsaPins.join(", ")})`;
    }
    if (pinnedAt < 0) timestampsUnpinned++;
    checks.push(`${label}: the TSA's signature verifies (${who}, path ${path.map(commonName).join(" <- ")})${pinnedAt >= 0 ? `, pinned by ${pathShas[pinnedAt]}` : ", not pinned"}; time ${genTime}`);
    return { imprint, genTime };
  };

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
  if (!sameBytes(signedManifest.payload, files["manifest.json"])) return fail("manifest: manifest.json is not the manifest manifest.jws signed (manifest.json was rewritten)");
  checks.push(`manifest: manifest.jws (${signedManifest.header.alg}) signs manifest.json byte for byte, by the pinned seal certificate ${signedManifest.leafSha256}`);

  if (options.auditExport) {
    // The organization's audit export: entries.ndjson against the signed manifest, each chain linked
    // and every entry's hash recomputed, the counts, and the timestamp over the signature.
    let manifest;
    try {
      manifest = json("manifest.json");
    } catch (err) {
      return fail(err.message);
    }
    if (manifest?.kind !== "audit-export") return fail(`manifest: it is not an audit export's (kind ${JSON.stringify(manifest?.kind)}); drop --audit-export to check an evidence bundle`);
    producedAt = typeof manifest.produced_at === "string" ? manifest.produced_at : null;
    if (manifest.seal_certificate?.sha256 !== signedManifest.leafSha256) {
      return fail(`manifest: it names seal certificate ${manifest.seal_certificate?.sha256}, but manifest.jws is signed by ${signedManifest.leafSha256}`);
    }
    if (!files["entries.ndjson"]) return fail("entries.ndjson is missing from the export");
    const entriesSha = await sha256Hex(files["entries.ndjson"]);
    if (entriesSha !== manifest.entries?.sha256) return fail(`entries.ndjson: SHA-256 ${entriesSha}, but the signed manifest states ${manifest.entries?.sha256} (the file was altered or replaced)`);
    checks.push(`entries.ndjson: its SHA-256 ${entriesSha} is the one the signed manifest states`);
    const stated = new Map((Array.isArray(manifest.chains) ? manifest.chains : []).map((c) => [c.chain, c]));
    const seen = new Map();
    let lines = 0;
    for (const line of text("entries.ndjson").split("\n")) {
      if (line === "") continue;
      lines++;
      let e;
      try {
        e = JSON.parse(line);
      } catch {
        return fail(`entries.ndjson: line ${lines} is not valid JSON`);
      }
      const claim = stated.get(e.chain);
      if (!claim) return fail(`entries.ndjson: line ${lines} belongs to chain ${e.chain}, which the signed manifest does not list`);
      const hash = await sha256Hex(new TextEncoder().encode(canonical({
        id: e.id, org_id: e.org_id, chain_id: e.chain, seq: e.seq, action: e.action, actor_type: e.actor?.type, actor_id: e.actor?.id ?? null,
        ip: e.actor?.ip ?? null, user_agent: e.actor?.user_agent ?? null, data: e.data, created_at: e.at, prev_hash: e.prev_hash,
      })));
      if (hash !== e.hash) return fail(`chain ${e.chain}: entry ${e.seq}'s content hashes to ${hash}, not its stated hash ${e.hash} (the entry was altered)`);
      const before = seen.get(e.chain);
      if (!before) {
        if (e.seq !== claim.first_seq || e.prev_hash !== claim.first_prev_hash) return fail(`chain ${e.chain}: its first entry (seq ${e.seq}, prev_hash ${e.prev_hash}) is not the one the signed manifest states (seq ${claim.first_seq}, prev_hash ${claim.first_prev_hash})`);
        if (e.seq === 1 && e.prev_hash !== GENESIS) return fail(`chain ${e.chain}: entry 1 does not start from the genesis hash`);
        if (e.hash !== claim.first_hash) return fail(`chain ${e.chain}: its first entry's hash ${e.hash} is not the manifest's ${claim.first_hash}`);
        seen.set(e.chain, { count: 1, seq: e.seq, hash: e.hash });
      } else {
        if (e.seq !== before.seq + 1 || e.prev_hash !== before.hash) return fail(`chain ${e.chain}: entry ${e.seq} does not follow entry ${before.seq} (its prev_hash ${e.prev_hash}, that entry's hash ${before.hash}): an entry is missing, moved or altered`);
        seen.set(e.chain, { count: before.count + 1, seq: e.seq, hash: e.hash });
      }
    }
    for (const [chainId, claim] of stated) {
      const got = seen.get(chainId);
      if (!got || got.count !== claim.count) return fail(`chain ${chainId}: ${got?.count ?? 0} entries in entries.ndjson, but the signed manifest states ${claim.count}`);
      if (got.hash !== claim.last_hash || got.seq !== claim.last_seq) return fail(`chain ${chainId}: it ends at entry ${got.seq} (${got.hash}), not where the signed manifest states (${claim.last_seq}, ${claim.last_hash})`);
    }
    if (lines !== manifest.entries?.count) return fail(`entries.ndjson: ${lines} entries, but the signed manifest states ${manifest.entries?.count}`);
    checks.push(`chains: ${stated.size} chain(s), ${lines} entries, every hash recomputed and linked from each chain's first to its last entry, the counts as signed`);
    const namedTsr = manifest.signature?.timestamp;
    if (typeof namedTsr === "string" && !files[namedTsr]) return fail(`timestamp: the signed manifest names ${namedTsr}, but the export does not carry it`);
    if (files["manifest.tsr"]) {
      const read = await verifyToken(files["manifest.tsr"], "timestamp: manifest.tsr");
      if (typeof read === "string") return fail(read);
      const expected = await sha256Hex(signedManifest.signature);
      if (read.imprint !== expected) return fail(`timestamp: manifest.tsr's message imprint ${read.imprint} is not the SHA-256 of manifest.jws's signature ${expected}`);
      checks.push(`timestamp: manifest.tsr (time ${read.genTime}) covers manifest.jws's signature`);
    }
    const timestamps = timestampsSeen === 0 ? "none" : timestampsUnpinned > 0 ? "unpinned" : "pinned";
    return { verified: true, checks, notes, producedAt, attestedAt: null, timestamps };
  }

  let manifest;
  let certificate;
  let chain;
  try {
    manifest = json("manifest.json");
    certificate = json("certificate.json");
    chain = json("audit-chain.json");
  } catch (err) {
    return fail((err).message);
  }
  producedAt = typeof manifest?.produced_at === "string" ? manifest.produced_at : null;
  if (manifest.seal_certificate?.sha256 !== signedManifest.leafSha256) {
    return fail(`manifest: it names seal certificate ${manifest.seal_certificate?.sha256}, but manifest.jws is signed by ${signedManifest.leafSha256}`);
  }

  // 2. Every file the manifest lists.
  const listed = Array.isArray(manifest.files) ? manifest.files : [];
  if (listed.length === 0) return fail("manifest: it lists no files");
  for (const file of listed) {
    if (!files[file.name]) return fail(`file ${file.name}: listed in the manifest but missing from the bundle`);
    const sha = await sha256Hex(files[file.name]);
    if (sha !== file.sha256) return fail(`file ${file.name}: SHA-256 ${sha}, but the signed manifest states ${file.sha256} (the file was altered or replaced)`);
  }
  checks.push(`files: ${listed.length} files match the SHA-256 the signed manifest states (${listed.map((f) => f.name).join(", ")})`);
  const covered = new Set(["manifest.json", "manifest.jws", "manifest.tsr", ...listed.map((f) => f.name)]);
  const extra = Object.keys(files).filter((name) => !covered.has(name));
  if (extra.length > 0) notes.push(`not covered by the signed manifest, so ignored: ${extra.join(", ")}`);
  const isListed = (name) => listed.some((f) => f.name === name);

  // 3. The document: the authoritative copy itself (the controller's bundle), or the marked copy and
  // the authoritative copy's hash (every other party's).
  const form = manifest.form === "copy" ? "copy" : "authoritative";
  let documentHash;
  let pdfName;
  if (form === "authoritative") {
    const name = manifest.document?.file ?? "document.pdf";
    pdfName = name;
    if (!isListed(name)) return fail(`manifest: it does not list ${name}`);
    documentHash = await sha256Hex(files[name]);
    if (documentHash !== manifest.document?.sha256) {
      return fail(`document: ${name} has SHA-256 ${documentHash}, but the vault recorded ${manifest.document?.sha256} (the PDF was altered)`);
    }
    checks.push(`document ${pdfName}: SHA-256 ${documentHash} matches the hash recorded at vaulting`);
  } else {
    documentHash = String(manifest.document?.sha256 ?? "");
    if (!/^[0-9a-f]{64}$/.test(documentHash)) return fail("manifest: it states no SHA-256 of the authoritative copy");
    if (isListed("document.pdf")) return fail("manifest: a copy bundle lists document.pdf, the authoritative copy");
    pdfName = manifest.copy ? (manifest.copy.file ?? "copy.pdf") : null;
    if (pdfName === null) {
      notes.push(`this party's bundle carries no PDF: the stored marked copy began with the authoritative copy's bytes, so it was left out; the authoritative copy's SHA-256 is ${documentHash}`);
    } else {
      if (!isListed(pdfName)) return fail(`manifest: it describes a copy bundle but does not list ${pdfName}`);
      if ((await sha256Hex(files[pdfName])) === documentHash) return fail(`document: ${pdfName} is the authoritative copy itself, not a marked copy`);
      checks.push(`copy ${pdfName}: a marked copy of the authoritative copy whose SHA-256 is ${documentHash} (the authoritative copy is the controller's alone and is not in this bundle)`);
    }
  }
  if (certificate?.document_integrity?.document_hash !== documentHash) {
    return fail(`certificate: certificate.json states document hash ${certificate?.document_integrity?.document_hash}, not the document's ${documentHash}`);
  }
  checks.push("certificate.json states the same document hash");

  // 4. The audit chain, from the genesis hash (64 zeros, whatever the file says) to the signed head.
  const entries = Array.isArray(chain.entries) ? chain.entries : [];
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

  // 5a. The control history is the chain's control entries (docs/control.md), in order.
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
  const str = (v) => (typeof v === "string" ? v : null);
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
  let history = [];
  if (manifest.control_history) {
    try {
      const historyFile = json(manifest.control_history.file ?? "control-history.json");
      history = Array.isArray(historyFile?.data) ? historyFile.data : [];
    } catch (err) {
      return fail((err).message);
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


  // 5c. The control-key history: every move by an organization that held a control key at the time
  // carries a valid Control-Signature by one of the keys it held then; operator recoveries are named.
  const CONTROL_VERB = {
    "vault.transfer_requested": "transfer",
    "vault.control_transferred": "accept",
    "vault.transfer_rejected": "reject",
    "vault.transfer_cancelled": "cancel",
    "vault.pledge_released": "release_pledge",
    "vault.paid_off": "paid_off",
    "vault.paper_out": "paper_out",
  };
  if (manifest.key_history) {
    let keyFile;
    try {
      keyFile = json(manifest.key_history.file ?? "key-history.json");
    } catch (err) {
      return fail((err).message);
    }
    const orgs = Array.isArray(keyFile?.organizations) ? keyFile.organizations : [];
    const eventsOf = (orgId) => {
      const org = orgs.find((o) => o?.org_id === orgId);
      return org ? (Array.isArray(org.events) ? org.events : []) : null;
    };
    const b64uOf = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    const thumbprint = async (jwk) => {
      const members = jwk?.kty === "EC" ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk?.crv, kty: jwk?.kty, x: jwk?.x };
      return b64uOf(unhex(await sha256Hex(new TextEncoder().encode(JSON.stringify(members)))));
    };
    // the keys an organization held at `at`, replaying its key events in order; and its last recovery before then
    const keysAt = (events, at) => {
      const held = new Map();
      let recovery = null;
      for (const ev of events) {
        if (typeof ev?.at !== "string" || ev.at > at) continue;
        if (ev.action === "control_key.added") held.set(ev.kid, ev);
        else if (ev.action === "control_key.deleted") held.delete(ev.kid);
        else if (ev.action === "control_key.recovered") {
          held.clear();
          recovery = ev;
        }
      }
      return { held, recovery };
    };
    const actorName = (ev) => `${ev?.actor?.type ?? "unknown"}${ev?.actor?.name ? ` ${ev.actor.name}` : ""}${ev?.actor?.id ? ` (${ev.actor.id})` : ""}`;
    for (const org of orgs) {
      for (const ev of Array.isArray(org?.events) ? org.events : []) {
        if (ev?.action === "control_key.recovered") {
          notes.push(`key history: the operator removed every control key of organization ${org.org_id} at ${ev.at} (recovery by ${actorName(ev)}, removed ${(ev.removed ?? []).join(", ") || "none"}; audit entry ${ev.audit_entry?.id ?? "?"})`);
        }
      }
    }
    let signedMoves = 0;
    for (let i = 0; i < controlEntries.length; i++) {
      const e = controlEntries[i];
      const verb = CONTROL_VERB[e.action];
      if (!verb) continue; // an expiry: the service's own step, no organization acts
      const acting = str(e.data?.acting_org_id) ?? (verb === "accept" || verb === "reject" ? str(e.data?.to_org_id) : str(e.data?.from_org_id));
      const where = `control signature: audit entry seq ${e.seq} (${e.action}) by ${acting}`;
      if (!acting) continue;
      const events = eventsOf(acting);
      if (!events) return fail(`key history: key-history.json does not cover organization ${acting}, which acted in audit entry seq ${e.seq}`);
      const { held, recovery } = keysAt(events, e.created_at);
      const signature = e.data?.control_signature;
      if (held.size === 0) {
        if (recovery && !signature) notes.push(`${where}: unsigned, made after the operator removed the organization's control keys at ${recovery.at} (recovery by ${actorName(recovery)})`);
        continue;
      }
      if (!signature || typeof signature.jws !== "string") {
        return fail(`${where}: the organization held control key(s) ${[...held.keys()].join(", ")} at ${e.created_at}, but the move carries no Control-Signature (a move it did not sign)`);
      }
      const parts = signature.jws.split(".");
      let header;
      let payload;
      try {
        header = JSON.parse(new TextDecoder().decode(b64u(parts[0])));
        payload = JSON.parse(new TextDecoder().decode(b64u(parts[1])));
      } catch {
        return fail(`${where}: its Control-Signature is not a readable compact JWS`);
      }
      const key = held.get(header?.kid);
      if (!key) return fail(`${where}: its Control-Signature names key ${header?.kid}, not one of the keys the organization held at ${e.created_at} (${[...held.keys()].join(", ")})`);
      if (!key.jwk || (await thumbprint(key.jwk)) !== key.kid) return fail(`${where}: key-history.json does not carry the public key ${key.kid} (or it is not the key that thumbprint names)`);
      let valid = false;
      try {
        if (!subtle) throw new Error("no WebCrypto");
        const signed = new TextEncoder().encode(`${parts[0]}.${parts[1]}`);
        if (header.alg === "ES256" && key.jwk.kty === "EC") {
          const k = await subtle.importKey("jwk", { kty: "EC", crv: "P-256", x: key.jwk.x, y: key.jwk.y }, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
          valid = await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, k, b64u(parts[2]), signed);
        } else if ((header.alg === "EdDSA" || header.alg === "Ed25519") && key.jwk.kty === "OKP") {
          const k = await subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: key.jwk.x }, { name: "Ed25519" }, false, ["verify"]);
          valid = await subtle.verify({ name: "Ed25519" }, k, b64u(parts[2]), signed);
        }
      } catch {
        valid = false;
      }
      if (!valid) return fail(`${where}: its Control-Signature does not verify with key ${key.kid}`);
      const poolId = str(e.data?.pool_id);
      if (poolId) {
        // a record moved by a pool: the receiver signed its acceptance of the whole pool, named with its manifest hash
        if (payload?.action !== "pool_accept" || payload?.pool_id !== poolId || payload?.manifest_sha256 !== e.data?.manifest_sha256) {
          return fail(`${where}: its Control-Signature was made for ${payload?.action} of pool ${payload?.pool_id}, not pool_accept of ${poolId}`);
        }
        signedMoves++;
        continue;
      }
      if (payload?.vault_id !== manifest.vault_id) return fail(`${where}: its Control-Signature was made for vault record ${payload?.vault_id}, not ${manifest.vault_id}`);
      if (payload?.action !== verb) return fail(`${where}: its Control-Signature was made for action ${payload?.action}, not ${verb}`);
      const transferId = str(e.data?.transfer_id);
      if ((verb === "accept" || verb === "reject" || verb === "cancel" || payload?.transfer_id !== undefined) && payload?.transfer_id !== transferId) {
        return fail(`${where}: its Control-Signature names transfer ${payload?.transfer_id}, not ${transferId}`);
      }
      if (payload?.control_seq !== undefined && payload.control_seq !== i) {
        return fail(`${where}: its Control-Signature was made for control_seq ${payload.control_seq}, but ${i} control entries precede this one`);
      }
      if (typeof payload?.iat === "number" && Math.abs(payload.iat * 1000 - Date.parse(e.created_at)) > 600_000) {
        return fail(`${where}: its Control-Signature's iat ${payload.iat} is not within 10 minutes of the move (${e.created_at})`);
      }
      signedMoves++;
    }
    checks.push(`control keys: ${signedMoves} move(s) by organizations holding control keys carry a valid Control-Signature by a key held at the time (key history of ${orgs.length} organization(s))`);
  }

  // 5b. The control attestation: the service's signed statement of control as of the chain head.
  const attestationFile = manifest.attestation?.file ?? null;
  if (attestationFile) {
    if (!files[attestationFile]) return fail(`${attestationFile} is missing from the bundle`);
    const attestation = await readJws(attestationFile);
    let payload;
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
    if (typeof payload.iat === "number") attestedAt = new Date(payload.iat * 1000).toISOString();
  }

  // 6. The PDF's seal: the CAdES detached signature made by a pinned certificate. On the authoritative
  // copy, the seal made at completion; on a marked copy, the service's seal of the copy, whose signed
  // bytes name the authoritative copy's SHA-256.
  const pdf = pdfName ? files[pdfName] : new Uint8Array(0);
  const sealedFlag = form === "copy" ? manifest.copy?.sealed !== false : true;
  if (pdfName === null) {
    // no PDF carried (see 3)
  } else if (form === "authoritative" && manifest.document?.source === "upload") {
    notes.push(`${pdfName} carries no seal of the service: a paper record, vaulted exactly as uploaded; its integrity rests on the signed manifest and the audit chain`);
  } else if (!sealedFlag) {
    notes.push(`${pdfName} carries no seal of the service: the marked copy is vouched for by the signed manifest alone`);
  } else {
    const pdfText = new TextDecoder("latin1").decode(pdf);
    const seals = [];
    for (const m of pdfText.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
      const range = m.slice(1, 5).map(Number);
      if (range[0] !== 0 || range[1] + 2 > range[2] || range[2] + range[3] > pdf.length) continue;
      const der = unhex(pdfText.slice(range[1] + 1, range[2] - 1));
      try {
        seals.push({ range, cms: der.slice(0, tlv(der, 0).end) });
      } catch {
        // not a readable signature value
      }
    }
    let found = null;
    const makers = [];
    for (const seal of seals) {
      let signedAttrs;
      let signerInfo;
      let certs;
      const cms = seal.cms;
      try {
        const sd = kids(cms, kids(cms, kids(cms, tlv(cms, 0))[1])[0]); // ContentInfo > [0] > SignedData's fields
        if (hex(content(cms, kids(cms, sd[2])[0])) !== OID.data) continue; // a document timestamp (RFC 3161), not a seal
        const certSet = sd.find((n) => n.tag === 0xa0);
        certs = certSet ? kids(cms, certSet).map((n) => cms.slice(n.at, n.end)) : [];
        signerInfo = kids(cms, kids(cms, sd[sd.length - 1])[0]);
        signedAttrs = signerInfo.find((n) => n.tag === 0xa0);
        if (!signedAttrs) continue;
      } catch {
        continue;
      }
      // the signed attributes: messageDigest and the ESS signing-certificate-v2's certificate hash
      let messageDigest = null;
      let certHash = null;
      for (const attr of kids(cms, signedAttrs)) {
        const [type, values] = kids(cms, attr);
        const oid = hex(content(cms, type));
        const value = kids(cms, values)[0];
        if (oid === OID.messageDigest) messageDigest = hex(content(cms, value));
        if (oid === OID.signingCertificateV2) {
          const certId = kids(cms, kids(cms, kids(cms, value)[0])[0]); // SigningCertificateV2 > certs > first ESSCertIDv2
          const hashNode = certId.find((n) => n.tag === 0x04);
          certHash = hashNode ? hex(content(cms, hashNode)) : null;
        }
      }
      makers.push(certHash ?? "(no signing-certificate-v2 attribute)");
      if (!pinned(certHash)) continue;
      const [a, b, c, d] = seal.range;
      const where = `${form === "copy" ? "copy" : "document"}: the seal over bytes 0-${b} and ${c}-${c + d}`;
      const signedBytes = new Uint8Array(b + d);
      signedBytes.set(pdf.subarray(a, a + b), 0);
      signedBytes.set(pdf.subarray(c, c + d), b);
      // on a copy, the seal of the copy is the one whose signed bytes name the authoritative copy's hash
      if (form === "copy") {
        // named as text, or as a PDF hex string (of ASCII, or UTF-16BE as PDF text strings are)
        const signedText = new TextDecoder("latin1").decode(signedBytes).toLowerCase().replace(/\s+/g, "");
        const ascii = hex(new TextEncoder().encode(documentHash));
        const utf16 = Array.from(documentHash, (ch) => `00${ch.charCodeAt(0).toString(16)}`).join("");
        if (![documentHash, ascii, utf16].some((form) => signedText.includes(form))) continue;
      }
      const digestAlgorithm = HASHES[hex(content(cms, kids(cms, signerInfo[2])[0]))];
      if (digestAlgorithm !== "SHA-256") return fail(`${where}: digest algorithm ${digestAlgorithm ?? "unknown"} (this verifier reads SHA-256 seals)`);
      const rangeHash = await sha256Hex(signedBytes);
      if (messageDigest !== rangeHash) return fail(`${where}: its messageDigest ${messageDigest} is not the SHA-256 of its byte ranges ${rangeHash} (the sealed bytes were changed)`);
      let signer = null;
      for (const der of certs) if ((await sha256Hex(der)) === certHash) signer = der;
      if (!signer) return fail(`${where}: it names certificate ${certHash} but does not carry it`);
      const attrs = cms.slice(signedAttrs.at, signedAttrs.end);
      attrs[0] = 0x31; // signed over as a SET OF, not the [0] IMPLICIT it is stored as (RFC 5652 5.4)
      const signatureNode = signerInfo.find((n, i) => i > 3 && n.tag === 0x04);
      if (!(await verifiedBy(signer, "SHA-256", content(cms, signatureNode), attrs, true))) {
        return fail(`${where}: its signature does not verify over its signed attributes with the pinned certificate ${certHash}`);
      }
      const whole = c + d === pdf.length;
      checks.push(
        form === "copy"
          ? `copy: sealed as a copy by the pinned certificate ${certHash}, its signed bytes naming the authoritative copy's SHA-256 ${documentHash}${whole ? ", the whole file signed" : ""}`
          : `document: sealed by the pinned certificate ${certHash}: messageDigest = SHA-256 of the byte ranges, signature valid over the signed attributes${whole ? ", the whole document signed" : `; ${pdf.length - c - d} bytes of later incremental updates follow it (long-term validation data, a document timestamp)`}`,
      );
      found = certHash;
      break;
    }
    if (!found) {
      if (seals.length === 0) return fail(`${form === "copy" ? "copy" : "document"}: ${pdfName} carries no seal, but the manifest says it was ${form === "copy" ? "sealed as a copy" : "signed through the service (source signed)"}`);
      if (form === "copy") return fail(`copy: ${pdfName} carries no seal by a pinned seal certificate over bytes naming the authoritative copy's SHA-256 ${documentHash} (seals by ${makers.join(", ")})`);
      return fail(`document: its seal was made by certificate ${makers.join(", ")}, not a pinned seal certificate (${pins.join(", ")})`);
    }
  }


  // 7. The timestamp over the manifest's signature, if any; one the signed manifest names must be there.
  const namedTimestamp = manifest.signature?.timestamp;
  if (typeof namedTimestamp === "string" && !files[namedTimestamp]) {
    return fail(`timestamp: the signed manifest names ${namedTimestamp}, a timestamp over its signature, but the bundle does not carry it`);
  }
  if (files["manifest.tsr"]) {
    const read = await verifyToken(files["manifest.tsr"], "timestamp: manifest.tsr");
    if (typeof read === "string") return fail(read);
    const expected = await sha256Hex(signedManifest.signature);
    if (read.imprint !== expected) return fail(`timestamp: manifest.tsr's message imprint ${read.imprint} is not the SHA-256 of manifest.jws's signature ${expected}`);
    checks.push(`timestamp: manifest.tsr (time ${read.genTime}) covers manifest.jws's signature`);
  }

  // 8. The RFC 4998 evidence record, when the signed manifest lists one: the stored record the audit
  // chain names (archive timestamp 1 over the authoritative copy's SHA-256, each next over the previous
  // token) and, made with the bundle, a chain whose reduced hash tree covers every other member.
  const recordEntry = entries.findLast((e) => e?.action === "vault.evidence_record");
  if (manifest.evidence_record || recordEntry) {
    const name = "evidence-record.ers";
    if (!isListed(name)) {
      return fail(`evidence record: ${manifest.evidence_record ? "the manifest describes one" : "the audit chain records one"} but the signed manifest does not list ${name}`);
    }
    const er = files[name];
    const storedChains = [];
    let bundleChain = null;
    let storedBytes = null;
    try {
      const top = kids(er, tlv(er, 0));
      if (tlv(er, 0).end !== er.length) throw new Error("trailing bytes");
      if (hex(content(er, top[0])) !== "01") throw new Error("version is not 1");
      if (!kids(er, top[1]).some((alg) => hex(content(er, kids(er, alg)[0])) === OID.sha256)) throw new Error("SHA-256 is not among its digest algorithms");
      const sequence = top.slice(2).filter((n) => n.tag === 0x30);
      const chains = sequence.length === 1 ? kids(er, sequence[0]) : [];
      if (chains.length === 0 || chains.length > 2) throw new Error("it holds neither one nor two archive timestamp chains");
      for (const [c, chainNode] of chains.entries()) {
        const stamps = kids(er, chainNode);
        const reduced = stamps.length === 1 ? kids(er, stamps[0]).find((n) => n.tag === 0xa2) : undefined;
        if (reduced && c === chains.length - 1) {
          const parts = kids(er, stamps[0]);
          const groups = kids(er, reduced);
          if (groups.length !== 1) throw new Error("the bundle's archive timestamp's reduced hash tree is not one group");
          const ts = parts.at(-1);
          bundleChain = { leaves: kids(er, groups[0]).map((n) => hex(content(er, n))), token: er.slice(ts.at, ts.end) };
          continue;
        }
        const tokens = [];
        for (const ats of stamps) {
          const parts = kids(er, ats);
          if (parts.some((n) => n.tag === 0xa2)) throw new Error("a renewal chain's archive timestamp carries a reduced hash tree");
          const ts = parts.at(-1);
          tokens.push(er.slice(ts.at, ts.end));
        }
        if (tokens.length === 0) throw new Error("a chain holds no archive timestamp");
        storedChains.push(tokens);
        // the record as stored (the audit chain names its SHA-256): this chain alone, same version and algorithms
        const body = [er.slice(top[0].at, top[0].end), er.slice(top[1].at, top[1].end)];
        const chainBytes = er.slice(chainNode.at, chainNode.end);
        const wrap = (tag, inner) => {
          const len = inner.reduce((n, p) => n + p.length, 0);
          const lenBytes = len < 0x80 ? [len] : (() => { const out = []; for (let v = len; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff); return [0x80 | out.length, ...out]; })();
          const out = new Uint8Array(1 + lenBytes.length + len);
          out[0] = tag;
          out.set(lenBytes, 1);
          let at = 1 + lenBytes.length;
          for (const p of inner) {
            out.set(p, at);
            at += p.length;
          }
          return out;
        };
        storedBytes = wrap(0x30, [...body, wrap(0x30, [chainBytes])]);
      }
      if (storedChains.length > 1) throw new Error("it holds more than one renewal chain");
    } catch (err) {
      return fail(`evidence record: ${name} is not a readable RFC 4998 evidence record (${(err).message})`);
    }
    const storedHash = storedBytes ? await sha256Hex(storedBytes) : null;
    if (recordEntry && recordEntry.data?.sha256 !== storedHash) {
      return fail(`evidence record: ${name} holds a stored record with SHA-256 ${storedHash}, but the audit chain's newest vault.evidence_record entry states ${recordEntry.data?.sha256}`);
    }
    const renewal = storedChains[0];
    if (renewal) {
      const stamps = [];
      for (const [i, token] of renewal.entries()) {
        const read = await verifyToken(token, `evidence record: archive timestamp ${i + 1}`);
        if (typeof read === "string") return fail(read);
        stamps.push(read);
      }
      if (stamps[0].imprint !== documentHash) {
        return fail(`evidence record: archive timestamp 1 timestamps ${stamps[0].imprint}, not the document's SHA-256 ${documentHash}`);
      }
      for (let i = 1; i < renewal.length; i++) {
        const link = await sha256Hex(renewal[i - 1]);
        if (stamps[i].imprint !== link) return fail(`evidence record: archive timestamp ${i + 1} does not cover archive timestamp ${i} (its imprint ${stamps[i].imprint} is not that token's SHA-256 ${link})`);
      }
      checks.push(`evidence record: ${renewal.length} archive timestamp(s) (${stamps.map((t) => t.genTime).join(", ")}), the first over the document's SHA-256, each next over the one before`);
    }
    const mustCover = listed.map((f) => f.name).filter((n) => n !== name);
    if (bundleChain) {
      const leaves = new Set(bundleChain.leaves);
      for (const member of mustCover) {
        if (!leaves.has(await sha256Hex(files[member]))) return fail(`evidence record: its reduced hash tree does not cover ${member}`);
      }
      if (storedHash && !leaves.has(storedHash)) return fail("evidence record: its reduced hash tree does not cover the stored record it extends");
      // RFC 4998 4.3: the group's hashes in binary ascending order, concatenated and hashed
      const sorted = [...bundleChain.leaves].sort();
      const root = await sha256Hex(unhex(sorted.join("")));
      const read = await verifyToken(bundleChain.token, "evidence record: the bundle's archive timestamp");
      if (typeof read === "string") return fail(read);
      if (read.imprint !== root) return fail(`evidence record: the bundle's archive timestamp timestamps ${read.imprint}, not the root of its reduced hash tree ${root}`);
      checks.push(`evidence record: the bundle's archive timestamp (${read.genTime}) covers, by its reduced hash tree, every member the manifest lists (${mustCover.join(", ")})${storedHash ? " and the stored record" : ""}`);
    } else if (manifest.evidence_record?.covers && manifest.evidence_record.covers !== "document") {
      return fail("evidence record: the manifest says it covers the bundle's members, but it carries no reduced hash tree");
    } else {
      notes.push(`evidence record: it covers the authoritative copy's SHA-256 only (no timestamp authority was configured when this bundle was produced)`);
    }
  }

  const timestamps = timestampsSeen === 0 ? "none" : timestampsUnpinned > 0 ? "unpinned" : "pinned";
  if (timestamps === "none") notes.push("no RFC 3161 timestamp in this bundle (no timestamp authority was configured): its time rests on the signed manifest's produced_at");
  return { verified: true, checks, notes, producedAt, attestedAt, timestamps };
}

/**
 * The command line (`args` without node and the script): reads the folder, verifies, prints the
 * outcome line by line and resolves to the exit code (0 verified, 1 broken, 2 no seal pinned, 3
 * verified with an unpinned timestamp).
 */
export async function main(args) {
  const pins = [];
  const tsaPins = [];
  let folder = null;
  let auditExport = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--seal-sha256") pins.push(...String(args[++i] ?? "").split(","));
    else if (args[i].startsWith("--seal-sha256=")) pins.push(...args[i].slice("--seal-sha256=".length).split(","));
    else if (args[i] === "--tsa-sha256") tsaPins.push(...String(args[++i] ?? "").split(","));
    else if (args[i].startsWith("--tsa-sha256=")) tsaPins.push(...args[i].slice("--tsa-sha256=".length).split(","));
    else if (args[i] === "--audit-export") {
      auditExport = true;
      if (args[i + 1] !== undefined && !args[i + 1].startsWith("--")) folder = args[++i];
    } else folder = args[i];
  }
  if (pins.filter(Boolean).length === 0) {
    console.error("usage: node verify.mjs --seal-sha256 <hex> [--seal-sha256 <hex> ...] [--tsa-sha256 <hex> ...] [folder or zip]");
    console.error("   or: node verify.mjs --audit-export <folder or zip> --seal-sha256 <hex> [--tsa-sha256 <hex> ...]");
    console.error("Refused: no seal certificate pinned. This bundle carries its own certificate, so it cannot vouch for itself:");
    console.error("give the SHA-256 fingerprint of the service's seal certificate from a source you trust (GET /api/v2/seal-certificates,");
    console.error("or your own records); openssl x509 -noout -fingerprint -sha256 prints one (colons are fine).");
    return 2;
  }
  const dir = folder ?? dirname(fileURLToPath(import.meta.url));
  const files = {};
  let result;
  try {
    if (statSync(dir).isFile()) Object.assign(files, unzip(new Uint8Array(readFileSync(dir))));
    else {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isFile()) files[name] = new Uint8Array(readFileSync(path));
      }
    }
    result = await verifyEvidence(files, (bytes) => createHash("sha256").update(bytes).digest("hex"), { sealSha256: pins.filter(Boolean), tsaSha256: tsaPins.filter(Boolean), subtle: webcrypto.subtle, auditExport });
  } catch (err) {
    result = { verified: false, checks: [], notes: [], producedAt: null, attestedAt: null, broken: "the bundle could not be read (" + (err && err.message ? err.message : String(err)) + ")" };
  }
  for (const line of result.checks) console.log("ok: " + line);
  for (const line of result.notes) console.log("note: " + line);
  console.log("produced_at: " + (result.producedAt ?? "(not stated)"));
  console.log("attestation time: " + (result.attestedAt ?? "(no attestation)"));
  if (result.verified && result.timestamps === "unpinned") {
    console.log("timestamp not pinned: the bundle's timestamps verify, but their authority is whoever signed them; give --tsa-sha256 <fingerprint> of the TSA's certificate (or its CA's) from a source you trust");
    return 3;
  }
  if (result.verified) {
    if (result.timestamps === "none") console.log("no timestamp: this bundle carries no RFC 3161 token (no timestamp authority configured)");
    console.log("verified");
    return 0;
  }
  console.log("BROKEN: " + result.broken);
  return 1;
}

/** A ZIP's members (stored or deflated), read from its central directory: the export or bundle as downloaded, unopened. */
function unzip(zip) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error("not a ZIP file (no end of central directory)");
  const files = {};
  let p = view.getUint32(end + 16, true);
  for (let n = view.getUint16(end + 10, true); n > 0; n--) {
    if (view.getUint32(p, true) !== 0x02014b50) throw new Error("a damaged ZIP central directory");
    const method = view.getUint16(p + 10, true);
    const size = view.getUint32(p + 20, true);
    const nameLength = view.getUint16(p + 28, true);
    const local = view.getUint32(p + 42, true);
    const name = new TextDecoder().decode(zip.subarray(p + 46, p + 46 + nameLength));
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = zip.subarray(start, start + size);
    if (method !== 0 && method !== 8) throw new Error(`${name}: ZIP compression method ${method} is not supported`);
    files[name] = method === 0 ? new Uint8Array(data) : new Uint8Array(inflateRawSync(data));
    p += 46 + nameLength + view.getUint16(p + 30, true) + view.getUint16(p + 32, true);
  }
  return files;
}

/** Run as `node verify.mjs` (under any name), not imported: this file is the process's main module. */
function invokedAsScript() {
  try {
    const script = globalThis.process?.argv?.[1];
    return typeof script === "string" && realpathSync(resolve(script)) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedAsScript()) process.exitCode = await main(process.argv.slice(2));
