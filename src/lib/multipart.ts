import { ApiError, badRequest } from "./errors";

/** Template and document uploads (spec part 8: 50 MB), counted in binary megabytes. */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;

/** Room for the form's text fields, part headers and boundaries on top of the file itself. */
export const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

export type UploadedFile = { filename: string | null; contentType: string | null; bytes: Uint8Array };
export type MultipartForm = { fields: Record<string, string>; file: UploadedFile | null };

const tooLarge = (limit: number) =>
  new ApiError(413, `Payload too large: the file is limited to ${limit / (1024 * 1024)} MB`, { limit_bytes: limit });

function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary || boundary.length > 70) throw badRequest("Malformed multipart body: the Content-Type has no valid boundary");
  return boundary;
}

export const isMultipart = (contentType: string | null | undefined) => /^multipart\/form-data/i.test(contentType ?? "");

const bodies = new WeakMap<Request, Promise<Uint8Array>>();

/**
 * The raw body of an upload, read once per request and bounded by the largest upload any route takes:
 * the Idempotency-Key fingerprint and the route share this one buffer instead of each holding a copy.
 */
export function uploadBody(req: Request): Promise<Uint8Array> {
  let body = bodies.get(req);
  if (!body) bodies.set(req, (body = readBody(req, MAX_PDF_BYTES)));
  return body;
}

/**
 * The body cut at its boundary delimiters (views, no copies): what an Idempotency-Key fingerprint
 * hashes, because a client retrying an upload re-encodes the form with a fresh random boundary.
 */
export function partsWithoutBoundary(body: Uint8Array, contentType: string | undefined): (Uint8Array | string)[] {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
  const delimiter = boundary ? new TextEncoder().encode(`--${boundary[1] ?? boundary[2]}`) : null;
  if (!delimiter) return [body];
  const parts: (Uint8Array | string)[] = [];
  let from = 0;
  for (let at = indexOf(body, delimiter, 0); at !== -1; at = indexOf(body, delimiter, from)) {
    parts.push(body.subarray(from, at), "\n--\n");
    from = at + delimiter.length;
  }
  parts.push(body.subarray(from));
  return parts;
}

/** The first buffer of an upload; later ones double, so memory follows the bytes that arrived. */
const FIRST_BUFFER_BYTES = 256 * 1024;

/**
 * Reads the request body into one buffer, refusing early: a Content-Length above the limit is 413
 * before anything is read, and a body that grows past it while streaming (no or a false length) is
 * cut off at the limit. The buffer grows from the bytes received (doubling, capped at the declared
 * length when it is honest), never from the declared length alone: a client that declares 50 MB and
 * trickles a few bytes pins a few bytes, not 50 MB.
 */
async function readBody(req: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  const limit = maxBytes + MULTIPART_OVERHEAD_BYTES;
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(maxBytes);
  if (!req.body) return new Uint8Array(0);
  const honest = Number.isFinite(declared) && declared > 0 ? declared : limit;
  let buf = new Uint8Array(Math.min(FIRST_BUFFER_BYTES, honest));
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    if (size + value.length > buf.length) {
      const doubled = Math.min(buf.length * 2, size + value.length <= honest ? honest : limit);
      const grown = new Uint8Array(Math.max(size + value.length, doubled));
      grown.set(buf.subarray(0, size));
      buf = grown;
    }
    buf.set(value, size);
    size += value.length;
  }
  return buf.subarray(0, size);
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  for (let i = haystack.indexOf(first, from); i !== -1 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function headerParam(header: string, name: string): string | null {
  const match = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, "i").exec(header) ?? new RegExp(`;\\s*${name}=([^;\\s]+)`, "i").exec(header);
  return match ? match[1]!.replace(/\\(.)/g, "$1") : null;
}

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder("utf-8");

/**
 * Parses a multipart/form-data body with one file part (`fileField`) and text fields. The body is held
 * once; the file is then moved to the front of that same buffer and the buffer shrunk to it, so the
 * PDF ends up in a buffer of its own without a second full copy living on.
 */
export async function readMultipartForm(req: Request, opts: { fileField: string; maxFileBytes: number }): Promise<MultipartForm> {
  const boundary = boundaryOf(req.headers.get("content-type") ?? "");
  const body = await uploadBody(req);
  bodies.delete(req); // the file is moved within this buffer below: nothing else may read it after
  const delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
  const fields: Record<string, string> = {};
  let fileRange: { start: number; end: number; filename: string | null; contentType: string | null } | null = null;

  // The first delimiter may open the body without the leading CRLF.
  let pos = indexOf(body, delimiter.subarray(2), 0);
  if (pos === -1) throw badRequest("Malformed multipart body: no part found");
  pos += delimiter.length - 2;
  for (;;) {
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break; // closing delimiter
    const headerEnd = indexOf(body, new Uint8Array([13, 10, 13, 10]), pos);
    if (headerEnd === -1) throw badRequest("Malformed multipart body: unterminated part headers");
    const headers = latin1.decode(body.subarray(pos, headerEnd)).trim();
    const next = indexOf(body, delimiter, headerEnd + 4);
    if (next === -1) throw badRequest("Malformed multipart body: missing closing boundary");
    const disposition = /^content-disposition:(.*)$/im.exec(headers)?.[1] ?? "";
    const name = headerParam(disposition, "name");
    if (name !== null) {
      if (name in fields || (name === opts.fileField && fileRange)) throw badRequest(`Malformed multipart body: the field ${name} is sent twice`);
      if (name === opts.fileField) {
        const filename = headerParam(disposition, "filename");
        const contentType = /^content-type:\s*(.*)$/im.exec(headers)?.[1]?.trim() ?? null;
        fileRange = { start: headerEnd + 4, end: next, filename, contentType };
      } else {
        fields[name] = utf8.decode(body.subarray(headerEnd + 4, next));
      }
    }
    pos = next + delimiter.length;
  }
  if (!fileRange) return { fields, file: null };
  const size = fileRange.end - fileRange.start;
  if (size > opts.maxFileBytes) throw tooLarge(opts.maxFileBytes);
  return { fields, file: { filename: fileRange.filename, contentType: fileRange.contentType, bytes: ownBuffer(body, fileRange.start, size) } };
}

/** The file's bytes in a buffer of exactly their size, reusing the body's memory where the runtime can. */
function ownBuffer(body: Uint8Array, start: number, size: number): Uint8Array {
  const buffer = body.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  if (typeof buffer.transfer === "function" && body.byteOffset === 0) {
    body.copyWithin(0, start, start + size);
    return new Uint8Array(buffer.transfer(size));
  }
  return body.slice(start, start + size);
}
