/**
 * terms aggregation: ordinal counting in typed arrays per segment for keyword fields, keyed maps for numerics;
 * shard_size / doc_count_error_upper_bound / sum_other_doc_count reduced exactly as Elasticsearch.
 */
import { BreakerNames, EsError, Errors, LuceneRegexp, RequestContexts, integerJson, type StringMatcher } from '@strata/core-common';
import type { LeafReaderContext, SortedSetDocValues } from '../../index/leaf-reader.js';
import { numericReader, ordinalCounts, ordinalsReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import { ExactLongs, exactValuesOf } from '../../index/exact-longs.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  applyParentPipelines,
  type PipelineBucket,
  bytesValues,
  IntArray,
  KeyedBucketOrds,
  SubAggregators,
  checkParams,
  parseField,
  displayTerm,
  optBool,
  optInt,
  optString,
  reduceSubs,
  renderSubsInto,
  requireField,
  resolveField,
  type FieldSource,
  type ReduceContext,
  type RenderContext,
  collectBucket,
} from '../framework.js';
import {
  bucketComparator,
  compareIpKeys,
  compareKeys,
  isCountDesc,
  isKeyOrder,
  orderUsesPaths,
  parseOrder,
  topK,
  validateOrderPaths,
  type BucketOrder,
} from '../support/bucket-order.js';
import { formatValue, isRaw, RAW, type ValueFormat } from '../support/value-format.js';
import { parseDateMath } from '../support/date-format.js';
import { longPartition, stringPartitionHash } from '../support/hash.js';

type ValueType = 'string' | 'long' | 'double' | 'unmapped';

interface TermBucket {
  /** a bigint: a long / unsigned_long key beyond 2^53, exact (index/exact-longs.ts) */
  key: string | number | bigint;
  docCount: number;
  docCountError: number;
  aggs: InternalAggregations;
  /** shard-side bucket ordinal; removed before the result leaves the shard */
  ord?: number;
}

interface TermsInternal extends InternalAggregation {
  type: 'terms';
  valueType: ValueType;
  fmt: ValueFormat;
  buckets: TermBucket[];
  docCountError: number;
  otherDocCount: number;
  shardSize: number;
  /** keys are ip addresses: `_key` order is the address order (IPv4 mapped into IPv6), as ES's binary terms */
  ipKeys?: boolean;
}


interface IncludeExclude {
  includeRe?: StringMatcher;
  excludeRe?: StringMatcher;
  includeSet?: Set<string>;
  excludeSet?: Set<string>;
  partition?: number;
  numPartitions?: number;
}

const PARAMS = [
  'field', 'size', 'shard_size', 'min_doc_count', 'shard_min_doc_count', 'order', 'missing', 'include', 'exclude',
  'execution_hint', 'collect_mode', 'value_type', 'format', 'show_term_doc_count_error', 'script',
];

/** a terms include/exclude regex: Lucene syntax on the linear-time automaton, `index.max_regex_length` at its default */
export function includeExcludeRegex(type: string, s: string): StringMatcher {
  if (s.length > 1000) {
    throw Errors.illegalArgument(
      `The length of regex [${s.length}] used in the request has exceeded the allowed maximum of [1000]. ` +
        'This maximum can be set by changing the [index.max_regex_length] index level setting.',
    );
  }
  try {
    const re = LuceneRegexp.compile(s);
    return { test: (t) => re.matches(t) };
  } catch {
    throw Errors.illegalArgument(`invalid regular expression [${s}] in [${type}]`);
  }
}

function parseIncludeExclude(body: Record<string, unknown>): IncludeExclude | undefined {
  const inc = body['include'];
  const exc = body['exclude'];
  if (inc === undefined && exc === undefined) return undefined;
  const ie: IncludeExclude = {};
  if (typeof inc === 'string') ie.includeRe = includeExcludeRegex('include', inc);
  else if (Array.isArray(inc)) ie.includeSet = new Set(inc.map(String));
  else if (inc && typeof inc === 'object') {
    const p = inc as Record<string, unknown>;
    if (typeof p['partition'] !== 'number' || typeof p['num_partitions'] !== 'number') {
      throw Errors.parsing('Missing [partition] parameter for partition-based include');
    }
    ie.partition = p['partition'];
    ie.numPartitions = p['num_partitions'];
  }
  if (typeof exc === 'string') ie.excludeRe = includeExcludeRegex('exclude', exc);
  else if (Array.isArray(exc)) ie.excludeSet = new Set(exc.map(String));
  if ((ie.includeRe || ie.excludeRe) && (ie.includeSet || ie.excludeSet)) {
    throw Errors.illegalArgument('Cannot mix a regex with an array of terms in include/exclude');
  }
  return ie;
}

