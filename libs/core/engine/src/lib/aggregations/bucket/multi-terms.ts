/**
 * multi_terms (buckets keyed by a tuple of field values, terms-style ordering/size/errors) and
 * rare_terms (terms whose doc count is at most max_doc_count, exact counting).
 */
import { Errors, type StringMatcher } from '@strata/core-common';
import { includeExcludeRegex } from './terms.js';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  IntArray,
  KeyedBucketOrds,
  SubAggregators,
  TupleBuckets,
  applyParentPipelines,
  asObject,
  checkParams,
  docValuesInto,
  leafValues,
  type LeafValues,
  optBool,
  optInt,
  optString,
  reduceSubs,
  renderSubsInto,
  requireField,
  resolveField,
  type FieldSource,
  type PipelineBucket,
  type ReduceContext,
  type RenderContext,
  collectBucket,
} from '../framework.js';
import {
  bucketComparator,
  isCountDesc,
  isKeyOrder,
  orderUsesPaths,
  parseOrder,
  topK,
  tupleKeyComparator,
  validateOrderPaths,
  type BucketOrder,
} from '../support/bucket-order.js';
import { formatValue, isRaw, javaDoubleString, RAW, type ValueFormat } from '../support/value-format.js';
import { parseDateMath } from '../support/date-format.js';

type Val = string | number;

interface MtBucket {
  key: Val[];
  docCount: number;
  docCountError: number;
  aggs: InternalAggregations;
  ord?: number;
}

interface MtFmt {
  t: 'string' | 'number' | 'bool' | 'formatted';
  fmt?: ValueFormat;
  integer?: boolean;
}

interface MultiTermsInternal extends InternalAggregation {
  type: 'multi_terms';
  buckets: MtBucket[];
  fmts: MtFmt[];
  /** tuple positions holding ip addresses (`_key` order compares them as addresses) */
  ipCols?: boolean[];
  docCountError: number;
  otherDocCount: number;
  shardSize: number;
}

interface TermSource {
  field: string;
  missing: unknown;
  format?: string;
}

function valuesOf(src: FieldSource, lv: LeafValues | null, doc: number, missing: Val | undefined): Val[] {
  const out: Val[] = [];
  if (lv) docValuesInto(src, lv, doc, out);
  if (out.length === 0 && missing !== undefined) out.push(missing);
  return out;
}

function resolveMissing(src: FieldSource, m: unknown, ctx: AggregationContext): Val | undefined {
  if (m === undefined || m === null) return undefined;
  if (src.kind !== 'numeric') return String(m);
  if (src.isDate) return parseDateMath(m, ctx.nowMillis, undefined, false, src.ft?.format);
  if (src.isBool) return m === true || m === 'true' ? 1 : 0;
  return Number(m);
}

function fmtOf(src: FieldSource): MtFmt {
  if (src.kind !== 'numeric') return { t: 'string' };
  if (src.isBool) return { t: 'bool' };
  if (!isRaw(src.format)) return { t: 'formatted', fmt: src.format };
  return { t: 'number', integer: src.integer };
}

function renderVal(v: Val, f: MtFmt): unknown {
  if (f.t === 'bool') return v === 1;
  if (f.t === 'formatted' && f.fmt) return formatValue(f.fmt, v);
  return v;
}

function valString(v: Val, f: MtFmt): string {
  if (f.t === 'bool') return v === 1 ? 'true' : 'false';
  if (f.t === 'formatted' && f.fmt) return formatValue(f.fmt, v);
  if (typeof v === 'number') return f.integer ? String(v) : javaDoubleString(v);
  return v;
}

export class MultiTermsSpec extends AggSpec {
  sources: TermSource[] = [];
  size = 10;
  shardSize = -1;
  minDocCount = 1;
  shardMinDocCount = 0;
  order: BucketOrder = [{ kind: 'count', path: '_count', asc: false }];
  showDocCountError = false;

