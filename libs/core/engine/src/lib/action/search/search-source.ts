/**
 * Parses a search body (and URL parameters layered on top) into a SearchSource, with Elasticsearch's
 * errors for unknown keys and bad values.
 */
import { Errors, parseTimeValue } from '@strata/core-common';
import { parseSort, type SortSpec } from '../../search/sort.js';
import { parseSuggest } from '../../search/term-suggester.js';
import { parseScriptRef } from '@strata/core-painless';
import {
  DEFAULT_TRACK_TOTAL_HITS,
  TRACK_TOTAL_HITS_ACCURATE,
  TRACK_TOTAL_HITS_DISABLED,
  type FieldAndFormat,
  type RescoreSpec,
  type HighlightSpec,
  type SearchSource,
  type SearchSourceExtension,
  type FetchSourceFilter,
} from '../../search/spi-search.js';

export function tokenName(v: unknown): string {
  if (v === null) return 'VALUE_NULL';
  if (Array.isArray(v)) return 'START_ARRAY';
  if (typeof v === 'object') return 'START_OBJECT';
  if (typeof v === 'string') return 'VALUE_STRING';
  if (typeof v === 'number') return 'VALUE_NUMBER';
  if (typeof v === 'boolean') return 'VALUE_BOOLEAN';
  return 'VALUE_EMBEDDED_OBJECT';
}

export function emptySearchSource(): SearchSource {
  return {
    from: 0,
    size: 10,
    fromSet: false,
    sort: [],
    trackTotalHitsUpTo: DEFAULT_TRACK_TOTAL_HITS,
    trackScores: false,
    terminateAfter: 0,
    source: { fetch: true, includes: [], excludes: [] },
    version: false,
    seqNoPrimaryTerm: false,
    explain: false,
    profile: false,
    extensions: {},
  };
}

function int(key: string, v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n)) {
    throw Errors.xContentParse(`[${key}] failed to parse field [${key}]`, 1, 1);
  }
  return n;
}

function bool(key: string, v: unknown): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw Errors.xContentParse(`[search_source] failed to parse field [${key}]`);
}

export function parseTrackTotalHits(v: unknown): number {
  if (v === true || v === 'true') return TRACK_TOTAL_HITS_ACCURATE;
  if (v === false || v === 'false') return TRACK_TOTAL_HITS_DISABLED;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n)) throw Errors.xContentParse('[search_source] failed to parse field [track_total_hits]');
  if (n < -1) throw Errors.illegalArgument(`[track_total_hits] parameter must be positive or equals to -1, got ${n}`);
  return n;
}

function strList(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.map((x) => String(x));
  throw Errors.parsing(`Unknown key for a ${tokenName(v)} in [_source].`);
}

export function parseSourceFilter(v: unknown): FetchSourceFilter {
  if (v === true || v === false) return { fetch: v, includes: [], excludes: [] };
  if (typeof v === 'string' || Array.isArray(v)) return { fetch: true, includes: strList(v), excludes: [] };
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const f: FetchSourceFilter = { fetch: true, includes: [], excludes: [] };
    for (const [k, x] of Object.entries(o)) {
      if (k === 'includes' || k === 'include') f.includes = strList(x);
      else if (k === 'excludes' || k === 'exclude') f.excludes = strList(x);
      else throw Errors.parsing(`Unknown key for a ${tokenName(x)} in [${k}].`);
    }
    return f;
  }
  throw Errors.parsing(`Unknown key for a ${tokenName(v)} in [_source].`);
}

function fieldAndFormats(key: string, v: unknown): FieldAndFormat[] {
  const arr = Array.isArray(v) ? v : [v];
  return arr.map((x) => {
    if (typeof x === 'string') return { field: x };
    if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      if (typeof o['field'] !== 'string') throw Errors.parsing(`[${key}] Required [field]`);
      const f: FieldAndFormat = { field: o['field'] };
      if (o['format'] !== undefined && o['format'] !== null) f.format = String(o['format']);
      if (o['include_unmapped'] !== undefined) f.include_unmapped = o['include_unmapped'] === true;
      return f;
    }
    throw Errors.parsing(`[${key}] Expected [START_OBJECT] or [VALUE_STRING] but found [${tokenName(x)}]`);
  });
}

