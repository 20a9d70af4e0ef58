import { Inflate } from "fflate";

/**
 * Counts what bytes decode to, recognising each layer by its content rather than by what a dictionary
 * claims: a zlib header is Flate (as pdf.js and pdf-lib check it: method 8, FCHECK, no preset
 * dictionary; any window size), hexadecimal digits or ASCII85 characters that decode to a zlib header
 * are an ASCIIHex or ASCII85 wrapper around Flate. Every layer's output is counted (pdf.js buffers
 * each layer of a chain), plus three bytes for every `z` in it, the ASCII85 shorthand for four zero
 * bytes. Output is only counted, a piece at a time, never kept.
 */

export class OverBudget extends Error {}

/** Shared by the layers of one stream: the count so far and where to stop. */
export class Tally {
  size = 0;
  constructor(private readonly limit: number) {}
  add(chunk: Uint8Array): void {
    let zs = 0;
    for (let i = chunk.indexOf(0x7a); i >= 0; i = chunk.indexOf(0x7a, i + 1)) zs++;
    this.size += chunk.byteLength + 3 * zs;
    if (this.size > this.limit) throw new OverBudget();
  }
}

export const isZlibHeader = (cmf: number, flg: number) => (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0 && (flg & 0x20) === 0;

export interface Sink {
  push(chunk: Uint8Array): void;
  readonly done: boolean;
}

const PIECE = 1024;
/** Past the end of a deflate stream fflate waits quietly; a stored block holds at most 64 KB. */
const QUIET_INPUT_AFTER_END = 70 * 1024;

/** Raw deflate (after the two header bytes), inflated in 1 KB pieces of input: at most ~1 MB of output at a time. */
export class FlateLayer implements Sink {
  done = false;
  private readonly inflate: Inflate;
  private produced = 0;
  private quiet = 0;
  private headerLeft = 2;

  constructor(out: Sink) {
    this.inflate = new Inflate((chunk) => {
      if (chunk.byteLength) {
        this.produced += chunk.byteLength;
        out.push(chunk);
      }
    });
  }

  push(chunk: Uint8Array): void {
    let data = chunk;
    if (this.headerLeft) {
      const skip = Math.min(this.headerLeft, data.byteLength);
      this.headerLeft -= skip;
      data = data.subarray(skip);
    }
    let at = 0;
    while (at < data.byteLength && !this.done) {
      const state = (this.inflate as unknown as { s: { f?: number; l?: unknown } }).s;
      const endedLooking = Boolean(state.f) && !state.l;
      const piece = data.subarray(at, at + (endedLooking ? 8 * PIECE : PIECE));
      at += piece.byteLength;
      const before = this.produced;
      try {
        this.inflate.push(piece, false);
      } catch (err) {
        if (err instanceof OverBudget) throw err;
        this.done = true; // corrupt data: readers stop here too, and what came out counted
        return;
      }
      if (this.produced === before && endedLooking) {
        this.quiet += piece.byteLength;
        if (this.quiet > QUIET_INPUT_AFTER_END) this.done = true;
      } else this.quiet = 0;
    }
  }
}

const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) HEX["0123456789abcdef".charCodeAt(i)] = i;
for (let i = 10; i < 16; i++) HEX["ABCDEF".charCodeAt(i - 10)] = i;
const isWhite = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;

/** ASCIIHex as pdf.js reads it: pairs of hex digits, anything else skipped, `>` ends. */
export class HexLayer implements Sink {
  done = false;
  private high = -1;
  constructor(private readonly out: Sink) {}
  push(chunk: Uint8Array): void {
    const decoded = new Uint8Array(chunk.byteLength >> 1 || 1);
    let n = 0;
    for (let i = 0; i < chunk.length && !this.done; i++) {
      const c = chunk[i]!;
      if (c === 0x3e) this.done = true;
      const v = HEX[c]!;
      if (v < 0) continue;
      if (this.high < 0) this.high = v;
      else {
        decoded[n++] = (this.high << 4) | v;
        this.high = -1;
      }
    }
    if (n) this.out.push(decoded.subarray(0, n));
  }
}

