/**
 * Single- and fixed-bucket aggregations driven by queries or field presence: filter, filters, missing, global.
 * Single-bucket aggregations pass the owning ordinal through to their sub-aggregations (as ES does).
 */
import { EsError, Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import { hiddenDocs } from '../../search/nested/nested-bitsets.js';
import type { AggregationContext, CompiledFilter, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  applyParentPipelines,
  type PipelineBucket,
  IntArray,
  leafValues,
  type LeafValues,
  SubAggregators,
  asObject,
  checkParams,
  emptySubs,
  optBool,
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

interface SingleInternal extends InternalAggregation {
  type: string;
  docCount: number;
  aggs: InternalAggregations;
}

export abstract class SingleBucketSpec extends AggSpec {
  empty(): InternalAggregation {
    return { type: this.type as 'filter', docCount: 0, aggs: emptySubs(this.subs) } satisfies SingleInternal;
  }
  typedName(): string {
    return this.type;
  }
  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as SingleInternal[];
    let docCount = 0;
    for (const p of parts) docCount += p.docCount;
    return { type: this.type as 'filter', docCount, aggs: reduceSubs(this.subs, parts.map((p) => p.aggs), rc) } satisfies SingleInternal;
  }
  override value(agg: InternalAggregation, key: string | undefined): number {
    if (key === undefined || key === '_count' || key === 'doc_count') return (agg as SingleInternal).docCount;
    return super.value(agg, key);
  }
  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const a = agg as SingleInternal;
    const o: Record<string, unknown> = { doc_count: a.docCount };
    renderSubsInto(o, this.subs, a.aggs, rc);
    return o;
  }
}

/** counts per owning ordinal and forwards matching docs to sub-aggregations */
export abstract class SingleBucketAggregator extends Aggregator {
  protected readonly subs: SubAggregators;
  protected readonly counts = new IntArray(16);
  /** `subCtx`: the context of the sub-aggregations when it differs (nested scopes) */
  constructor(protected readonly spec: AggSpec, ctx: AggregationContext, subCtx: AggregationContext = ctx) {
    super();
    this.subs = new SubAggregators(spec.subs, subCtx);
  }
  protected hit(doc: number, owningOrd: number, score: number): void {
    collectBucket(this.counts, this.subs, doc, owningOrd, score);
  }
  build(owningOrd: number): InternalAggregation {
    return { type: this.spec.type as 'filter', docCount: this.counts.get(owningOrd), aggs: this.subs.build(owningOrd) } satisfies SingleInternal;
  }
}

// ------------------------------------------------------------------ filter

export class FilterSpec extends SingleBucketSpec {
  query: unknown;
  static parse(name: string, body: Record<string, unknown>): FilterSpec {
    const s = new FilterSpec(name, 'filter');
    s.query = body;
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    return new FilterAggregator(this, ctx, ctx.compileFilter(this.query));
  }
}

class FilterAggregator extends SingleBucketAggregator {
  private matcher: ((doc: number) => boolean) | null = null;
  constructor(spec: AggSpec, ctx: AggregationContext, private readonly filter: CompiledFilter) {
    super(spec, ctx);
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.matcher = this.filter(leaf);
    this.subs.setLeaf(leaf);
  }
  collect(doc: number, owningOrd: number, score: number): void {
    if (this.matcher!(doc)) this.hit(doc, owningOrd, score);
  }
}

// ------------------------------------------------------------------ missing

export class MissingSpec extends SingleBucketSpec {
  field = '';
  static parse(name: string, body: Record<string, unknown>): MissingSpec {
    checkParams('missing', body, ['field', 'script', 'value_type', 'missing']);
    const s = new MissingSpec(name, 'missing');
    s.field = requireField('missing', name, body);
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    return new MissingAggregator(this, ctx, resolveField(ctx, this.field));
  }
}

class MissingAggregator extends SingleBucketAggregator {
  private lv: LeafValues | null = null;
  constructor(spec: AggSpec, ctx: AggregationContext, private readonly src: FieldSource) {
    super(spec, ctx);
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.lv = leafValues(leaf, this.src);
    this.subs.setLeaf(leaf);
  }
  collect(doc: number, owningOrd: number, score: number): void {
    if (this.lv && this.lv.rd.advance(doc) > 0) return;
    this.hit(doc, owningOrd, score);
  }
}

// ------------------------------------------------------------------ global

