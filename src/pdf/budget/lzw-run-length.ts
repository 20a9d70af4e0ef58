import type { Sink } from "./layers";

/**
 * LZW and RunLength decoders that hand their output on in pieces (to be counted and dropped), so a
 * stream using them is counted like a Flate one instead of being refused for want of a header.
 * LZW as pdf.js and the PDF reference decode it: 9- to 12-bit codes, 256 clears the table, 257 ends,
 * the code width grows `earlyChange` (1 by default) codes early. A code the table cannot hold ends the
 * data (pdf.js stops there too).
 */

const PIECE = 64 * 1024;

class Output {
  private buf = new Uint8Array(PIECE + 4096);
  private n = 0;
  constructor(private readonly out: Sink) {}
  room(bytes: number): Uint8Array {
    if (this.n + bytes > this.buf.length) this.flush();
    return this.buf;
  }
  get at(): number {
    return this.n;
  }
  advance(bytes: number): void {
    this.n += bytes;
  }
  flush(): void {
    if (this.n) this.out.push(this.buf.slice(0, this.n));
    this.n = 0;
  }
}

export class LzwLayer implements Sink {
  done = false;
  private readonly prefix = new Int16Array(4096);
  private readonly last = new Uint8Array(4096);
  private readonly first = new Uint8Array(4096);
  private readonly length = new Uint16Array(4096);
  private nextCode = 258;
  private codeLength = 9;
  private previous = -1;
  private bits = 0;
  private bitCount = 0;
  private readonly output: Output;

  constructor(
    out: Sink,
    private readonly earlyChange = 1,
  ) {
    this.output = new Output(out);
    for (let c = 0; c < 256; c++) (this.last[c] = c), (this.first[c] = c), (this.length[c] = 1);
  }

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.done; i++) {
      this.bits = ((this.bits << 8) | chunk[i]!) & 0xffffff;
      this.bitCount += 8;
      while (this.bitCount >= this.codeLength && !this.done) {
        this.bitCount -= this.codeLength;
        this.code((this.bits >>> this.bitCount) & ((1 << this.codeLength) - 1));
      }
    }
    this.output.flush();
  }

  private code(code: number): void {
    if (code === 256) {
      this.nextCode = 258;
      this.codeLength = 9;
      this.previous = -1;
      return;
    }
    if (code === 257 || code > this.nextCode || (this.previous < 0 && code >= 256)) {
      this.done = true;
      return;
    }
    if (this.previous >= 0 && this.nextCode < 4096) {
      const n = this.nextCode++;
      this.prefix[n] = this.previous;
      this.first[n] = this.first[this.previous]!;
      this.last[n] = code === n ? this.first[this.previous]! : this.first[code]!;
      this.length[n] = this.length[this.previous]! + 1;
      const width = 32 - Math.clz32(this.nextCode + this.earlyChange);
      this.codeLength = Math.max(9, Math.min(12, width));
    }
    this.emit(code);
    this.previous = code;
  }

  private emit(code: number): void {
    const len = this.length[code]!;
    const buf = this.output.room(len);
    let c = code;
    for (let i = this.output.at + len - 1; i >= this.output.at; i--) {
      buf[i] = this.last[c]!;
      c = this.prefix[c]!;
    }
    this.output.advance(len);
  }
}

/** RunLength: a length byte n, then n + 1 literal bytes (n < 128) or one byte repeated 257 - n times (n > 128); 128 ends. */
export class RunLengthLayer implements Sink {
  done = false;
  private literal = 0;
  private repeat = 0;
  private readonly output: Output;
  constructor(out: Sink) {
    this.output = new Output(out);
  }
  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.done; i++) {
      const c = chunk[i]!;
      if (this.literal) {
        this.output.room(1)[this.output.at] = c;
        this.output.advance(1);
        this.literal--;
      } else if (this.repeat) {
        this.output.room(this.repeat).fill(c, this.output.at, this.output.at + this.repeat);
        this.output.advance(this.repeat);
        this.repeat = 0;
      } else if (c < 128) this.literal = c + 1;
      else if (c > 128) this.repeat = 257 - c;
      else this.done = true;
    }
    this.output.flush();
  }
}
