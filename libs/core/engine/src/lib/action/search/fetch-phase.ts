/**
 * The fetch phase: turns the winning shard-global doc ids into `hits.hits[]` entries (`_source` with
 * filtering, `fields`, `docvalue_fields`, `_version`, `_seq_no`/`_primary_term`, `_routing`, highlight).
 */
import { Errors, RawJson, compareUtf8, integerJson, parseJsonExact, parseSourceKeepingIntegers } from '@strata/core-common';
import { ExactLongs, exactLongLiteral, exactLongRange, exactValuesOf, isExactLongType } from '../../index/exact-longs.js';
import type { DirectoryReader, LeafReaderContext } from '../../index/leaf-reader.js';
import { numericReader, ordinalsReader, termsOfDoc, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { NestedLookup } from '../../mapper/mapping.js';
import { TopHitsHeap } from '../../search/collector.js';
import type { InnerHitsDefinition } from '../../search/inner-hits.js';
import { nestedHitSource, objectsAt, unwrapAtPath } from '../../search/nested/nested-inner-hits.js';
import { compileSort, type CompiledSortField } from '../../search/sort.js';
import type { MappedFieldType } from '../../mapper/mapped-field-type.js';
import { DateFieldType } from '../../mapper/field-types.js';
import { formatGeoValues } from '../../mapper/geo-format.js';
import type { Explanation, Query, Weight } from '../../search/query.js';
import { IndexSearcher } from '../../search/index-searcher.js';
import { toJsonValue } from '@strata/core-painless';
import { EsError } from '@strata/core-common';
import { isRuntimeValuesSource } from '../../script/doc-lookup.js';
import { runtimeDisplayValue } from '../../script/runtime-fields.js';
import { bindLeaf, type LeafRunner, type SearchScript } from '../../script/search-scripts.js';
import type { FieldAndFormat, SearchSource, ShardHit } from '../../search/spi-search.js';
import { extractValues, filterSearchSource } from './source-filter.js';
import { extractHighlightTerms, highlightField, type HighlightTerms } from './highlighter.js';

export interface FetchDeps {
  index: string;
  reader: DirectoryReader;
  fieldType(name: string): MappedFieldType | undefined;
  matchingFieldNames(pattern: string): string[];
  /** terms per field of the query, for highlighting */
  highlightTerms?: HighlightTerms;
  /** the parsed query, for explain */
  query?: Query;
  /** named queries (`_name`) → matched_queries */
  namedQueries?: ReadonlyMap<string, Query>;
  /** script_fields compiled for this shard */
  scriptFields?: ReadonlyArray<{ name: string; script: SearchScript; ignoreFailure: boolean }>;
  /** inner_hits to compute for every hit */
  innerHits?: readonly InnerHitsDefinition[];
  /** the nested fields of the mapping (`_nested` identities of nested inner hits) */
  nestedLookup?: NestedLookup;
  /** the hits are nested objects of this path: `_source` is the object inside its root document, with `_nested` */
  nestedPath?: string;
  /** the search's IndexSearcher (inner hits score with it) */
  searcher?: IndexSearcher;
}

/** values of a runtime field for one document as `fields` shows them */
function runtimeFieldValues(ft: MappedFieldType, leaf: LeafReaderContext, doc: number, format?: string): unknown[] {
  const r = leaf.reader;
  if (!isRuntimeValuesSource(r)) return [];
  return (r.runtimeValues(ft.name, doc) ?? []).map((v) => runtimeDisplayValue(ft, v, format === 'use_field_mapping' ? undefined : format));
}

const decoder = new TextDecoder();

export function leafOf(reader: DirectoryReader, gdoc: number): { leaf: LeafReaderContext; doc: number } {
  const leaves = reader.leaves;
  let lo = 0;
  let hi = leaves.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (leaves[mid]!.docBase <= gdoc) lo = mid;
    else hi = mid - 1;
  }
  const leaf = leaves[lo]!;
  return { leaf, doc: gdoc - leaf.docBase };
}

function sourceValues(source: unknown, field: string): unknown[] {
  let vals = extractValues(source, field);
  if (vals.length === 0 && field.includes('.')) {
    // multi-fields (`title.keyword`) read the parent's source value
    const parts = field.split('.');
    for (let i = parts.length - 1; i >= 1 && vals.length === 0; i--) vals = extractValues(source, parts.slice(0, i).join('.'));
  }
  return vals;
}