function accepts(ie: IncludeExclude, term: string): boolean {
  if (ie.includeRe && !ie.includeRe.test(term)) return false;
  if (ie.includeSet && !ie.includeSet.has(term)) return false;
  if (ie.numPartitions !== undefined) {
    const h = stringPartitionHash(term);
    const mod = ((h % ie.numPartitions) + ie.numPartitions) % ie.numPartitions;
    if (mod !== ie.partition) return false;
  }
  if (ie.excludeRe && ie.excludeRe.test(term)) return false;
  if (ie.excludeSet && ie.excludeSet.has(term)) return false;
  return true;
}

export class TermsSpec extends AggSpec {
  field = '';
  size = 10;
  shardSize = -1;
  minDocCount = 1;
  shardMinDocCount = 0;
  order: BucketOrder = [{ kind: 'count', path: '_count', asc: false }];
  missing: unknown;
  includeExclude: IncludeExclude | undefined;
  format: string | undefined;
  showDocCountError = false;
  valueType: string | undefined;

  constructor(name: string) {
    super(name, 'terms');
  }

  static parse(name: string, body: Record<string, unknown>): TermsSpec {
    checkParams('terms', body, PARAMS);
    const s = new TermsSpec(name);
    s.field = requireField('terms', name, body);
    const size = optInt('terms', body, 'size');
    if (size !== undefined) {
      parseField('terms', 'size', () => {
        if (size <= 0) throw Errors.illegalArgument(`[size] must be greater than 0. Found [${size}] in [${name}]`);
      });
      s.size = size;
    }
    const shardSize = optInt('terms', body, 'shard_size');
    if (shardSize !== undefined) {
      parseField('terms', 'shard_size', () => {
        if (shardSize <= 0) throw Errors.illegalArgument(`[shardSize] must be greater than 0. Found [${shardSize}] in [${name}]`);
      });
      s.shardSize = shardSize;
    }
    const mdc = optInt('terms', body, 'min_doc_count');
    if (mdc !== undefined) {
      parseField('terms', 'min_doc_count', () => {
        if (mdc < 0) throw Errors.illegalArgument(`[minDocCount] must be greater than or equal to 0. Found [${mdc}] in [${name}]`);
      });
      s.minDocCount = mdc;
    }
    const smdc = optInt('terms', body, 'shard_min_doc_count');
    if (smdc !== undefined) {
      parseField('terms', 'shard_min_doc_count', () => {
        if (smdc < 0) throw Errors.illegalArgument(`[shardMinDocCount] must be greater than or equal to 0. Found [${smdc}] in [${name}]`);
      });
      s.shardMinDocCount = smdc;
    }
    if (body['order'] !== undefined) s.order = parseOrder('terms', body['order']);
    s.missing = body['missing'];
    s.includeExclude = parseIncludeExclude(body);
    s.format = optString('terms', body, 'format');
    s.showDocCountError = optBool('terms', body, 'show_term_doc_count_error') ?? false;
    s.valueType = optString('terms', body, 'value_type');
    return s;
  }

  /** ES BucketUtils.suggestShardSideQueueSize */
  effectiveShardSize(): number {
    let shard = this.shardSize;
    if (shard < 0) shard = Math.min(Math.floor(this.size * 1.5 + 10), 2147483647);
    if (shard < this.size) shard = this.size;
    return shard;
  }

  createAggregator(ctx: AggregationContext, topLevel: boolean): Aggregator {
    validateOrderPaths(this.order, this.subs, this.name);
    const src = resolveField(ctx, this.field, { format: this.format, valueType: this.valueType });
    if (src.kind === 'bytes') return new BytesTermsAggregator(this, src, ctx, topLevel);
    if (src.kind === 'numeric') return new NumericTermsAggregator(this, src, ctx);
    return new UnmappedTermsAggregator(this, src, ctx);
  }

