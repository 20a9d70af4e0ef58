/**
 * Names that make a PDF unreadable by the decode budget, found wherever they are spelled: in the file
 * as it is and in everything the budget inflates (object streams hide dictionaries), with `#xx`
 * escapes undone (`/LZ#57Decode` is `/LZWDecode` to every reader).
 * - LZW and RunLength expand without any header the scanner could recognise (~2,500:1 and 64:1), so a
 *   stream encoded with them cannot be told apart from any other bytes: files that name them are refused.
 * - `Encrypt`: encrypted stream bytes cannot be inflated without the key, so they cannot be counted.
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

/** PDF whitespace and delimiters end a name. */
const ENDS_NAME = new Uint8Array(256);
for (const ch of [0, 9, 10, 12, 13, 32, 0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) ENDS_NAME[ch] = 1;

/** Scans bytes fed in pieces for the refused names; a name split across two pieces is still seen. */
export class RefusedNameScanner {
  found: RefusedName | null = null;
  /** the name being read when the last piece ended (null: not inside a name) */
  private pending: number[] | null = null;

  constructor(private readonly refuse: ReadonlySet<RefusedName>) {}

  push(chunk: Uint8Array): void {
    let i = 0;
    if (this.pending) i = this.readName(chunk, 0, this.pending);
    for (;;) {
      const slash = chunk.indexOf(0x2f, i);
      if (slash < 0) return;
      i = this.readName(chunk, slash + 1, []);
    }
  }

  /** Reads name characters from `at`; returns where it stopped. Keeps the name open at the piece's end. */
  private readName(chunk: Uint8Array, at: number, name: number[]): number {
    let i = at;
    while (i < chunk.length && !ENDS_NAME[chunk[i]!]) {
      if (name.length <= LONGEST * 3) name.push(chunk[i]!);
      i++;
    }
    if (i === chunk.length) {
      this.pending = name;
      return i;
    }
    this.pending = null;
    this.judge(name);
    return i;
  }

  private judge(raw: number[]): void {
    if (raw.length === 0 || raw.length > LONGEST * 3) return;
    const text = String.fromCharCode(...raw).replace(/#([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const refused = REFUSED[text];
    if (refused && this.refuse.has(refused)) this.found ??= refused;
  }

  /** The end of the bytes closes a name left open. */
  finish(): void {
    if (this.pending) this.judge(this.pending);
    this.pending = null;
  }
}
