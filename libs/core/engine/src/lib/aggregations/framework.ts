/**
 * The aggregation framework: parsed specs (one per requested aggregation), shard aggregators that collect
 * per "owning bucket ordinal" into typed arrays (Elasticsearch's model), reduce/render contexts and helpers.
 */
import { BatchedReservation, BreakerNames, EsError, Errors } from '@strata/core-common';
import type { LeafReaderContext, NumberBlocks, SortedSetDocValues } from '../index/leaf-reader.js';
import { numericReader, ordinalsReader, type DocValuesReader } from '../index/doc-values-reader.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from './api.js';
import { RAW, type ValueFormat } from './support/value-format.js';

// ------------------------------------------------------------------ specs

export interface ReduceContext {
  readonly maxBuckets: number;
  /** counts buckets created by the final reduce; throws too_many_buckets_exception past maxBuckets */
  consumeBuckets(n: number): void;
}

export interface RenderContext {
  readonly typedKeys: boolean;
}

export interface PipelineBucket {
  key?: unknown;
  docCount: number;
  aggs: InternalAggregations;
}

export abstract class AggSpec {
  subs: AggSpec[] = [];
  meta: Record<string, unknown> | undefined;
  constructor(readonly name: string, readonly type: string) {}

  /** true for metrics aggregations (cannot take sub-aggregations) */
  get isMetric(): boolean {
    return false;
  }
  abstract createAggregator(ctx: AggregationContext, topLevel: boolean): Aggregator;
  abstract reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation;
  /** body of the agg in the response (without meta) */
  abstract render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown>;
  /** the typed_keys prefix, e.g. `sterms` */
  abstract typedName(agg: InternalAggregation): string;
  /** result when no shard answered */
  abstract empty(): InternalAggregation;
  needsScores(): boolean {
    return this.subs.some((s) => s.needsScores());
  }
  /** pipeline aggregations run at reduce time only: 'parent' ones over the parent's buckets, 'sibling' ones over a sibling */
  get pipeline(): 'none' | 'parent' | 'sibling' {
    return 'none';
  }
  /** pipelines: checks the enclosing aggregation (undefined at top level) at parse time */
  validateParent(parent: AggSpec | undefined): void {
    void parent;
  }
  /** sibling pipelines: computes the result from the already reduced siblings */
  reduceSibling(siblings: AggSpec[], reduced: InternalAggregations): InternalAggregation {
    void siblings; void reduced;
    throw Errors.illegalState(`[${this.name}] is not a sibling pipeline aggregation`);
  }
  /** parent pipelines: adds values to (or filters / sorts) the parent's reduced buckets */
  applyToBuckets<B extends PipelineBucket>(parent: AggSpec, buckets: B[], keyString: (b: B) => string): B[] {
    void parent; void keyString;
    return buckets;
  }
  /** the Elasticsearch result class name, for error messages (e.g. LongTerms) */
  resultClassName(agg: InternalAggregation): string {
    const t = agg.type;
    if (t === 'terms') {
      const v = agg['valueType'];
      return v === 'long' ? 'LongTerms' : v === 'double' ? 'DoubleTerms' : v === 'unmapped' ? 'UnmappedTerms' : 'StringTerms';
    }
    const names: Record<string, string> = {
      histogram: 'InternalHistogram',
      date_histogram: 'InternalDateHistogram',
      range: 'InternalRange',
      date_range: 'InternalDateRange',
      filters: 'InternalFilters',
      composite: 'InternalComposite',
    };
    return names[t] ?? t;
  }
  /** multi-bucket aggs: the reduced buckets and their display keys (used by sibling pipelines) */
  bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } | undefined {
    void agg;
    return undefined;
  }
  /**
   * Value used by bucket ordering and bucket paths: `key` is the metric name (`max` of stats, `99` of
   * percentiles), undefined for single-value metrics. Single-bucket aggs answer `_count` / nested paths.
   */
  value(agg: InternalAggregation, key: string | undefined): number {
    if (key === '_bucket_count' && Array.isArray(agg['buckets'])) return (agg['buckets'] as unknown[]).length;
    throw Errors.illegalArgument(`Invalid aggregation order path [${this.name}${key ? '.' + key : ''}]. Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.`);
  }
}

