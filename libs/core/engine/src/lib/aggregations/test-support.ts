/**
 * Test helpers (not exported from the lib): in-memory leaf readers built from arrays of documents,
 * fake field types and a tiny filter compiler, so aggregations can be tested without the storage engine.
 */
import { Errors } from '@strata/core-common';
import type {
  LeafReader,
  LeafReaderContext,
  NumericDocValues,
  SortedSetDocValues,
  TermsDict,
} from '../index/leaf-reader.js';
import type { MappedFieldType, ValueKind } from '../mapper/mapped-field-type.js';
import type { AggregationContext, CompiledFilter, InternalAggregations } from './api.js';
import { parseAggregations, reduceAggregations, renderAggregations } from './aggregation-phase.js';
import { decodeIp, encodeIp } from '../mapper/ip.js';
import { blocksOnlyNumeric, blocksOnlySortedSet } from '../index/testing/blocks-only.js';

export type Doc = Record<string, unknown>;
export type Mapping = Record<string, string | { type: string; format?: string; fielddata?: boolean; scaling_factor?: number }>;

const KIND: Record<string, ValueKind> = {
  text: 'text', keyword: 'keyword', long: 'numeric', integer: 'numeric', short: 'numeric', byte: 'numeric',
  double: 'numeric', float: 'numeric', half_float: 'numeric', scaled_float: 'numeric', date: 'date',
  date_nanos: 'date', boolean: 'boolean', ip: 'ip',
};

function toMillis(v: unknown): number {
  if (typeof v === 'number') return v;
  const s = String(v);
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) || !s.includes('T') ? s : s + 'Z');
  if (Number.isNaN(t)) throw Errors.illegalArgument(`bad date ${s}`);
  return t;
}

export function fakeFieldType(name: string, def: Mapping[string]): MappedFieldType {
  const d = typeof def === 'string' ? { type: def } : def;
  const kind = KIND[d.type] ?? 'none';
  const isInteger = ['long', 'integer', 'short', 'byte', 'date', 'boolean', 'date_nanos'].includes(d.type);
  return {
    name,
    type: d.type,
    kind,
    searchable: true,
    hasDocValues: d.type !== 'text',
    hasNorms: d.type === 'text',
    isInteger,
    format: d.type === 'date' ? d.format ?? 'strict_date_optional_time||epoch_millis' : undefined,
    scalingFactor: d.scaling_factor,
    params: { fielddata: (d as { fielddata?: boolean }).fielddata },
    termValue: (v: unknown) => (kind === 'numeric' || kind === 'date' ? Number(v) : String(v)),
    valueForDisplay: (v: string | number) => (d.type === 'ip' ? decodeIp(String(v)) : v),
    formatValue: (v: string | number) => String(v),
  };
}

function docValue(type: string, v: unknown, scaling?: number): number {
  if (type === 'date' || type === 'date_nanos') return toMillis(v) * (type === 'date_nanos' ? 1e6 : 1);
  if (type === 'boolean') return v === true || v === 'true' ? 1 : 0;
  if (type === 'scaled_float') return Math.round(Number(v) * (scaling ?? 1));
  return Number(v);
}

function getPath(doc: Doc, path: string): unknown {
  if (path in doc) return doc[path];
  let cur: unknown = doc;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function valuesOf(doc: Doc, field: string): unknown[] {
  const v = getPath(doc, field);
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).filter((x) => x !== null && x !== undefined);
}

export interface FakeLeaf extends LeafReader {
  readonly docs: Doc[];
}

