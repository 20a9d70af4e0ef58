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
# Then what a modification-checking validator (pyHanko) examines, with the tools we have: that nothing
# was appended after the copy's signed revision. Its one signature's byte ranges end where the file
# ends, its revision is the file's last (one startxref after the signature), and qpdf --check finds
# the file well-formed; the same copy with an incremental update appended (scripts/interop/append-update.mjs,
# a well-formed update qpdf accepts) is caught: pdfsig says "Not total document signed" and the
# revision check names the appended bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v pdfsig >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1 || ! command -v qpdf >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y poppler-utils openssl qpdf
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() {
  echo "pdfsig-check: FAILED: $1" >&2
  echo "--- pdfsig output ---" >&2
  cat "$2" >&2
  exit 1
}

# signed_revision_is_last FILE: nothing was appended after the signed revision. One signature's byte
# ranges [0 a b c] (b..b+c the bytes after its /Contents) end at the file's end, and exactly one
# revision (one startxref) follows the signature: its own. Prints why not and returns 1, or a summary.
signed_revision_is_last() {
  local file="$1" size ranges a b c after
  size=$(wc -c <"$file")
  ranges=$(grep -ao '/ByteRange *\[ *[0-9]* *[0-9]* *[0-9]* *[0-9]* *\]' "$file" | wc -l)
  [ "$ranges" = 1 ] || { echo "$ranges signature byte ranges, not one"; return 1; }
  read -r _ a b c <<<"$(grep -ao '/ByteRange *\[ *[0-9]* *[0-9]* *[0-9]* *[0-9]* *\]' "$file" | tr -dc '0-9 ' | xargs)"
  [ $((b + c)) = "$size" ] || { echo "the signature's byte ranges end at byte $((b + c)), the file at $size: $((size - b - c)) bytes appended after the signed revision"; return 1; }
  after=$(grep -abo 'startxref' "$file" | cut -d: -f1 | awk -v b="$b" '$1 > b' | wc -l)
  [ "$after" = 1 ] || { echo "$after revisions end after the signature, not one: an incremental update appended after signing"; return 1; }
  echo "one signature, its revision the file's last ($(grep -ao startxref "$file" | wc -l) in all: the re-serialized copy, then the seal's), byte ranges [0 $a $b $c] ending at the file's end ($size bytes)"
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

# What a modification-checking validator examines: nothing appended after the signed revision.
qpdf --check "$work/copy.pdf" >"$work/copy-qpdf.txt" 2>&1 || fail "copy: qpdf --check finds the marked copy malformed" "$work/copy-qpdf.txt"
signed_revision_is_last "$work/copy.pdf" >"$work/copy-revisions.txt" || fail "copy: $(cat "$work/copy-revisions.txt")" "$work/copy.txt"
node scripts/interop/append-update.mjs "$work/copy.pdf" "$work/copy-appended.pdf"
qpdf --check "$work/copy-appended.pdf" >"$work/appended-qpdf.txt" 2>&1 || fail "counter-example: the appended update is not a well-formed PDF (qpdf --check)" "$work/appended-qpdf.txt"
pdfsig "$work/copy-appended.pdf" >"$work/appended.txt" 2>&1 || true
grep -q "Not total document signed" "$work/appended.txt" || fail "counter-example: pdfsig does not report the appended update (no 'Not total document signed')" "$work/appended.txt"
grep -q "Total document signed" "$work/appended.txt" && fail "counter-example: pdfsig still reads the copy as totally signed after an update was appended" "$work/appended.txt"
signed_revision_is_last "$work/copy-appended.pdf" >"$work/appended-revisions.txt" && fail "counter-example: the revision check accepts a copy with an update appended after signing" "$work/appended-revisions.txt"
echo "pdfsig-check: marked copy: $(cat "$work/copy-revisions.txt"); qpdf --check OK"
echo "pdfsig-check: counter-example (an incremental update appended, well-formed for qpdf) caught: pdfsig 'Not total document signed'; $(cat "$work/appended-revisions.txt")"