// ------------------------------------------------------------------ aggregators

export abstract class Aggregator {
  /** called before the docs of a leaf are collected */
  abstract setLeaf(leaf: LeafReaderContext): void;
  /** doc is segment-local; owningOrd is the ordinal of the parent bucket (0 at top level) */
  abstract collect(doc: number, owningOrd: number, score: number): void;
  /** result for one parent bucket */
  abstract build(owningOrd: number): InternalAggregation;
  /**
   * top level only: can every live doc of the current leaf be collected at once by collectAll (checked
   * before any is collected, so a mix of aggregations never collects twice)
   */
  canCollectAll?(): boolean;
  /** collects every live doc of the current leaf (only after canCollectAll() said yes) */
  collectAll?(live: Uint32Array | null): void;
}

/** Sub-aggregators of a bucket aggregator; each bucket ordinal is an owning ordinal for them. */
/** counts `doc` into bucket `b` and collects it into the sub-aggregations (ES BucketsAggregator#collectBucket) */
export function collectBucket(counts: IntArray, subs: SubAggregators, doc: number, b: number, score: number): void {
  const c = counts.ensure(b);
  c[b]! += 1;
  if (!subs.empty) subs.collect(doc, b, score);
}

export class SubAggregators {
  readonly aggs: Aggregator[];
  readonly specs: AggSpec[];
  readonly empty: boolean;
  constructor(specs: AggSpec[], ctx: AggregationContext) {
    this.specs = specs.filter((s) => s.pipeline === 'none');
    this.aggs = this.specs.map((s) => s.createAggregator(ctx, false));
    this.empty = this.aggs.length === 0;
  }
  setLeaf(leaf: LeafReaderContext): void {
    for (const a of this.aggs) a.setLeaf(leaf);
  }
  collect(doc: number, bucketOrd: number, score: number): void {
    const aggs = this.aggs;
    for (let i = 0; i < aggs.length; i++) aggs[i]!.collect(doc, bucketOrd, score);
  }
  build(bucketOrd: number): InternalAggregations {
    const out: InternalAggregations = {};
    for (let i = 0; i < this.aggs.length; i++) out[this.specs[i]!.name] = this.aggs[i]!.build(bucketOrd);
    return out;
  }
}

export function emptySubs(specs: AggSpec[]): InternalAggregations {
  const out: InternalAggregations = {};
  for (const s of specs) if (s.pipeline === 'none') out[s.name] = s.empty();
  for (const s of specs) if (s.pipeline === 'sibling') out[s.name] = s.reduceSibling(specs, out);
  return out;
}

/** runs the parent pipeline sub-aggregations of `parent` over its reduced buckets, in declaration order */
export function applyParentPipelines<B extends PipelineBucket>(parent: AggSpec, buckets: B[], keyString: (b: B) => string): B[] {
  let out = buckets;
  for (const s of parent.subs) if (s.pipeline === 'parent') out = s.applyToBuckets(parent, out, keyString);
  return out;
}

export function reduceSubs(specs: AggSpec[], lists: InternalAggregations[], rc: ReduceContext): InternalAggregations {
  const out: InternalAggregations = {};
  for (const s of specs) {
    if (s.pipeline !== 'none') continue;
    const parts: InternalAggregation[] = [];
    for (const l of lists) {
      const a = l[s.name];
      if (a) parts.push(a);
    }
    out[s.name] = parts.length ? s.reduce(parts, rc) : s.empty();
  }
  for (const s of specs) if (s.pipeline === 'sibling') out[s.name] = s.reduceSibling(specs, out);
  return out;
}

