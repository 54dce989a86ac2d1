/**
 * significant_terms on keyword fields with the JLH heuristic (ES default): foreground = the docs the
 * aggregation collects, background = every doc of the shard (term doc freqs from the terms dictionary).
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext, SortedSetDocValues } from '../../index/leaf-reader.js';
import { ordinalCounts, ordinalsReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  IntArray,
  KeyedBucketOrds,
  SubAggregators,
  bytesValues,
  checkParams,
  displayTerm,
  optInt,
  reduceSubs,
  renderSubsInto,
  requireField,
  resolveField,
  type FieldSource,
  type ReduceContext,
  type RenderContext,
  collectBucket,
} from '../framework.js';

interface SigBucket {
  key: string;
  docCount: number;
  bgCount: number;
  score: number;
  aggs: InternalAggregations;
}

interface SigInternal extends InternalAggregation {
  type: 'significant_terms';
  subsetSize: number;
  supersetSize: number;
  buckets: SigBucket[];
}

/** JLH score (ES JLHScore) */
export function jlhScore(subsetFreq: number, subsetSize: number, supersetFreq: number, supersetSize: number): number {
  if (subsetFreq === 0 || subsetSize === 0 || supersetSize === 0 || supersetFreq === 0) return 0;
  const subsetProb = subsetFreq / subsetSize;
  const supersetProb = supersetFreq / supersetSize;
  const absoluteProbabilityChange = subsetProb - supersetProb;
  if (absoluteProbabilityChange <= 0) return 0;
  return absoluteProbabilityChange * (subsetProb / supersetProb);
}

export class SignificantTermsSpec extends AggSpec {
  field = '';
  size = 10;
  shardSize = -1;
  minDocCount = 3;
  shardMinDocCount = 0;

  static parse(name: string, body: Record<string, unknown>): SignificantTermsSpec {
    checkParams('significant_terms', body, [
      'field', 'size', 'shard_size', 'min_doc_count', 'shard_min_doc_count', 'jlh', 'execution_hint', 'include', 'exclude', 'background_filter',
    ]);
    if (body['background_filter'] !== undefined) throw Errors.illegalArgument(`[background_filter] is not supported in [${name}]`);
    const s = new SignificantTermsSpec(name, 'significant_terms');
    s.field = requireField('significant_terms', name, body);
    const size = optInt('significant_terms', body, 'size');
    if (size !== undefined) {
      if (size <= 0) throw Errors.illegalArgument(`[size] must be greater than 0. Found [${size}] in [${name}]`);
      s.size = size;
    }
    const ss = optInt('significant_terms', body, 'shard_size');
    if (ss !== undefined) s.shardSize = ss;
    const mdc = optInt('significant_terms', body, 'min_doc_count');
    if (mdc !== undefined) s.minDocCount = mdc;
    const smdc = optInt('significant_terms', body, 'shard_min_doc_count');
    if (smdc !== undefined) s.shardMinDocCount = smdc;
    return s;
  }

  effectiveShardSize(): number {
    const s = this.shardSize < 0 ? Math.floor(this.size * 1.5 + 10) : this.shardSize;
    return Math.max(s, this.size);
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    const src = resolveField(ctx, this.field);
    if (src.kind === 'numeric') {
      throw Errors.illegalArgument(`Field [${this.field}] of type [${src.ft?.type}] is not supported for aggregation [significant_terms] (keyword fields only)`);
    }
    return new SignificantTermsAggregator(this, ctx, src);
  }

  empty(): InternalAggregation {
    return { type: 'significant_terms', subsetSize: 0, supersetSize: 0, buckets: [] } satisfies SigInternal;
  }

  typedName(): string {
    return 'sigsterms';
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as SigInternal[];
    let subsetSize = 0;
    let supersetSize = 0;
    const merged = new Map<string, { docCount: number; bgCount: number; aggs: InternalAggregations[] }>();
    for (const p of parts) {
      subsetSize += p.subsetSize;
      supersetSize += p.supersetSize;
      for (const b of p.buckets) {
        let m = merged.get(b.key);
        if (!m) {
          m = { docCount: 0, bgCount: 0, aggs: [] };
          merged.set(b.key, m);
        }
        m.docCount += b.docCount;
        m.bgCount += b.bgCount;
        m.aggs.push(b.aggs);
      }
    }
    let buckets: SigBucket[] = [];
    for (const [key, m] of merged) {
      if (m.docCount < this.minDocCount) continue;
      const score = jlhScore(m.docCount, subsetSize, m.bgCount, supersetSize);
      if (score <= 0) continue;
      buckets.push({ key, docCount: m.docCount, bgCount: m.bgCount, score, aggs: {} });
    }
    buckets.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
    buckets = buckets.slice(0, this.size);
    rc.consumeBuckets(buckets.length);
    for (const b of buckets) b.aggs = reduceSubs(this.subs, merged.get(b.key)!.aggs, rc);
    return { type: 'significant_terms', subsetSize, supersetSize, buckets } satisfies SigInternal;
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const s = agg as SigInternal;
    return {
      doc_count: s.subsetSize,
      bg_count: s.supersetSize,
      buckets: s.buckets.map((b) => {
        const o: Record<string, unknown> = { key: b.key, doc_count: b.docCount, score: b.score, bg_count: b.bgCount };
        renderSubsInto(o, this.subs, b.aggs, rc);
        return o;
      }),
    };
  }
}

class SignificantTermsAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly ords = new KeyedBucketOrds<string>();
  private readonly counts = new IntArray(64);
  private readonly subsetSizes = new IntArray(16);
  private dv: SortedSetDocValues | null = null;
  private rd: DocValuesReader<Uint32Array> | null = null;
  /** per leaf without an inverted index: live docs per ordinal (counted once per request) */
  private readonly bgCounts = new Map<number, Int32Array>();

  constructor(private readonly spec: SignificantTermsSpec, private readonly ctx: AggregationContext, private readonly src: FieldSource) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
  }

  setLeaf(leaf: LeafReaderContext): void {
    this.dv = this.src.kind === 'bytes' ? bytesValues(leaf, this.src) : null;
    this.rd = this.dv ? ordinalsReader(this.dv) : null;
    this.subs.setLeaf(leaf);
  }

  collect(doc: number, owningOrd: number, score: number): void {
    const ss = this.subsetSizes.ensure(owningOrd);
    ss[owningOrd]! += 1;
    const rd = this.rd;
    if (!rd) return;
    const terms = this.dv!.terms;
    const n = rd.advance(doc);
    for (let i = 0; i < n; i++) {
      const b = this.ords.add(owningOrd, displayTerm(this.src, terms[rd.value(i)]!));
      collectBucket(this.counts, this.subs, doc, b, score);
    }
  }

  /** live docs per ordinal of a leaf's doc values: the column's counts less the deleted docs' values */
  private liveOrdCounts(leaf: LeafReaderContext, dv: SortedSetDocValues): Int32Array {
    let counts = this.bgCounts.get(leaf.ord);
    if (counts) return counts;
    counts = ordinalCounts(dv);
    const r = leaf.reader;
    if (r.numDocs < r.maxDoc) {
      counts = counts.slice();
      const rd = ordinalsReader(dv);
      for (let d = 0; d < r.maxDoc; d++) {
        if (r.isLive(d)) continue;
        const n = rd.advance(d);
        for (let i = 0; i < n; i++) counts[rd.value(i)]! -= 1;
      }
    }
    this.bgCounts.set(leaf.ord, counts);
    return counts;
  }

  /** background doc freq of a term over the shard's segments (encoded term for ip fields) */
  private bgFreq(key: string): number {
    let n = 0;
    const term = this.src.isIp && this.src.ft ? String(this.src.ft.termValue(key)) : key;
    for (const leaf of this.ctx.leaves) {
      const dict = leaf.reader.terms(this.src.field);
      if (dict) {
        const o = dict.ord(term);
        if (o >= 0) n += dict.docFreq(o);
      } else {
        // no inverted index: count from doc values
        const dv = bytesValues(leaf, this.src);
        if (!dv) continue;
        const o = dv.terms.indexOf(term);
        if (o >= 0) n += this.liveOrdCounts(leaf, dv)[o]!;
      }
    }
    return n;
  }

  build(owningOrd: number): InternalAggregation {
    const subsetSize = this.subsetSizes.get(owningOrd);
    let supersetSize = 0;
    for (const leaf of this.ctx.leaves) supersetSize += leaf.reader.numDocs;
    const minShard = Math.max(this.spec.shardMinDocCount, 1);
    let cands: (SigBucket & { ord: number })[] = [];
    for (const b of this.ords.ordsOf(owningOrd)) {
      const c = this.counts.get(b);
      if (c < minShard) continue;
      const key = this.ords.keys[b]!;
      const bg = this.bgFreq(key);
      cands.push({ key, docCount: c, bgCount: bg, score: jlhScore(c, subsetSize, bg, supersetSize), aggs: {}, ord: b });
    }
    cands.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
    cands = cands.slice(0, this.spec.effectiveShardSize());
    const buckets: SigBucket[] = cands.map((c) => ({ key: c.key, docCount: c.docCount, bgCount: c.bgCount, score: c.score, aggs: this.subs.build(c.ord) }));
    return { type: 'significant_terms', subsetSize, supersetSize, buckets } satisfies SigInternal;
  }
}
