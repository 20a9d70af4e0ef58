/**
 * What R2 custom metadata says of a copy made the current way: re-serialized, stamped and sealed by
 * the service as a copy (docs/decisions/re-serialized-copies.md). A stored copy without it (every
 * copy made before, an incremental update appended to the authoritative bytes) is never served: it is
 * made again from the authoritative copy at its first request, at the same key.
 */
export const COPY_FORMAT_KEY = "copy_format";
export const COPY_FORMAT = "sealed-reserialized-v1";

export const isCurrentCopy = (object: R2Object | null): boolean => object?.customMetadata?.[COPY_FORMAT_KEY] === COPY_FORMAT;
