#!/usr/bin/env bash
# Interoperability check of the PAdES seal with Poppler's pdfsig (run by .ci/run after `npm test`).
# Seals a sample with the completion pipeline's own modules (scripts/interop/seal-sample.mjs) and
# asserts that pdfsig finds one valid signature covering the whole document, and that the same file
# with one byte changed is reported invalid. Installs Debian's poppler-utils when pdfsig is missing.
# Then a PAdES B-LTA sample (a throwaway OpenSSL CA, OpenSSL's TSA and OCSP responder behind the test
# stand-ins, started by seal-sample.mjs): pdfsig reports the seal valid and a document timestamp
# (ETSI.RFC3161) as the last signature covering the whole document; `openssl ts -verify` checks that
# timestamp's token against its byte ranges and the CA; a one-byte change fails both.
# Then the vault's marked non-authoritative copy of a sealed sample (SEAL_SAMPLE_KIND=copy): a document
# of its own, so pdfsig finds exactly one signature, ours, valid and covering the whole document (the
# sample's own seal survives only as appearance), and the sample's bytes are no prefix of it.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v pdfsig >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y poppler-utils openssl
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() {
  echo "pdfsig-check: FAILED: $1" >&2
  echo "--- pdfsig output ---" >&2
  cat "$2" >&2
  exit 1
}

# Both key types the seal accepts: RSA (the development default) and ECDSA P-256.
for algorithm in RSA ECDSA; do
  SEAL_SAMPLE_ALGORITHM="$algorithm" node scripts/interop/seal-sample.mjs "$work/sealed.pdf" "$work/tampered.pdf"

  # pdfsig exits non-zero for some invalid signatures: its report is what is checked, not its status.
  pdfsig "$work/sealed.pdf" >"$work/sealed.txt" 2>&1 || true
  grep -q "Signature #1:" "$work/sealed.txt" || fail "$algorithm: no signature found in the sealed sample" "$work/sealed.txt"
  grep -q "Signature #2:" "$work/sealed.txt" && fail "$algorithm: more than one signature in the sealed sample" "$work/sealed.txt"
  grep -q "Signature Validation: Signature is Valid." "$work/sealed.txt" || fail "$algorithm: the seal is not reported valid" "$work/sealed.txt"
  grep -q "Total document signed" "$work/sealed.txt" || fail "$algorithm: the seal does not cover the whole document (modified since signing)" "$work/sealed.txt"
  grep -q "Signature Type: ETSI.CAdES.detached" "$work/sealed.txt" || fail "$algorithm: unexpected signature type" "$work/sealed.txt"

  pdfsig "$work/tampered.pdf" >"$work/tampered.txt" 2>&1 || true
  grep -q "Signature #1:" "$work/tampered.txt" || fail "$algorithm: no signature found in the tampered sample" "$work/tampered.txt"
  grep -q "Signature Validation: Signature is Valid." "$work/tampered.txt" && fail "$algorithm: a one-byte change still reads as a valid seal" "$work/tampered.txt"

  echo "pdfsig-check: $algorithm seal valid and totally signed; one changed byte invalid ($(grep -m1 'Signature Validation' "$work/tampered.txt" | sed 's/^ *- //'))"
done