function parseHighlight(v: unknown): HighlightSpec {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing('[highlight] expected an object');
  const o = v as Record<string, unknown>;
  const tags = (x: unknown, d: string[]) => (x === undefined ? d : Array.isArray(x) ? x.map(String) : [String(x)]);
  const isStyled = o['tags_schema'] === 'styled';
  const h: HighlightSpec = {
    preTags: tags(o['pre_tags'], isStyled ? ['<em class="hlt1">'] : ['<em>']),
    postTags: tags(o['post_tags'], ['</em>']),
    fragmentSize: o['fragment_size'] === undefined ? 100 : Number(o['fragment_size']),
    numberOfFragments: o['number_of_fragments'] === undefined ? 5 : Number(o['number_of_fragments']),
    requireFieldMatch: o['require_field_match'] === undefined ? true : o['require_field_match'] === true,
    fields: {},
    highlightQuery: o['highlight_query'],
  };
  const fields = o['fields'];
  const addField = (name: string, fo: Record<string, unknown>) => {
    h.fields[name] = {
      fragmentSize: fo['fragment_size'] === undefined ? undefined : Number(fo['fragment_size']),
      numberOfFragments: fo['number_of_fragments'] === undefined ? undefined : Number(fo['number_of_fragments']),
      preTags: fo['pre_tags'] === undefined ? undefined : tags(fo['pre_tags'], []),
      postTags: fo['post_tags'] === undefined ? undefined : tags(fo['post_tags'], []),
      highlightQuery: fo['highlight_query'],
    };
  };
  if (Array.isArray(fields)) {
    for (const f of fields) for (const [n, fo] of Object.entries(f as Record<string, unknown>)) addField(n, (fo ?? {}) as Record<string, unknown>);
  } else if (fields && typeof fields === 'object') {
    for (const [n, fo] of Object.entries(fields as Record<string, unknown>)) addField(n, (fo ?? {}) as Record<string, unknown>);
  }
  return h;
}

function parseRescore(v: unknown): RescoreSpec {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing('[rescore] expected an object');
  const o = v as Record<string, unknown>;
  let windowSize = 10;
  let q: Record<string, unknown> | undefined;
  for (const [k, x] of Object.entries(o)) {
    if (k === 'window_size') windowSize = int(k, x);
    else if (k === 'query') {
      if (!x || typeof x !== 'object' || Array.isArray(x)) throw Errors.parsing('[query] rescore expected an object');
      q = x as Record<string, unknown>;
    } else throw Errors.parsing(`rescore doesn't support rescorer with name [${k}]`);
  }
  if (!q) throw Errors.parsing('missing rescore type');
  for (const k of Object.keys(q)) {
    if (!['rescore_query', 'query_weight', 'rescore_query_weight', 'score_mode'].includes(k)) throw Errors.parsing(`[query] unknown field [${k}]`);
  }
  if (!q['rescore_query'] || typeof q['rescore_query'] !== 'object') throw Errors.parsing('[query] rescore_query is required');
  const mode = q['score_mode'] === undefined ? 'total' : String(q['score_mode']).toLowerCase();
  if (!['total', 'multiply', 'avg', 'max', 'min'].includes(mode)) throw Errors.illegalArgument(`illegal score_mode [${mode}]`);
  if (windowSize < 0) throw Errors.illegalArgument('[window_size] must be greater than or equal to 0');
  return {
    windowSize,
    query: q['rescore_query'],
    queryWeight: q['query_weight'] === undefined ? 1 : Number(q['query_weight']),
    rescoreQueryWeight: q['rescore_query_weight'] === undefined ? 1 : Number(q['rescore_query_weight']),
    scoreMode: mode as RescoreSpec['scoreMode'],
  };
}

