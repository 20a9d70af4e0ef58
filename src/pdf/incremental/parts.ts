/** The file's bytes as parts; offsets are the file's. Objects never straddle parts (each update starts afresh). */
export class Parts {
  readonly starts: number[] = [];
  readonly length: number;
  constructor(readonly list: Uint8Array[]) {
    let n = 0;
    for (const p of list) {
      this.starts.push(n);
      n += p.byteLength;
    }
    this.length = n;
  }
  /** The bytes from `offset` to the end of the part holding it (a view). */
  from(offset: number): Uint8Array {
    for (let i = this.list.length - 1; i >= 0; i--) {
      if (offset >= this.starts[i]!) return this.list[i]!.subarray(offset - this.starts[i]!);
    }
    throw new Error(`offset ${offset} outside the file`);
  }
  /** Latin-1 text of [from, to), across parts (small windows only). */
  text(from: number, to: number): string {
    let s = "";
    for (let at = Math.max(0, from); at < Math.min(this.length, to); ) {
      const view = this.from(at);
      const n = Math.min(view.byteLength, to - at);
      for (let i = 0; i < n; i++) s += String.fromCharCode(view[i]!);
      at += n;
    }
    return s;
  }
}

/** The file as one buffer: for callers that need it whole (small documents, tests). */
export function joinParts(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
