import { Unzlib } from "fflate";

/**
 * What a drawn signature may be before anything decodes it. pdf-lib's PNG decoder (UPNG) turns an image
 * into RGBA in full, and more than once over (the inflated rows, RGBA, then RGB and alpha apart): a
 * 250 KB PNG declaring 8000x8000 pixels asks for over a gigabyte and takes the 128 MB isolate down for
 * every tenant in it. So the header and the chunk list are read, and the pixel data inflated and only
 * counted, before any decoder sees the bytes.
 *
 * - at most 2000 pixels wide and 1000 high: the signing page's pad is at most about 1200x340 at twice
 *   the screen's density; 2000x1000 decodes to 8 MB of RGBA;
 * - the colour types and bit depths canvas encoders and signature pads write: 8-bit RGBA, RGB, grey
 *   with alpha; grey and palette at 1, 2, 4 or 8 bits. 16-bit images are refused (never drawn on a pad);
 * - not interlaced, not animated (an APNG's frames are each decoded to full RGBA);
 * - the pixel data inflates to exactly the size its header declares, never past it.
 */
export const MAX_SIGNATURE_WIDTH = 2000;
export const MAX_SIGNATURE_HEIGHT = 1000;

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Samples per pixel, and the bit depths allowed, by PNG colour type. */
const COLOUR_TYPES: Record<number, { name: string; channels: number; depths: number[] }> = {
  0: { name: "greyscale", channels: 1, depths: [1, 2, 4, 8] },
  2: { name: "RGB", channels: 3, depths: [8] },
  3: { name: "palette", channels: 1, depths: [1, 2, 4, 8] },
  4: { name: "greyscale with alpha", channels: 2, depths: [8] },
  6: { name: "RGBA", channels: 4, depths: [8] },
};
const ALLOWED = "8-bit RGBA, RGB or greyscale with alpha, or greyscale or palette of 1 to 8 bits";
const ANIMATION_CHUNKS = new Set(["acTL", "fcTL", "fdAT"]);

export type SignaturePngHeader = { width: number; height: number; bitDepth: number; colourType: number; interlace: number };

/**
 * Why these bytes are not an acceptable drawn signature, in words naming the limit, or null when they
 * are: a PNG within the limits above whose pixel data inflates to exactly what its header declares.
 * Costs at most one pass over the data, holding about a megabyte of inflated output at a time.
 */
export function signaturePngProblem(bytes: Uint8Array): string | null {
  if (bytes.length < 8 || !PNG_MAGIC.every((b, i) => bytes[i] === b)) return "the image is not a PNG";
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let header: SignaturePngHeader | null = null;
  let hasPalette = false;
  let ended = false;
  const pixelData: Uint8Array[] = [];
  for (let at = 8; at < bytes.length && !ended; ) {
    if (at + 12 > bytes.length) return "the image is truncated";
    const length = view.getUint32(at);
    if (length > bytes.length - at - 12) return "the image is truncated";
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (header === null && type !== "IHDR") return "the image does not start with a PNG header";
    if (type === "IHDR") {
      if (header !== null || length !== 13) return "the image has a malformed PNG header";
      header = { width: view.getUint32(at + 8), height: view.getUint32(at + 12), bitDepth: data[8]!, colourType: data[9]!, interlace: data[12]! };
      const problem = headerProblem(header, data[10]!, data[11]!);
      if (problem) return problem;
    } else if (ANIMATION_CHUNKS.has(type)) return "the image is an animated PNG; a drawn signature is one still image";
    else if (type === "PLTE") hasPalette = true;
    else if (type === "IDAT") pixelData.push(data);
    else if (type === "IEND") ended = true;
    at += 12 + length;
  }
  if (header === null) return "the image does not start with a PNG header";
  if (!ended) return "the image is truncated";
  if (header.colourType === 3 && !hasPalette) return "the image is a palette PNG without a palette";
  return pixelDataProblem(pixelData, inflatedSize(header));
}

function headerProblem(h: SignaturePngHeader, compression: number, filter: number): string | null {
  if (h.width === 0 || h.height === 0 || h.width > MAX_SIGNATURE_WIDTH || h.height > MAX_SIGNATURE_HEIGHT) {
    return `the image is ${h.width}x${h.height} pixels; a drawn signature is at most ${MAX_SIGNATURE_WIDTH}x${MAX_SIGNATURE_HEIGHT} pixels`;
  }
  const colour = COLOUR_TYPES[h.colourType];
  if (!colour) return `the image has PNG colour type ${h.colourType}; a drawn signature is ${ALLOWED}`;
  if (!colour.depths.includes(h.bitDepth)) return `the image is ${h.bitDepth}-bit ${colour.name}; a drawn signature is ${ALLOWED}`;
  if (h.interlace !== 0) return "the image is interlaced; a drawn signature is a non-interlaced PNG";
  if (compression !== 0 || filter !== 0) return "the image uses an unknown PNG compression or filter method";
  return null;
}

/** Each row is one filter byte and its packed samples. */
function inflatedSize(h: SignaturePngHeader): number {
  const bitsPerPixel = COLOUR_TYPES[h.colourType]!.channels * h.bitDepth;
  return h.height * (1 + Math.ceil((h.width * bitsPerPixel) / 8));
}

/**
 * Inflates the IDAT data in 1 KB pieces of input (each inflates to at most about 1 MB), counting the
 * output and dropping it, and stops as soon as it passes what the header declares: UPNG would inflate a
 * bomb's whole stream, spending the CPU even where its buffer drops the excess.
 */
function pixelDataProblem(chunks: Uint8Array[], expected: number): string | null {
  if (chunks.length === 0) return "the image has no pixel data";
  const PIECE = 1024;
  let produced = 0;
  const over = new Error("past the declared size");
  const inflater = new Unzlib((chunk) => {
    produced += chunk.byteLength;
    if (produced > expected) throw over;
  });
  try {
    for (let c = 0; c < chunks.length; c++) {
      const data = chunks[c]!;
      const last = c === chunks.length - 1;
      if (data.length === 0 && last) inflater.push(new Uint8Array(0), true);
      for (let o = 0; o < data.length; o += PIECE) inflater.push(data.subarray(o, o + PIECE), last && o + PIECE >= data.length);
    }
  } catch (err) {
    if (err === over) return `the image's pixel data inflates past the ${expected} bytes its header declares`;
    return "the image's pixel data is corrupt";
  }
  if (produced !== expected) return `the image's pixel data inflates to ${produced} bytes, not the ${expected} its header declares`;
  return null;
}