function fetchValue(ft: MappedFieldType, v: unknown, format?: string): unknown {
  if (v instanceof RawJson) {
    // an integer beyond 2^53 in a source parsed exactly: a long / unsigned_long shows it exactly
    const exact = isExactLongType(ft.type) ? exactLongLiteral(v) : undefined;
    if (exact === undefined) v = v.value();
    else {
      const [min, max] = exactLongRange(ft.type);
      return exact < min || exact > max ? undefined : integerJson(exact);
    }
  }
  if (v !== null && typeof v === 'object') return v;
  try {
    switch (ft.kind) {
      case 'date': {
        if (ft instanceof DateFieldType) return ft.formatSourceValue(v, format);
        const ms = ft.parseValue ? ft.parseValue(v) : Number(ft.termValue(v));
        return ft.formatValue(ms, format);
      }
      case 'numeric': {
        if (typeof v === 'string' && isExactLongType(ft.type)) {
          const exact = exactLongLiteral(v);
          if (exact !== undefined && (exact >= 2n ** 53n || exact <= -(2n ** 53n))) {
            const [min, max] = exactLongRange(ft.type);
            return exact < min || exact > max ? undefined : integerJson(exact);
          }
        }
        const t = ft.termValue(v);
        const n = typeof t === 'number' ? t : Number(t);
        if (ft.type === 'float' || ft.type === 'half_float') return ft.valueForDisplay(n);
        return ft.type === 'scaled_float' ? Number(v) : n;
      }
      case 'boolean':
        return v === true || v === 'true';
      case 'keyword': {
        const ignoreAbove = ft.params['ignore_above'];
        const s = String(v);
        if (typeof ignoreAbove === 'number' && s.length > ignoreAbove) return undefined;
        return s;
      }
      case 'ip':
        return ft.valueForDisplay(ft.termValue(v));
      default:
        return typeof v === 'string' ? v : String(v);
    }
  } catch {
    return undefined;
  }
}

/**
 * The values of one mapped field in a (part of a) source, as `fields` shows them. `sourceText`: the text of
 * the source, parsed again with exact integers when a long / unsigned_long value is beyond 2^53 (rare).
 */
function fieldValues(ft: MappedFieldType, source: unknown, rel: string, format: string | undefined, sourceText?: string): unknown[] {
  const vals: unknown[] = [];
  for (const v of sourceValues(source, rel)) {
    if (sourceText !== undefined && typeof v === 'number' && !Number.isSafeInteger(v) && isExactLongType(ft.type)) return fieldValues(ft, parseJsonExact(sourceText), rel, format);
    const fv = fetchValue(ft, v, format);
    if (fv !== undefined) vals.push(fv);
  }
  if (vals.length === 0 && ft.params['null_value'] !== undefined && sourceValues(source, rel).length === 0 && hasNull(source, rel)) {
    const fv = fetchValue(ft, ft.params['null_value'], format);
    if (fv !== undefined) vals.push(fv);
  }
  return vals;
}

/**
 * `fields` of nested fields (ES NestedValueFetcher): grouped under the nested field, one object per nested
 * object with the values under names relative to it (and deeper nested fields grouped the same way inside)
 */
function nestedFieldGroup(
  group: string,
  objs: readonly Record<string, unknown>[],
  wanted: ReadonlyArray<{ name: string; ft: MappedFieldType; format?: string }>,
  lookup: NestedLookup,
): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const obj of objs) {
    const o: Record<string, unknown> = {};
    const deeper = new Map<string, Array<{ name: string; ft: MappedFieldType; format?: string }>>();
    for (const w of wanted) {
      const inner = outermostNestedBelow(w.name, group, lookup);
      if (inner !== null) {
        let l = deeper.get(inner);
        if (!l) deeper.set(inner, (l = []));
        l.push(w);
        continue;
      }
      const rel = w.name.substring(group.length + 1);
      const vals = fieldValues(w.ft, obj, rel, w.format);
      if (vals.length) o[rel] = vals;
    }
    for (const [inner, ws] of deeper) {
      const sub = nestedFieldGroup(inner, objectsAt(obj, inner.substring(group.length + 1)), ws, lookup);
      if (sub.length) o[inner.substring(group.length + 1)] = sub;
    }
    if (Object.keys(o).length) out.push(o);
  }
  return out;
}