export function renderAgg(spec: AggSpec, agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
  const body = spec.render(agg, rc);
  if (spec.meta !== undefined) return { meta: spec.meta, ...body };
  return body;
}

/** Renders sub-aggregations into `target` (a bucket object) in request order. */
export function renderSubsInto(target: Record<string, unknown>, specs: AggSpec[], aggs: InternalAggregations, rc: RenderContext): void {
  for (const s of specs) {
    const a = aggs[s.name];
    if (!a) continue;
    target[rc.typedKeys ? `${s.typedName(a)}#${s.name}` : s.name] = renderAgg(s, a, rc);
  }
}

/**
 * Resolves a bucket path (`agg`, `agg.metric`, `agg>sub.metric`, `agg[99.0]`, `_count`, `_key` excluded)
 * against a bucket's sub-aggregation results.
 */
export function resolveBucketPath(specs: AggSpec[], aggs: InternalAggregations, docCount: number, path: string): number {
  if (path === '_count') return docCount;
  const gt = path.indexOf('>');
  let head = gt >= 0 ? path.slice(0, gt) : path;
  const rest = gt >= 0 ? path.slice(gt + 1) : undefined;
  let key: string | undefined;
  const br = head.indexOf('[');
  if (br >= 0 && head.endsWith(']')) {
    key = head.slice(br + 1, -1);
    head = head.slice(0, br);
  } else {
    const dot = head.indexOf('.');
    if (dot >= 0) {
      key = head.slice(dot + 1);
      head = head.slice(0, dot);
    }
  }
  const spec = specs.find((s) => s.name === head);
  const agg = aggs[head];
  if (!spec || !agg) {
    throw Errors.illegalArgument(`Invalid aggregator order path [${path}]. Unknown aggregation [${head}]`);
  }
  if (key === 'value') {
    // `agg.value` addresses a single-value metric like the bare name does
    try {
      return spec.value(agg, undefined);
    } catch {
      /* fall through: a multi-value metric may have a metric literally named "value" */
    }
  }
  if (rest !== undefined) {
    if (spec.bucketsOf(agg)) {
      throw new EsError(
        'aggregation_execution_exception',
        400,
        `buckets_path must reference either a number value or a single value numeric metric aggregation, got: [Object[]] at aggregation [${spec.name}]`,
      );
    }
    if (spec.isMetric || !('docCount' in agg) || !('aggs' in agg)) {
      throw Errors.illegalArgument(`Invalid aggregator order path [${path}]. Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.`);
    }
    return resolveBucketPath(spec.subs, agg['aggs'] as InternalAggregations, agg['docCount'] as number, rest);
  }
  if (key === undefined && spec.bucketsOf(agg)) {
    throw new EsError(
      'aggregation_execution_exception',
      400,
      `buckets_path must reference either a number value or a single value numeric metric aggregation, got: [${spec.resultClassName(agg)}] at aggregation [${spec.name}]`,
    );
  }
  return spec.value(agg, key);
}

// ------------------------------------------------------------------ growable typed arrays

export class LongArray {
  data: Float64Array;
  constructor(initial = 16, readonly fill = 0) {
    this.data = new Float64Array(initial);
    if (fill !== 0) this.data.fill(fill);
  }
  ensure(i: number): Float64Array {
    if (i >= this.data.length) {
      let n = this.data.length * 2;
      while (n <= i) n *= 2;
      const d = new Float64Array(n);
      if (this.fill !== 0) d.fill(this.fill, this.data.length);
      d.set(this.data);
      this.data = d;
    }
    return this.data;
  }
  get(i: number): number {
    return i < this.data.length ? this.data[i]! : this.fill;
  }
}

export class IntArray {
  data: Int32Array;
  constructor(initial = 16) {
    this.data = new Int32Array(initial);
  }
  ensure(i: number): Int32Array {
    if (i >= this.data.length) {
      let n = this.data.length * 2;
      while (n <= i) n *= 2;
      const d = new Int32Array(n);
      d.set(this.data);
      this.data = d;
    }
    return this.data;
  }
  get(i: number): number {
    return i < this.data.length ? this.data[i]! : 0;
  }
}

