/**
 * Test helpers: a small in-memory LeafReader / DirectoryReader and field types, so search can be
 * unit-tested without the storage engine and the mapper.
 */
import { Errors } from '@strata/core-common';
import type { Analyzer, Token } from '../../analysis/analyzer.js';
import type {
  DirectoryReader,
  FieldStats,
  LeafReader,
  LeafReaderContext,
  NumericDocValues,
  PointIndex,
  Postings,
  SortedSetDocValues,
  TermsDict,
} from '../../index/leaf-reader.js';
import type { IndexMetadata } from '../../cluster/metadata.js';
import type { MappedFieldType, ValueKind } from '../../mapper/mapped-field-type.js';
import { encodeNorm } from '../../util/small-float.js';

export const simpleAnalyzer: Analyzer = {
  name: 'standard',
  positionIncrementGap: 100,
  analyze(text: string): Token[] {
    const out: Token[] = [];
    const re = /[\p{L}\p{N}]+/gu;
    let m: RegExpExecArray | null;
    let pos = 0;
    while ((m = re.exec(text)) !== null) {
      out.push({ term: m[0].toLowerCase(), position: pos++, startOffset: m.index, endOffset: m.index + m[0].length, type: '<ALPHANUM>' });
    }
    return out;
  },
};

export interface FakeDoc {
  id: string;
  routing?: string;
  text?: Record<string, string | string[]>;
  keyword?: Record<string, string | string[]>;
  num?: Record<string, number | number[]>;
  source?: Record<string, unknown>;
  deleted?: boolean;
}

interface TermBuild {
  docs: number[];
  freqs: number[];
  positions: number[][];
}

