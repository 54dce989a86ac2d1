/**
 * top_hits: best `from + size` docs per bucket by score or by doc-value sort; `_source` parsed only for
 * the selected docs at shard-result time. Hits shaped like search hits.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import type { AggregationContext, InternalAggregation } from '../api.js';
import { hiddenDocs } from '../../search/nested/nested-bitsets.js';
import { filterSearchSource } from '../../action/search/source-filter.js';
import { nestedHitSource, unwrapAtPath } from '../../search/nested/nested-inner-hits.js';
import {
  AggSpec,
  Aggregator,
  checkParams,
  leafValues,
  type LeafValues,
  parseField,
  displayTerm,
  optBool,
  optInt,
  resolveField,
  type FieldSource,
} from '../framework.js';

type SortValue = number | string | null;

interface SortSpec {
  kind: 'score' | 'doc' | 'field';
  field: string;
  asc: boolean;
  missingFirst: boolean;
}

interface HitEntry {
  hit: Record<string, unknown>;
  sort: SortValue[];
  score: number;
  shard: number;
  doc: number;
}

interface TopHitsInternal extends InternalAggregation {
  type: 'top_hits';
  total: number;
  maxScore: number;
  hits: HitEntry[];
}

interface SourceFilter {
  enabled: boolean;
  includes: string[];
  excludes: string[];
}

const PARAMS = [
  'from', 'size', 'sort', '_source', 'version', 'seq_no_primary_term', 'explain', 'track_scores', 'stored_fields',
  'docvalue_fields', 'fields', 'highlight', 'script_fields',
];

function parseSort(v: unknown): SortSpec[] {
  if (v === undefined || v === null) return [{ kind: 'score', field: '_score', asc: false, missingFirst: false }];
  const items = Array.isArray(v) ? v : [v];
  const out: SortSpec[] = [];
  const mk = (field: string, order?: string, missing?: unknown): SortSpec => {
    const kind = field === '_score' ? 'score' : field === '_doc' ? 'doc' : 'field';
    const asc = order === undefined ? kind !== 'score' : order === 'asc';
    if (order !== undefined && order !== 'asc' && order !== 'desc') {
      throw Errors.parsing(`[sort] unknown order [${order}]`);
    }
    return { kind, field, asc, missingFirst: missing === '_first' };
  };
  for (const it of items) {
    if (typeof it === 'string') out.push(mk(it));
    else if (it && typeof it === 'object') {
      for (const [f, o] of Object.entries(it as Record<string, unknown>)) {
        if (typeof o === 'string') out.push(mk(f, o));
        else if (o && typeof o === 'object') {
          const oo = o as Record<string, unknown>;
          out.push(mk(f, oo['order'] as string | undefined, oo['missing']));
        } else throw Errors.parsing(`[sort] malformed sort for field [${f}]`);
      }
    } else throw Errors.parsing('[sort] malformed sort');
  }
  return out;
}

function parseSource(v: unknown): SourceFilter {
  if (v === undefined || v === null || v === true) return { enabled: true, includes: [], excludes: [] };
  if (v === false) return { enabled: false, includes: [], excludes: [] };
  if (typeof v === 'string') return { enabled: true, includes: [v], excludes: [] };
  if (Array.isArray(v)) return { enabled: true, includes: v.map(String), excludes: [] };
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const list = (x: unknown) => (x === undefined || x === null ? [] : Array.isArray(x) ? x.map(String) : [String(x)]);
    return { enabled: true, includes: list(o['includes'] ?? o['include']), excludes: list(o['excludes'] ?? o['exclude']) };
  }
  throw Errors.parsing('[_source] malformed');
}

export function filterSource(src: unknown, f: SourceFilter): unknown {
  if (src === null || typeof src !== 'object' || Array.isArray(src)) return src;
  return filterSearchSource(src, f.includes, f.excludes);
}

export class TopHitsSpec extends AggSpec {
  from = 0;
  size = 3;
  sort: SortSpec[] = [];
  source: SourceFilter = { enabled: true, includes: [], excludes: [] };
  version = false;
  seqNoPrimaryTerm = false;
  trackScores = false;
  /** docvalue_fields / fields: values read from doc values into the hit's `fields` */
  docValueFields: string[] = [];

  override get isMetric(): boolean {
    return true;
  }

  static parse(name: string, body: Record<string, unknown>): TopHitsSpec {
    checkParams('top_hits', body, PARAMS);
    const s = new TopHitsSpec(name, 'top_hits');
    const from = optInt('top_hits', body, 'from');
    const size = optInt('top_hits', body, 'size');
    if (from !== undefined) {
      parseField('top_hits', 'from', () => {
        if (from < 0) throw Errors.illegalArgument(`[from] must be greater than or equal to 0. Found [${from}] in [${name}]`);
      });
      s.from = from;
    }
    if (size !== undefined) {
      parseField('top_hits', 'size', () => {
        if (size < 0) throw Errors.illegalArgument(`[size] must be greater than or equal to 0. Found [${size}] in [${name}]`);
      });
      s.size = size;
    }
    if (s.from + s.size > 100) {
      throw Errors.illegalArgument(
        `Top hits result window is too large, the top hits aggregator [${name}]'s from + size must be less than or equal to: [100] but was [${s.from + s.size}]. This limit can be set by changing the [index.max_inner_result_window] index level setting.`,
      );
    }
    s.sort = parseSort(body['sort']);
    s.source = parseSource(body['_source']);
    s.version = optBool('top_hits', body, 'version') ?? false;
    s.seqNoPrimaryTerm = optBool('top_hits', body, 'seq_no_primary_term') ?? false;
    s.trackScores = optBool('top_hits', body, 'track_scores') ?? false;
    const names = (v: unknown): string[] =>
      (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).map((x) =>
        typeof x === 'string' ? x : String((x as { field?: unknown }).field ?? ''),
      );
    s.docValueFields = [...names(body['docvalue_fields']), ...names(body['fields'])].filter((f) => f !== '');
    return s;
  }

  get sortsByScore(): boolean {
    return this.sort.length > 0 && this.sort[0]!.kind === 'score';
  }

  override needsScores(): boolean {
    return this.sort.some((s) => s.kind === 'score') || this.trackScores;
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    const sources = this.sort.map((s) => (s.kind === 'field' ? resolveField(ctx, s.field) : undefined));
    return new TopHitsAggregator(this, ctx, sources);
  }

  empty(): InternalAggregation {
    return { type: 'top_hits', total: 0, maxScore: NaN, hits: [] } satisfies TopHitsInternal;
  }

  typedName(): string {
    return 'top_hits';
  }

  compare(a: { sort: SortValue[]; shard: number; doc: number }, b: { sort: SortValue[]; shard: number; doc: number }): number {
    for (let i = 0; i < this.sort.length; i++) {
      const s = this.sort[i]!;
      const x = a.sort[i] ?? null;
      const y = b.sort[i] ?? null;
      if (x === y) continue;
      if (x === null) return s.missingFirst ? -1 : 1;
      if (y === null) return s.missingFirst ? 1 : -1;
      const c = x < y ? -1 : x > y ? 1 : 0;
      if (c !== 0) return s.asc ? c : -c;
    }
    if (a.shard !== b.shard) return a.shard - b.shard;
    return a.doc - b.doc;
  }

  reduce(list: InternalAggregation[]): InternalAggregation {
    const parts = list as TopHitsInternal[];
    let total = 0;
    let maxScore = NaN;
    const all: HitEntry[] = [];
    for (const p of parts) {
      total += p.total;
      if (!Number.isNaN(p.maxScore) && (Number.isNaN(maxScore) || p.maxScore > maxScore)) maxScore = p.maxScore;
      all.push(...p.hits);
    }
    all.sort((a, b) => this.compare(a, b));
    return { type: 'top_hits', total, maxScore, hits: all.slice(0, this.from + this.size) } satisfies TopHitsInternal;
  }

  override value(agg: InternalAggregation, key: string | undefined): number {
    void key;
    const h = (agg as TopHitsInternal).hits[0];
    if (!h) return NaN;
    const v = h.sort[0];
    return typeof v === 'number' ? v : NaN;
  }

  render(agg: InternalAggregation): Record<string, unknown> {
    const a = agg as TopHitsInternal;
    const hits = a.hits.slice(this.from, this.from + this.size).map((h) => h.hit);
    return {
      hits: {
        total: { value: a.total, relation: 'eq' },
        max_score: Number.isNaN(a.maxScore) ? null : a.maxScore,
        hits,
      },
    };
  }
}