export class GlobalSpec extends SingleBucketSpec {
  static parse(name: string, body: Record<string, unknown>): GlobalSpec {
    checkParams('global', body, []);
    return new GlobalSpec(name, 'global');
  }
  createAggregator(ctx: AggregationContext, topLevel: boolean): Aggregator {
    if (!topLevel) {
      throw new EsError(
        'aggregation_execution_exception',
        400,
        `Aggregator [${this.name}] of type [global] cannot be a sub-aggregator. Global aggregations can only be defined as top level aggregations`,
      );
    }
    return new GlobalAggregator(this, ctx);
  }
}

class GlobalAggregator extends SingleBucketAggregator {
  private done = false;
  constructor(spec: AggSpec, private readonly ctx: AggregationContext) {
    super(spec, ctx);
  }
  setLeaf(): void {
    // the global aggregation ignores the query: it walks every live doc at build time
  }
  collect(): void {
    /* see build */
  }
  override build(owningOrd: number): InternalAggregation {
    if (!this.done) {
      this.done = true;
      for (const leaf of this.ctx.leaves) {
        this.subs.setLeaf(leaf);
        const r = leaf.reader;
        // every live root document (hidden nested documents are not documents of the index)
        const hidden = hiddenDocs(r);
        for (let d = 0; d < r.maxDoc; d++) if (r.isLive(d) && !hidden?.get(d)) this.hit(d, 0, 1);
      }
    }
    return super.build(owningOrd);
  }
}

// ------------------------------------------------------------------ filters

interface FiltersBucket {
  key: string | null;
  docCount: number;
  aggs: InternalAggregations;
}

interface FiltersInternal extends InternalAggregation {
  type: 'filters';
  buckets: FiltersBucket[];
}

export class FiltersSpec extends AggSpec {
  named = true;
  keys: string[] = [];
  queries: unknown[] = [];
  keyed = true;
  otherBucket = false;
  otherKey = '_other_';
  /** keyed buckets rendered as an array of single-key objects (keeps bucket_sort order visible) */
  keyedBucketInArray = false;

  static parse(name: string, body: Record<string, unknown>): FiltersSpec {
    checkParams('filters', body, ['filters', 'other_bucket', 'other_bucket_key', 'keyed', 'keyed_bucket_in_array']);
    const s = new FiltersSpec(name, 'filters');
    const f = body['filters'];
    if (f === undefined || f === null || (Array.isArray(f) && f.length === 0) || (typeof f === 'object' && Object.keys(f as object).length === 0)) {
      throw Errors.illegalArgument('[filters] cannot be empty.');
    }
    if (Array.isArray(f)) {
      s.named = false;
      s.queries = f;
      s.keys = f.map((_, i) => String(i));
    } else if (f !== null && typeof f === 'object') {
      const entries = Object.entries(asObject('filters', f)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      s.keys = entries.map((e) => e[0]);
      s.queries = entries.map((e) => e[1]);
    } else {
      throw Errors.illegalArgument(`[filters] cannot be null in [${name}]`);
    }
    const okey = optString('filters', body, 'other_bucket_key');
    if (okey !== undefined) {
      s.otherKey = okey;
      s.otherBucket = true;
    }
    const ob = optBool('filters', body, 'other_bucket');
    if (ob !== undefined) s.otherBucket = ob;
    s.keyed = optBool('filters', body, 'keyed') ?? true;
    s.keyedBucketInArray = optBool('filters', body, 'keyed_bucket_in_array') ?? false;
    return s;
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    return new FiltersAggregator(this, ctx, this.queries.map((q) => ctx.compileFilter(q)));
  }

  bucketKeys(): (string | null)[] {
    const keys: (string | null)[] = this.named ? [...this.keys] : this.keys.map(() => null);
    if (this.otherBucket) keys.push(this.named ? this.otherKey : null);
    return keys;
  }

  empty(): InternalAggregation {
    return {
      type: 'filters',
      buckets: this.bucketKeys().map((key) => ({ key, docCount: 0, aggs: emptySubs(this.subs) })),
    } satisfies FiltersInternal;
  }

  typedName(): string {
    return 'filters';
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as FiltersInternal[];
    let buckets = parts[0]!.buckets.map((b, i) => ({
      key: b.key,
      docCount: parts.reduce((s, p) => s + (p.buckets[i]?.docCount ?? 0), 0),
      aggs: reduceSubs(this.subs, parts.map((p) => p.buckets[i]?.aggs ?? {}), rc),
    }));
    rc.consumeBuckets(buckets.length);
    buckets = applyParentPipelines(this, buckets, (b) => String(b.key ?? buckets.indexOf(b)));
    return { type: 'filters', buckets } satisfies FiltersInternal;
  }

  override bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } {
    const f = agg as FiltersInternal;
    return { buckets: f.buckets, keyString: (b) => String((b as FiltersBucket).key ?? f.buckets.indexOf(b as FiltersBucket)) };
  }