const IGNORED_KEYS = new Set(['stats', 'ext', 'knn', 'rank', 'retriever']);

/** parses the JSON body of a search */
export function parseSearchSource(body: unknown, extensions: ReadonlyMap<string, SearchSourceExtension> = new Map()): SearchSource {
  const s = emptySearchSource();
  if (body === undefined || body === null) return s;
  if (typeof body !== 'object' || Array.isArray(body)) throw Errors.parsing('Expected [START_OBJECT] but found [' + tokenName(body) + ']');
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    switch (k) {
      case 'query':
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing(`[query] query malformed, must start with start_object`);
        s.query = v;
        break;
      case 'post_filter':
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing(`[post_filter] query malformed, must start with start_object`);
        s.postFilter = v;
        break;
      case 'from':
        s.from = int(k, v);
        if (s.from < -1) throw Errors.illegalArgument(`[from] parameter cannot be negative, found [${s.from}]`);
        s.fromSet = true;
        break;
      case 'size':
        s.size = int(k, v);
        if (s.size < 0) throw Errors.illegalArgument(`[size] parameter cannot be negative, found [${s.size}]`);
        break;
      case 'sort':
        s.sort = parseSort(v);
        break;
      case 'track_total_hits':
        s.trackTotalHitsUpTo = parseTrackTotalHits(v);
        break;
      case 'track_scores':
        s.trackScores = bool(k, v);
        break;
      case 'min_score':
        if (typeof v !== 'number' && !(typeof v === 'string' && !Number.isNaN(Number(v)))) throw Errors.xContentParse('[search_source] failed to parse field [min_score]');
        s.minScore = Number(v);
        break;
      case 'terminate_after':
        s.terminateAfter = int(k, v);
        if (s.terminateAfter < 0) throw Errors.illegalArgument('terminateAfter must be > 0');
        break;
      case 'timeout':
        s.timeoutMs = parseTimeValue(v, 'timeout');
        break;
      case 'search_after':
        if (!Array.isArray(v)) throw Errors.parsing(`Unknown key for a ${tokenName(v)} in [search_after].`);
        s.searchAfter = v;
        break;
      case 'slice': {
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing('[slice] expected an object');
        const o = v as Record<string, unknown>;
        for (const key of Object.keys(o)) if (!['id', 'max', 'field'].includes(key)) throw Errors.parsing(`[slice] unknown field [${key}]`);
        const id = int('id', o['id']);
        const max = int('max', o['max']);
        if (max <= 1) throw Errors.illegalArgument('max must be greater than 1');
        if (id < 0) throw Errors.illegalArgument('id must be greater than or equal to 0');
        if (id >= max) throw Errors.illegalArgument('max must be greater than id');
        s.slice = { id, max, ...(o['field'] !== undefined ? { field: String(o['field']) } : {}) };
        break;
      }
      case '_source':
        s.source = parseSourceFilter(v);
        s.sourceExplicit = true;
        break;
      case 'fields':
        s.fields = fieldAndFormats(k, v);
        break;
      case 'docvalue_fields':
        s.docvalueFields = fieldAndFormats(k, v);
        break;
      case 'stored_fields':
        s.storedFields = strList(v);
        break;
      case 'version':
        s.version = bool(k, v);
        break;
      case 'seq_no_primary_term':
        s.seqNoPrimaryTerm = bool(k, v);
        break;
      case 'explain':
        s.explain = bool(k, v);
        break;
      case 'profile':
        s.profile = bool(k, v);
        break;
      case 'highlight':
        s.highlight = parseHighlight(v);
        break;
      case 'aggs':
      case 'aggregations':
        if (s.aggs !== undefined) throw Errors.parsing('Found two aggregation type definitions in [aggs]: [aggs] and [aggregations]');
        s.aggs = v;
        break;
      case 'script_fields': {
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing('[script_fields] expected an object');
        const out: Record<string, { script: unknown; ignoreFailure: boolean }> = {};
        for (const [name, def] of Object.entries(v as Record<string, unknown>)) {
          if (!def || typeof def !== 'object' || Array.isArray(def)) throw Errors.parsing(`[script_fields] [${name}] expected an object`);
          const d = def as Record<string, unknown>;
          for (const key of Object.keys(d)) if (key !== 'script' && key !== 'ignore_failure') throw Errors.parsing(`Unknown key for a ${tokenName(d[key])} in [${key}].`);
          if (d['script'] === undefined) throw Errors.parsing(`[script_fields] [${name}] requires a [script]`);
          parseScriptRef(d['script']);
          out[name] = { script: d['script'], ignoreFailure: d['ignore_failure'] === true };
        }
        s.scriptFields = out;
        break;
      }
      case 'runtime_mappings':
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing(`Expected [START_OBJECT] but found [${tokenName(v)}] in [runtime_mappings].`);
        s.runtimeMappings = v as Record<string, unknown>;
        break;
      case 'suggest':
        s.suggest = parseSuggest(v);
        break;
      case 'rescore':
        s.rescore = (Array.isArray(v) ? v : [v]).map(parseRescore);
        break;
      case 'collapse': {
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing(`[collapse] expected an object`);
        const o = v as Record<string, unknown>;
        for (const key of Object.keys(o)) {
          if (!['field', 'inner_hits', 'max_concurrent_group_searches'].includes(key)) throw Errors.parsing(`[collapse] unknown field [${key}]`);
        }
        if (typeof o['field'] !== 'string') throw Errors.parsing('[collapse] required [field]');
        s.collapse = { field: o['field'] };
        break;
      }
      case 'indices_boost':
        s.indicesBoost = (Array.isArray(v) ? v : [v]) as Array<Record<string, number>>;
        break;
      default: {
        const ext = extensions.get(k);
        if (ext) {
          s.extensions[k] = ext.parse(v);
          break;
        }
        if (IGNORED_KEYS.has(k)) {
          (s.ignored ??= []).push(k);
          break;
        }
        throw Errors.parsing(`Unknown key for a ${tokenName(v)} in [${k}].`);
      }
    }
  }
  return s;
}