export function fakeLeafReader(docs: Doc[], mapping: Mapping, opts: { deleted?: number[]; name?: string; ids?: string[]; blockSize?: number } = {}): FakeLeaf {
  const maxDoc = docs.length;
  const numeric = new Map<string, NumericDocValues>();
  const textDicts = new Map<string, TermsDict>();
  const sorted = new Map<string, SortedSetDocValues>();
  for (const [field, def] of Object.entries(mapping)) {
    const d = typeof def === 'string' ? { type: def } : def;
    const kind = KIND[d.type];
    if (kind === 'numeric' || kind === 'date' || kind === 'boolean') {
      const offsets = new Uint32Array(maxDoc + 1);
      const vals: number[] = [];
      docs.forEach((doc, i) => {
        const vs = valuesOf(doc, field).map((v) => docValue(d.type, v, (d as { scaling_factor?: number }).scaling_factor)).sort((a, b) => a - b);
        offsets[i] = vals.length;
        vals.push(...vs);
      });
      offsets[maxDoc] = vals.length;
      const values = Float64Array.from(vals);
      if (opts.blockSize) {
        numeric.set(field, blocksOnlyNumeric(offsets, values, opts.blockSize));
      } else numeric.set(field, { offsets, values });
    } else if (kind === 'text') {
      // inverted index only (no doc values): lowercase word tokens
      const postings = new Map<string, number[]>();
      docs.forEach((doc, i) => {
        for (const v of valuesOf(doc, field)) {
          for (const tok of new Set(String(v).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean))) {
            let l = postings.get(tok);
            if (!l) postings.set(tok, (l = []));
            if (l[l.length - 1] !== i) l.push(i);
          }
        }
      });
      const termList = [...postings.keys()].sort();
      textDicts.set(field, {
        size: termList.length,
        term: (o: number) => termList[o]!,
        ord: (t: string) => termList.indexOf(t),
        seekCeil: (t: string) => {
          const i = termList.findIndex((x) => x >= t);
          return i < 0 ? termList.length : i;
        },
        postings: (o: number) => {
          const docsOf = Uint32Array.from(postings.get(termList[o]!)!);
          return { docFreq: docsOf.length, docs: docsOf, freqs: null, positions: () => null, totalTermFreq: docsOf.length };
        },
        docFreq: (o: number) => postings.get(termList[o]!)!.length,
      });
    } else if (kind === 'keyword' || kind === 'ip') {
      const termSet = new Set<string>();
      const enc = (v: unknown) => (d.type === 'ip' ? encodeIp(String(v)) : String(v));
      for (const doc of docs) for (const v of valuesOf(doc, field)) termSet.add(enc(v));
      const terms = [...termSet].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const idx = new Map(terms.map((t, i) => [t, i]));
      const offsets = new Uint32Array(maxDoc + 1);
      const ords: number[] = [];
      docs.forEach((doc, i) => {
        offsets[i] = ords.length;
        const os = [...new Set(valuesOf(doc, field).map((v) => idx.get(enc(v))!))].sort((a, b) => a - b);
        ords.push(...os);
      });
      offsets[maxDoc] = ords.length;
      const ordCol = Uint32Array.from(ords);
      if (opts.blockSize) {
        sorted.set(field, blocksOnlySortedSet(offsets, ordCol, terms, opts.blockSize));
      } else sorted.set(field, { offsets, ords: ordCol, terms });
    }
  }
  const deleted = new Set(opts.deleted ?? []);
  const enc = new TextEncoder();
  return {
    docs,
    segmentName: opts.name ?? '_0',
    maxDoc,
    numDocs: maxDoc - deleted.size,
    liveDocs: null,
    delGen: 0,
    isLive: (d: number) => !deleted.has(d),
    fieldNames: () => Object.keys(mapping),
    terms: (f: string) => textDicts.get(f) ?? null,
    postings: () => null,
    fieldStats: () => null,
    norms: () => null,
    numericDocValues: (f: string) => numeric.get(f) ?? null,
    sortedSetDocValues: (f: string) => sorted.get(f) ?? null,
    pointIndex: () => null,
    id: (d: number) => opts.ids?.[d] ?? String((docs[d] as { _id?: unknown })._id ?? d),
    routing: () => undefined,
    source: (d: number) => enc.encode(JSON.stringify(docs[d])),
    seqNo: (d: number) => d,
    primaryTerm: () => 1,
    version: () => 1,
  };
}

/** matches a doc against a tiny query subset: match_all, term, terms, range, exists, bool.filter/must/must_not */
export function matches(q: unknown, doc: Doc, mapping: Mapping): boolean {
  const o = q as Record<string, Record<string, unknown>>;
  const [type, body] = Object.entries(o)[0]!;
  switch (type) {
    case 'match_all': return true;
    case 'match_none': return false;
    case 'term': {
      const [f, v] = Object.entries(body)[0]!;
      const want = typeof v === 'object' && v !== null ? (v as { value: unknown }).value : v;
      return valuesOf(doc, f).some((x) => String(x) === String(want));
    }
    case 'terms': {
      const [f, vs] = Object.entries(body)[0]!;
      return valuesOf(doc, f).some((x) => (vs as unknown[]).map(String).includes(String(x)));
    }
    case 'exists': return valuesOf(doc, String(body['field'])).length > 0;
    case 'range': {
      const [f, r] = Object.entries(body)[0]! as [string, Record<string, unknown>];
      const def = mapping[f];
      const t = typeof def === 'string' ? def : def?.type;
      const conv = (x: unknown) => (t === 'date' ? toMillis(x) : Number(x));
      return valuesOf(doc, f).some((x) => {
        const v = conv(x);
        if (r['gte'] !== undefined && !(v >= conv(r['gte']))) return false;
        if (r['gt'] !== undefined && !(v > conv(r['gt']))) return false;
        if (r['lte'] !== undefined && !(v <= conv(r['lte']))) return false;
        if (r['lt'] !== undefined && !(v < conv(r['lt']))) return false;
        return true;
      });
    }
    case 'bool': {
      const all = (k: string) => {
        const v = body[k];
        return v === undefined ? [] : Array.isArray(v) ? v : [v];
      };
      return (
        all('filter').every((c) => matches(c, doc, mapping)) &&
        all('must').every((c) => matches(c, doc, mapping)) &&
        !all('must_not').some((c) => matches(c, doc, mapping)) &&
        (all('should').length === 0 || all('should').some((c) => matches(c, doc, mapping)))
      );
    }
    default:
      throw Errors.parsing(`unknown query [${type}]`);
  }
}