  static parse(name: string, body: Record<string, unknown>): MultiTermsSpec {
    checkParams('multi_terms', body, ['terms', 'size', 'shard_size', 'min_doc_count', 'shard_min_doc_count', 'order', 'show_term_doc_count_error', 'collect_mode']);
    const s = new MultiTermsSpec(name, 'multi_terms');
    const terms = body['terms'];
    if (!Array.isArray(terms) || terms.length < 2) {
      throw Errors.illegalArgument(`The [terms] parameter in the aggregation [${name}] must be present and have at least 2 fields or scripts.`);
    }
    s.sources = terms.map((t) => {
      const o = asObject('multi_terms', t, 'terms');
      checkParams('terms', o, ['field', 'missing', 'format', 'script', 'value_type']);
      return { field: requireField('multi_terms', name, o), missing: o['missing'], format: optString('terms', o, 'format') };
    });
    const size = optInt('multi_terms', body, 'size');
    if (size !== undefined) {
      if (size <= 0) throw Errors.illegalArgument(`[size] must be greater than 0. Found [${size}] in [${name}]`);
      s.size = size;
    }
    const shardSize = optInt('multi_terms', body, 'shard_size');
    if (shardSize !== undefined) s.shardSize = shardSize;
    const mdc = optInt('multi_terms', body, 'min_doc_count');
    if (mdc !== undefined) s.minDocCount = mdc;
    const smdc = optInt('multi_terms', body, 'shard_min_doc_count');
    if (smdc !== undefined) s.shardMinDocCount = smdc;
    if (body['order'] !== undefined) s.order = parseOrder('multi_terms', body['order']);
    s.showDocCountError = optBool('multi_terms', body, 'show_term_doc_count_error') ?? false;
    return s;
  }

  effectiveShardSize(): number {
    let shard = this.shardSize;
    if (shard < 0) shard = Math.floor(this.size * 1.5 + 10);
    return Math.max(shard, this.size);
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    validateOrderPaths(this.order, this.subs, this.name);
    return new MultiTermsAggregator(this, ctx);
  }

  empty(): InternalAggregation {
    return { type: 'multi_terms', buckets: [], fmts: [], docCountError: 0, otherDocCount: 0, shardSize: this.effectiveShardSize() } satisfies MultiTermsInternal;
  }

  typedName(): string {
    return 'multi_terms';
  }

  private shardError(t: MultiTermsInternal): number {
    const n = t.buckets.length;
    if (n === 0 || n < t.shardSize || isKeyOrder(this.order)) return 0;
    if (isCountDesc(this.order)) return Math.min(...t.buckets.map((b) => b.docCount));
    return -1;
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as MultiTermsInternal[];
    const merged = new Map<string, { b: MtBucket; parts: InternalAggregations[]; errSeen: number }>();
    let sumErr = 0;
    let other = 0;
    for (const p of parts) {
      const err = this.shardError(p);
      if (sumErr !== -1) sumErr = err === -1 ? -1 : sumErr + err;
      other += p.otherDocCount;
      for (const b of p.buckets) {
        const k = JSON.stringify(b.key);
        let m = merged.get(k);
        if (!m) {
          m = { b: { key: b.key, docCount: 0, docCountError: 0, aggs: {} }, parts: [], errSeen: 0 };
          merged.set(k, m);
        }
        m.b.docCount += b.docCount;
        m.parts.push(b.aggs);
        if (m.errSeen !== -1) m.errSeen = err === -1 ? -1 : m.errSeen + err;
      }
    }
    const single = parts.length === 1;
    let buckets: MtBucket[] = [];
    for (const m of merged.values()) {
      m.b.docCountError = single ? 0 : sumErr === -1 ? -1 : sumErr - m.errSeen;
      // under min_doc_count: dropped, not "other" (ES AbstractInternalTerms.reduce)
      if (m.b.docCount >= this.minDocCount) buckets.push(m.b);
      if (orderUsesPaths(this.order)) m.b.aggs = reduceSubs(this.subs, m.parts, rc);
    }
    const ipCols = parts.find((p) => p.ipCols)?.ipCols ?? [];
    buckets.sort(bucketComparator(this.order, this.subs, tupleKeyComparator(ipCols)));
    if (buckets.length > this.size) {
      for (let i = this.size; i < buckets.length; i++) other += buckets[i]!.docCount;
      buckets = buckets.slice(0, this.size);
    }
    rc.consumeBuckets(buckets.length);
    if (!orderUsesPaths(this.order)) for (const b of buckets) b.aggs = reduceSubs(this.subs, merged.get(JSON.stringify(b.key))!.parts, rc);
    const fmts = parts.find((p) => p.buckets.length > 0)?.fmts ?? [];
    buckets = applyParentPipelines(this, buckets, (b) => this.keyString(b, fmts));
    return { type: 'multi_terms', buckets, fmts, ...(ipCols.some(Boolean) ? { ipCols } : {}), docCountError: single ? 0 : sumErr, otherDocCount: other, shardSize: this.effectiveShardSize() } satisfies MultiTermsInternal;
  }

  keyString(b: MtBucket, fmts: MtFmt[]): string {
    return b.key.map((v, i) => valString(v, fmts[i] ?? { t: 'string' })).join('|');
  }