  empty(): InternalAggregation {
    return {
      type: 'terms',
      valueType: 'unmapped',
      fmt: RAW,
      buckets: [],
      docCountError: 0,
      otherDocCount: 0,
      shardSize: this.effectiveShardSize(),
    } satisfies TermsInternal;
  }

  typedName(agg: InternalAggregation): string {
    const t = (agg as TermsInternal).valueType;
    return t === 'long' ? 'lterms' : t === 'double' ? 'dterms' : 'sterms';
  }

  /** shard side: sort, cut to shard_size, compute other doc count */
  shardResult(
    valueType: ValueType,
    fmt: ValueFormat,
    candidates: TermBucket[],
    buildSubs: (b: TermBucket) => InternalAggregations,
    belowShardMinDocCount = 0,
    ipKeys = false,
  ): TermsInternal {
    const shardSize = this.effectiveShardSize();
    const usesPaths = orderUsesPaths(this.order);
    // ES counts terms under shard_min_doc_count into the shard's other doc count (they are not returned)
    let other = belowShardMinDocCount;
    if (usesPaths) for (const b of candidates) b.aggs = buildSubs(b);
    const cmp = bucketComparator<TermBucket>(this.order, this.subs, ipKeys ? compareIpKeys : compareKeys);
    let selected: TermBucket[];
    if (candidates.length > shardSize) {
      selected = topK(candidates, shardSize, cmp);
      let total = 0;
      for (const b of candidates) total += b.docCount;
      let kept = 0;
      for (const b of selected) kept += b.docCount;
      other += total - kept;
    } else {
      selected = candidates.sort(cmp);
    }
    if (!usesPaths) for (const b of selected) b.aggs = buildSubs(b);
    const res: TermsInternal = { type: 'terms', valueType, fmt, buckets: selected, docCountError: 0, otherDocCount: other, shardSize };
    if (ipKeys) res.ipKeys = true;
    return res;
  }

