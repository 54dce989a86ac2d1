/** Growable typed columns (the indexing buffer's per-token and per-doc columns, a packed chunk's streams) and distinct-value ids. */

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

/**
 * The id of `value` among distinct values numbered in first-seen order (`values[id]`, `ids.get(value)`), added
 * when new: a field's term dictionary in the indexing buffer, a packed chunk's strings.
 */
export function distinctId(ids: Map<string, number>, values: string[], value: string): number {
  let id = ids.get(value);
  if (id === undefined) {
    id = values.length;
    ids.set(value, id);
    values.push(value);
  }
  return id;
}