/** URL parameters that override / complement the body (RestSearchAction.parseSearchRequest) */
export interface SearchUrlParams {
  q?: string;
  df?: string;
  defaultOperator?: string;
  analyzer?: string;
  analyzeWildcard?: boolean;
  lenient?: boolean;
  from?: number;
  size?: number;
  sort?: SortSpec[];
  source?: FetchSourceFilter;
  sourceIncludes?: string[];
  sourceExcludes?: string[];
  storedFields?: string[];
  docvalueFields?: string[];
  trackTotalHits?: number;
  trackScores?: boolean;
  terminateAfter?: number;
  version?: boolean;
  seqNoPrimaryTerm?: boolean;
  explain?: boolean;
  restTotalHitsAsInt?: boolean;
  timeoutMs?: number;
}

export function applyUrlParams(s: SearchSource, p: SearchUrlParams): SearchSource {
  if (p.q !== undefined) {
    const qs: Record<string, unknown> = { query: p.q };
    if (p.df !== undefined) qs['default_field'] = p.df;
    if (p.defaultOperator !== undefined) qs['default_operator'] = p.defaultOperator;
    if (p.analyzer !== undefined) qs['analyzer'] = p.analyzer;
    if (p.analyzeWildcard !== undefined) qs['analyze_wildcard'] = p.analyzeWildcard;
    if (p.lenient !== undefined) qs['lenient'] = p.lenient;
    s.query = { query_string: qs };
  }
  if (p.from !== undefined) {
    if (p.from < -1) throw Errors.illegalArgument(`[from] parameter cannot be negative, found [${p.from}]`);
    s.from = p.from;
    s.fromSet = true;
  }
  if (p.size !== undefined) {
    if (p.size < 0) throw Errors.illegalArgument(`[size] parameter cannot be negative, found [${p.size}]`);
    s.size = p.size;
  }
  if (p.sort !== undefined) s.sort = p.sort;
  if (p.source !== undefined) {
    s.source = p.source;
    s.sourceExplicit = true;
  }
  if (p.sourceIncludes !== undefined) s.source = { ...s.source, fetch: true, includes: p.sourceIncludes };
  if (p.sourceExcludes !== undefined) s.source = { ...s.source, fetch: true, excludes: p.sourceExcludes };
  if (p.sourceIncludes !== undefined || p.sourceExcludes !== undefined) s.sourceExplicit = true;
  if (p.storedFields !== undefined) s.storedFields = p.storedFields;
  if (p.docvalueFields !== undefined) s.docvalueFields = p.docvalueFields.map((field) => ({ field }));
  if (p.trackTotalHits !== undefined) s.trackTotalHitsUpTo = p.trackTotalHits;
  if (p.restTotalHitsAsInt && p.trackTotalHits === undefined && s.trackTotalHitsUpTo === DEFAULT_TRACK_TOTAL_HITS) {
    s.trackTotalHitsUpTo = TRACK_TOTAL_HITS_ACCURATE;
  }
  if (p.trackScores !== undefined) s.trackScores = p.trackScores;
  if (p.terminateAfter !== undefined) s.terminateAfter = p.terminateAfter;
  if (p.version !== undefined) s.version = p.version;
  if (p.seqNoPrimaryTerm !== undefined) s.seqNoPrimaryTerm = p.seqNoPrimaryTerm;
  if (p.explain !== undefined) s.explain = p.explain;
  if (p.timeoutMs !== undefined) s.timeoutMs = p.timeoutMs;
  return s;
}