/**
 * Maps (owningOrd, key) to a dense bucket ordinal (ES LongKeyedBucketOrds / BytesKeyedBucketOrds) and
 * remembers the bucket ordinals per owning ordinal.
 */
/**
 * Estimated heap per bucket (map entry, key, ordinal lists, doc count) charged to the `request` circuit breaker
 * as buckets are created, once per 1024 of them.
 */
export const BUCKET_BYTES = 96;

export class KeyedBucketOrds<K extends string | number | bigint> {
  private readonly reservation = new BatchedReservation(BreakerNames.REQUEST, BUCKET_BYTES, 'allocated_buckets');
  private readonly single = new Map<K, number>();
  private readonly multi = new Map<number, Map<K, number>>();
  readonly keys: K[] = [];
  readonly owners: number[] = [];
  private readonly byOwner = new Map<number, number[]>();

  get size(): number {
    return this.keys.length;
  }
  /** returns the bucket ordinal, creating the bucket if needed */
  add(owningOrd: number, key: K): number {
    let m: Map<K, number> | undefined;
    if (owningOrd === 0) m = this.single;
    else {
      m = this.multi.get(owningOrd);
      if (!m) {
        m = new Map();
        this.multi.set(owningOrd, m);
      }
    }
    let ord = m.get(key);
    if (ord !== undefined) return ord;
    this.reservation.add();
    ord = this.keys.length;
    m.set(key, ord);
    this.keys.push(key);
    this.owners.push(owningOrd);
    let l = this.byOwner.get(owningOrd);
    if (!l) {
      l = [];
      this.byOwner.set(owningOrd, l);
    }
    l.push(ord);
    return ord;
  }
  find(owningOrd: number, key: K): number {
    const m = owningOrd === 0 ? this.single : this.multi.get(owningOrd);
    return m?.get(key) ?? -1;
  }
  ordsOf(owningOrd: number): readonly number[] {
    return this.byOwner.get(owningOrd) ?? [];
  }
}

// ------------------------------------------------------------------ value sources

export type SourceKind = 'bytes' | 'numeric' | 'unmapped';

export interface FieldSource {
  readonly field: string;
  readonly ft: MappedFieldType | undefined;
  readonly kind: SourceKind;
  /** values are integers (long-like terms keys) */
  readonly integer: boolean;
  /** date or date_nanos */
  readonly isDate: boolean;
  readonly isBool: boolean;
  readonly isIp: boolean;
  /** multiply raw doc values by this (scaled_float: 1/factor; date_nanos: 1e-6) */
  readonly scale: number;
  /** the field's default format (dates: mapping format; booleans; raw) */
  readonly format: ValueFormat;
  /** constant keyword value for every doc (`_index`) */
  readonly constant?: string;
}

const constantDvCache = new WeakMap<object, Map<string, SortedSetDocValues>>();
const fielddataCache = new WeakMap<object, Map<string, SortedSetDocValues | null>>();

