import { decodePDFRawStream, PDFArray, PDFDict, PDFName, PDFRawStream, PDFRef, type PDFContext, type PDFObject } from "pdf-lib";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { toHex } from "../../lib/crypto";

/** Validation data for the Document Security Store (ETSI EN 319 142-1 5.4.2): DER certificates, OCSP responses, CRLs. */
export type ValidationData = { certs: Uint8Array[]; ocsps: Uint8Array[]; crls: Uint8Array[] };

/** The DSS of the file as it reads now: every stream's bytes, decoded. Empty lists when there is none. */
export type DssContent = ValidationData & { vri: Map<string, ValidationData> };

const KEYS = { certs: "Certs", ocsps: "OCSPs", crls: "CRLs" } as const;

/** Byte-for-byte equality (DER of a certificate, OCSP response or CRL). */
export const sameBytes = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);

function streamsOf(context: PDFContext, array: PDFObject | undefined): Uint8Array[] {
  const list = array instanceof PDFRef ? context.lookup(array) : array;
  if (!(list instanceof PDFArray)) return [];
  const out: Uint8Array[] = [];
  for (let i = 0; i < list.size(); i++) {
    const s = context.lookup(list.get(i));
    if (s instanceof PDFRawStream) {
      try {
        out.push(decodePDFRawStream(s).decode());
      } catch {
        // an undecodable stream holds nothing usable
      }
    }
  }
  return out;
}

/** Reads the catalog's /DSS (and its /VRI, keyed by upper-case hex SHA-1 of each signature's /Contents). */
export function readDss(pdf: IncrementalPdf): DssContent {
  const context = pdf.doc.context;
  const dssObj = pdf.doc.catalog.get(PDFName.of("DSS"));
  const dss = dssObj instanceof PDFRef ? context.lookup(dssObj) : dssObj;
  const empty: DssContent = { certs: [], ocsps: [], crls: [], vri: new Map() };
  if (!(dss instanceof PDFDict)) return empty;
  const read = (dict: PDFDict): ValidationData => ({
    certs: streamsOf(context, dict.get(PDFName.of(KEYS.certs))),
    ocsps: streamsOf(context, dict.get(PDFName.of(KEYS.ocsps))),
    crls: streamsOf(context, dict.get(PDFName.of(KEYS.crls))),
  });
  const vri = new Map<string, ValidationData>();
  const vriObj = dss.get(PDFName.of("VRI"));
  const vriDict = vriObj instanceof PDFRef ? context.lookup(vriObj) : vriObj;
  if (vriDict instanceof PDFDict) {
    for (const [key, value] of vriDict.entries()) {
      const entry = value instanceof PDFRef ? context.lookup(value) : value;
      if (!(entry instanceof PDFDict)) continue;
      const v = read(entry);
      // a VRI's /Cert, /OCSP, /CRL (singular keys) refer to streams of the DSS
      vri.set(key.decodeText().toUpperCase(), {
        certs: streamsOf(context, entry.get(PDFName.of("Cert"))),
        ocsps: streamsOf(context, entry.get(PDFName.of("OCSP"))),
        crls: [...streamsOf(context, entry.get(PDFName.of("CRL"))), ...v.crls],
      });
    }
  }
  return { ...read(dss), vri };
}

/** The /VRI key of a signature: the upper-case hex SHA-1 of its /Contents string (padding included). */
export async function vriKey(contents: Uint8Array): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-1", contents)).toUpperCase();
}

/**
 * Adds (or extends) the catalog's /DSS by one incremental update: /Certs, /OCSPs and /CRLs arrays of
 * streams (data already there is not repeated) and, for each signature named in `vri` (by its
 * /Contents), a /VRI entry pointing at the streams that validate it. Earlier revisions stay
 * byte-identical, so every signature before stays valid for its revision (PAdES B-LT).
 */
export async function addDss(parts: Uint8Array[], data: ValidationData, vri: { contents: Uint8Array; data: ValidationData }[] = []): Promise<Uint8Array[]> {
  const pdf = await IncrementalPdf.open(parts);
  const context = pdf.doc.context;
  const catalog = pdf.doc.catalog;
  const existingObj = catalog.get(PDFName.of("DSS"));
  const existing = existingObj instanceof PDFRef ? context.lookup(existingObj) : existingObj;
  const dss = existing instanceof PDFDict ? existing : context.obj({ Type: "DSS" });
  const refs = new Map<string, { bytes: Uint8Array; ref: PDFRef }[]>();

  const arrayOf = (dict: PDFDict, key: string): PDFArray => {
    const have = dict.get(PDFName.of(key));
    const list = have instanceof PDFRef ? context.lookup(have) : have;
    if (list instanceof PDFArray) {
      const copy = context.obj([]) as PDFArray;
      for (let i = 0; i < list.size(); i++) copy.push(list.get(i));
      dict.set(PDFName.of(key), copy);
      return copy;
    }
    const created = context.obj([]) as PDFArray;
    dict.set(PDFName.of(key), created);
    return created;
  };
  // The streams already in the DSS, so the same response or certificate is referenced, not repeated.
  const known = (key: string, list: PDFArray) => {
    const out: { bytes: Uint8Array; ref: PDFRef }[] = [];
    for (let i = 0; i < list.size(); i++) {
      const ref = list.get(i);
      const s = context.lookup(ref);
      if (ref instanceof PDFRef && s instanceof PDFRawStream) {
        try {
          out.push({ bytes: decodePDFRawStream(s).decode(), ref });
        } catch {
          // skip
        }
      }
    }
    refs.set(key, out);
    return out;
  };
  const add = (key: string, list: PDFArray, bytes: Uint8Array): PDFRef => {
    const have = refs.get(key) ?? known(key, list);
    const found = have.find((h) => sameBytes(h.bytes, bytes));
    if (found) return found.ref;
    const ref = context.register(context.flateStream(bytes));
    list.push(ref);
    have.push({ bytes, ref });
    return ref;
  };

  const lists = { certs: arrayOf(dss, KEYS.certs), ocsps: arrayOf(dss, KEYS.ocsps), crls: arrayOf(dss, KEYS.crls) };
  for (const k of ["certs", "ocsps", "crls"] as const) {
    known(KEYS[k], lists[k]);
    for (const bytes of data[k]) add(KEYS[k], lists[k], bytes);
  }
  for (const k of ["certs", "ocsps", "crls"] as const) if (lists[k].size() === 0) dss.delete(PDFName.of(KEYS[k]));
  if (vri.length > 0) {
    const vriObj = dss.get(PDFName.of("VRI"));
    const vriDict = (vriObj instanceof PDFRef ? context.lookup(vriObj) : vriObj) instanceof PDFDict ? ((vriObj instanceof PDFRef ? context.lookup(vriObj) : vriObj) as PDFDict) : context.obj({});
    dss.set(PDFName.of("VRI"), vriDict);
    for (const entry of vri) {
      const dict = context.obj({}) as PDFDict;
      const singular = { certs: "Cert", ocsps: "OCSP", crls: "CRL" } as const;
      for (const k of ["certs", "ocsps", "crls"] as const) {
        if (entry.data[k].length === 0) continue;
        dict.set(PDFName.of(singular[k]), context.obj(entry.data[k].map((bytes) => add(KEYS[k], lists[k], bytes))));
      }
      vriDict.set(PDFName.of(await vriKey(entry.contents)), dict);
    }
  }
  if (!(existing instanceof PDFDict)) catalog.set(PDFName.of("DSS"), context.register(dss));
  await pdf.commit();
  return pdf.parts;
}