/** the outermost nested field strictly inside `scope` (null: the root) that contains `name`, or null */
function outermostNestedBelow(name: string, scope: string | null, lookup: NestedLookup): string | null {
  let best: string | null = null;
  for (let p = lookup.nestedParentOf(name); p !== null && p !== scope; p = lookup.get(p)?.parentPath ?? null) best = p;
  return best;
}

function collectFields(
  specs: FieldAndFormat[],
  source: unknown,
  deps: FetchDeps,
  leaf: LeafReaderContext,
  doc: number,
  sourceText?: string,
): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const lookup = deps.nestedLookup;
  const scope = deps.nestedPath ?? null;
  const groups = new Map<string, Array<{ name: string; ft: MappedFieldType; format?: string }>>();
  for (const spec of specs) {
    const names = spec.field.includes('*') ? deps.matchingFieldNames(spec.field) : [spec.field];
    for (const name of names) {
      const ft = deps.fieldType(name);
      if (!ft) {
        if (spec.include_unmapped) {
          const vals = sourceValues(source, name);
          if (vals.length) out[name] = vals;
        }
        continue;
      }
      if (ft.runtime) {
        if (ft.runtime.type === 'composite') continue;
        const rv = runtimeFieldValues(ft, leaf, doc, spec.format);
        if (rv.length) out[name] = rv;
        continue;
      }
      if (ft.fetchValues) {
        const vals = ft.fetchValues(sourceValues(source, name), leaf, doc);
        if (vals.length) out[name] = vals;
        continue;
      }
      if (ft.type === 'geo_point' || ft.type === 'geo_shape') {
        const geo = formatGeoValues(ft.type, name, extractValues(source, name, false), spec.format);
        if (geo.length) out[name] = geo;
        continue;
      }
      if (ft.kind === 'none' || ft.type === 'object' || ft.type === 'nested') continue;
      if (spec.format !== undefined && ft.kind !== 'date') {
        throw Errors.illegalArgument(`Field [${name}] of type [${ft.type}] doesn't support formats.`);
      }
      const group = lookup?.hasNested ? outermostNestedBelow(name, scope, lookup) : null;
      if (group !== null) {
        let l = groups.get(group);
        if (!l) groups.set(group, (l = []));
        if (!l.some((w) => w.name === name)) l.push({ name, ft, format: spec.format });
        continue;
      }
      // a long beyond 2^53 is read again from the source parsed exactly (only such documents pay that parse)
      const vals = fieldValues(ft, source, name, spec.format, sourceText);
      if (vals.length) out[name] = vals;
    }
  }
  for (const [group, wanted] of groups) {
    const objs = nestedFieldGroup(group, objectsAt(source, group), wanted, lookup!);
    if (objs.length) out[group] = objs;
  }
  return out;
}

function hasNull(source: unknown, path: string): boolean {
  let cur: unknown = source;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return false;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur === null;
}

interface DocValueField {
  name: string;
  ft: MappedFieldType;
  format?: string;
}

/** the docvalue_fields of a request resolved once (patterns expanded, field types looked up) */
function resolveDocValueFields(specs: FieldAndFormat[], deps: FetchDeps): DocValueField[] {
  const out: DocValueField[] = [];
  for (const spec of specs) {
    const names = spec.field.includes('*') ? deps.matchingFieldNames(spec.field) : [spec.field];
    for (const name of names) {
      const ft = deps.fieldType(name);
      if (!ft || (!ft.runtime && !ft.hasDocValues)) continue;
      out.push({ name, ft, ...(spec.format !== undefined ? { format: spec.format } : {}) });
    }
  }
  return out;
}

/** a docvalue field's column in one leaf: numeric, keyword, or none */
type DocValueColumn =
  | { nrd: DocValuesReader<Float64Array>; ex: ExactLongs | null; srd?: undefined; terms?: undefined }
  | { nrd?: undefined; ex?: undefined; srd: DocValuesReader<Uint32Array>; terms: readonly string[] }
  | null;

/** the columns of the docvalue_fields in `leaf`, looked up once per leaf and fetch (not once per hit) */
function docValueColumns(fields: DocValueField[], leaf: LeafReaderContext, cache: Map<LeafReaderContext, DocValueColumn[]>): DocValueColumn[] {
  let cols = cache.get(leaf);
  if (!cols) {
    cols = fields.map(({ name, ft }) => {
      if (ft.runtime) return null;
      const ndv = leaf.reader.numericDocValues(name);
      if (ndv) return { nrd: numericReader(ndv), ex: ExactLongs.of(leaf.reader, name, ft.type) };
      const sdv = leaf.reader.sortedSetDocValues(name);
      return sdv ? { srd: ordinalsReader(sdv), terms: sdv.terms } : null;
    });
    cache.set(leaf, cols);
  }
  return cols;
}