/** ASCII85: groups of five characters `!`..`u` to four bytes, `z` for four zero bytes, `~` ends. */
export class Ascii85Layer implements Sink {
  done = false;
  private group: number[] = [];
  constructor(private readonly out: Sink) {}
  push(chunk: Uint8Array): void {
    const decoded = new Uint8Array(Math.ceil(chunk.byteLength * 0.8) + 8);
    let n = 0;
    const flush = () => {
      if (n) this.out.push(decoded.subarray(0, n));
      n = 0;
    };
    for (let i = 0; i < chunk.length && !this.done; i++) {
      const c = chunk[i]!;
      if (isWhite(c)) continue;
      if (c === 0x7e) {
        this.done = true;
        break;
      }
      if (c === 0x7a && this.group.length === 0) {
        // four zero bytes for one character: written out in pieces so no chunk grows past its input's size
        if (n + 4 > decoded.length) flush();
        decoded.fill(0, n, n + 4);
        n += 4;
        continue;
      }
      if (c < 0x21 || c > 0x75) {
        this.done = true;
        break;
      }
      this.group.push(c - 0x21);
      if (this.group.length === 5) {
        let v = 0;
        for (const d of this.group) v = v * 85 + d;
        decoded[n++] = (v >>> 24) & 0xff;
        decoded[n++] = (v >>> 16) & 0xff;
        decoded[n++] = (v >>> 8) & 0xff;
        decoded[n++] = v & 0xff;
        this.group = [];
      }
    }
    flush();
  }
}

/**
 * Watches the start of some bytes for a layer worth decoding (Flate, or a text wrapper around it) and,
 * once recognised, feeds everything after to it. `hexWindow` bounds how many bytes may pass before the
 * text wrappers' first digits (Infinity: as far as pdf.js would skip).
 */
export class Sniffer implements Sink {
  private child: Sink | null = null;
  private settled = false;
  private first: number[] = [];
  private hexDigits: number[] = [];
  private hexDead = false;
  private a85: number[] = [];
  private a85Dead = false;
  private seen = 0;

  constructor(
    private readonly tally: Tally,
    private readonly hexWindow = Infinity,
  ) {}

  get done(): boolean {
    return this.settled && (this.child === null || this.child.done);
  }

  push(chunk: Uint8Array): void {
    if (this.child) {
      if (!this.child.done) this.child.push(chunk);
      return;
    }
    if (this.settled) return;
    for (let i = 0; i < chunk.length; i++) {
      const decided = this.look(chunk[i]!);
      if (decided) {
        this.settle(decided.layer, decided.replay);
        const rest = chunk.subarray(i + 1);
        if (rest.length && this.child && !(this.child as Sink).done) (this.child as Sink).push(rest);
        return;
      }
      if (this.settled) return;
    }
  }

  private settle(layer: "flate" | "hex" | "a85" | null, replay: number[]): void {
    this.settled = true;
    const counted = new CountedOutput(this.tally);
    if (layer === "flate") this.child = new FlateLayer(counted);
    else if (layer === "hex") this.child = new HexLayer(counted);
    else if (layer === "a85") this.child = new Ascii85Layer(counted);
    if (this.child && replay.length) this.child.push(Uint8Array.from(replay));
  }

  /** One more byte of the start; a decision once the start says enough. */
  private look(c: number): { layer: "flate" | "hex" | "a85"; replay: number[] } | null {
    this.seen++;
    if (this.first.length < 2) {
      this.first.push(c);
      if (this.first.length === 2 && isZlibHeader(this.first[0]!, this.first[1]!)) return { layer: "flate", replay: this.first };
    }
    if (!this.hexDead) {
      if (c === 0x3e || (this.hexDigits.length === 0 && this.seen > this.hexWindow)) this.hexDead = true;
      else if (HEX[c]! >= 0) {
        this.hexDigits.push(c);
        if (this.hexDigits.length === 4) {
          const [a, b, d, e] = this.hexDigits.map((h) => HEX[h]!);
          if (isZlibHeader((a! << 4) | b!, (d! << 4) | e!)) return { layer: "hex", replay: this.hexDigits };
          this.hexDead = true;
        }
      }
    }
    if (!this.a85Dead) {
      if (isWhite(c)) {
        /* skipped by the decoder */
      } else if (this.a85.length === 0 && c === 0x3c) {
        this.a85.push(-1); // "<~" opens some ASCII85 text
      } else if (this.a85[0] === -1 && this.a85.length === 1 && c === 0x7e) {
        this.a85.push(-2);
      } else if (c < 0x21 || c > 0x75) this.a85Dead = true;
      else {
        this.a85.push(c);
        const digits = this.a85.filter((d) => d >= 0);
        if (digits.length === 5) {
          let v = 0;
          for (const d of digits) v = v * 85 + (d - 0x21);
          if (isZlibHeader((v >>> 24) & 0xff, (v >>> 16) & 0xff)) return { layer: "a85", replay: digits };
          this.a85Dead = true;
        }
      }
    }
    if (this.first.length === 2 && this.hexDead && this.a85Dead) this.settled = true;
    return null;
  }
}

/** A layer's output: counted, and watched for a further layer inside. */
class CountedOutput implements Sink {
  readonly done = false;
  private readonly next: Sniffer;
  constructor(private readonly tally: Tally) {
    this.next = new Sniffer(tally);
  }
  push(chunk: Uint8Array): void {
    this.tally.add(chunk);
    this.next.push(chunk);
  }
}