  private shardDocCountError(t: TermsInternal): number {
    const size = t.buckets.length;
    if (size === 0 || size < t.shardSize || isKeyOrder(this.order)) return 0;
    if (isCountDesc(this.order)) {
      if (t.docCountError > 0) return t.docCountError;
      let min = Infinity;
      for (const b of t.buckets) if (b.docCount < min) min = b.docCount;
      return min;
    }
    return -1;
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const all = list as TermsInternal[];
    const mapped = all.filter((t) => t.valueType !== 'unmapped');
    if (mapped.length === 0) return all[0] ?? this.empty();
    let valueType: ValueType = mapped[0]!.valueType;
    let fmt: ValueFormat = mapped[0]!.fmt;
    for (const t of mapped) {
      if (t.valueType !== valueType) {
        if ((t.valueType === 'double' && valueType === 'long') || (t.valueType === 'long' && valueType === 'double')) valueType = 'double';
        else if (t.valueType === 'string' || valueType === 'string') {
          throw new EsError(
            'aggregation_execution_exception',
            400,
            `Merging/Reducing the aggregations failed when computing the aggregation [${this.name}] because the field you gave in the aggregation query existed as two different types in two different indices`,
          );
        }
      }
      if (isRaw(fmt) && !isRaw(t.fmt)) fmt = t.fmt;
    }
    let sumDocCountError = 0;
    let otherDocCount = 0;
    const merged = new Map<string | number | bigint, { b: TermBucket; parts: InternalAggregations[]; errSeen: number }>();
    const shardErrors: number[] = [];
    for (const t of mapped) {
      const err = this.shardDocCountError(t);
      shardErrors.push(err);
      if (sumDocCountError !== -1) sumDocCountError = err === -1 ? -1 : sumDocCountError + err;
      otherDocCount += t.otherDocCount;
      for (const b of t.buckets) {
        let m = merged.get(b.key);
        if (!m) {
          m = { b: { key: b.key, docCount: 0, docCountError: 0, aggs: {} }, parts: [], errSeen: 0 };
          merged.set(b.key, m);
        }
        m.b.docCount += b.docCount;
        m.parts.push(b.aggs);
        if (m.errSeen !== -1) m.errSeen = err === -1 ? -1 : m.errSeen + err;
        if (b.docCountError === -1 || m.b.docCountError === -1) m.b.docCountError = -1;
        else m.b.docCountError += b.docCountError;
      }
    }
    const single = mapped.length === 1;
    let buckets: TermBucket[] = [];
    for (const m of merged.values()) {
      const b = m.b;
      if (single) b.docCountError = 0;
      else if (sumDocCountError === -1) b.docCountError = -1;
      else b.docCountError = b.docCountError === -1 ? -1 : b.docCountError + (sumDocCountError - m.errSeen);
      // buckets under min_doc_count are dropped, not counted as "other" (ES AbstractInternalTerms.reduce)
      if (b.docCount >= this.minDocCount) buckets.push(b);
    }
    const usesPaths = orderUsesPaths(this.order);
    if (usesPaths) {
      for (const m of merged.values()) m.b.aggs = reduceSubs(this.subs, m.parts, rc);
    }
    const ipKeys = mapped.some((t) => t.ipKeys === true);
    buckets.sort(bucketComparator(this.order, this.subs, ipKeys ? compareIpKeys : compareKeys));
    if (buckets.length > this.size) {
      for (let i = this.size; i < buckets.length; i++) otherDocCount += buckets[i]!.docCount;
      buckets = buckets.slice(0, this.size);
    }
    rc.consumeBuckets(buckets.length);
    if (!usesPaths) {
      for (const b of buckets) b.aggs = reduceSubs(this.subs, merged.get(b.key)!.parts, rc);
    }
    buckets = applyParentPipelines(this, buckets, (b) => this.keyString(b, fmt));
    return {
      type: 'terms',
      valueType,
      fmt,
      buckets,
      docCountError: single ? 0 : sumDocCountError,
      otherDocCount,
      shardSize: this.effectiveShardSize(),
      ...(ipKeys ? { ipKeys } : {}),
    } satisfies TermsInternal;
  }

  keyString(b: TermBucket, fmt: ValueFormat): string {
    return typeof b.key === 'number' && !isRaw(fmt) ? formatValue(fmt, b.key) : String(b.key);
  }

  override bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } {
    const t = agg as TermsInternal;
    return { buckets: t.buckets, keyString: (b) => this.keyString(b as TermBucket, t.fmt) };
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const t = agg as TermsInternal;
    const buckets = t.buckets.map((b) => {
      const o: Record<string, unknown> = { key: typeof b.key === 'bigint' ? integerJson(b.key) : b.key };
      if (typeof b.key === 'number' && !isRaw(t.fmt)) o['key_as_string'] = formatValue(t.fmt, b.key);
      else if (typeof b.key === 'bigint' && !isRaw(t.fmt)) o['key_as_string'] = b.key.toString();
      o['doc_count'] = b.docCount;
      if (this.showDocCountError) o['doc_count_error_upper_bound'] = b.docCountError;
      renderSubsInto(o, this.subs, b.aggs, rc);
      return o;
    });
    return {
      doc_count_error_upper_bound: t.docCountError,
      sum_other_doc_count: t.otherDocCount,
      buckets,
    };
  }
}

// ------------------------------------------------------------------ keyword terms

class BytesTermsAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly ords = new KeyedBucketOrds<string>();
  private readonly counts = new IntArray(64);
  private dv: SortedSetDocValues | null = null;
  /** the current segment's ordinals, read block by block (segments on disk) */
  private rd: DocValuesReader<Uint32Array> | null = null;
  private maxDoc = 0;
  /** bytes of the current segment's ordinal array charged to the request breaker */
  private segBytes = 0;
  /** segment ord -> bucket ord (owning ord 0 only); -1 unknown, -2 rejected */
  private segMap: Int32Array | null = null;
  /** direct counting per segment ordinal (top level, no sub-aggregations) */
  private segCounts: Int32Array | null = null;
  private segAccept: Uint8Array | null = null;
  private readonly direct: boolean;
  private readonly missingKey: string | undefined;
  private readonly allTerms: (readonly string[])[] = [];

  constructor(private readonly spec: TermsSpec, private readonly src: FieldSource, ctx: AggregationContext, topLevel: boolean) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.direct = topLevel && this.subs.empty;
    this.missingKey = spec.missing === undefined || spec.missing === null ? undefined : String(spec.missing);
  }

  private flush(): void {
    const sc = this.segCounts;
    const dv = this.dv;
    if (sc && dv) {
      for (let o = 0; o < sc.length; o++) {
        const c = sc[o]!;
        if (c === 0) continue;
        const b = this.ords.add(0, displayTerm(this.src, dv.terms[o]!));
        const counts = this.counts.ensure(b);
        counts[b]! += c;
      }
    }
    this.segCounts = null;
  }

  setLeaf(leaf: LeafReaderContext): void {
    this.flush();
    this.dv = bytesValues(leaf, this.src);
    this.rd = this.dv ? ordinalsReader(this.dv) : null;
    this.maxDoc = leaf.reader.maxDoc;
    this.subs.setLeaf(leaf);
    const n = this.dv ? this.dv.terms.length : 0;
    const ie = this.spec.includeExclude;
    this.segAccept = null;
    if (ie && this.dv) {
      const acc = new Uint8Array(n);
      for (let o = 0; o < n; o++) acc[o] = accepts(ie, displayTerm(this.src, this.dv.terms[o]!)) ? 1 : 0;
      this.segAccept = acc;
    }
    if (this.spec.minDocCount === 0 && this.dv) this.allTerms.push(this.dv.terms);
    // the per-segment ordinal array is charged to the request breaker (the previous segment's is released)
    const memory = RequestContexts.current()?.memory;
    if (memory) {
      memory.release(BreakerNames.REQUEST, this.segBytes);
      this.segBytes = n * Int32Array.BYTES_PER_ELEMENT;
      memory.reserve(BreakerNames.REQUEST, this.segBytes, 'allocated_buckets');
    }
    if (this.direct) {
      this.segCounts = new Int32Array(n);
    } else {
      this.segMap = new Int32Array(n).fill(-1);
    }
  }

  override canCollectAll(): boolean {
    return this.direct && this.missingKey === undefined;
  }

  /**
   * every live doc of the leaf: the column's per-ordinal counts (counted once per immutable column, see
   * ordinalCounts) minus the values of the deleted docs — cost follows the deletes and the segment's
   * terms, not its docs (Elasticsearch gets the same counts from the terms' docFreq for a match_all)
   */
  override collectAll(live: Uint32Array | null): void {
    const dv = this.dv;
    const rd = this.rd;
    const sc = this.segCounts;
    if (!dv || !rd || !sc) return;
    sc.set(ordinalCounts(dv));
    if (live !== null) {
      const maxDoc = this.maxDoc;
      const words = (maxDoc + 31) >>> 5;
      for (let w = 0; w < words; w++) {
        let dead = ~live[w]!;
        while (dead !== 0) {
          const low = dead & -dead;
          dead ^= low;
          const doc = (w << 5) + 31 - Math.clz32(low);
          if (doc >= maxDoc) break;
          const n = rd.advance(doc);
          for (let i = 0; i < n; i++) sc[rd.value(i)]! -= 1;
        }
      }
    }
    const acc = this.segAccept;
    if (acc !== null) for (let o = 0; o < sc.length; o++) if (acc[o] !== 1) sc[o] = 0;
  }

  collect(doc: number, owningOrd: number, score: number): void {
    const rd = this.rd;
    const n = rd ? rd.advance(doc) : 0;
    if (n === 0) {
      if (this.missingKey !== undefined) {
        if (this.spec.includeExclude && !accepts(this.spec.includeExclude, this.missingKey)) return;
        const b = this.ords.add(owningOrd, this.missingKey);
        const counts = this.counts.ensure(b);
        counts[b]! += 1;
        this.subs.collect(doc, b, score);
      }
      return;
    }
    const acc = this.segAccept;
    const sc = this.segCounts;
    if (sc) {
      for (let i = 0; i < n; i++) {
        const o = rd!.value(i);
        if (acc === null || acc[o] === 1) sc[o]! += 1;
      }
      return;
    }
    const map = this.segMap!;
    const terms = this.dv!.terms;
    for (let i = 0; i < n; i++) {
      const o = rd!.value(i);
      if (acc !== null && acc[o] === 0) continue;
      let b: number;
      if (owningOrd === 0) {
        b = map[o]!;
        if (b < 0) {
          b = this.ords.add(0, displayTerm(this.src, terms[o]!));
          map[o] = b;
        }
      } else {
        b = this.ords.add(owningOrd, displayTerm(this.src, terms[o]!));
      }
      const counts = this.counts.ensure(b);
      counts[b]! += 1;
      this.subs.collect(doc, b, score);
    }
  }

  build(owningOrd: number): InternalAggregation {
    this.flush();
    const candidates: { key: string; docCount: number; docCountError: number; aggs: InternalAggregations; ord: number }[] = [];
    const minShard = Math.max(this.spec.shardMinDocCount, this.spec.minDocCount === 0 ? 0 : 1);
    const seen = this.spec.minDocCount === 0 ? new Set<string>() : null;
    let below = 0;
    for (const b of this.ords.ordsOf(owningOrd)) {
      const c = this.counts.get(b);
      seen?.add(this.ords.keys[b]!);
      if (c >= minShard) candidates.push({ key: this.ords.keys[b]!, docCount: c, docCountError: 0, aggs: {}, ord: b });
      else below += c;
    }
    if (seen) {
      const ie = this.spec.includeExclude;
      for (const terms of this.allTerms) {
        for (const t of terms) {
          const key = displayTerm(this.src, t);
          if (seen.has(key) || (ie && !accepts(ie, key))) continue;
          seen.add(key);
          candidates.push({ key, docCount: 0, docCountError: 0, aggs: {}, ord: -1 });
        }
      }
    }
    const res = this.spec.shardResult(
      'string',
      RAW,
      candidates,
      (b) => {
        const ord = b.ord!;
        return ord >= 0 ? this.subs.build(ord) : emptySubsOf(this.spec);
      },
      below,
      this.src.isIp,
    );
    for (const b of res.buckets) delete b.ord;
    return res;
  }
}