/** text fields with `fielddata: true`: builds doc -> term ordinals from the inverted index once per segment */
function uninvert(leaf: LeafReaderContext, field: string): SortedSetDocValues | null {
  let m = fielddataCache.get(leaf.reader);
  if (!m) {
    m = new Map();
    fielddataCache.set(leaf.reader, m);
  }
  if (m.has(field)) return m.get(field)!;
  const dict = leaf.reader.terms(field);
  let dv: SortedSetDocValues | null = null;
  if (dict) {
    const maxDoc = leaf.reader.maxDoc;
    const perDoc = new Uint32Array(maxDoc + 1);
    const terms: string[] = new Array(dict.size);
    for (let o = 0; o < dict.size; o++) {
      terms[o] = dict.term(o);
      const docs = dict.postings(o).docs;
      for (let i = 0; i < docs.length; i++) perDoc[docs[i]!]! += 1;
    }
    const offsets = new Uint32Array(maxDoc + 1);
    for (let d = 0; d < maxDoc; d++) offsets[d + 1] = offsets[d]! + perDoc[d]!;
    const ords = new Uint32Array(offsets[maxDoc]!);
    const fill = offsets.slice(0, maxDoc);
    // ordinals ascending per doc because terms are visited in ordinal order
    for (let o = 0; o < dict.size; o++) {
      const docs = dict.postings(o).docs;
      for (let i = 0; i < docs.length; i++) ords[fill[docs[i]!]!++] = o;
    }
    dv = { offsets, ords, terms };
  }
  m.set(field, dv);
  return dv;
}

/** keyword doc values of a source on a leaf (synthesized for constant fields such as `_index`) */
export function bytesValues(leaf: LeafReaderContext, src: FieldSource): SortedSetDocValues | null {
  if (src.constant === undefined) {
    const dv = leaf.reader.sortedSetDocValues(src.field);
    if (dv || src.ft?.kind !== 'text') return dv;
    return uninvert(leaf, src.field);
  }
  let m = constantDvCache.get(leaf.reader);
  if (!m) {
    m = new Map();
    constantDvCache.set(leaf.reader, m);
  }
  let dv = m.get(src.constant);
  if (!dv) {
    dv = constantOrdinals(leaf.reader.maxDoc, src.constant);
    m.set(src.constant, dv);
  }
  return dv;
}

/** blocks of a constant-ordinals column: one shared block of zeros, whatever the number of docs */
const CONSTANT_BLOCK = 4096;
const ZEROS = new Uint32Array(CONSTANT_BLOCK);

/**
 * keyword doc values with one term for every doc (ordinal 0, single-valued), as blocks of one shared block
 * of zeros: readers go block by block and nothing grows with the segment; the whole columns only if asked for
 */
function constantOrdinals(maxDoc: number, term: string): SortedSetDocValues {
  const numBlocks = Math.ceil(maxDoc / CONSTANT_BLOCK);
  const last = maxDoc - (numBlocks - 1) * CONSTANT_BLOCK;
  const values: NumberBlocks<Uint32Array> = {
    size: maxDoc,
    blockSize: CONSTANT_BLOCK,
    numBlocks,
    min: () => 0,
    max: () => 0,
    block: (b) => (b === numBlocks - 1 ? ZEROS.subarray(0, last) : ZEROS),
  };
  let offsets: Uint32Array | null = null;
  return {
    terms: [term],
    singleValued: true,
    docBlocks: { values, counts: null, countStart: (b) => b * CONSTANT_BLOCK },
    ordCounts: () => Int32Array.of(maxDoc),
    get offsets(): Uint32Array {
      if (!offsets) {
        offsets = new Uint32Array(maxDoc + 1);
        for (let i = 0; i <= maxDoc; i++) offsets[i] = i;
      }
      return offsets;
    },
    get ords(): Uint32Array {
      return new Uint32Array(maxDoc);
    },
  };
}

/** the doc values of a values source on one leaf, read block by block: numbers (`terms` null) or ordinals and their terms */
export interface LeafValues {
  readonly rd: DocValuesReader<Float64Array | Uint32Array>;
  readonly terms: readonly string[] | null;
}

/** a per-doc reader of the doc values of a numeric or keyword source on a leaf; null when the leaf has none */
export function leafValues(leaf: LeafReaderContext, src: FieldSource): LeafValues | null {
  if (src.kind === 'numeric') {
    const dv = leaf.reader.numericDocValues(src.field);
    return dv ? { rd: numericReader(dv), terms: null } : null;
  }
  if (src.kind === 'bytes') {
    const dv = bytesValues(leaf, src);
    return dv ? { rd: ordinalsReader(dv), terms: dv.terms } : null;
  }
  return null;
}

