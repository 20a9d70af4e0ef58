// The counter-example of pdfsig-check.sh: appends a well-formed incremental update (a new document
// information dictionary, its xref section and a trailer chained to the previous one by /Prev) to a
// PDF, as someone editing a signed file after signing would. The result is a valid PDF (qpdf --check
// accepts it), whose signature no longer covers the whole file.
//   node scripts/interop/append-update.mjs <in.pdf> <out.pdf>
import { readFileSync, writeFileSync } from "node:fs";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node scripts/interop/append-update.mjs <in.pdf> <out.pdf>");
  process.exit(2);
}
const pdf = readFileSync(input);
const text = pdf.toString("latin1");
const last = (re, what) => {
  const m = [...text.matchAll(re)].at(-1);
  if (!m) throw new Error(`${input}: no ${what}`);
  return m[1];
};
const root = last(/\/Root\s+(\d+\s+\d+\s+R)/g, "/Root");
const size = Number(last(/\/Size\s+(\d+)/g, "/Size"));
const prev = Number(last(/startxref\s+(\d+)/g, "startxref"));
const object = `\n${size} 0 obj\n<< /Producer (an update appended after signing) >>\nendobj\n`;
const objectAt = pdf.length + 1;
const xrefAt = pdf.length + object.length;
const update = `${object}xref\n0 1\n0000000000 65535 f \n${size} 1\n${String(objectAt).padStart(10, "0")} 00000 n \ntrailer\n<< /Size ${size + 1} /Root ${root} /Info ${size} 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
writeFileSync(output, Buffer.concat([pdf, Buffer.from(update, "latin1")]));