interface Candidate {
  leaf: LeafReaderContext;
  doc: number;
  score: number;
  sort: SortValue[];
  shard: number;
}

class TopHitsAggregator extends Aggregator {
  private readonly tops: (Candidate[] | undefined)[] = [];
  private readonly totals: number[] = [];
  private readonly maxScores: number[] = [];
  private leaf: LeafReaderContext | null = null;
  private readonly k: number;

  constructor(private readonly spec: TopHitsSpec, private readonly ctx: AggregationContext, private readonly sources: (FieldSource | undefined)[]) {
    super();
    this.k = spec.from + spec.size;
  }

  private lvs: (LeafValues | null)[] = [];

  setLeaf(leaf: LeafReaderContext): void {
    this.leaf = leaf;
    this.lvs = this.sources.map((s) => (s ? leafValues(leaf, s) : null));
  }

  private sortValue(i: number, doc: number, score: number): SortValue {
    const s = this.spec.sort[i]!;
    if (s.kind === 'score') return score;
    if (s.kind === 'doc') return this.leaf!.docBase + doc;
    const lv = this.lvs[i];
    if (!lv) return null;
    const n = lv.rd.advance(doc);
    if (n === 0) return null;
    const v = lv.rd.value(s.asc ? 0 : n - 1);
    return lv.terms ? lv.terms[v]! : v * this.sources[i]!.scale;
  }