function emptySubsOf(spec: AggSpec): InternalAggregations {
  const out: InternalAggregations = {};
  for (const s of spec.subs) out[s.name] = s.empty();
  return out;
}

// ------------------------------------------------------------------ numeric terms

class NumericTermsAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly ords = new KeyedBucketOrds<number | bigint>();
  private readonly counts = new IntArray(64);
  private rd: DocValuesReader<Float64Array> | null = null;
  /** exact values of the segment's longs beyond 2^53, when it has any */
  private ex: ExactLongs | null = null;
  private readonly missing: number | undefined;
  private readonly integer: boolean;
  private readonly includeVals: Set<number> | null = null;
  private readonly excludeVals: Set<number> | null = null;

  constructor(private readonly spec: TermsSpec, private readonly src: FieldSource, ctx: AggregationContext) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.integer = src.integer;
    const ie = spec.includeExclude;
    if (ie && (ie.includeRe || ie.excludeRe)) {
      throw Errors.illegalArgument(
        `Aggregation [${spec.name}] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses`,
      );
    }
    const conv = (x: string): number => {
      if (src.isDate) return parseDateMath(x, ctx.nowMillis, undefined, false, src.ft?.format);
      if (src.isBool) return x === 'true' ? 1 : x === 'false' ? 0 : Number(x);
      return Number(x) / 1;
    };
    if (ie?.includeSet) this.includeVals = new Set([...ie.includeSet].map(conv));
    if (ie?.excludeSet) this.excludeVals = new Set([...ie.excludeSet].map(conv));
    let missing: number | undefined;
    if (spec.missing !== undefined && spec.missing !== null) {
      if (src.isDate) missing = parseDateMath(spec.missing, ctx.nowMillis, undefined, false, src.ft?.format);
      else if (src.isBool) missing = spec.missing === true || spec.missing === 'true' ? 1 : 0;
      else {
        missing = Number(spec.missing);
        if (Number.isNaN(missing)) throw Errors.illegalArgument(`For input string: "${String(spec.missing)}"`);
      }
    }
    this.missing = missing;
  }

  setLeaf(leaf: LeafReaderContext): void {
    const dv = leaf.reader.numericDocValues(this.src.field);
    this.rd = dv ? numericReader(dv) : null;
    this.ex = dv && this.src.ft ? ExactLongs.of(leaf.reader, this.src.field, this.src.ft.type) : null;
    this.subs.setLeaf(leaf);
  }

  private accept(v: number): boolean {
    const ie = this.spec.includeExclude;
    if (!ie) return true;
    if (this.includeVals && !this.includeVals.has(v)) return false;
    if (this.excludeVals && this.excludeVals.has(v)) return false;
    if (ie.numPartitions !== undefined) {
      const p = this.integer ? longPartition(v, ie.numPartitions) : longPartition(Number(new BigInt64Array(new Float64Array([v]).buffer)[0]!), ie.numPartitions);
      if (p !== ie.partition) return false;
    }
    return true;
  }

  private add(doc: number, owningOrd: number, v: number | bigint, score: number): void {
    if (!this.accept(typeof v === 'bigint' ? Number(v) : v)) return;
    const b = this.ords.add(owningOrd, v);
    collectBucket(this.counts, this.subs, doc, b, score);
  }

  collect(doc: number, owningOrd: number, score: number): void {
    const rd = this.rd;
    if (rd) {
      const n = rd.advance(doc);
      if (n > 0) {
        if (this.ex) {
          let prev: number | bigint | undefined;
          for (const v of exactValuesOf(this.ex, doc, rd)) {
            if (v === prev) continue;
            prev = v;
            this.add(doc, owningOrd, v, score);
          }
          return;
        }
        const scale = this.src.scale;
        let prev = NaN;
        for (let i = 0; i < n; i++) {
          const v = rd.value(i) * scale;
          if (v === prev) continue;
          prev = v;
          this.add(doc, owningOrd, v, score);
        }
        return;
      }
    }
    if (this.missing !== undefined) this.add(doc, owningOrd, this.missing, score);
  }

  build(owningOrd: number): InternalAggregation {
    const candidates: (TermBucket & { ord: number })[] = [];
    const minShard = Math.max(this.spec.shardMinDocCount, 1);
    let below = 0;
    for (const b of this.ords.ordsOf(owningOrd)) {
      const c = this.counts.get(b);
      if (c >= minShard) candidates.push({ key: this.ords.keys[b]!, docCount: c, docCountError: 0, aggs: {}, ord: b });
      else below += c;
    }
    const res = this.spec.shardResult(
      this.integer ? 'long' : 'double',
      this.src.format,
      candidates,
      (b) => this.subs.build(b.ord!),
      below,
    );
    for (const b of res.buckets) delete b.ord;
    return res;
  }
}

class UnmappedTermsAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly missingKey: string | undefined;
  private readonly ords = new KeyedBucketOrds<string>();
  private readonly counts = new IntArray(8);
  constructor(private readonly spec: TermsSpec, src: FieldSource, ctx: AggregationContext) {
    super();
    void src;
    this.subs = new SubAggregators(spec.subs, ctx);
    this.missingKey = spec.missing === undefined || spec.missing === null ? undefined : String(spec.missing);
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.subs.setLeaf(leaf);
  }
  collect(doc: number, owningOrd: number, score: number): void {
    if (this.missingKey === undefined) return;
    const b = this.ords.add(owningOrd, this.missingKey);
    const c = this.counts.ensure(b);
    c[b]! += 1;
    this.subs.collect(doc, b, score);
  }
  build(owningOrd: number): InternalAggregation {
    if (this.missingKey === undefined) return this.spec.empty();
    const candidates: (TermBucket & { ord: number })[] = [];
    for (const b of this.ords.ordsOf(owningOrd)) {
      candidates.push({ key: this.ords.keys[b]!, docCount: this.counts.get(b), docCountError: 0, aggs: {}, ord: b });
    }
    if (candidates.length === 0) return this.spec.empty();
    const res = this.spec.shardResult('string', RAW, candidates, (b) => this.subs.build(b.ord!));
    for (const b of res.buckets) delete b.ord;
    return res;
  }
}