  override value(agg: InternalAggregation, key: string | undefined): number {
    const b = (agg as FiltersInternal).buckets.find((x) => x.key === key);
    if (!b) return super.value(agg, key);
    return b.docCount;
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const f = agg as FiltersInternal;
    const one = (b: FiltersBucket, withKey: boolean) => {
      const o: Record<string, unknown> = {};
      if (withKey && b.key !== null) o['key'] = b.key;
      o['doc_count'] = b.docCount;
      renderSubsInto(o, this.subs, b.aggs, rc);
      return o;
    };
    if (this.named && this.keyed) {
      if (this.keyedBucketInArray) return { buckets: f.buckets.map((b) => ({ [b.key!]: one(b, false) })) };
      const out: Record<string, unknown> = {};
      for (const b of f.buckets) out[b.key!] = one(b, false);
      return { buckets: out };
    }
    return { buckets: f.buckets.map((b) => one(b, true)) };
  }
}

class FiltersAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly counts = new IntArray(16);
  private matchers: ((doc: number) => boolean)[] = [];
  private readonly n: number;
  constructor(private readonly spec: FiltersSpec, ctx: AggregationContext, private readonly filters: CompiledFilter[]) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.n = filters.length + (spec.otherBucket ? 1 : 0);
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.matchers = this.filters.map((f) => f(leaf));
    this.subs.setLeaf(leaf);
  }
  private add(doc: number, b: number, score: number): void {
    collectBucket(this.counts, this.subs, doc, b, score);
  }
  collect(doc: number, owningOrd: number, score: number): void {
    let matched = false;
    const base = owningOrd * this.n;
    for (let i = 0; i < this.matchers.length; i++) {
      if (this.matchers[i]!(doc)) {
        matched = true;
        this.add(doc, base + i, score);
      }
    }
    if (!matched && this.spec.otherBucket) this.add(doc, base + this.matchers.length, score);
  }
  build(owningOrd: number): InternalAggregation {
    const base = owningOrd * this.n;
    return {
      type: 'filters',
      buckets: this.spec.bucketKeys().map((key, i) => ({ key, docCount: this.counts.get(base + i), aggs: this.subs.build(base + i) })),
    } satisfies FiltersInternal;
  }
}

// ------------------------------------------------------------------ sampler

export class SamplerSpec extends SingleBucketSpec {
  shardSize = 100;
  static parse(name: string, body: Record<string, unknown>): SamplerSpec {
    checkParams('sampler', body, ['shard_size']);
    const s = new SamplerSpec(name, 'sampler');
    const v = body['shard_size'];
    if (v !== undefined && v !== null) {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw Errors.illegalArgument(`[shard_size] must be greater than 0. Found [${String(v)}] in [${name}]`);
      s.shardSize = n;
    }
    return s;
  }
  override needsScores(): boolean {
    return true;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    return new SamplerAggregator(this, ctx);
  }
}

interface Sampled {
  leaf: LeafReaderContext;
  doc: number;
  score: number;
}

/** keeps the best shard_size docs by score per owning bucket, then replays them into the sub-aggregations */
class SamplerAggregator extends SingleBucketAggregator {
  private leaf: LeafReaderContext | null = null;
  private readonly tops: (Sampled[] | undefined)[] = [];
  constructor(private readonly sampler: SamplerSpec, ctx: AggregationContext) {
    super(sampler, ctx);
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.leaf = leaf;
  }
  collect(doc: number, owningOrd: number, score: number): void {
    let top = this.tops[owningOrd];
    if (!top) {
      top = [];
      this.tops[owningOrd] = top;
    }
    const k = this.sampler.shardSize;
    if (top.length >= k && score <= top[top.length - 1]!.score) return;
    let i = top.length;
    while (i > 0 && top[i - 1]!.score < score) i--;
    top.splice(i, 0, { leaf: this.leaf!, doc, score });
    if (top.length > k) top.pop();
  }
  override build(owningOrd: number): InternalAggregation {
    const top = (this.tops[owningOrd] ?? []).slice().sort((a, b) => a.leaf.ord - b.leaf.ord || a.doc - b.doc);
    let current: LeafReaderContext | null = null;
    for (const s of top) {
      if (s.leaf !== current) {
        current = s.leaf;
        this.subs.setLeaf(current);
      }
      this.hit(s.doc, owningOrd, s.score);
    }
    this.tops[owningOrd] = [];
    return super.build(owningOrd);
  }
}

