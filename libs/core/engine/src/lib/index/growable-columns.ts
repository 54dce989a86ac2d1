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
 * Distinct strings numbered in first-seen order (`strings[id]`): a field's term dictionary in the indexing buffer,
 * a parse thread's string table. Open addressing with linear probing: each slot holds a string's hash and its
 * id + 1 (0: empty) side by side, so a probe reads one cache line and a string is compared only when its hash
 * matches; at most half of the slots are taken. (A `Map` of tens of thousands of strings cost several cache
 * misses per lookup — bucket, chain entries, their keys: a third of a parse thread's time.)
 */
export class StringIds {
  /** id → string */
  readonly strings: string[] = [];
  private slots: Int32Array;
  private mask: number;

  /** `slots`: the table's initial size (a power of two; it doubles as it fills) */
  constructor(slots = 16) {
    this.slots = new Int32Array(2 * slots);
    this.mask = slots - 1;
  }

  /** distinct `strings` numbered in their order */
  static of(strings: readonly string[]): StringIds {
    let n = 16;
    while (n < 2 * strings.length) n *= 2;
    const t = new StringIds(n);
    for (let i = 0; i < strings.length; i++) t.id(strings[i]!);
    return t;
  }

  get size(): number {
    return this.strings.length;
  }

  /** the id of `s`, added when new */
  id(s: string): number {
    const h = stringHash(s);
    const found = this.find(s, h);
    if (found >= 0) return found;
    const id = this.strings.length;
    this.strings.push(s);
    if (2 * this.strings.length > this.mask + 1) this.grow();
    else this.put(h, id);
    return id;
  }

  /** the id of `s`, or -1 */
  get(s: string): number {
    return this.find(s, stringHash(s));
  }

  /** no strings (the slots are kept) */
  clear(): void {
    this.strings.length = 0;
    this.slots.fill(0);
  }

  clone(): StringIds {
    const t = new StringIds(this.mask + 1);
    t.slots.set(this.slots);
    for (const s of this.strings) t.strings.push(s);
    return t;
  }

  /** the id of `s` (its hash `h`), or -1 */
  private find(s: string, h: number): number {
    const slots = this.slots;
    const mask = this.mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = slots[2 * i + 1]!;
      if (e === 0) return -1;
      if (slots[2 * i] === h && this.strings[e - 1] === s) return e - 1;
    }
  }

  private put(h: number, id: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let i = h & mask;
    while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    slots[2 * i] = h;
    slots[2 * i + 1] = id + 1;
  }

  /** twice the slots, every string put again */
  private grow(): void {
    const n = 2 * (this.mask + 1);
    this.slots = new Int32Array(2 * n);
    this.mask = n - 1;
    const strings = this.strings;
    for (let id = 0; id < strings.length; id++) this.put(stringHash(strings[id]!), id);
  }
}

/** FNV-1a of the UTF-16 units, its high bits folded in (a table's index is its low bits) */
export function stringHash(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 16);
}
