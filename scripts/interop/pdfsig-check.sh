#!/usr/bin/env bash
# Interoperability check of the PAdES seal with Poppler's pdfsig (run by .ci/run after `npm test`).
# Seals a sample with the completion pipeline's own modules (scripts/interop/seal-sample.mjs) and
# asserts that pdfsig finds one valid signature covering the whole document, and that the same file
# with one byte changed is reported invalid. Installs Debian's poppler-utils when pdfsig is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v pdfsig >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y poppler-utils
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