function docValueFields(fields: DocValueField[], cols: DocValueColumn[], leaf: LeafReaderContext, doc: number): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (let f = 0; f < fields.length; f++) {
    const { name, ft, format } = fields[f]!;
    if (ft.runtime) {
      const rv = runtimeFieldValues(ft, leaf, doc, format);
      if (rv.length) out[name] = rv;
      continue;
    }
    const vals: unknown[] = [];
    const col = cols[f];
    const nrd = col?.nrd;
    if (nrd) {
      const n = nrd.advance(doc);
      const ex = col.ex;
      if (ex && (!format || format === 'use_field_mapping')) {
        // a long beyond 2^53: its exact value (see index/exact-longs.ts)
        for (const v of exactValuesOf(ex, doc, nrd)) vals.push(typeof v === 'bigint' ? integerJson(v) : v);
      } else for (let i = 0; i < n; i++) {
        const v = nrd.value(i);
        if (ft.kind === 'date') vals.push(format === 'epoch_millis' && ft.type === 'date' ? String(v) : ft.formatValue(v, format));
        else if (format && format !== 'use_field_mapping') vals.push(ft.formatValue(v, format));
        else vals.push(ft.valueForDisplay(v));
      }
    } else {
      const srd = col?.srd;
      if (srd) {
        // doc values list a document's terms in Lucene's order: UTF-8 bytes (the dictionary here is UTF-16 ordered)
        const terms: string[] = [];
        const n = srd.advance(doc);
        for (let i = 0; i < n; i++) terms.push(col.terms[srd.value(i)]!);
        if (terms.length > 1) terms.sort(compareUtf8);
        for (const t of terms) vals.push(ft.valueForDisplay(t));
      }
    }
    if (vals.length) out[name] = vals;
  }
  return out;
}

export interface FetchedHit extends Record<string, unknown> {
  _index: string;
  _id: string;
}

const innerWeights = new WeakMap<InnerHitsDefinition, { reader: DirectoryReader; weight: Weight; sort: CompiledSortField[] }>();

/** the best `from + size` inner hits of one hit among the definition's candidates (ES InnerHitSubContext#topDocs) */
function innerTopDocs(def: InnerHitsDefinition, leaf: LeafReaderContext, doc: number, deps: FetchDeps): { total: number; maxScore: number | null; hits: ShardHit[] } {
  const s = def.source;
  let cached = innerWeights.get(def);
  if (!cached || cached.reader !== deps.reader) {
    const searcher = deps.searcher ?? new IndexSearcher(deps.reader);
    const sort = compileSort(s.sort, (n) => deps.fieldType(n), deps.index);
    const byField = sort.length > 0;
    const needsScores = !byField || s.trackScores || sort.some((f) => f.kind === 'score');
    cached = { reader: deps.reader, weight: searcher.createWeight(def.query, needsScores, 1), sort };
    innerWeights.set(def, cached);
  }
  const { weight, sort } = cached;
  const byField = sort.length > 0;
  const showScores = !byField || s.trackScores || sort.some((f) => f.kind === 'score');
  const heap = new TopHitsHeap(s.from + s.size, byField ? sort : null);
  let total = 0;
  let maxScore = -Infinity;
  const cands = def.candidates(deps.reader, { leaf, doc });
  let i = 0;
  while (i < cands.length) {
    const { leaf: cl } = leafOf(deps.reader, cands[i]!);
    const end = cl.docBase + cl.reader.maxDoc;
    const scorer = weight.scorer(cl);
    const keyFns = byField ? sort.map((f) => (f.kind === 'number' || f.kind === 'string' ? f.leaf(cl) : null)) : null;
    for (; i < cands.length && cands[i]! < end; i++) {
      const g = cands[i]!;
      const d = g - cl.docBase;
      if (!scorer || !cl.reader.isLive(d)) continue;
      let at = scorer.docID();
      if (at < d) at = scorer.advance(d);
      if (at !== d) continue;
      total++;
      const score = showScores ? scorer.score() : NaN;
      if (score > maxScore) maxScore = score;
      const keys = keyFns ? sort.map((f, k) => (f.kind === 'score' ? score : f.kind === 'doc' || f.kind === 'shard_doc' ? g : keyFns[k]!(d))) : null;
      heap.offer({ doc: g, score, keys });
    }
  }
  const hits = heap
    .sorted()
    .slice(s.from)
    .map((h) => {
      const out: ShardHit = { doc: h.doc, score: showScores ? h.score : NaN };
      if (byField) out.sortValues = h.keys!.map((k, j) => sort[j]!.display(k));
      return out;
    });
  return { total, maxScore: showScores && maxScore !== -Infinity ? maxScore : null, hits };
}