export function fakeContext(mapping: Mapping, leaves: LeafReaderContext[], extra: Partial<AggregationContext> = {}): AggregationContext {
  return {
    fieldType: (name: string) => (mapping[name] ? fakeFieldType(name, mapping[name]!) : undefined),
    compileFilter: (q: unknown): CompiledFilter => {
      matches(q, {}, mapping); // validate eagerly
      return (leaf: LeafReaderContext) => {
        const docs = (leaf.reader as FakeLeaf).docs;
        return (doc: number) => matches(q, docs[doc]!, mapping);
      };
    },
    nowMillis: Date.UTC(2024, 0, 15, 12, 0, 0),
    index: 'test',
    shardId: 0,
    leaves,
    maxBuckets: 65536,
    ...extra,
  };
}

export interface RunOptions {
  /** each shard is a list of segments (each a list of docs); a plain doc list is one segment */
  typedKeys?: boolean;
  query?: unknown;
  maxBuckets?: number;
  scores?: (doc: Doc) => number;
  deleted?: number[][][];
  /** per-shard mappings (defaults to the common mapping) */
  shardMappings?: Mapping[];
  /** doc values offered block by block only (blocks of this many values), like segments on disk */
  blockSize?: number;
  /** collect each leaf with the aggregators' collectAll when they offer it (match_all) */
  collectAll?: boolean;
}

/** Builds shard aggregators over in-memory shards, collects, reduces and renders. */
export function runShards(aggs: unknown, shards: Doc[][][], commonMapping: Mapping, opts: RunOptions = {}): {
  rendered: Record<string, unknown>;
  shardResults: InternalAggregations[];
  reduced: InternalAggregations;
} {
  const factories = parseAggregations(aggs);
  const shardResults: InternalAggregations[] = [];
  shards.forEach((segments, si) => {
    const mapping = opts.shardMappings?.[si] ?? commonMapping;
    let base = 0;
    const leaves: LeafReaderContext[] = segments.map((docs, i) => {
      const reader = fakeLeafReader(docs, mapping, { name: `_${i}`, deleted: opts.deleted?.[si]?.[i], blockSize: opts.blockSize });
      const l = { reader, docBase: base, ord: i };
      base += docs.length;
      return l;
    });
    const ctx = fakeContext(mapping, leaves, { shardId: si });
    const agg = factories.createShardAggregator(ctx);
    for (const leaf of leaves) {
      const lc = agg.getLeafCollector(leaf);
      const docs = (leaf.reader as FakeLeaf).docs;
      if (opts.collectAll && !opts.query && lc.collectAll) {
        // the match_all shortcut of the query phase: every live doc of the leaf at once, when the aggs can
        const live = new Uint32Array(Math.ceil(docs.length / 32));
        for (let d = 0; d < docs.length; d++) if (leaf.reader.isLive(d)) live[d >>> 5]! |= 1 << (d & 31);
        if (lc.collectAll(leaf.reader.numDocs === docs.length ? null : live)) continue;
      }
      for (let d = 0; d < docs.length; d++) {
        if (!leaf.reader.isLive(d)) continue;
        if (opts.query && !matches(opts.query, docs[d]!, mapping)) continue;
        lc.collect(d, opts.scores ? opts.scores(docs[d]!) : 1);
      }
    }
    shardResults.push(structuredClone(agg.buildShardResult()));
  });
  const reduced = reduceAggregations(factories, shardResults, { maxBuckets: opts.maxBuckets });
  const rendered = renderAggregations(factories, reduced, { typedKeys: opts.typedKeys ?? false });
  return { rendered, shardResults, reduced };
}

/** one shard, one segment */
export function run(aggs: unknown, docs: Doc[], mapping: Mapping, opts: RunOptions = {}): Record<string, unknown> {
  return runShards(aggs, [[docs]], mapping, opts).rendered;
}