  override bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } {
    const t = agg as MultiTermsInternal;
    return { buckets: t.buckets, keyString: (b) => this.keyString(b as MtBucket, t.fmts) };
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const t = agg as MultiTermsInternal;
    return {
      doc_count_error_upper_bound: t.docCountError,
      sum_other_doc_count: t.otherDocCount,
      buckets: t.buckets.map((b) => {
        const o: Record<string, unknown> = {
          key: b.key.map((v, i) => renderVal(v, t.fmts[i] ?? { t: 'string' })),
          key_as_string: this.keyString(b, t.fmts),
          doc_count: b.docCount,
        };
        if (this.showDocCountError) o['doc_count_error_upper_bound'] = b.docCountError;
        renderSubsInto(o, this.subs, b.aggs, rc);
        return o;
      }),
    };
  }
}

class MultiTermsAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly tuples: TupleBuckets;
  private readonly srcs: FieldSource[];
  private readonly missing: (Val | undefined)[];
  private lvs: (LeafValues | null)[] = [];

  constructor(private readonly spec: MultiTermsSpec, ctx: AggregationContext) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.srcs = spec.sources.map((s) => resolveField(ctx, s.field, { format: s.format }));
    this.missing = spec.sources.map((s, i) => resolveMissing(this.srcs[i]!, s.missing, ctx));
    this.tuples = new TupleBuckets(this.srcs.length, this.subs);
  }

  setLeaf(leaf: LeafReaderContext): void {
    this.lvs = this.srcs.map((s) => leafValues(leaf, s));
    this.subs.setLeaf(leaf);
  }

  private fill(i: number, doc: number): number {
    const src = this.srcs[i]!;
    const out = this.tuples.vals[i]!;
    let n = 0;
    const lv = this.lvs[i];
    if (lv) n = docValuesInto(src, lv, doc, out);
    if (n === 0 && this.missing[i] !== undefined) out[n++] = this.missing[i]!;
    this.tuples.nvals[i] = n;
    return n;
  }

  collect(doc: number, owningOrd: number, score: number): void {
    for (let i = 0; i < this.srcs.length; i++) if (this.fill(i, doc) === 0) return;
    this.tuples.collect(doc, owningOrd, score);
  }

  build(owningOrd: number): InternalAggregation {
    const shardSize = this.spec.effectiveShardSize();
    const minShard = Math.max(this.spec.shardMinDocCount, 1);
    let cands: MtBucket[] = [];
    // terms under shard_min_doc_count count into the shard's other doc count, as in ES
    let other = 0;
    for (const b of this.tuples.ords.ordsOf(owningOrd)) {
      const c = this.tuples.counts.get(b);
      if (c >= minShard) cands.push({ key: this.tuples.ords.keys[b]! as Val[], docCount: c, docCountError: 0, aggs: {}, ord: b });
      else other += c;
    }
    const usesPaths = orderUsesPaths(this.spec.order);
    const ipCols = this.srcs.map((s) => s.isIp === true);
    const cmp = bucketComparator<MtBucket>(this.spec.order, this.spec.subs, tupleKeyComparator(ipCols));
    if (usesPaths) for (const c of cands) c.aggs = this.subs.build(c.ord!);
    if (cands.length > shardSize) {
      let total = 0;
      for (const c of cands) total += c.docCount;
      cands = topK(cands, shardSize, cmp);
      for (const c of cands) total -= c.docCount;
      other += total;
    } else cands.sort(cmp);
    for (const c of cands) {
      if (!usesPaths) c.aggs = this.subs.build(c.ord!);
      delete c.ord;
    }
    return { type: 'multi_terms', buckets: cands, fmts: this.srcs.map(fmtOf), ...(ipCols.some(Boolean) ? { ipCols } : {}), docCountError: 0, otherDocCount: other, shardSize } satisfies MultiTermsInternal;
  }
}

// ------------------------------------------------------------------ rare_terms

interface RareBucket {
  key: Val;
  docCount: number;
  aggs: InternalAggregations;
  ord?: number;
}

interface RareTermsInternal extends InternalAggregation {
  type: 'rare_terms';
  valueType: 'string' | 'long' | 'double';
  fmt: ValueFormat;
  buckets: RareBucket[];
  /** keys seen more than max_doc_count times on this shard (they cannot be rare overall) */
  frequent: Val[];
}

export class RareTermsSpec extends AggSpec {
  field = '';
  maxDocCount = 1;
  missing: unknown;
  include: Set<string> | StringMatcher | undefined;
  exclude: Set<string> | StringMatcher | undefined;