/**
 * the distinct values of `doc` written to out[0..]: terms for display, or numbers scaled (then rounded by
 * `rounding` when given, equal neighbours collapsed); returns how many
 */
export function docValuesInto(src: FieldSource, lv: LeafValues, doc: number, out: unknown[], rounding?: { round(v: number): number } | null): number {
  const rd = lv.rd;
  const n = rd.advance(doc);
  let k = 0;
  const terms = lv.terms;
  if (terms) {
    for (let i = 0; i < n; i++) out[k++] = displayTerm(src, terms[rd.value(i)]!);
    return k;
  }
  let prev = NaN;
  for (let i = 0; i < n; i++) {
    let v = rd.value(i) * src.scale;
    if (rounding) v = rounding.round(v);
    if (v !== prev) out[k++] = v;
    prev = v;
  }
  return k;
}

export function textFielddataError(field: string, index: string): EsError {
  return Errors.illegalArgument(
    `Fielddata is disabled on [${field}] in [${index}]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
  );
}

/** Resolves the `field` of a values-source aggregation (ES ValuesSourceConfig). */
export function resolveField(
  ctx: AggregationContext,
  field: string,
  opts: { format?: string; timeZone?: string; requireNumeric?: string; valueType?: string } = {},
): FieldSource {
  if (field === '_index') {
    return { field, ft: undefined, kind: 'bytes', integer: false, isDate: false, isBool: false, isIp: false, scale: 1, format: RAW, constant: ctx.index };
  }
  const ft = ctx.fieldType(field);
  if (!ft && opts.valueType) {
    // unmapped field with an explicit value_type: behaves like that type with no values (missing still applies)
    const vt = opts.valueType;
    const base = { field, ft: undefined, isIp: vt === 'ip', scale: 1 };
    if (vt === 'string' || vt === 'keyword' || vt === 'ip') {
      return { ...base, kind: 'bytes', integer: false, isDate: false, isBool: false, format: vt === 'ip' ? { t: 'ip' } : RAW };
    }
    if (vt === 'date') {
      return { ...base, kind: 'numeric', integer: true, isDate: true, isBool: false, format: { t: 'date', format: opts.format ?? 'strict_date_optional_time', tz: opts.timeZone ?? 'UTC' } };
    }
    if (vt === 'boolean') return { ...base, kind: 'numeric', integer: true, isDate: false, isBool: true, format: { t: 'bool' } };
    if (vt === 'long' || vt === 'integer' || vt === 'short' || vt === 'byte' || vt === 'numeric') {
      return { ...base, kind: 'numeric', integer: true, isDate: false, isBool: false, format: opts.format ? { t: 'decimal', pattern: opts.format } : RAW };
    }
    if (vt === 'double' || vt === 'float' || vt === 'half_float') {
      return { ...base, kind: 'numeric', integer: false, isDate: false, isBool: false, format: opts.format ? { t: 'decimal', pattern: opts.format } : RAW };
    }
    throw Errors.illegalArgument(`Unknown value type [${vt}]`);
  }
  if (!ft) {
    return { field, ft, kind: 'unmapped', integer: false, isDate: false, isBool: false, isIp: false, scale: 1, format: RAW };
  }
  if (ft.kind === 'text' || ft.type === 'match_only_text') {
    if (ft.params['fielddata'] !== true) throw textFielddataError(field, ctx.index);
  }
  if (ft.kind === 'none' || ft.type === 'object' || ft.type === 'nested') {
    throw Errors.illegalArgument(`Field [${field}] of type [${ft.type}] is not supported for aggregation [${opts.requireNumeric ?? 'terms'}]`);
  }
  const numeric = ft.kind === 'numeric' || ft.kind === 'date' || ft.kind === 'boolean';
  if (opts.requireNumeric && !numeric) {
    throw Errors.illegalArgument(`Field [${field}] of type [${ft.type}] is not supported for aggregation [${opts.requireNumeric}]`);
  }
  if (!ft.hasDocValues && ft.kind !== 'text') {
    throw Errors.illegalArgument(
      `Can't load fielddata on [${field}] because fielddata is unsupported on fields of type [${ft.type}]. Use doc values instead.`,
    );
  }
  const isDate = ft.kind === 'date';
  const isBool = ft.kind === 'boolean';
  let scale = 1;
  if (ft.type === 'scaled_float' && ft.scalingFactor) scale = 1 / ft.scalingFactor;
  if (ft.type === 'date_nanos') scale = 1e-6;
  let format: ValueFormat = RAW;
  if (isDate) format = { t: 'date', format: opts.format ?? ft.format ?? 'strict_date_optional_time', tz: opts.timeZone ?? 'UTC' };
  else if (isBool) format = { t: 'bool' };
  else if (ft.kind === 'ip') format = { t: 'ip' };
  else if (opts.format && numeric) format = { t: 'decimal', pattern: opts.format };
  return {
    field,
    ft,
    kind: numeric ? 'numeric' : 'bytes',
    integer: numeric && (ft.isInteger || isDate || isBool) && scale === 1,
    isDate,
    isBool,
    isIp: ft.kind === 'ip',
    scale,
    format,
  };
}

