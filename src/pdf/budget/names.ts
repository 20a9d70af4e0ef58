/**
 * Names that make a PDF unreadable by the decode budget, found where a reader would take them as a
 * stream's filter, with `#xx` escapes undone (`/LZ#57Decode` is `/LZWDecode` to every reader).
 * - LZW and RunLength expand without any header the scanner could recognise (~2,500:1 and 64:1), so a
 *   stream encoded with them cannot be told apart from any other bytes: files that name them are refused.
 * - `Encrypt`: encrypted stream bytes cannot be inflated without the key, so they cannot be counted.
 *
 * Where a name counts: a 50 MB scan is mostly image bytes, and random bytes spell `/RL` followed by a
 * delimiter about once in 200 MB, so a bare search refuses good files. Readers only ever take a
 * filter from a dictionary's `/Filter` value (a name, an array of names) or from the indirect object
 * that value points to, so:
 * - in the file as it is (`filterContext`), LZW and RunLength count only as the value of `/Filter`
 *   (alone or in its array) or as the value of an indirect object (`n g obj /RL`, `n g obj [/RL]`);
 * - in decoded data (object streams hold indirect objects with no `obj` keyword), they count in text
 *   only: a chunk that is mostly binary is image or font data, never parsed as objects; and never as
 *   an inline image's `/F` (inline images are not decoded to read text).
 * `/Encrypt` counts anywhere: eight bytes, never met by chance.
 */
export type RefusedName = "lzw" | "run_length" | "encrypt";

const REFUSED: Record<string, RefusedName> = {
  LZWDecode: "lzw",
  LZW: "lzw",
  RunLengthDecode: "run_length",
  RL: "run_length",
  Encrypt: "encrypt",
};
const LONGEST = 16;
/** How much text before a name is kept to judge where it stands. */
const CONTEXT = 256;

/** PDF whitespace and delimiters end a name. */
const ENDS_NAME = new Uint8Array(256);
for (const ch of [0, 9, 10, 12, 13, 32, 0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) ENDS_NAME[ch] = 1;

const latin1 = new TextDecoder("latin1");
const unescape = (text: string) => text.replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** Text just before a name that makes it a filter: `/Filter` or `obj`, then optionally `[` and other names. */
const FILTER_VALUE = /(?:\/Filter|(?:^|[\s\]>)])obj)\s*(?:\[(?:\s*\/[^\s/[\]<>(){}%]*)*)?\s*$/;
/** An inline image's filter key: inline images are not decoded to read a page's text. */
const INLINE_IMAGE_FILTER = /\/F\s*(?:\[(?:\s*\/[^\s/[\]<>(){}%]*)*)?\s*$/;

export type NameContext = "filter-value" | "text";

/** Scans bytes fed in pieces for the refused names; a name split across two pieces is still seen. */
export class RefusedNameScanner {
  found: RefusedName | null = null;
  /** the name being read when the last piece ended (null: not inside a name) */
  private pending: { name: number[]; before: string } | null = null;
  /** the end of the previous piece, for the context of a name at the start of the next */
  private tail = new Uint8Array(0);

  constructor(
    private readonly refuse: ReadonlySet<RefusedName>,
    private readonly context: NameContext,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.context === "text" && mostlyBinary(chunk)) {
      this.pending = null;
      this.tail = new Uint8Array(0);
      return;
    }
    let i = 0;
    if (this.pending) i = this.readName(chunk, 0, this.pending.name, this.pending.before);
    for (;;) {
      const slash = chunk.indexOf(0x2f, i);
      if (slash < 0) break;
      i = this.readName(chunk, slash + 1, [], () => this.textBefore(chunk, slash));
    }
    this.tail = chunk.slice(Math.max(0, chunk.length - CONTEXT));
  }

  private textBefore(chunk: Uint8Array, at: number): string {
    const own = chunk.subarray(Math.max(0, at - CONTEXT), at);
    return (own.length < CONTEXT && this.tail.length ? latin1.decode(this.tail) : "") + latin1.decode(own);
  }

  /** Reads name characters from `at`; returns where it stopped. Keeps the name open at the piece's end. */
  private readName(chunk: Uint8Array, at: number, name: number[], before: string | (() => string)): number {
    let i = at;
    while (i < chunk.length && !ENDS_NAME[chunk[i]!]) {
      if (name.length <= LONGEST * 3) name.push(chunk[i]!);
      i++;
    }
    if (i === chunk.length) {
      this.pending = { name, before: typeof before === "string" ? before : before() };
      return i;
    }
    this.pending = null;
    this.judge(name, before);
    return i;
  }

  private judge(raw: number[], before: string | (() => string)): void {
    if (raw.length === 0 || raw.length > LONGEST * 3) return;
    const refused = REFUSED[unescape(String.fromCharCode(...raw))];
    if (!refused || !this.refuse.has(refused) || this.found) return;
    if (refused !== "encrypt") {
      const text = unescape(typeof before === "string" ? before : before());
      if (this.context === "filter-value" ? !FILTER_VALUE.test(text) : INLINE_IMAGE_FILTER.test(text)) return;
    }
    this.found = refused;
  }

  /** The end of the bytes closes a name left open. */
  finish(): void {
    if (this.pending) this.judge(this.pending.name, this.pending.before);
    this.pending = null;
  }
}

/** More than one byte in ten outside text (tab, line ends, printable ASCII): image or font data. */
function mostlyBinary(chunk: Uint8Array): boolean {
  let binary = 0;
  for (const c of chunk) if (c < 0x09 || (c > 0x0d && c < 0x20) || c > 0x7e) binary++;
  return binary * 10 > chunk.length;
}
