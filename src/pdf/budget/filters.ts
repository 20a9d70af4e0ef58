import { Ascii85Layer, FlateLayer, HexLayer, OverBudget, Tally, type Sink } from "./layers";
import { LzwLayer, RunLengthLayer } from "./lzw-run-length";
import type { PdfValue } from "./lexer";
import type { PdfObjects, StreamObject } from "./objects";

/**
 * A stream's filter chain, from its parsed dictionary: `/Filter` (a name or an array of names, each
 * possibly an indirect reference, `#`-escaped spellings already undone by the lexer) and the names'
 * abbreviations as pdf.js accepts them. Decoding counts every layer's output under one tally.
 */
export type Filter = "flate" | "hex" | "a85" | "lzw" | "lzw-early-0" | "run_length" | "image";

const FILTERS: Record<string, Filter> = {
  FlateDecode: "flate",
  Fl: "flate",
  ASCIIHexDecode: "hex",
  AHx: "hex",
  ASCII85Decode: "a85",
  A85: "a85",
  LZWDecode: "lzw",
  LZW: "lzw",
  RunLengthDecode: "run_length",
  RL: "run_length",
  // image codecs: their output is pixels, read by nobody here; a chain stops counting at them
  DCTDecode: "image",
  DCT: "image",
  JPXDecode: "image",
  JBIG2Decode: "image",
  CCITTFaxDecode: "image",
  CCF: "image",
};

/** Why a stream's filters could not be decided: the caller refuses the file. */
export class UndecidableFilter extends Error {
  constructor(readonly filter: string) {
    super(filter);
  }
}

/** More combinations of conflicting definitions than this: refused rather than decoded over and over. */
const MAX_CHAINS = 16;

/**
 * Every chain the stream may be read with: one normally; more when a referenced filter object is
 * defined more than once with different names (a reader may take any of them). An unknown name or a
 * reference to nothing throws UndecidableFilter.
 */
export function filterChains(stream: StreamObject, objects: PdfObjects): Filter[][] {
  const value = stream.dict.get("Filter");
  if (!value) return [[]];
  const chains = new Map<string, Filter[]>();
  const candidates = objects.resolve(value);
  if (candidates.length === 0) throw new UndecidableFilter("an indirect object that does not exist");
  for (const top of candidates) {
    let partial: Filter[][] = [[]];
    const items = top.kind === "array" ? top.items : [top];
    for (const item of items) {
      const names = objects.resolve(item);
      if (names.length === 0) throw new UndecidableFilter("an indirect object that does not exist");
      const next: Filter[][] = [];
      for (const n of names) {
        const filter = filterOf(n);
        for (const p of partial) next.push([...p, filter]);
      }
      partial = next;
      if (partial.length > MAX_CHAINS) throw new UndecidableFilter("conflicting definitions");
    }
    for (const p of partial) {
      chains.set(p.join(","), p);
      // LZW's /EarlyChange (in /DecodeParms) changes what the codes decode to: both readings are counted
      if (p.includes("lzw")) {
        const early0 = p.map((f): Filter => (f === "lzw" ? "lzw-early-0" : f));
        chains.set(early0.join(","), early0);
      }
    }
  }
  if (chains.size > MAX_CHAINS) throw new UndecidableFilter("conflicting definitions");
  return [...chains.values()];
}

function filterOf(value: PdfValue): Filter {
  if (value.kind === "null") throw new UndecidableFilter("null");
  if (value.kind !== "name") throw new UndecidableFilter(`a ${value.kind}`);
  const filter = FILTERS[value.name];
  if (!filter) throw new UndecidableFilter(value.name);
  return filter;
}

/** Self-ending codecs may be fed to the end of the file; LZW and RunLength only to the end of the data. */
export const selfEnding = (f: Filter | undefined) => f === "flate" || f === "hex" || f === "a85";

/**
 * Decodes `input` through `chain`, counting every layer's output on `tally` (throws OverBudget past
 * its limit); `keep` receives the last layer's output when given (object streams, to be parsed).
 * Returns once the first layer ends or the input is used up.
 */
export function decodeChain(input: Uint8Array, filters: Filter[], tally: Tally, keep?: (chunk: Uint8Array) => void): void {
  const cut = filters.indexOf("image");
  const chain = cut < 0 ? filters : filters.slice(0, cut);
  let sink: Sink = { done: false, push: (chunk) => keep?.(chunk) };
  const layers: Sink[] = [];
  for (let k = chain.length - 1; k >= 0; k--) {
    const f = chain[k] as Exclude<Filter, "image">;
    const counted = countInto(tally, sink);
    sink = layerFor(f, counted);
    layers.unshift(sink);
  }
  const head = layers[0];
  if (!head) return;
  for (let at = 0; at < input.length && !head.done && !layers[layers.length - 1]!.done; at += 1024) head.push(input.subarray(at, at + 1024));
}

function countInto(tally: Tally, next: Sink): Sink {
  return {
    get done() {
      return next.done;
    },
    push(chunk: Uint8Array) {
      tally.add(chunk);
      if (!next.done) next.push(chunk);
    },
  };
}

function layerFor(f: Exclude<Filter, "image">, out: Sink): Sink {
  switch (f) {
    case "flate":
      return new FlateLayer(out);
    case "hex":
      return new HexLayer(out);
    case "a85":
      return new Ascii85Layer(out);
    case "lzw":
      return new LzwLayer(out, 1);
    case "lzw-early-0":
      return new LzwLayer(out, 0);
    case "run_length":
      return new RunLengthLayer(out);
  }
}

export { OverBudget };
