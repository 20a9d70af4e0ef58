/**
 * Aho-Corasick over UTF-16 code units: every needle's matches in one left-to-right walk of a text,
 * whatever the number of needles (up to 500 anchors of 500 characters each), instead of one scan of
 * the page per anchor.
 *
 * Layout: code units map to a dense alphabet (0 = a unit no needle contains: the walk returns to the
 * root at once); the root's transitions are a table, every other node's children a short run of
 * (symbol, node) pairs; failure links and output links ("the longest proper suffix that ends a
 * needle") are precomputed, so the walk is amortized constant time per code unit.
 */
export class AnchorAutomaton {
  private readonly symbolOf = new Int32Array(0x10000);
  private readonly rootNext: Int32Array;
  private readonly childStart: Int32Array;
  private readonly childSymbol: Int32Array;
  private readonly childNode: Int32Array;
  private readonly fail: Int32Array;
  /** the needle a node completes, or -1 */
  private readonly needleAt: Int32Array;
  /** the nearest node on the failure chain that completes a needle, or 0 (the root completes none) */
  private readonly outputLink: Int32Array;
  readonly lengths: Int32Array;

  /** Needles: distinct, non-empty code-unit strings (an empty one never matches). */
  constructor(needles: string[]) {
    this.lengths = Int32Array.from(needles, (n) => n.length);
    let symbols = 0;
    const children: Map<number, number>[] = [new Map()];
    const needleOf: number[] = [-1];
    needles.forEach((needle, i) => {
      if (needle.length === 0) return;
      let node = 0;
      for (let k = 0; k < needle.length; k++) {
        const unit = needle.charCodeAt(k);
        let symbol = this.symbolOf[unit]!;
        if (symbol === 0) symbol = this.symbolOf[unit] = ++symbols;
        let next = children[node]!.get(symbol);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          needleOf.push(-1);
          children[node]!.set(symbol, next);
        }
        node = next;
      }
      needleOf[node] = i;
    });

    const nodes = children.length;
    this.rootNext = new Int32Array(symbols + 1);
    this.childStart = new Int32Array(nodes + 1);
    let edges = 0;
    for (let n = 0; n < nodes; n++) {
      this.childStart[n] = edges;
      if (n > 0) edges += children[n]!.size;
    }
    this.childStart[nodes] = edges;
    this.childSymbol = new Int32Array(edges);
    this.childNode = new Int32Array(edges);
    for (let n = 1; n < nodes; n++) {
      let e = this.childStart[n]!;
      for (const [symbol, child] of children[n]!) {
        this.childSymbol[e] = symbol;
        this.childNode[e++] = child;
      }
    }
    for (const [symbol, child] of children[0]!) this.rootNext[symbol] = child;
    this.needleAt = Int32Array.from(needleOf);
    this.fail = new Int32Array(nodes);
    this.outputLink = new Int32Array(nodes);
    // breadth first: a node's failure target is shallower, so it is final when the node is reached
    const queue: number[] = [...children[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      for (const [symbol, child] of children[node]!) {
        this.fail[child] = this.step(this.fail[node]!, symbol);
        const f = this.fail[child]!;
        this.outputLink[child] = this.needleAt[f]! >= 0 ? f : this.outputLink[f]!;
        queue.push(child);
      }
    }
  }

  private step(node: number, symbol: number): number {
    for (;;) {
      if (node === 0) return this.rootNext[symbol]!;
      for (let e = this.childStart[node]!, end = this.childStart[node + 1]!; e < end; e++) {
        if (this.childSymbol[e] === symbol) return this.childNode[e]!;
      }
      node = this.fail[node]!;
    }
  }

  /**
   * Walks `text[0, length)` once and reports every match of every (distinct) needle, overlapping ones
   * included, in order of their end: `onMatch(needle, start)`. `onMatch` returning true stops the walk.
   */
  scan(text: Uint16Array, onMatch: (needle: number, start: number) => boolean | void): void {
    const { symbolOf, needleAt, outputLink, lengths } = this;
    let node = 0;
    for (let k = 0; k < text.length; k++) {
      const symbol = symbolOf[text[k]!]!;
      if (symbol === 0) {
        node = 0;
        continue;
      }
      node = this.step(node, symbol);
      for (let out = needleAt[node]! >= 0 ? node : outputLink[node]!; out > 0; out = outputLink[out]!) {
        const needle = needleAt[out]!;
        if (onMatch(needle, k + 1 - lengths[needle]!)) return;
      }
    }
  }
}