  static parse(name: string, body: Record<string, unknown>): RareTermsSpec {
    checkParams('rare_terms', body, ['field', 'max_doc_count', 'precision', 'include', 'exclude', 'missing', 'value_type', 'format']);
    const s = new RareTermsSpec(name, 'rare_terms');
    s.field = requireField('rare_terms', name, body);
    const m = optInt('rare_terms', body, 'max_doc_count');
    if (m !== undefined) {
      if (m <= 0) throw Errors.illegalArgument(`[maxDocCount] must be greater than 0. Found [${m}] in [${name}]`);
      if (m > 100) throw Errors.illegalArgument(`[max_doc_count] must be smaller than or equal to [100]. Found [${m}] in [${name}]`);
      s.maxDocCount = m;
    }
    s.missing = body['missing'];
    const ie = (v: unknown) =>
      v === undefined || v === null ? undefined : Array.isArray(v) ? new Set(v.map(String)) : includeExcludeRegex('rare_terms', String(v));
    s.include = ie(body['include']);
    s.exclude = ie(body['exclude']);
    return s;
  }

  accepts(key: string): boolean {
    if (this.include instanceof Set && !this.include.has(key)) return false;
    if (this.include && !(this.include instanceof Set) && !this.include.test(key)) return false;
    if (this.exclude instanceof Set && this.exclude.has(key)) return false;
    if (this.exclude && !(this.exclude instanceof Set) && this.exclude.test(key)) return false;
    return true;
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    return new RareTermsAggregator(this, ctx, resolveField(ctx, this.field));
  }
  empty(): InternalAggregation {
    return { type: 'rare_terms', valueType: 'string', fmt: RAW, buckets: [], frequent: [] } satisfies RareTermsInternal;
  }
  typedName(agg: InternalAggregation): string {
    const t = (agg as RareTermsInternal).valueType;
    return t === 'long' ? 'lrareterms' : t === 'double' ? 'drareterms' : 'srareterms';
  }
  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as RareTermsInternal[];
    const frequent = new Set<Val>();
    for (const p of parts) for (const f of p.frequent) frequent.add(f);
    const merged = new Map<Val, { docCount: number; parts: InternalAggregations[] }>();
    for (const p of parts) {
      for (const b of p.buckets) {
        let m = merged.get(b.key);
        if (!m) {
          m = { docCount: 0, parts: [] };
          merged.set(b.key, m);
        }
        m.docCount += b.docCount;
        m.parts.push(b.aggs);
      }
    }
    const buckets: RareBucket[] = [];
    for (const [key, m] of merged) {
      if (frequent.has(key) || m.docCount > this.maxDocCount) continue;
      buckets.push({ key, docCount: m.docCount, aggs: reduceSubs(this.subs, m.parts, rc) });
    }
    buckets.sort((a, b) => a.docCount - b.docCount || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    rc.consumeBuckets(buckets.length);
    const first = parts.find((p) => p.buckets.length > 0) ?? parts[0]!;
    return { type: 'rare_terms', valueType: first.valueType, fmt: first.fmt, buckets, frequent: [] } satisfies RareTermsInternal;
  }
  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const t = agg as RareTermsInternal;
    return {
      buckets: t.buckets.map((b) => {
        const o: Record<string, unknown> = { key: b.key };
        if (typeof b.key === 'number' && !isRaw(t.fmt)) o['key_as_string'] = formatValue(t.fmt, b.key);
        o['doc_count'] = b.docCount;
        renderSubsInto(o, this.subs, b.aggs, rc);
        return o;
      }),
    };
  }
}

class RareTermsAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly ords = new KeyedBucketOrds<Val>();
  private readonly counts = new IntArray(64);
  private lv: LeafValues | null = null;
  private readonly missing: Val | undefined;
  constructor(private readonly spec: RareTermsSpec, ctx: AggregationContext, private readonly src: FieldSource) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.missing = resolveMissing(src, spec.missing, ctx);
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.lv = leafValues(leaf, this.src);
    this.subs.setLeaf(leaf);
  }
  collect(doc: number, owningOrd: number, score: number): void {
    for (const v of valuesOf(this.src, this.lv, doc, this.missing)) {
      if (!this.spec.accepts(String(v))) continue;
      const b = this.ords.add(owningOrd, v);
      collectBucket(this.counts, this.subs, doc, b, score);
    }
  }
  build(owningOrd: number): InternalAggregation {
    const buckets: RareBucket[] = [];
    const frequent: Val[] = [];
    for (const b of this.ords.ordsOf(owningOrd)) {
      const c = this.counts.get(b);
      const key = this.ords.keys[b]!;
      if (c > this.spec.maxDocCount) frequent.push(key);
      else buckets.push({ key, docCount: c, aggs: this.subs.build(b) });
    }
    const valueType = this.src.kind === 'numeric' ? (this.src.integer ? 'long' : 'double') : 'string';
    return { type: 'rare_terms', valueType, fmt: this.src.format, buckets, frequent } satisfies RareTermsInternal;
  }
}