/** SearchRequest.validate() of Elasticsearch */
/**
 * ES SearchRequest.validate. `opts.requestCache` is the request's `request_cache`; `opts.userSort` checks the
 * sort as the user wrote it (before paging adds its internal `_shard_doc` tiebreaker).
 */
export function validateSearchSource(
  s: SearchSource,
  scroll: boolean,
  heldReaders = false,
  opts: { requestCache?: boolean; userSort?: boolean } = {},
): void {
  const errs: string[] = [];
  if (s.searchAfter !== undefined && s.from > 0) errs.push('`from` parameter must be set to 0 when `search_after` is used');
  if (scroll) {
    if (s.trackTotalHitsUpTo !== TRACK_TOTAL_HITS_ACCURATE && s.trackTotalHitsUpTo !== DEFAULT_TRACK_TOTAL_HITS) {
      errs.push('disabling [track_total_hits] is not allowed in a scroll context');
    }
    if (s.from > 0) errs.push('using [from] is not allowed in a scroll context');
    if (s.size === 0) errs.push('[size] cannot be [0] in a scroll context');
    if (s.searchAfter !== undefined) errs.push('[search_after] cannot be used in a scroll context');
    if (s.collapse !== undefined) errs.push('cannot use `collapse` in a scroll context');
    if (opts.requestCache === true) errs.push('[request_cache] cannot be used in a scroll context');
  }
  if (s.rescore && s.rescore.length > 0 && s.sort.length > 0 && !(s.sort.length === 1 && s.sort[0]!.field === '_score' && s.sort[0]!.order === 'desc')) {
    errs.push('Cannot use [sort] option in conjunction with [rescore].');
  }
  if (s.slice && !scroll && !heldReaders && !s.extensions['pit']) errs.push('[slice] can only be used with [scroll] or [point-in-time] requests');
  if (opts.userSort && !heldReaders && !s.extensions['pit'] && s.sort.some((f) => f.field === '_shard_doc')) {
    errs.push('[_shard_doc] sort field cannot be used without [point in time]');
  }
  if (errs.length) throw Errors.actionRequestValidation(errs);
}
