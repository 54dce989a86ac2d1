/**
 * Parsed documents in a packed, structured-clone-cheap form: what a parse thread hands back to the event loop
 * for a chunk of a bulk's documents (see mapper/parse-task.ts). The strings of its documents (terms, keyword
 * values, field names) as ids in the thread's string table, one Int32 stream of the documents' fields, one
 * Float64 stream of their numeric and point values, one byte array of their sources — a handful of arrays instead
 * of an object per field and per token.
 *
 * The string table lives on in the thread from chunk to chunk (`StringTable`): a chunk carries only the strings
 * new to it, and the event loop keeps a copy of each thread's table (`StringTableMirror`), so a word has the same
 * id in every chunk of a thread. The indexing buffer reads a packed document directly (`SegmentBuilder.add` of a
 * ParsedDocument with `packed`): it resolves each string of a table once per field into its own term id (an array
 * read afterwards, in every chunk) instead of hashing every token, and fills the same columns `add` fills from a
 * ParsedDocument — the same buffer either way.
 *
 * Not packed: `_id` fields (the buffer indexes ids from its stored ids) — the event loop knows the id; `_routing`
 * (added by the event loop, which knows the routing).
 */
import type { ParsedDocument, ParsedField } from '../mapper/parsed-document.js';
import { FloatColumn, IntColumn, StringIds } from './growable-columns.js';

/** what a parse thread hands back: a chunk of packed documents (plain data: typed arrays and one string array) */
export interface PackedChunkData {
  /** the thread's string table the chunk's string ids are of (`StringTable.thread`, `generation`) */
  thread: number;
  generation: number;
  /** the table's strings before the chunk's (the id of `added[0]`) */
  base: number;
  /** the strings the chunk added to the table */
  added: string[];
  /** the documents' fields (layout: see `packDocument`) */
  ints: Int32Array;
  /** numeric doc values and point values */
  nums: Float64Array;
  /** the documents' sources, one after the other */
  src: Uint8Array;
  /** per document: its offset in `ints`, or -1 when it was not packed (it is parsed on the event loop) */
  docAt: Int32Array;
}

/** a chunk of packed documents as the event loop reads it (`StringTableMirror.resolve`) */
export interface PackedChunk extends PackedChunkData {
  /**
   * the thread's string table (at least up to the chunk's strings: the same array grows with later chunks of the
   * same table), indexed by the chunk's string ids; one array per table and generation
   */
  strings: readonly string[];
}

/** a packed document of a chunk (`ParsedDocument.packed`) */
export interface PackedRef {
  chunk: PackedChunk;
  /** offset of the document in `chunk.ints` (after its source's start and length and its first value in `nums`) */
  at: number;
}

export const F_TOKENS = 1;
export const F_NORMS = 2;
export const F_NUMERIC = 4;
export const F_POINTS = 8;
export const F_KEYWORDS = 16;
/** indexOptions in bits 5–6: 0 docs, 1 freqs, 2 positions */
export const F_OPTIONS_SHIFT = 5;

export const INDEX_OPTIONS = ['docs', 'freqs', 'positions'] as const;

/** strings a thread's table holds at most: it starts a new generation (empty) before a chunk when it has more */
export const STRING_TABLE_MAX_STRINGS = 1 << 16;
/** characters (UTF-16 units) a thread's table holds at most (same) */
export const STRING_TABLE_MAX_CHARS = 1 << 22;

/**
 * A parse thread's string table: the distinct strings of the chunks it packed, numbered in first-seen order, kept
 * from chunk to chunk up to the limits above (memory follows them, not the data), then started afresh as a new
 * generation. `thread` is unique to the table's thread in the process (a thread replaced after a crash has a new
 * one and an empty table).
 */
export class StringTable extends StringIds {
  generation = 0;
  private chars = 0;

  /** `maxStrings`, `maxChars`: the limits (smaller ones in tests) */
  constructor(
    readonly thread: number,
    private readonly maxStrings = STRING_TABLE_MAX_STRINGS,
    private readonly maxChars = STRING_TABLE_MAX_CHARS,
  ) {
    super(1024);
  }

  override id(s: string): number {
    const n = this.strings.length;
    const id = super.id(s);
    if (id === n) this.chars += s.length;
    return id;
  }

  /** the strings from `from` on */
  since(from: number): string[] {
    return this.strings.slice(from);
  }

