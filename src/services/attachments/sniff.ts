import type { AttachmentType } from "../documents/schema";
import { checkUpload } from "../../pdf/check-upload";
import { ApiError, type ErrorCodesByStatus } from "../../lib/errors";

/** An attachment's size limit (docs/decisions/attachments.md). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** A photo of a document is a few thousand pixels a side; past these the file is no ordinary photo. */
export const MAX_IMAGE_SIDE = 12_000;
export const MAX_IMAGE_PIXELS = 50_000_000;

export type SniffedImage = { width: number; height: number };

const startsWith = (bytes: Uint8Array, sig: number[]) => sig.every((b, i) => bytes[i] === b);
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const u32 = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const u16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;

/** What the bytes are, by their signature alone (the declared type and the file name are never trusted). */
export function sniffType(bytes: Uint8Array): AttachmentType | null {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return "application/pdf"; // %PDF-
  if (startsWith(bytes, PNG_SIGNATURE)) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  return null;
}

/** A PNG's size from its IHDR, the chunk the format puts first; null when it is not there. */
export function pngSize(bytes: Uint8Array): SniffedImage | null {
  if (bytes.length < 33 || u32(bytes, 8) !== 13 || String.fromCharCode(...bytes.subarray(12, 16)) !== "IHDR") return null;
  return { width: u32(bytes, 16), height: u32(bytes, 20) };
}

/** A JPEG's size from its first start-of-frame marker (SOF0…SOF15 but DHT, JPG and DAC), walking the segments. */
export function jpegSize(bytes: Uint8Array): SniffedImage | null {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image, or the scan, before any frame header
    const length = u16(bytes, at + 2);
    if (length < 2) return null;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > bytes.length) return null;
      return { height: u16(bytes, at + 5), width: u16(bytes, at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/**
 * The hostile-input gate of an attachment (docs/decisions/hostile-input-fuzz.md, pdf-decode-budget.md):
 * its type is what its bytes say, one the field accepts (415 otherwise); a PDF passes the upload's
 * decode budget (413 for a decompression bomb, 415 when it is no PDF); an image has a readable header
 * with sane dimensions (422 otherwise), so a pixel bomb never reaches anyone who opens it.
 */
export async function checkAttachment(bytes: Uint8Array, accept: readonly AttachmentType[]): Promise<{ type: AttachmentType; image: SniffedImage | null }> {
  if (bytes.length === 0) throw new ApiError(422, "The file is empty", { size: 0 }, "attachment_empty");
  if (bytes.length > MAX_ATTACHMENT_BYTES) throw new ApiError(413, `The file is larger than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB`, { max_bytes: MAX_ATTACHMENT_BYTES }, "attachment_too_large");
  const type = sniffType(bytes);
  if (!type || !accept.includes(type)) {
    throw new ApiError(415, `This field takes ${accept.map(label).join(", ")} files; the file sent is ${type ? label(type) : "none of these"}`, { accept, received: type }, "attachment_type_not_accepted");
  }
  if (type === "application/pdf") {
    await checkUpload(bytes);
    return { type, image: null };
  }
  const image = type === "image/png" ? pngSize(bytes) : jpegSize(bytes);
  if (!image) throw new ApiError(422, `The ${label(type)} image has no readable header`, { type }, "attachment_unreadable");
  if (image.width < 1 || image.height < 1 || image.width > MAX_IMAGE_SIDE || image.height > MAX_IMAGE_SIDE || image.width * image.height > MAX_IMAGE_PIXELS) {
    throw new ApiError(422, `The image is ${image.width} × ${image.height} pixels: at most ${MAX_IMAGE_SIDE} a side and ${MAX_IMAGE_PIXELS / 1_000_000} megapixels`, { width: image.width, height: image.height }, "attachment_dimensions");
  }
  return { type, image };
}

const label = (type: AttachmentType) => ({ "application/pdf": "PDF", "image/jpeg": "JPEG", "image/png": "PNG" })[type];

/** What an uploaded attachment answers when its bytes are refused. */
export const ATTACHMENT_FILE_ERRORS: ErrorCodesByStatus = {
  413: ["attachment_too_large"],
  415: ["attachment_type_not_accepted"],
  422: ["attachment_empty", "attachment_unreadable", "attachment_dimensions"],
};