# PAdES B-LTA: seal (CAdES, signature timestamp), /DSS with OCSP responses, document timestamp.
SEAL_SAMPLE_LEVEL=B-LTA node scripts/interop/seal-sample.mjs "$work/lta.pdf" "$work/lta-tampered.pdf"
pdfsig "$work/lta.pdf" >"$work/lta.txt" 2>&1 || true
grep -q "Signature #2:" "$work/lta.txt" || fail "B-LTA: no document timestamp after the seal" "$work/lta.txt"
grep -q "Signature #3:" "$work/lta.txt" && fail "B-LTA: more than the seal and one document timestamp" "$work/lta.txt"
# the seal (signature 1): valid, CAdES, for its own revision (later updates add the DSS and the timestamp)
sed -n '/Signature #1:/,/Signature #2:/p' "$work/lta.txt" >"$work/lta-1.txt"
grep -q "Signature Type: ETSI.CAdES.detached" "$work/lta-1.txt" || fail "B-LTA: the first signature is not the CAdES seal" "$work/lta.txt"
grep -q "Signature Validation: Signature is Valid." "$work/lta-1.txt" || fail "B-LTA: the seal is not reported valid" "$work/lta.txt"
# the document timestamp (signature 2): the TSA's, covering the whole document. pdfsig prints its type
# as ETSI.RFC3161, or (Poppler before 23.x) "unknown" and leaves it unverified: openssl checks it below.
sed -n '/Signature #2:/,$p' "$work/lta.txt" >"$work/lta-2.txt"
grep -Eq "Signature Type: (ETSI.RFC3161|unknown)" "$work/lta-2.txt" || fail "B-LTA: the last signature is not a document timestamp" "$work/lta.txt"
grep -q "Signer Certificate Common Name: esign-vault test TSA" "$work/lta-2.txt" || fail "B-LTA: the document timestamp is not the TSA's" "$work/lta.txt"
grep -q "Total document signed" "$work/lta-2.txt" || fail "B-LTA: the document timestamp does not cover the whole document" "$work/lta.txt"
grep -q "Signature is Invalid\|Digest Mismatch" "$work/lta-2.txt" && fail "B-LTA: the document timestamp is reported invalid" "$work/lta.txt"
grep -aq "/DSS" "$work/lta.pdf" || fail "B-LTA: no /DSS in the file" "$work/lta.txt"
openssl ts -verify -in "$work/lta.pdf.docts.tst" -token_in -data "$work/lta.pdf.docts.data" -CAfile "$work/lta.pdf.ca.pem" >"$work/lta-ts.txt" 2>&1 \
  || fail "B-LTA: openssl ts -verify refuses the document timestamp" "$work/lta-ts.txt"

pdfsig "$work/lta-tampered.pdf" >"$work/lta-tampered.txt" 2>&1 || true
sed -n '/Signature #1:/,/Signature #2:/p' "$work/lta-tampered.txt" | grep -q "Signature Validation: Signature is Valid." \
  && fail "B-LTA: a one-byte change still reads as a valid seal" "$work/lta-tampered.txt"
openssl ts -verify -in "$work/lta-tampered.pdf.docts.tst" -token_in -data "$work/lta-tampered.pdf.docts.data" -CAfile "$work/lta.pdf.ca.pem" >"$work/lta-ts-tampered.txt" 2>&1 \
  && fail "B-LTA: openssl ts -verify accepts the document timestamp after a one-byte change" "$work/lta-ts-tampered.txt"
echo "pdfsig-check: B-LTA seal valid, document timestamp by the TSA covers the whole document (openssl ts -verify OK); one changed byte invalid ($(sed -n '/Signature #1:/,/Signature #2:/p' "$work/lta-tampered.txt" | grep -m1 'Signature Validation' | sed 's/^ *- //'), $(grep -m1 -o 'message imprint mismatch' "$work/lta-ts-tampered.txt" || echo 'timestamp refused'))"

# The marked copy: re-serialized, the original's seal flattened, sealed as a copy by the same key.
SEAL_SAMPLE_KIND=copy node scripts/interop/seal-sample.mjs "$work/copy.pdf" "$work/copy-tampered.pdf"
pdfsig "$work/copy.pdf" >"$work/copy.txt" 2>&1 || true
grep -q "Signature #1:" "$work/copy.txt" || fail "copy: no signature found in the marked copy" "$work/copy.txt"
grep -q "Signature #2:" "$work/copy.txt" && fail "copy: more than one signature: the original's seal is still live in the copy" "$work/copy.txt"
grep -q "Signature Validation: Signature is Valid." "$work/copy.txt" || fail "copy: the copy's seal is not reported valid" "$work/copy.txt"
grep -q "Total document signed" "$work/copy.txt" || fail "copy: the copy's seal does not cover the whole document" "$work/copy.txt"
grep -q "Signature Type: ETSI.CAdES.detached" "$work/copy.txt" || fail "copy: unexpected signature type" "$work/copy.txt"
ac_size=$(wc -c <"$work/copy.pdf.ac.pdf")
cmp -s -n "$ac_size" "$work/copy.pdf.ac.pdf" "$work/copy.pdf" && fail "copy: the copy starts with the sealed sample's bytes (an appended update)" "$work/copy.txt"
pdfsig "$work/copy-tampered.pdf" >"$work/copy-tampered.txt" 2>&1 || true
grep -q "Signature Validation: Signature is Valid." "$work/copy-tampered.txt" && fail "copy: a one-byte change still reads as a valid seal" "$work/copy-tampered.txt"
echo "pdfsig-check: marked copy has one seal, valid and totally signed, and no prefix the original; one changed byte invalid ($(grep -m1 'Signature Validation' "$work/copy-tampered.txt" | sed 's/^ *- //'))"