  /** before a chunk: a new generation when the table is full (or `force`: its event-loop copy was lost) */
  startChunk(force = false): void {
    if (!force && this.strings.length < this.maxStrings && this.chars < this.maxChars) return;
    this.generation++;
    this.clear();
    this.chars = 0;
  }
}

/** event-loop copies of the string tables of a pool's threads, at most this many (the least recently used goes) */
const MIRRORED_TABLES_PER_THREAD = 2;

/**
 * The event loop's copies of its parse threads' string tables, one array per thread and generation, filled with
 * each chunk's new strings as the chunk's result arrives (a thread's results arrive in the order it packed them;
 * whether or when its documents are applied does not matter).
 */
export class StringTableMirror {
  private readonly tables = new Map<number, { generation: number; strings: string[] }>();
  /** threads whose table the copy lost track of (a chunk that did not arrive): told to start a new generation */
  private readonly lost = new Set<number>();
  /** chunks that could not be read (a table out of step): their documents are parsed on the event loop */
  unresolved = 0;

  constructor(private readonly threads: number) {}

  /**
   * the chunk with its thread's table (its new strings registered), or null when the copy is not the table the
   * chunk's ids are of (never read with another table: the caller parses the documents on the event loop)
   */
  resolve(data: PackedChunkData): PackedChunk | null {
    let t = this.tables.get(data.thread);
    this.tables.delete(data.thread);
    // the first chunk of a generation: a new array (chunks of the previous one keep theirs)
    if (data.base === 0) t = { generation: data.generation, strings: [] };
    if (!t || t.generation !== data.generation || t.strings.length !== data.base) {
      this.unresolved++;
      this.lost.add(data.thread);
      // (a thread that ended before it heard: forgotten in the end)
      if (this.lost.size > this.threads * MIRRORED_TABLES_PER_THREAD) this.lost.delete(this.lost.values().next().value as number);
      return null;
    }
    this.lost.delete(data.thread);
    // most recently used last; the least recently used beyond the limit go (threads that ended)
    this.tables.set(data.thread, t);
    if (this.tables.size > this.threads * MIRRORED_TABLES_PER_THREAD) this.tables.delete(this.tables.keys().next().value as number);
    for (const s of data.added) t.strings.push(s);
    return { ...data, strings: t.strings };
  }

  /** the threads to start a new generation (see `lost`), for the next task */
  lostThreads(): number[] {
    return [...this.lost];
  }
}

/** packs parsed documents into one chunk (null: the document is not packed), its strings in a thread's table */
export class ChunkPacker {
  private readonly base: number;
  private readonly ints = new IntColumn(4096);
  private readonly nums = new FloatColumn(1024);
  private readonly sources: Uint8Array[] = [];
  private srcBytes = 0;
  private readonly docAt: number[] = [];

  /** `table`: the thread's (a table of its own when absent) */
  constructor(private readonly table = new StringTable(0)) {
    this.base = table.size;
  }

  private str(s: string): number {
    return this.table.id(s);
  }

  skip(): void {
    this.docAt.push(-1);
  }

  /**
   * layout: srcStart, srcLength (-1: no source), first value in `nums`, then (at `docAt`) nNested,
   * (nFields, fields…) per nested doc, nFields, fields…; a field: name, flags, [nTokens, (term, position)…],
   * [nNumeric] [nPoints] (their values follow each other in `nums`), [nKeywords, keyword…]
   */
  add(doc: ParsedDocument): void {
    const ints = this.ints;
    const src = doc.source;
    ints.push(this.srcBytes);
    if (src) {
      this.sources.push(src);
      ints.push(src.length);
      this.srcBytes += src.length;
    } else ints.push(-1);
    ints.push(this.nums.length);
    this.docAt.push(ints.length);
    const nested = doc.nested ?? [];
    ints.push(nested.length);
    for (const n of nested) this.fields(n.fields);
    this.fields(doc.fields);
  }