/** Display value of a keyword doc-value term (ip: decoded) */
export function displayTerm(src: FieldSource, term: string): string {
  if (src.isIp && src.ft) return String(src.ft.valueForDisplay(term));
  return term;
}

// ------------------------------------------------------------------ param parsing helpers

export function unknownField(type: string, key: string): EsError {
  return Errors.xContentParse(`[${type}] unknown field [${key}]`);
}

export function checkParams(type: string, body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) throw unknownField(type, k);
  }
}

export function asObject(type: string, v: unknown, what = type): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw Errors.parsing(`[${what}] expected an object for aggregation [${type}]`);
  }
  return v as Record<string, unknown>;
}

export function optString(type: string, body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw Errors.xContentParse(`[${type}] ${key} doesn't support values of type: ${Array.isArray(v) ? 'START_ARRAY' : 'START_OBJECT'}`);
}

export function optNumber(type: string, body: Record<string, unknown>, key: string): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  throw Errors.xContentParse(`[${type}] failed to parse field [${key}]`, 1, 1, Errors.illegalArgument(`For input string: "${String(v)}"`));
}

export function optInt(type: string, body: Record<string, unknown>, key: string): number | undefined {
  const n = optNumber(type, body, key);
  if (n === undefined) return undefined;
  if (!Number.isInteger(n)) {
    throw Errors.xContentParse(`[${type}] failed to parse field [${key}]`, 1, 1, Errors.illegalArgument(`For input string: "${n}"`));
  }
  return n;
}

export function optBool(type: string, body: Record<string, unknown>, key: string): boolean | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw Errors.xContentParse(`[${type}] failed to parse field [${key}]`);
}

export function requireField(type: string, name: string, body: Record<string, unknown>): string {
  const f = optString(type, body, 'field');
  if (f === undefined) {
    if (body['script'] !== undefined) {
      throw Errors.illegalArgument(`[script] is not supported in aggregation [${name}]`);
    }
    throw Errors.illegalArgument(`Required one of fields [field, script], but none were specified. `.trimEnd());
  }
  return f;
}

export function tooManyBuckets(max: number, count: number): EsError {
  return new EsError(
    'too_many_buckets_exception',
    400,
    `Trying to create too many buckets. Must be less than or equal to: [${max}] but was [${count}]. This limit can be set by changing the [search.max_buckets] cluster level setting.`,
    { metadata: { max_buckets: max } },
  );
}

