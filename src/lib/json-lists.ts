/**
 * Bytes of one JSON list bound as a statement parameter: half of D1's 2 MB per string or row, so a list
 * stays far from the limit whatever its entries escape to.
 */
export const JSON_LIST_BYTES = 1_000_000;

/**
 * `entries` as JSON arrays of at most `maxBytes` (UTF-8) each, in order: the parameters of statements
 * that take many rows at once through `json_each(?)`, one statement per list instead of one per row
 * (D1 runs at most 1,000 statements per invocation).
 */
export function jsonLists(entries: readonly unknown[], maxBytes = JSON_LIST_BYTES): string[] {
  const encoder = new TextEncoder();
  const lists: string[] = [];
  let current: string[] = [];
  let bytes = 2; // the brackets
  for (const entry of entries) {
    const json = JSON.stringify(entry);
    const size = encoder.encode(json).length + 1; // and its comma
    if (current.length > 0 && bytes + size > maxBytes) {
      lists.push(`[${current.join(",")}]`);
      current = [];
      bytes = 2;
    }
    current.push(json);
    bytes += size;
  }
  if (current.length > 0) lists.push(`[${current.join(",")}]`);
  return lists;
}