  private fields(fields: readonly ParsedField[]): void {
    const ints = this.ints;
    const countAt = ints.length;
    ints.push(0);
    let count = 0;
    for (const f of fields) {
      if (f.name === '_id' || f.name === '_routing') continue;
      count++;
      const tk = f.tokens;
      const nv = f.numericValues;
      const pv = f.pointValues;
      const kv = f.keywordValues;
      let flags = 0;
      if (tk) flags |= F_TOKENS | (INDEX_OPTIONS.indexOf(f.indexOptions ?? 'docs') << F_OPTIONS_SHIFT);
      if (f.norms) flags |= F_NORMS;
      if (nv && nv.length) flags |= F_NUMERIC;
      if (pv && pv.length) flags |= F_POINTS;
      if (kv && kv.length) flags |= F_KEYWORDS;
      ints.push(this.str(f.name));
      ints.push(flags);
      if (tk) {
        ints.push(tk.length);
        for (let i = 0; i < tk.length; i++) {
          ints.push(this.str(tk[i].term));
          ints.push(tk[i].position);
        }
      }
      for (const vals of [nv, pv]) {
        if (!vals || !vals.length) continue;
        ints.push(vals.length);
        for (let i = 0; i < vals.length; i++) this.nums.push(vals[i]);
      }
      if (kv && kv.length) {
        ints.push(kv.length);
        for (let i = 0; i < kv.length; i++) ints.push(this.str(kv[i]));
      }
    }
    ints.data[countAt] = count;
  }

  finish(): PackedChunkData {
    const src = new Uint8Array(this.srcBytes);
    let off = 0;
    for (const s of this.sources) {
      src.set(s, off);
      off += s.length;
    }
    const t = this.table;
    return {
      thread: t.thread,
      generation: t.generation,
      base: this.base,
      added: t.since(this.base),
      ints: this.ints.data.slice(0, this.ints.length),
      nums: this.nums.data.slice(0, this.nums.length),
      src,
      docAt: Int32Array.from(this.docAt),
    };
  }
}

/**
 * The ParsedDocument of a chunk's `i`-th document for the shard (null when it was not packed): no fields of its
 * own (the buffer reads them from the chunk), its source a view of the chunk's bytes.
 */
export function packedDocument(chunk: PackedChunk, i: number, id: string, routing: string | undefined): ParsedDocument | null {
  const at = chunk.docAt[i];
  if (at < 0) return null;
  const start = chunk.ints[at - 3];
  const len = chunk.ints[at - 2];
  const source = len < 0 ? null : Buffer.from(chunk.src.buffer, chunk.src.byteOffset + start, len);
  const fields: ParsedField[] = routing === undefined ? [] : [{ name: '_routing', tokens: [{ term: routing, position: 0 }], indexOptions: 'docs' }];
  return { id, routing, source, fields, packed: { chunk, at } };
}

/** the nested documents' fields, then the root's, decoded back into ParsedFields (tests; the slow reading) */
export function unpackFields(ref: PackedRef): { nested: ParsedField[][]; root: ParsedField[] } {
  const { chunk } = ref;
  const ints = chunk.ints;
  let p = ref.at;
  let q = ints[p - 1];
  const readFields = (): ParsedField[] => {
    const out: ParsedField[] = [];
    const n = ints[p++];
    for (let k = 0; k < n; k++) {
      const name = chunk.strings[ints[p++]];
      const flags = ints[p++];
      const f: ParsedField = { name };
      if (flags & F_TOKENS) {
        const nt = ints[p++];
        f.tokens = [];
        for (let i = 0; i < nt; i++) f.tokens.push({ term: chunk.strings[ints[p++]], position: ints[p++] });
        f.indexOptions = INDEX_OPTIONS[(flags >> F_OPTIONS_SHIFT) & 3];
      }
      if (flags & F_NORMS) f.norms = true;
      if (flags & F_NUMERIC) {
        const nn = ints[p++];
        f.numericValues = Array.from(chunk.nums.subarray(q, q + nn));
        q += nn;
      }
      if (flags & F_POINTS) {
        const nn = ints[p++];
        f.pointValues = Array.from(chunk.nums.subarray(q, q + nn));
        q += nn;
      }
      if (flags & F_KEYWORDS) {
        const nk = ints[p++];
        f.keywordValues = [];
        for (let i = 0; i < nk; i++) f.keywordValues.push(chunk.strings[ints[p++]]);
      }
      out.push(f);
    }
    return out;
  };
  const nested: ParsedField[][] = [];
  const nn = ints[p++];
  for (let i = 0; i < nn; i++) nested.push(readFields());
  return { nested, root: readFields() };
}