/** the `inner_hits` of one hit */
function innerHitsOf(defs: readonly InnerHitsDefinition[], leaf: LeafReaderContext, doc: number, deps: FetchDeps): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of defs) {
    const td = innerTopDocs(def, leaf, doc, deps);
    const sub: FetchDeps = {
      ...deps,
      highlightTerms: def.source.highlight ? extractHighlightTerms(def.query) : undefined,
      query: def.query,
      namedQueries: undefined,
      innerHits: def.children,
      nestedPath: def.nestedPath,
    };
    out[def.name] = { hits: { total: { value: td.total, relation: 'eq' }, max_score: td.maxScore, hits: executeFetchPhase(td.hits, def.source, sub) } };
  }
  return out;
}

export function executeFetchPhase(hits: readonly ShardHit[], s: SearchSource, deps: FetchDeps): FetchedHit[] {
  const noStored = s.storedFields !== undefined && s.storedFields.length === 1 && s.storedFields[0] === '_none_';
  const wantSource =
    s.source.fetch &&
    !noStored &&
    // stored_fields turns _source off unless _source is asked for explicitly (elasticdump: stored_fields ['*'] + _source true)
    (s.storedFields === undefined || s.sourceExplicit === true) &&
    (s.scriptFields === undefined || s.sourceExplicit === true);
  // unfiltered _source goes out as the stored text (RawJson): no parse, and the client gets the bytes it sent
  const rawSource = wantSource && s.source.includes.length === 0 && s.source.excludes.length === 0;
  const needParsed = (wantSource && !rawSource) || (s.fields && s.fields.length > 0) || s.highlight !== undefined;
  const dvFields = s.docvalueFields && s.docvalueFields.length > 0 ? resolveDocValueFields(s.docvalueFields, deps) : undefined;
  const dvColumns = new Map<LeafReaderContext, DocValueColumn[]>();
  let explainWeight: Weight | undefined;
  let namedWeights: Array<readonly [string, Weight]> | undefined;
  const scriptRunners = new Map<LeafReaderContext, Array<{ name: string; run: LeafRunner; ignoreFailure: boolean }>>();
  const roots = new Map<number, unknown>();
  return hits.map((h) => {
    const { leaf, doc } = leafOf(deps.reader, h.doc);
    const r = leaf.reader;
    const hit: FetchedHit = { _index: deps.index, _id: noStored ? undefined! : r.id(doc) };
    if (noStored) delete (hit as Record<string, unknown>)['_id'];
    const nested = deps.nestedPath !== undefined ? nestedHitSource(r, doc, deps.nestedPath, deps.nestedLookup, roots) : undefined;
    if (nested?.id) hit['_nested'] = nested.id;
    if (s.version) hit['_version'] = r.version(doc);
    if (s.seqNoPrimaryTerm) {
      hit['_seq_no'] = r.seqNo(doc);
      hit['_primary_term'] = r.primaryTerm(doc);
    }
    hit['_score'] = Number.isNaN(h.score) ? null : h.score;
    const routing = nested ? undefined : r.routing(doc);
    if (routing !== undefined && !noStored) hit['_routing'] = routing;
    if (!noStored && !nested) {
      // the _ignored metadata field (fields skipped by ignore_above / ignore_malformed), from its doc values
      const ig = r.sortedSetDocValues('_ignored');
      const names = ig ? termsOfDoc(ig, doc) : [];
      if (names.length > 0) hit['_ignored'] = names;
    }
    let parsed: unknown;
    let sourceText: string | undefined;
    if (nested) {
      // a nested object: its `_source` is filtered on full paths, then shown without its path
      parsed = nested.wrapped;
      if (wantSource && parsed !== undefined) hit['_source'] = unwrapAtPath(deps.nestedPath!, filterSearchSource(parsed, s.source.includes, s.source.excludes));
    } else if (needParsed || rawSource) {
      const bytes = r.source(doc);
      if (bytes) {
        const text = decoder.decode(bytes);
        if (needParsed) parsed = JSON.parse(text);
        if (rawSource) hit['_source'] = new RawJson(text);
        sourceText = text;
      }
    }
    if (wantSource && !rawSource && parsed !== undefined && !nested) {
      // integers beyond 2^53 keep every digit through the filter (as the unfiltered source does)
      const filterable = sourceText !== undefined && parsed !== null && typeof parsed === 'object' ? parseSourceKeepingIntegers(sourceText) : parsed;
      hit['_source'] = filterSearchSource(filterable, s.source.includes, s.source.excludes);
    }
    let fields: Record<string, unknown[]> | undefined;
    if (s.fields && s.fields.length > 0) fields = collectFields(s.fields, parsed, deps, leaf, doc, sourceText);
    if (dvFields && dvFields.length > 0) {
      const dv = docValueFields(dvFields, docValueColumns(dvFields, leaf, dvColumns), leaf, doc);
      fields = fields ? Object.assign(fields, dv) : dv;
    }
    if (deps.scriptFields && deps.scriptFields.length > 0) {
      let runners = scriptRunners.get(leaf);
      if (!runners) {
        const fieldType = (n: string) => deps.fieldType(n);
        runners = deps.scriptFields.map((f) => ({ name: f.name, run: bindLeaf(f.script, leaf.reader, fieldType), ignoreFailure: f.ignoreFailure }));
        scriptRunners.set(leaf, runners);
      }
      fields ??= {};
      for (const f of runners) {
        let v: unknown;
        try {
          v = f.run(doc, Number.isNaN(h.score) ? 0 : h.score);
        } catch (e) {
          if (f.ignoreFailure) continue;
          throw e;
        }
        let j: unknown;
        try {
          j = toJsonValue(v);
        } catch (e) {
          // a structure too deep to return (Elasticsearch's self-reference check): the script's fault, a 400
          throw e instanceof EsError ? e : new EsError('illegal_argument_exception', 400, (e as Error).message);
        }
        fields[f.name] = Array.isArray(j) ? j : [j];
      }
    }
    if (s.collapse && h.collapseKey !== undefined) {
      fields ??= {};
      if (!fields[s.collapse.field]) fields[s.collapse.field] = h.collapseKey === null ? [] : [h.collapseValue];
    }
    if (fields && Object.keys(fields).length > 0) hit['fields'] = fields;
    if (s.highlight && parsed !== undefined && deps.highlightTerms) {
      const hl: Record<string, string[]> = {};
      for (const [pattern, opts] of Object.entries(s.highlight.fields)) {
        const names = pattern.includes('*') ? deps.matchingFieldNames(pattern) : [pattern];
        for (const name of names) {
          const ft = deps.fieldType(name);
          if (!ft || (ft.kind !== 'text' && ft.kind !== 'keyword')) continue;
          const frags = highlightField(ft, sourceValues(parsed, name), deps.highlightTerms, s.highlight, opts);
          if (frags.length) hl[name] = frags;
        }
      }
      if (Object.keys(hl).length) hit['highlight'] = hl;
    }
    if (h.sortValues) hit['sort'] = h.sortValues;
    if (deps.namedQueries && deps.namedQueries.size > 0) {
      namedWeights ??= [...deps.namedQueries].map(([name, q]) => [name, new IndexSearcher(deps.reader).createWeight(q, false, 1)] as const);
      const matched: string[] = [];
      for (const [name, w] of namedWeights) {
        const sc = w.scorer(leaf);
        if (sc && sc.advance(doc) === doc) matched.push(name);
      }
      if (matched.length) hit['matched_queries'] = matched.sort();
    }
    if (s.explain) {
      let e: Explanation | undefined;
      if (deps.query) {
        explainWeight ??= new IndexSearcher(deps.reader).createWeight(deps.query, true, 1);
        e = explainWeight.explain?.(leaf, doc);
      }
      hit['_explanation'] = e ?? { value: Number.isNaN(h.score) ? 0 : h.score, description: deps.query ? deps.query.toString() : 'score', details: [] };
    }
    if (deps.innerHits && deps.innerHits.length > 0) hit['inner_hits'] = innerHitsOf(deps.innerHits, leaf, doc, deps);
    return hit;
  });
}
