/** Growable typed columns: the indexing buffer's per-token and per-doc columns, and a packed chunk's streams. */

/** growable Int32 column */
export class IntColumn {
  data: Int32Array;
  length = 0;
  constructor(cap = 256) {
    this.data = new Int32Array(cap);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const n = new Int32Array(this.data.length * 2);
      n.set(this.data);
      this.data = n;
    }
    this.data[this.length++] = v;
  }
  /** room for `n` more values: the array to write them to from `length` on (the caller moves `length`) */
  reserve(n: number): Int32Array {
    if (this.length + n > this.data.length) {
      const g = new Int32Array(Math.max(this.data.length * 2, this.length + n));
      g.set(this.data);
      this.data = g;
    }
    return this.data;
  }
}

/** growable Float64 column */
export class FloatColumn {
  data: Float64Array;
  length = 0;
  constructor(cap = 256) {
    this.data = new Float64Array(cap);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const n = new Float64Array(this.data.length * 2);
      n.set(this.data);
      this.data = n;
    }
    this.data[this.length++] = v;
  }
}