class FakeTermsDict implements TermsDict {
  readonly terms: string[];
  constructor(
    private readonly map: Map<string, Postings>,
  ) {
    this.terms = [...map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
  get size() {
    return this.terms.length;
  }
  term(ord: number) {
    return this.terms[ord]!;
  }
  ord(term: string) {
    const i = this.seekCeil(term);
    return i < this.terms.length && this.terms[i] === term ? i : -1;
  }
  seekCeil(target: string) {
    let lo = 0;
    let hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.terms[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  postings(ord: number) {
    return this.map.get(this.terms[ord]!)!;
  }
  docFreq(ord: number) {
    return this.postings(ord).docFreq;
  }
}

export class FakeLeafReader implements LeafReader {
  readonly segmentName: string;
  readonly maxDoc: number;
  readonly numDocs: number;
  readonly liveDocs: Uint32Array | null;
  readonly delGen = 0;
  private readonly dicts = new Map<string, FakeTermsDict>();
  private readonly stats = new Map<string, FieldStats>();
  private readonly normsMap = new Map<string, Uint8Array>();
  private readonly ndv = new Map<string, NumericDocValues>();
  private readonly sdv = new Map<string, SortedSetDocValues>();
  private readonly points = new Map<string, PointIndex>();

  constructor(
    private readonly docs: FakeDoc[],
    name = '_0',
  ) {
    this.segmentName = name;
    this.maxDoc = docs.length;
    const deleted = docs.some((d) => d.deleted);
    if (deleted) {
      this.liveDocs = new Uint32Array((docs.length + 31) >>> 5);
      docs.forEach((d, i) => {
        if (!d.deleted) this.liveDocs![i >>> 5]! |= 1 << (i & 31);
      });
    } else this.liveDocs = null;
    this.numDocs = docs.filter((d) => !d.deleted).length;

    const inv = new Map<string, Map<string, TermBuild>>();
    const add = (field: string, term: string, doc: number, pos: number | null) => {
      let f = inv.get(field);
      if (!f) inv.set(field, (f = new Map()));
      let t = f.get(term);
      if (!t) f.set(term, (t = { docs: [], freqs: [], positions: [] }));
      if (t.docs[t.docs.length - 1] !== doc) {
        t.docs.push(doc);
        t.freqs.push(0);
        t.positions.push([]);
      }
      t.freqs[t.freqs.length - 1]!++;
      if (pos !== null) t.positions[t.positions.length - 1]!.push(pos);
    };
    const lengths = new Map<string, number[]>();
    const kw = new Map<string, string[][]>();
    const nums = new Map<string, number[][]>();
    docs.forEach((d, doc) => {
      add('_id', d.id, doc, null);
      for (const [f, v] of Object.entries(d.text ?? {})) {
        const values = Array.isArray(v) ? v : [v];
        let pos = 0;
        let len = 0;
        values.forEach((val, vi) => {
          if (vi > 0) pos += 100;
          const toks = simpleAnalyzer.analyze(val);
          for (const t of toks) add(f, t.term, doc, pos + t.position);
          pos += toks.length;
          len += toks.length;
        });
        add('_field_names', f, doc, null);
        if (!lengths.has(f)) lengths.set(f, new Array(docs.length).fill(0));
        lengths.get(f)![doc] = len;
      }
      for (const [f, v] of Object.entries(d.keyword ?? {})) {
        const values = [...new Set(Array.isArray(v) ? v : [v])].sort();
        for (const val of values) add(f, val, doc, null);
        add('_field_names', f, doc, null);
        if (!kw.has(f)) kw.set(f, docs.map(() => []));
        kw.get(f)![doc] = values;
      }
      for (const [f, v] of Object.entries(d.num ?? {})) {
        const values = (Array.isArray(v) ? v : [v]).slice().sort((a, b) => a - b);
        add('_field_names', f, doc, null);
        if (!nums.has(f)) nums.set(f, docs.map(() => []));
        nums.get(f)![doc] = values;
      }
    });
    for (const [field, terms] of inv) {
      const keywordLike = field === '_id' || field === '_field_names' || kw.has(field);
      const map = new Map<string, Postings>();
      let sumTtf = 0;
      let sumDf = 0;
      const withField = new Set<number>();
      for (const [term, t] of terms) {
        const ttf = t.freqs.reduce((a, b) => a + b, 0);
        sumTtf += ttf;
        sumDf += t.docs.length;
        t.docs.forEach((d) => withField.add(d));
        const positions = t.positions.map((p) => Uint32Array.from(p));
        map.set(term, {
          docFreq: t.docs.length,
          docs: Uint32Array.from(t.docs),
          freqs: keywordLike ? null : Uint32Array.from(t.freqs),
          positions: (i: number) => (keywordLike ? null : positions[i]!),
          totalTermFreq: ttf,
        });
      }
      this.dicts.set(field, new FakeTermsDict(map));
      this.stats.set(field, { docCount: withField.size, sumTotalTermFreq: sumTtf, sumDocFreq: sumDf });
    }
    for (const [f, lens] of lengths) this.normsMap.set(f, Uint8Array.from(lens.map((l) => encodeNorm(l))));
    for (const [f, per] of kw) {
      const terms = [...new Set(per.flat())].sort();
      const offsets = new Uint32Array(docs.length + 1);
      const ords: number[] = [];
      per.forEach((vals, d) => {
        for (const v of vals) ords.push(terms.indexOf(v));
        offsets[d + 1] = ords.length;
      });
      this.sdv.set(f, { offsets, ords: Uint32Array.from(ords), terms });
    }
    for (const [f, per] of nums) {
      const offsets = new Uint32Array(docs.length + 1);
      const values: number[] = [];
      const pairs: Array<[number, number]> = [];
      per.forEach((vals, d) => {
        for (const v of vals) {
          values.push(v);
          pairs.push([v, d]);
        }
        offsets[d + 1] = values.length;
      });
      this.ndv.set(f, { offsets, values: Float64Array.from(values) });
      pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      this.points.set(f, { values: Float64Array.from(pairs.map((p) => p[0])), docs: Uint32Array.from(pairs.map((p) => p[1])) });
    }
  }

  isLive(doc: number) {
    return this.liveDocs === null || (this.liveDocs[doc >>> 5]! & (1 << (doc & 31))) !== 0;
  }
  fieldNames() {
    return [...this.dicts.keys()];
  }
  terms(field: string) {
    return this.dicts.get(field) ?? null;
  }
  postings(field: string, term: string) {
    const d = this.dicts.get(field);
    if (!d) return null;
    const o = d.ord(term);
    return o < 0 ? null : d.postings(o);
  }
  fieldStats(field: string) {
    return this.stats.get(field) ?? null;
  }
  norms(field: string) {
    return this.normsMap.get(field) ?? null;
  }
  numericDocValues(field: string) {
    return this.ndv.get(field) ?? null;
  }
  sortedSetDocValues(field: string) {
    return this.sdv.get(field) ?? null;
  }
  pointIndex(field: string) {
    return this.points.get(field) ?? null;
  }
  id(doc: number) {
    return this.docs[doc]!.id;
  }
  routing(doc: number) {
    return this.docs[doc]!.routing;
  }
  source(doc: number) {
    const d = this.docs[doc]!;
    const src = d.source ?? { ...(d.text ?? {}), ...(d.keyword ?? {}), ...(d.num ?? {}) };
    return new TextEncoder().encode(JSON.stringify(src));
  }
  seqNo(doc: number) {
    return doc;
  }
  primaryTerm() {
    return 1;
  }
  version() {
    return 1;
  }
}

export function fakeReader(segments: FakeDoc[][], cacheKey = 'test#1'): DirectoryReader {
  let base = 0;
  const leaves: LeafReaderContext[] = segments.map((docs, ord) => {
    const reader = new FakeLeafReader(docs, `_${ord}`);
    const ctx = { reader, docBase: base, ord };
    base += reader.maxDoc;
    return ctx;
  });
  return {
    leaves,
    maxDoc: base,
    numDocs: leaves.reduce((a, l) => a + l.reader.numDocs, 0),
    generation: 1,
    cacheKey,
    mappingVersion: 1,
    incRef: () => undefined,
    decRef: () => undefined,
  };
}

function ft(name: string, type: string, kind: ValueKind, extra: Partial<MappedFieldType> = {}): MappedFieldType {
  const isInteger = ['long', 'integer', 'date', 'boolean'].includes(type);
  return {
    name,
    type,
    kind,
    searchable: true,
    hasDocValues: kind !== 'text',
    hasNorms: kind === 'text',
    isInteger,
    params: {},
    indexAnalyzer: kind === 'text' ? simpleAnalyzer : undefined,
    searchAnalyzer: kind === 'text' ? simpleAnalyzer : undefined,
    termValue(value: unknown): string | number {
      if (kind === 'numeric' || kind === 'date') {
        if (kind === 'date' && typeof value === 'string' && !/^-?\d+$/.test(value)) {
          const t = Date.parse(value);
          if (Number.isNaN(t)) throw Errors.illegalArgument(`failed to parse date field [${String(value)}]`);
          return t;
        }
        const n = Number(value);
        if (typeof value === 'boolean' || Number.isNaN(n) || value === '' || value === null) {
          const e = new Error(`For input string: "${String(value)}"`);
          throw Object.assign(e, { name: 'NumberFormatException' });
        }
        return n;
      }
      if (kind === 'boolean') return value === true || value === 'true' ? 1 : 0;
      return String(value);
    },
    valueForDisplay(v) {
      return v;
    },
    formatValue(v) {
      return kind === 'date' ? new Date(Number(v)).toISOString() : String(v);
    },
    ...(kind === 'date'
      ? {
          parseValue(value: unknown) {
            if (typeof value === 'number') return value;
            const t = Date.parse(String(value));
            if (Number.isNaN(t)) throw Errors.illegalArgument(`failed to parse date field [${String(value)}]`);
            return t;
          },
        }
      : {}),
    ...extra,
  };
}

export const fieldTypes = {
  text: (n: string) => ft(n, 'text', 'text'),
  keyword: (n: string) => ft(n, 'keyword', 'keyword'),
  long: (n: string) => ft(n, 'long', 'numeric'),
  double: (n: string) => ft(n, 'double', 'numeric'),
  date: (n: string) => ft(n, 'date', 'date'),
};

export function fakeIndexMetadata(name = 'test', settings: Record<string, unknown> = {}): IndexMetadata {
  return {
    name,
    uuid: name + '-uuid',
    settings,
    mappings: {},
    mappingVersion: 1,
    settingsVersion: 1,
    aliasesVersion: 1,
    aliases: {},
    state: 'open',
    numberOfShards: 1,
    numberOfReplicas: 0,
    creationDate: 0,
    primaryTerms: [1],
  };
}