// ------------------------------------------------------------------ adjacency_matrix

export class AdjacencyMatrixSpec extends AggSpec {
  keys: string[] = [];
  queries: unknown[] = [];
  separator = '&';
  static parse(name: string, body: Record<string, unknown>): AdjacencyMatrixSpec {
    checkParams('adjacency_matrix', body, ['filters', 'separator']);
    const s = new AdjacencyMatrixSpec(name, 'adjacency_matrix');
    const f = body['filters'];
    if (f === null || typeof f !== 'object' || Array.isArray(f)) throw Errors.illegalArgument(`[filters] must be an object in [${name}]`);
    const entries = Object.entries(f as Record<string, unknown>).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    if (entries.length > 100) {
      throw Errors.illegalArgument(
        `Number of filters is too large, must be less than or equal to: [100] but was [${entries.length}].This limit can be set by changing the [index.max_adjacency_matrix_filters] index level setting.`,
      );
    }
    s.keys = entries.map((e) => e[0]);
    s.queries = entries.map((e) => e[1]);
    const sep = optString('adjacency_matrix', body, 'separator');
    if (sep !== undefined) s.separator = sep;
    return s;
  }
  /** bucket slots: each filter, then each pair i<j */
  slotKeys(): string[] {
    const out = [...this.keys];
    for (let i = 0; i < this.keys.length; i++) for (let j = i + 1; j < this.keys.length; j++) out.push(`${this.keys[i]}${this.separator}${this.keys[j]}`);
    return out;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    return new AdjacencyMatrixAggregator(this, ctx, this.queries.map((q) => ctx.compileFilter(q)));
  }
  empty(): InternalAggregation {
    return { type: 'filters', buckets: [] } satisfies FiltersInternal;
  }
  typedName(): string {
    return 'adjacency_matrix';
  }
  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const merged = new Map<string, { docCount: number; aggs: InternalAggregations[] }>();
    for (const p of list as FiltersInternal[]) {
      for (const b of p.buckets) {
        let m = merged.get(b.key!);
        if (!m) merged.set(b.key!, (m = { docCount: 0, aggs: [] }));
        m.docCount += b.docCount;
        m.aggs.push(b.aggs);
      }
    }
    const buckets = [...merged.entries()]
      .filter(([, m]) => m.docCount > 0)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([key, m]) => ({ key, docCount: m.docCount, aggs: reduceSubs(this.subs, m.aggs, rc) }));
    rc.consumeBuckets(buckets.length);
    return { type: 'filters', buckets } satisfies FiltersInternal;
  }
  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    return {
      buckets: (agg as FiltersInternal).buckets.map((b) => {
        const o: Record<string, unknown> = { key: b.key, doc_count: b.docCount };
        renderSubsInto(o, this.subs, b.aggs, rc);
        return o;
      }),
    };
  }
}

class AdjacencyMatrixAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly counts = new IntArray(16);
  private matchers: ((doc: number) => boolean)[] = [];
  private readonly slots: string[];
  private readonly hits: Uint8Array;
  constructor(spec: AdjacencyMatrixSpec, ctx: AggregationContext, private readonly filters: CompiledFilter[]) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.slots = spec.slotKeys();
    this.hits = new Uint8Array(filters.length);
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.matchers = this.filters.map((f) => f(leaf));
    this.subs.setLeaf(leaf);
  }
  private add(doc: number, b: number, score: number): void {
    collectBucket(this.counts, this.subs, doc, b, score);
  }
  collect(doc: number, owningOrd: number, score: number): void {
    const n = this.filters.length;
    const base = owningOrd * this.slots.length;
    for (let i = 0; i < n; i++) this.hits[i] = this.matchers[i]!(doc) ? 1 : 0;
    let slot = n;
    for (let i = 0; i < n; i++) {
      if (this.hits[i]) this.add(doc, base + i, score);
    }
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++, slot++) if (this.hits[i] && this.hits[j]) this.add(doc, base + slot, score);
    }
  }
  build(owningOrd: number): InternalAggregation {
    const base = owningOrd * this.slots.length;
    const buckets: FiltersBucket[] = [];
    this.slots.forEach((key, i) => {
      const c = this.counts.get(base + i);
      if (c > 0) buckets.push({ key, docCount: c, aggs: this.subs.build(base + i) });
    });
    return { type: 'filters', buckets } satisfies FiltersInternal;
  }
}