/** Sum with Kahan compensation (ES CompensatedSum) */
export function kahanAdd(sums: Float64Array, comps: Float64Array, i: number, v: number): void {
  const sum = sums[i]!;
  if (!Number.isFinite(v) || !Number.isFinite(sum)) {
    sums[i] = sum + v;
    return;
  }
  const corrected = v - comps[i]!;
  const t = sum + corrected;
  comps[i] = t - sum - corrected;
  sums[i] = t;
}

/**
 * Bucket ordinals keyed by (owningOrd, tuple of values) through nested Maps: no per-doc key strings
 * (composite, multi_terms). Numbers and strings are distinct keys (Map uses SameValueZero).
 */
export class TupleBucketOrds {
  private readonly reservation = new BatchedReservation(BreakerNames.REQUEST, BUCKET_BYTES, 'allocated_buckets');
  private readonly root = new Map<number, Map<unknown, unknown>>();
  readonly keys: (string | number | null)[][] = [];
  private readonly byOwner = new Map<number, number[]>();

  get size(): number {
    return this.keys.length;
  }

  add(owningOrd: number, tuple: readonly (string | number | null)[]): number {
    let node = this.root.get(owningOrd);
    if (!node) {
      node = new Map();
      this.root.set(owningOrd, node);
    }
    const last = tuple.length - 1;
    for (let i = 0; i < last; i++) {
      let next = node.get(tuple[i]) as Map<unknown, unknown> | undefined;
      if (!next) {
        next = new Map();
        node.set(tuple[i], next);
      }
      node = next;
    }
    const hit = node.get(tuple[last]) as number | undefined;
    if (hit !== undefined) return hit;
    this.reservation.add();
    const ord = this.keys.length;
    node.set(tuple[last], ord);
    this.keys.push(tuple.slice());
    let l = this.byOwner.get(owningOrd);
    if (!l) {
      l = [];
      this.byOwner.set(owningOrd, l);
    }
    l.push(ord);
    return ord;
  }

  ordsOf(owningOrd: number): readonly number[] {
    return this.byOwner.get(owningOrd) ?? [];
  }
}

/**
 * The tuple buckets of composite and multi_terms: per doc, fill each source's reusable value buffer
 * (`vals[i][0..nvals[i])`, no per-doc arrays), then `collect` counts the doc into the bucket of every
 * combination of those values and collects it into the sub-aggregations.
 */
export class TupleBuckets {
  readonly ords = new TupleBucketOrds();
  readonly counts = new IntArray(64);
  readonly vals: (string | number | null)[][];
  readonly nvals: number[];
  private readonly cur: (string | number | null)[];

  constructor(sources: number, private readonly subs: SubAggregators) {
    this.vals = Array.from({ length: sources }, () => []);
    this.nvals = new Array<number>(sources).fill(0);
    this.cur = new Array<string | number | null>(sources).fill(null);
  }

  collect(doc: number, owningOrd: number, score: number): void {
    this.emit(0, doc, owningOrd, score);
  }

  private emit(i: number, doc: number, owningOrd: number, score: number): void {
    const cur = this.cur;
    if (i === cur.length) {
      const b = this.ords.add(owningOrd, cur);
      collectBucket(this.counts, this.subs, doc, b, score);
      return;
    }
    const arr = this.vals[i]!;
    const n = this.nvals[i]!;
    for (let j = 0; j < n; j++) {
      cur[i] = arr[j]!;
      this.emit(i + 1, doc, owningOrd, score);
    }
  }
}

/**
 * Runs a field setter's validation the way ES's ObjectParser does: an exception becomes
 * x_content_parse_exception "[1:1] [type] failed to parse field [field]" caused by the original error
 * (the x-content exception is the reported root cause).
 */
export function parseField<T>(type: string, field: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof EsError) || e.type === 'x_content_parse_exception') throw e;
    const reason = `[1:1] [${type}] failed to parse field [${field}]`;
    throw new EsError('x_content_parse_exception', 400, reason, {
      cause: e,
      rootCauses: [new EsError('x_content_parse_exception', 400, reason)],
    });
  }
}