  collect(doc: number, owningOrd: number, score: number): void {
    this.totals[owningOrd] = (this.totals[owningOrd] ?? 0) + 1;
    const ms = this.maxScores[owningOrd];
    if (ms === undefined || score > ms) this.maxScores[owningOrd] = score;
    if (this.k === 0) return;
    let top = this.tops[owningOrd];
    if (!top) {
      top = [];
      this.tops[owningOrd] = top;
    }
    const sort = this.spec.sort.map((_, i) => this.sortValue(i, doc, score));
    const c: Candidate = { leaf: this.leaf!, doc, score, sort, shard: this.ctx.shardId };
    const cmpDoc = { sort, shard: c.shard, doc: this.leaf!.docBase + doc };
    if (top.length >= this.k) {
      const last = top[top.length - 1]!;
      if (this.spec.compare(cmpDoc, { sort: last.sort, shard: last.shard, doc: last.leaf.docBase + last.doc }) >= 0) return;
      top.pop();
    }
    let i = top.length;
    while (i > 0) {
      const p = top[i - 1]!;
      if (this.spec.compare(cmpDoc, { sort: p.sort, shard: p.shard, doc: p.leaf.docBase + p.doc }) >= 0) break;
      i--;
    }
    top.splice(i, 0, c);
  }

  private readonly dvSources = new Map<string, FieldSource | null>();

  /** a field's values from doc values, rendered like the `fields` section of search hits */
  private docValues(leaf: LeafReaderContext, doc: number, field: string): unknown[] {
    let src = this.dvSources.get(field);
    if (src === undefined) {
      try {
        src = resolveField(this.ctx, field);
      } catch {
        src = null;
      }
      this.dvSources.set(field, src);
    }
    if (!src || src.kind === 'unmapped') return [];
    const out: unknown[] = [];
    const lv = leafValues(leaf, src);
    if (!lv) return out;
    const rd = lv.rd;
    const n = rd.advance(doc);
    for (let i = 0; i < n; i++) {
      const raw = rd.value(i);
      if (lv.terms) out.push(displayTerm(src, lv.terms[raw]!));
      else if (src.isDate || src.isBool) out.push(src.ft ? src.ft.valueForDisplay(raw) : raw * src.scale);
      else out.push(raw * src.scale);
    }
    return out;
  }

  build(owningOrd: number): InternalAggregation {
    const top = this.tops[owningOrd] ?? [];
    const byScore = this.spec.sortsByScore;
    const showScore = byScore || this.spec.trackScores;
    const dec = new TextDecoder();
    const nestedPath = this.ctx.nestedPath;
    const roots = new Map<number, unknown>();
    const hits: HitEntry[] = top.map((c) => {
      const r = c.leaf.reader;
      const hit: Record<string, unknown> = { _index: this.ctx.index, _id: r.id(c.doc) };
      // under a nested aggregation the hits are nested objects: `_nested` and the object as `_source`
      const nested = nestedPath !== undefined && hiddenDocs(r)?.get(c.doc) ? nestedHitSource(r, c.doc, nestedPath, this.ctx.nestedLookup, roots) : undefined;
      if (nested?.id) hit['_nested'] = nested.id;
      if (this.spec.version) hit['_version'] = r.version(c.doc);
      if (this.spec.seqNoPrimaryTerm) {
        hit['_seq_no'] = r.seqNo(c.doc);
        hit['_primary_term'] = r.primaryTerm(c.doc);
      }
      hit['_score'] = showScore ? c.score : null;
      if (nested) {
        if (this.spec.source.enabled && nested.wrapped !== undefined) hit['_source'] = unwrapAtPath(nestedPath!, filterSource(nested.wrapped, this.spec.source));
      } else if (this.spec.source.enabled) {
        const bytes = r.source(c.doc);
        if (bytes) hit['_source'] = filterSource(JSON.parse(dec.decode(bytes)), this.spec.source);
      }
      if (this.spec.docValueFields.length > 0) {
        const fields: Record<string, unknown[]> = {};
        for (const f of this.spec.docValueFields) {
          const vals = this.docValues(c.leaf, c.doc, f);
          if (vals.length > 0) fields[f] = vals;
        }
        if (Object.keys(fields).length > 0) hit['fields'] = fields;
      }
      if (!byScore || this.spec.sort.length > 1) hit['sort'] = c.sort;
      return { hit, sort: c.sort, score: c.score, shard: c.shard, doc: c.leaf.docBase + c.doc };
    });
    const total = this.totals[owningOrd] ?? 0;
    const maxScore = showScore && total > 0 ? this.maxScores[owningOrd]! : NaN;
    return { type: 'top_hits', total, maxScore, hits } satisfies TopHitsInternal;
  }
}
