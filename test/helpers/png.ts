import { Zlib, zlibSync } from "fflate";

/** PNG files made byte by byte, so a test can declare whatever a hostile encoder would. */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function chunk(type: string, data: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

export type PngHeader = { width: number; height: number; bitDepth?: number; colourType?: number; interlace?: number };

export function ihdr(h: PngHeader): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, h.width);
  view.setUint32(4, h.height);
  data.set([h.bitDepth ?? 8, h.colourType ?? 6, 0, 0, h.interlace ?? 0], 8);
  return chunk("IHDR", data);
}

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};

/** A PNG of the given header whose IDAT holds `idat` (already zlib-compressed), with extra chunks before it. */
export function png(header: PngHeader, idat: Uint8Array, before: Uint8Array[] = []): Uint8Array {
  return concat([Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr(header), ...before, chunk("IDAT", idat), chunk("IEND")]);
}

/** `total` zero bytes, zlib-compressed a megabyte at a time (never held whole): the body of a bomb. */
export function zlibOfZeros(total: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const zlib = new Zlib({ level: 9 }, (data) => parts.push(data));
  const piece = new Uint8Array(1024 * 1024);
  for (let left = total; left > 0; left -= piece.length) {
    zlib.push(left > piece.length ? piece : piece.subarray(0, left), left <= piece.length);
  }
  return concat(parts);
}

/**
 * What a signature pad would send: an RGBA image of the given size, transparent, with a dark-blue
 * diagonal stroke 4 pixels thick.
 */
export function drawnSignature(width = 1200, height = 340): Uint8Array {
  const row = 1 + width * 4;
  const raw = new Uint8Array(row * height);
  for (let y = 0; y < height; y++) {
    const x0 = Math.floor((y / height) * width);
    for (let x = x0; x < Math.min(width, x0 + 4); x++) raw.set([0x0b, 0x1f, 0x4b, 0xff], y * row + 1 + x * 4);
  }
  return png({ width, height }, zlibSync(raw));
}

/** A 4-bit palette image (two colours), as an optimizing encoder writes a pen stroke. */
export function paletteSignature(width = 600, height = 200): Uint8Array {
  const row = 1 + Math.ceil(width / 2);
  const raw = new Uint8Array(row * height);
  for (let y = 0; y < height; y++) raw[y * row + 1 + Math.floor(((y / height) * width) / 2)] = 0x11;
  const plte = chunk("PLTE", Uint8Array.from([255, 255, 255, 11, 31, 75]));
  return png({ width, height, bitDepth: 4, colourType: 3 }, zlibSync(raw), [plte]);
}

export function dataUrl(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:image/png;base64,${btoa(binary)}`;
}
