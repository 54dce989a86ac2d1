/**
 * fast-check generators of hostile and odd requests, one family per area of the API: Query DSL,
 * aggregations, mappings, bulk NDJSON, URL parameters, ingest pipeline definitions, Painless and EQL.
 * They mix valid shapes with wrong types, unknown keys, extreme numbers, odd strings and deep nesting,
 * so most requests are rejected by a parser somewhere and some get through to execution.
 */
import fc from 'fast-check';

export interface FuzzRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  path: string;
  /** a JSON value (sent as JSON) or raw text (sent as is, e.g. NDJSON) */
  body?: unknown;
  raw?: string;
  contentType?: string;
}

export const FIXTURE = 'fuzz';
export const FIELDS = ['title', 'tag', 'count', 'price', 'ts', 'ok', 'addr', 'loc', 'obj.inner', 'items', 'items.name', 'items.qty', 'missing', '_id', '_source', '', '*', 'ti*', 'title.keyword'];

const oddStrings = fc.constantFrom(
  '',
  ' ',
  '*',
  '**',
  '?',
  '\\',
  '"',
  '(',
  ')',
  '[',
  '{',
  '/',
  'a/b/',
  'a'.repeat(300),
  '.*.*.*.*.*.*.*',
  '(a+)+$',
  '[z-a]',
  'AND OR NOT',
  'title:(',
  'count:>=x',
  '\u0000',
  '\ud800',
  'é漢字🙂',
  'NaN',
  'Infinity',
  '-1',
  '1e400',
  '9223372036854775808',
  '2024-13-45',
  'now-1d/d',
  'now+',
  '||',
  '{{x}}',
  'null',
  'true',
  '_all',
  '-fuzz',
  'fuzz,missing',
  '%',
  '%%',
  '%zz',
  '..',
  '1.2.3.4/99',
  '::1',
  'POINT (1 2)',
  '40.7,-74',
  'doc[\'count\'].value',
);

export const anyString = fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 3, arbitrary: oddStrings }, { weight: 1, arbitrary: fc.constantFrom(...FIELDS) });
const anyNumber = fc.oneof(
  fc.integer({ min: -5, max: 100 }),
  fc.constantFrom(0, -1, 1.5, -0.5, 1e21, -1e21, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER, 1e308, 10001, 65537),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
export const scalar = fc.oneof(anyString, anyNumber, fc.boolean(), fc.constant(null));
/** any JSON value, shallow */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(anyString, scalar, { maxKeys: 3 }) },
);
const field = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: anyString });
/** an object with some of the given keys (good values or junk) and maybe an unknown key */
function params(keys: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(keys).map(([k, a]) => fc.option(fc.tuple(fc.constant(k), fc.oneof({ weight: 3, arbitrary: a }, { weight: 1, arbitrary: anyJson })), { nil: undefined }));
  return fc.tuple(fc.tuple(...entries), fc.option(fc.tuple(anyString, anyJson), { nil: undefined, freq: 6 })).map(([es, extra]) => {
    const o: Record<string, unknown> = {};
    for (const e of es) if (e) o[e[0]] = e[1];
    if (extra) o[extra[0]] = extra[1];
    return o;
  });
}

/** JSON nested `depth` levels deep (arrays or objects), as stack-overflow probes */
export const deepJson = fc.tuple(fc.integer({ min: 50, max: 3000 }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

// ------------------------------------------------------------------ Query DSL

const QUERY_TYPES = ['match', 'match_phrase', 'match_phrase_prefix', 'match_bool_prefix', 'multi_match', 'term', 'terms', 'terms_set', 'range', 'exists', 'ids', 'prefix', 'wildcard', 'regexp', 'fuzzy', 'query_string', 'simple_query_string', 'match_all', 'match_none', 'bool', 'dis_max', 'constant_score', 'boosting', 'function_score', 'nested', 'geo_distance', 'geo_bounding_box', 'script', 'script_score', 'more_like_this', 'intervals', 'span_term', 'distance_feature', 'rank_feature', 'combined_fields', 'wrapper', 'has_child', 'has_parent', 'parent_id', 'knn', 'pinned', 'unknown_query'];

/** well-formed leaf queries over the fixture's fields, so that many requests reach execution */
const goodLeaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(fc.constantFrom('quick', 'fox jumps', 'brown sleeps', 'nothing', '12'), fc.constantFrom('or', 'and')).map(([q, op]) => ({ match: { title: { query: q, operator: op } } })),
  fc.constantFrom('a', 'b', 'c', 'z').map((v) => ({ term: { tag: v } })),
  fc.tuple(fc.integer({ min: -5, max: 50 }), fc.integer({ min: -5, max: 50 })).map(([a, b]) => ({ range: { count: { gte: Math.min(a, b), lt: Math.max(a, b) } } })),
  fc.constantFrom('2024-01-05', 'now-10y', '2024-01-10||+1d/d').map((d) => ({ range: { ts: { gte: d } } })),
  fc.constantFrom(...FIELDS).map((f) => ({ exists: { field: f } })),
  fc.constantFrom('qu*', 'f?x', '*o*').map((w) => ({ wildcard: { 'title.keyword': w } })),
  fc.constantFrom('title:fox AND count:[1 TO 5]', 'tag:a OR tag:b', 'quick -sleeps', '"brown fox"~2', 'count:>10').map((q) => ({ query_string: { query: q } })),
  fc.constantFrom('n1', 'z').map((n) => ({ nested: { path: 'items', query: { term: { 'items.name': n } } } })),
  fc.constantFrom('10.0.0.0/28', '10.0.0.3').map((ip) => ({ term: { addr: ip } })),
  fc.constant({ geo_distance: { distance: '50km', loc: { lat: 40.5, lon: -73.5 } } }),
  fc.constant({ match_all: {} }),
);

export const query: fc.Arbitrary<unknown> = fc.letrec<{ q: unknown }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    goodLeaf,
    goodLeaf,
    fc.tuple(fc.array(goodLeaf, { maxLength: 3 }), fc.array(goodLeaf, { maxLength: 2 })).map(([must, should]) => ({ bool: { must, should } })),
    // leaf queries: { type: { field: value } } or { type: { field: { query/value: ..., options } } }
    fc.tuple(fc.constantFrom(...QUERY_TYPES), field, fc.oneof(anyJson, params({ query: anyJson, value: anyJson, boost: anyNumber, operator: fc.constantFrom('and', 'or', 'xor'), fuzziness: fc.constantFrom('AUTO', 0, 2, 'x'), gte: anyJson, lt: anyJson, format: anyString, time_zone: anyString, flags: anyString, max_determinized_states: anyNumber, case_insensitive: fc.boolean(), analyzer: fc.constantFrom('standard', 'keyword', 'nope'), minimum_should_match: fc.constantFrom('75%', '-1', 2, 'x'), slop: anyNumber, rewrite: anyString }))).map(([t, f, v]) => ({ [t]: { [f]: v } })),
    // top-level-parameter queries
    fc.tuple(fc.constantFrom('query_string', 'simple_query_string', 'multi_match', 'ids', 'exists', 'more_like_this', 'combined_fields', 'script', 'geo_distance'), params({ query: anyString, fields: fc.array(field, { maxLength: 3 }), default_field: field, values: fc.array(anyString, { maxLength: 3 }), field, like: anyJson, script: anyJson, distance: anyString, default_operator: fc.constantFrom('AND', 'OR', 'x'), allow_leading_wildcard: fc.boolean(), max_determinized_states: anyNumber, lenient: fc.boolean() })).map(([t, p]) => ({ [t]: p })),
    fc.tuple(fc.constantFrom('bool'), params({ must: fc.array(tie('q'), { maxLength: 3 }), should: fc.oneof(tie('q'), fc.array(tie('q'), { maxLength: 3 })), filter: tie('q'), must_not: fc.array(tie('q'), { maxLength: 2 }), minimum_should_match: anyJson, boost: anyNumber })).map(([t, p]) => ({ [t]: p })),
    fc.tuple(fc.constantFrom('constant_score', 'nested', 'function_score', 'boosting', 'dis_max', 'script_score', 'has_child'), params({ filter: tie('q'), query: tie('q'), path: field, positive: tie('q'), negative: tie('q'), negative_boost: anyNumber, queries: fc.array(tie('q'), { maxLength: 3 }), functions: fc.array(params({ weight: anyNumber, field_value_factor: params({ field, factor: anyNumber, modifier: anyString }), random_score: anyJson, gauss: anyJson }), { maxLength: 2 }), score_mode: anyString, boost_mode: anyString, script: anyJson, type: anyString, score_mode_x: anyJson })).map(([t, p]) => ({ [t]: p })),
    anyJson,
  ),
})).q;

const sortArb = fc.oneof(field, fc.array(fc.oneof(field, fc.dictionary(field, fc.oneof(fc.constantFrom('asc', 'desc', 'up'), params({ order: fc.constantFrom('asc', 'desc'), missing: anyJson, mode: anyString, unmapped_type: anyString, numeric_type: anyString, format: anyString })), { maxKeys: 2 })), { maxLength: 3 }), anyJson);

export const searchBody = params({
  query,
  size: anyNumber,
  from: anyNumber,
  sort: sortArb,
  _source: fc.oneof(fc.boolean(), field, fc.array(field, { maxLength: 3 }), params({ includes: fc.array(field), excludes: anyJson })),
  track_total_hits: fc.oneof(fc.boolean(), anyNumber),
  post_filter: query,
  highlight: params({ fields: fc.dictionary(field, params({ type: anyString, number_of_fragments: anyNumber, fragment_size: anyNumber }), { maxKeys: 2 }), pre_tags: anyJson }),
  search_after: fc.array(scalar, { maxLength: 3 }),
  min_score: anyNumber,
  terminate_after: anyNumber,
  timeout: anyString,
  collapse: params({ field }),
  docvalue_fields: fc.array(fc.oneof(field, params({ field, format: anyString })), { maxLength: 2 }),
  fields: fc.array(fc.oneof(field, params({ field, format: anyString })), { maxLength: 2 }),
  stored_fields: anyJson,
  explain: fc.boolean(),
  version: fc.boolean(),
  seq_no_primary_term: fc.boolean(),
  indices_boost: anyJson,
  rescore: anyJson,
  suggest: anyJson,
  profile: fc.boolean(),
});

// ------------------------------------------------------------------ aggregations

const AGG_TYPES = ['terms', 'avg', 'sum', 'min', 'max', 'stats', 'extended_stats', 'value_count', 'cardinality', 'percentiles', 'percentile_ranks', 'histogram', 'date_histogram', 'auto_date_histogram', 'range', 'date_range', 'ip_range', 'filter', 'filters', 'missing', 'top_hits', 'top_metrics', 'composite', 'significant_terms', 'rare_terms', 'multi_terms', 'nested', 'reverse_nested', 'global', 'sampler', 'geo_bounds', 'geohash_grid', 'weighted_avg', 'median_absolute_deviation', 'bucket_script', 'bucket_selector', 'bucket_sort', 'derivative', 'cumulative_sum', 'moving_fn', 'avg_bucket', 'max_bucket', 'stats_bucket', 'scripted_metric', 'matrix_stats', 'unknown_agg'];

export const aggs: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ a: Record<string, unknown> }>((tie) => ({
  a: fc.dictionary(
    fc.oneof(fc.constantFrom('a', 'b', 'x>y', 'n[0]', ''), anyString),
    fc.tuple(
      fc.constantFrom(...AGG_TYPES),
      params({
        field,
        size: anyNumber,
        shard_size: anyNumber,
        min_doc_count: anyNumber,
        order: fc.oneof(params({ _count: fc.constantFrom('asc', 'desc', 'x'), _key: fc.constantFrom('asc', 'desc'), 'b.value': fc.constantFrom('asc') }), anyJson),
        interval: anyJson,
        fixed_interval: fc.constantFrom('1d', '1h', '0s', '-1d', 'x', '1ms'),
        calendar_interval: fc.constantFrom('month', '1M', '2w', 'x', 'day'),
        ranges: fc.array(params({ from: anyJson, to: anyJson, key: anyString, mask: anyString }), { maxLength: 3 }),
        percents: fc.array(anyNumber, { maxLength: 3 }),
        precision_threshold: anyNumber,
        missing: anyJson,
        script: anyJson,
        include: fc.oneof(anyString, fc.array(anyString, { maxLength: 2 }), params({ partition: anyNumber, num_partitions: anyNumber })),
        exclude: anyJson,
        extended_bounds: params({ min: anyJson, max: anyJson }),
        hard_bounds: anyJson,
        offset: anyJson,
        format: anyString,
        keyed: fc.boolean(),
        path: field,
        buckets_path: fc.oneof(anyString, fc.dictionary(anyString, anyString, { maxKeys: 2 })),
        sources: fc.array(fc.dictionary(anyString, fc.dictionary(fc.constantFrom('terms', 'histogram', 'date_histogram', 'x'), params({ field, interval: anyJson }), { maxKeys: 1 }), { maxKeys: 1 }), { maxLength: 2 }),
        filters: fc.oneof(fc.dictionary(anyString, query, { maxKeys: 2 }), fc.array(query, { maxLength: 2 })),
        terms: fc.array(params({ field }), { maxLength: 3 }),
        sort: sortArb,
        metrics: anyJson,
        buckets: anyNumber,
        window: anyNumber,
        gap_policy: anyString,
        value: params({ field }),
        weight: params({ field }),
        _source: anyJson,
      }),
      fc.option(tie('a'), { nil: undefined, freq: 3 }),
    ).map(([t, p, sub]) => (sub ? { [t]: t === 'filter' ? (p['field'] ? { term: p } : { match_all: {} }) : p, aggs: sub } : { [t]: t === 'filter' ? { term: p } : p })),
    { maxKeys: 2 },
  ),
})).a;

// ------------------------------------------------------------------ mappings

const FIELD_TYPES = ['text', 'keyword', 'long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float', 'unsigned_long', 'date', 'date_nanos', 'boolean', 'ip', 'geo_point', 'geo_shape', 'object', 'nested', 'flattened', 'binary', 'integer_range', 'date_range', 'ip_range', 'alias', 'runtime', 'dense_vector', 'search_as_you_type', 'match_only_text', 'wildcard', 'constant_keyword', 'version', 'join', 'completion', 'percolator', 'token_count', 'histogram', 'rank_feature', 'unknown_type'];

export const mappingProps: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ p: Record<string, unknown> }>((tie) => ({
  p: fc.dictionary(
    fc.oneof(fc.constantFrom('a', 'b.c', 'x', '_id', '_source', '', ' ', 'a..b', '.a', 'é'), anyString),
    fc.oneof(
      { weight: 5, arbitrary: params({ type: fc.constantFrom(...FIELD_TYPES), index: fc.boolean(), doc_values: fc.boolean(), store: fc.boolean(), analyzer: fc.constantFrom('standard', 'keyword', 'whitespace', 'nope'), ignore_above: anyNumber, format: anyString, scaling_factor: anyNumber, null_value: anyJson, copy_to: anyJson, fields: fc.dictionary(anyString, params({ type: fc.constantFrom(...FIELD_TYPES) }), { maxKeys: 2 }), path: field, dims: anyNumber, relations: anyJson, coerce: fc.boolean(), ignore_malformed: fc.boolean(), dynamic: fc.constantFrom(true, false, 'strict', 'runtime', 'x'), enabled: fc.boolean(), index_options: anyString, position_increment_gap: anyNumber, value: anyJson, script: anyJson }) },
      { weight: 1, arbitrary: tie('p').map((props) => ({ properties: props })) },
      { weight: 1, arbitrary: anyJson },
    ),
    { maxKeys: 3 },
  ),
})).p;

const goodProps: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.constantFrom('f1', 'f2', 'g.h', 'title', 'count'),
  fc.oneof(
    fc.constantFrom('text', 'keyword', 'long', 'double', 'date', 'boolean', 'ip', 'geo_point', 'nested', 'object', 'flattened', 'wildcard').map((type) => ({ type })),
    fc.constantFrom({ type: 'keyword', ignore_above: 10 }, { type: 'date', format: 'yyyy-MM-dd' }, { type: 'scaled_float', scaling_factor: 100 }, { type: 'text', analyzer: 'whitespace' }, { type: 'long', ignore_malformed: true }, { type: 'text', fields: { raw: { type: 'keyword' } } }),
  ),
  { maxKeys: 3 },
);
const goodMappings = fc.tuple(goodProps, fc.constantFrom(undefined, true, false, 'strict', 'runtime')).map(([properties, dynamic]) => (dynamic === undefined ? { properties } : { properties, dynamic }));
export const mappingsBody = fc.oneof({ weight: 1, arbitrary: goodMappings }, { weight: 2, arbitrary: mappingsBodyAny() });
function mappingsBodyAny(): fc.Arbitrary<Record<string, unknown>> {
  return params({
  properties: mappingProps,
  dynamic: fc.constantFrom(true, false, 'strict', 'runtime', 'nope'),
  dynamic_templates: fc.array(fc.dictionary(anyString, params({ match: anyString, match_mapping_type: anyString, path_match: anyString, match_pattern: fc.constantFrom('regex', 'simple', 'x'), mapping: params({ type: fc.constantFrom(...FIELD_TYPES) }) }), { maxKeys: 1 }), { maxLength: 2 }),
  _source: params({ enabled: fc.boolean(), includes: anyJson, excludes: anyJson, mode: anyString }),
  _routing: params({ required: fc.boolean() }),
  runtime: fc.dictionary(anyString, params({ type: fc.constantFrom('keyword', 'long', 'double', 'date', 'boolean', 'ip', 'geo_point', 'x'), script: anyJson }), { maxKeys: 2 }),
  date_detection: fc.boolean(),
  numeric_detection: fc.boolean(),
  _meta: anyJson,
  });
}

export const indexSettings = params({
  number_of_shards: anyNumber,
  number_of_replicas: anyNumber,
  'index.mapping.total_fields.limit': anyNumber,
  'index.mapping.depth.limit': anyNumber,
  'index.max_result_window': anyNumber,
  refresh_interval: anyString,
  analysis: params({ analyzer: fc.dictionary(anyString, params({ type: fc.constantFrom('custom', 'standard', 'pattern', 'x'), tokenizer: fc.constantFrom('standard', 'whitespace', 'ngram', 'pattern', 'x'), filter: fc.array(fc.constantFrom('lowercase', 'asciifolding', 'stop', 'x'), { maxLength: 3 }), pattern: anyString }), { maxKeys: 1 }), tokenizer: anyJson, filter: anyJson }),
});

// ------------------------------------------------------------------ bulk NDJSON

const bulkAction = fc.tuple(
  fc.constantFrom('index', 'create', 'update', 'delete', 'upsert', 'x', ''),
  params({ _index: fc.constantFrom('fuzz-bulk', 'fuzz-bulk-2', '', '_bad', 'UPPER', 'a'.repeat(300), 'fuzz-bulk,x'), _id: fc.oneof(anyString, anyNumber), routing: anyString, version: anyNumber, version_type: anyString, if_seq_no: anyNumber, if_primary_term: anyNumber, pipeline: anyString, retry_on_conflict: anyNumber, require_alias: anyJson, dynamic_templates: anyJson }),
).map(([op, meta]) => JSON.stringify({ [op]: meta }));
const bulkSource = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.oneof(anyString, fc.constantFrom('title', 'count', 'ts', 'ok', 'addr', 'doc', 'upsert', 'script', 'doc_as_upsert')), anyJson, { maxKeys: 4 }).map((o) => JSON.stringify(o)) },
  { weight: 1, arbitrary: fc.constantFrom('{', '}', '{"a":}', '[]', '"x"', '1', 'null', '{"a":1}{"b":2}', '{"a":1,"a":2}', '', ' ', '{"doc":{"x":1}}', '{"script":"ctx._source.x=1"}', '\u0000') },
  { weight: 1, arbitrary: deepJson.map((v) => JSON.stringify({ d: v })) },
);
/** well-formed items (some conflicting or failing per item), so that many bulks are accepted and applied */
const goodBulkItem = fc.oneof(
  fc.tuple(fc.constantFrom('index', 'create'), fc.constantFrom('fuzz-bulk', 'fuzz-bulk-2'), fc.option(fc.integer({ min: 0, max: 30 }).map(String), { nil: undefined }), fc.dictionary(fc.constantFrom('title', 'count', 'ts', 'ok', 'addr', 'n'), fc.oneof(scalar, fc.constantFrom('2024-01-01', '10.1.1.1', 'x')), { maxKeys: 4 })).map(([op, index, id, src]) => [JSON.stringify({ [op]: id === undefined ? { _index: index } : { _index: index, _id: id } }), JSON.stringify(src)]),
  fc.tuple(fc.integer({ min: 0, max: 30 }), fc.dictionary(fc.constantFrom('title', 'count', 'n'), scalar, { maxKeys: 2 }), fc.boolean()).map(([id, doc, upsert]) => [JSON.stringify({ update: { _index: 'fuzz-bulk', _id: String(id) } }), JSON.stringify(upsert ? { doc, doc_as_upsert: true } : { doc })]),
  fc.integer({ min: 0, max: 30 }).map((id) => [JSON.stringify({ delete: { _index: 'fuzz-bulk', _id: String(id) } })]),
);
const anyBulkItem = fc.oneof(
  { weight: 3, arbitrary: goodBulkItem },
  { weight: 1, arbitrary: fc.tuple(bulkAction, fc.option(bulkSource, { nil: undefined, freq: 5 })).map(([a, src]) => (src === undefined ? [a] : [a, src])) },
);
export const bulkBody = fc
  .tuple(fc.array(anyBulkItem, { minLength: 1, maxLength: 6 }), fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), fc.boolean())
  .map(([items, trailingNewline, crlf]) => {
    const lines = items.flat();
    return lines.join(crlf ? '\r\n' : '\n') + (trailingNewline ? '\n' : '');
  });

// ------------------------------------------------------------------ URL parameters

const PARAM_NAMES = ['size', 'from', 'q', 'df', 'default_operator', 'analyzer', 'sort', '_source', '_source_includes', '_source_excludes', 'stored_fields', 'routing', 'preference', 'timeout', 'terminate_after', 'track_total_hits', 'search_type', 'scroll', 'allow_partial_search_results', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards', 'version', 'version_type', 'if_seq_no', 'refresh', 'realtime', 'pretty', 'human', 'filter_path', 'format', 'h', 'v', 's', 'bytes', 'time', 'help', 'level', 'flat_settings', 'include_defaults', 'local', 'master_timeout', 'error_trace', 'rest_total_hits_as_int', 'typed_keys', 'batched_reduce_size', 'max_concurrent_shard_requests', 'pre_filter_shard_size', 'lenient', 'explain', 'request_cache', 'source', 'source_content_type', 'unknown_param'];
const PATHS: Array<[FuzzRequest['method'], string]> = [
  ['GET', '/fuzz/_search'],
  ['POST', '/fuzz/_search'],
  ['GET', '/fuzz/_count'],
  ['GET', '/fuzz/_doc/1'],
  ['HEAD', '/fuzz/_doc/1'],
  ['GET', '/fuzz/_source/1'],
  ['GET', '/fuzz/_mapping'],
  ['GET', '/fuzz/_settings'],
  ['GET', '/fuzz/_stats'],
  ['GET', '/fuzz'],
  ['GET', '/_cat/indices'],
  ['GET', '/_cat/shards'],
  ['GET', '/_cat/count/fuzz'],
  ['GET', '/_cat/thread_pool'],
  ['GET', '/_cluster/health'],
  ['GET', '/_cluster/state'],
  ['GET', '/_cluster/settings'],
  ['GET', '/_nodes/stats'],
  ['GET', '/_nodes'],
  ['GET', '/'],
  ['GET', '/_mget'],
  ['POST', '/fuzz/_validate/query'],
  ['GET', '/fuzz/_field_caps'],
  ['POST', '/fuzz/_explain/1'],
  ['GET', '/_search'],
  ['GET', '/fuzz*,-fuzz-x/_search'],
  ['GET', '/_all/_count'],
  ['GET', '/fuzz/_termvectors/1'],
  ['POST', '/fuzz/_refresh'],
  ['GET', '/_resolve/index/fuzz*'],
  ['GET', '/_alias'],
  ['GET', '/fuzz/_segments'],
];
/** percent-encodes, lone surrogates included (as U+FFFD, which is what a client would send) */
function encode(s: string): string {
  return encodeURIComponent(s.replace(/[\ud800-\udfff]/g, (c, i: number, str: string) => (/[\ud800-\udbff][\udc00-\udfff]/.test(str.slice(i, i + 2)) || /[\ud800-\udbff][\udc00-\udfff]/.test(str.slice(i - 1, i + 1)) ? c : '\ufffd')));
}
const paramValue = fc.oneof(anyString, anyNumber.map(String), fc.constantFrom('true', 'false', '', '-1', '0', '10000', '10001', '1m', '0s', 'x', 'count:desc', '_doc', 'all', 'open,closed', 'dfs_query_then_fetch', 'hits.hits._id', '*.x', 'json', 'yaml', 'smile', 'cbor', 'b', 'kb', 'ms', 'nanos'));
export const urlRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(fc.constantFrom(...PATHS), fc.array(fc.tuple(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...PARAM_NAMES) }, { weight: 1, arbitrary: anyString }), paramValue, fc.boolean()), { maxLength: 5 }))
  .map(([[method, path], ps]) => {
    const qs = ps.map(([k, v, bare]) => (bare && v === '' ? encode(k) : `${encode(k)}=${encode(v)}`)).join('&');
    return { method, path: qs ? `${path}?${qs}` : path };
  });

// ------------------------------------------------------------------ ingest pipeline definitions

const PROCESSORS = ['set', 'remove', 'rename', 'append', 'convert', 'date', 'grok', 'gsub', 'split', 'join', 'lowercase', 'uppercase', 'trim', 'kv', 'json', 'dissect', 'script', 'foreach', 'pipeline', 'fail', 'drop', 'dot_expander', 'user_agent', 'geoip', 'urldecode', 'uri_parts', 'html_strip', 'csv', 'bytes', 'fingerprint', 'sort', 'community_id', 'network_direction', 'registered_domain', 'date_index_name', 'set_security_user', 'enrich', 'inference', 'unknown_processor'];
export const processor: fc.Arbitrary<unknown> = fc.letrec<{ p: unknown }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small' },
    fc
      .tuple(
        fc.constantFrom(...PROCESSORS),
        params({
          field,
          target_field: field,
          value: anyJson,
          copy_from: field,
          patterns: fc.array(fc.constantFrom('%{WORD:w}', '%{NUMBER:n:int}', '%{IP:ip}', '%{NOPE:x}', '%{', '(?<x>a+)+', '%{GREEDYDATA:g}', '((a*)*)*b'), { maxLength: 2 }),
          pattern: fc.constantFrom('a', '(', '\\s+', '(a+)+', '%{a} %{b}', '%{'),
          replacement: anyString,
          separator: anyString,
          type: fc.constantFrom('integer', 'long', 'float', 'double', 'boolean', 'ip', 'string', 'auto', 'x'),
          formats: fc.array(fc.constantFrom('ISO8601', 'UNIX', 'UNIX_MS', 'yyyy-MM-dd', 'TAI64N', 'x', 'yyyy-MM-dd\'T\'HH:mm:ssX'), { maxLength: 2 }),
          timezone: anyString,
          source: fc.constantFrom('ctx.x = 1', 'ctx.x = ctx.y.z', 'throw new Exception()', 'while(true){}', 'ctx.a = params.b', '', ';;', 'ctx._source = null', 'def x = 1/0', 'ctx.x = "a" =~ /(a+)+/'),
          lang: anyString,
          if: fc.constantFrom('ctx.x == 1', 'ctx.x.y == 1', '(', 'true', 'return null'),
          ignore_missing: fc.boolean(),
          ignore_failure: fc.boolean(),
          on_failure: fc.array(tie('p'), { maxLength: 1 }),
          processor: tie('p'),
          name: anyString,
          message: anyString,
          field_split: anyString,
          value_split: anyString,
          include_keys: anyJson,
          properties: anyJson,
          tag: anyString,
          description: anyString,
          order: fc.constantFrom('asc', 'desc', 'x'),
          allow_duplicates: fc.boolean(),
          override: fc.boolean(),
          media_type: anyString,
          add_to_root: fc.boolean(),
          strip_brackets: fc.boolean(),
        }),
      )
      .map(([t, p]) => ({ [t]: p })),
    anyJson,
  ),
})).p;

const goodProcessor: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(fc.constantFrom('x', 'y', 'a.b'), scalar).map(([field, value]) => ({ set: { field, value } })),
  fc.constantFrom('message', 'x', 'missing').map((field) => ({ lowercase: { field, ignore_missing: true } })),
  fc.constantFrom('%{WORD:w} %{NUMBER:n:int}', '%{IP:ip}', '%{GREEDYDATA:g}').map((p) => ({ grok: { field: 'message', patterns: [p], ignore_failure: true } })),
  fc.constantFrom('integer', 'float', 'boolean', 'ip', 'auto').map((type) => ({ convert: { field: 'x', type, ignore_missing: true, ignore_failure: true } })),
  fc.constantFrom('ISO8601', 'UNIX', 'yyyy-MM-dd').map((f) => ({ date: { field: 'ts', formats: [f], ignore_failure: true } })),
  fc.constant({ split: { field: 'message', separator: '\\s+', ignore_missing: true } }),
  fc.constant({ gsub: { field: 'message', pattern: '[aeiou]', replacement: '_', ignore_missing: true } }),
  fc.constant({ kv: { field: 'message', field_split: ' ', value_split: '=', ignore_missing: true, ignore_failure: true } }),
  fc.constant({ remove: { field: 'y', ignore_missing: true } }),
  fc.constant({ rename: { field: 'x', target_field: 'z', ignore_missing: true } }),
  fc.constant({ script: { source: 'ctx.s = ctx.containsKey("x") ? 1 : 2' } }),
);
const goodSimulate = fc.tuple(fc.array(goodProcessor, { minLength: 1, maxLength: 4 }), fc.array(fc.dictionary(fc.constantFrom('x', 'y', 'message', 'ts'), fc.oneof(scalar, fc.constantFrom('a=1 b=2', '2024-01-01', 'hello 12', '10.0.0.1')), { maxKeys: 4 }), { minLength: 1, maxLength: 3 })).map(([processors, docs]) => ({ pipeline: { processors }, docs: docs.map((_source) => ({ _source })) }));
export const simulateBody = fc.oneof({ weight: 1, arbitrary: goodSimulate }, { weight: 2, arbitrary: simulateBodyAny() });
function simulateBodyAny(): fc.Arbitrary<Record<string, unknown>> {
  return params({
  pipeline: params({ description: anyString, processors: fc.array(processor, { maxLength: 4 }), on_failure: fc.array(processor, { maxLength: 1 }), version: anyNumber, _meta: anyJson }),
  docs: fc.array(fc.oneof(params({ _index: anyString, _id: anyString, _source: fc.dictionary(fc.oneof(anyString, fc.constantFrom('x', 'y', 'message', 'ts')), anyJson, { maxKeys: 4 }) }), anyJson), { maxLength: 3 }),
  });
}

// ------------------------------------------------------------------ Painless

const PAINLESS_FRAGMENTS = ['doc[\'count\'].value', 'doc[\'missing\'].value', 'doc[\'tag\'].size()', 'params.x', 'params[\'x\']', '_score', 'emit(1)', 'return', ';', '1', '1.5', '"s"', "'s'", 'null', 'true', '+', '-', '*', '/', '%', '==', '!=', '<', '&&', '||', '!', '(', ')', '{', '}', '[', ']', 'def x = ', 'int y = ', 'x', 'y', 'if (x) ', 'else ', 'for (int i = 0; i < 10; i++) ', 'while (false) ', 'new ArrayList()', 'new HashMap()', '.size()', '.get(0)', '.length()', 'Math.max(1, 2)', 'Math.log(0)', 'Integer.MAX_VALUE', 'Long.parseLong("x")', '/a+/', '=~', '==~', '(a+)+', 'ctx._source', 'instanceof String', 'String.valueOf(1)', '->', '::', '?.', '?:', '1/0', '"".substring(5)', '[1,2,3]', '[:]', 'List.of()', 'throw new IllegalArgumentException("x")', 'System.exit(0)', 'Thread.sleep(10000)', 'def f(int a) { return a } ', 'f(1)'];
const GOOD_PAINLESS = ["doc['count'].value * 2", "doc['count'].size() == 0 ? 0 : doc['count'].value", 'params.x == null ? 1 : 2', "Math.max(doc['price'].value, 1.0)", "doc['tag'].value.length()", "emit(doc['count'].value)", 'int s = 0; for (int i = 0; i < 10; i++) { s += i } return s;', "def m = new HashMap(); m.put('a', 1); return m.size();", "doc['ts'].value.getYear()", "'abc' =~ /b/ ? 1 : 0", "doc['missing'].size()", "return doc['count'].value / 0;", "doc['title.keyword'].value.substring(3)"];
export const painlessSource = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(...GOOD_PAINLESS) },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...PAINLESS_FRAGMENTS), { minLength: 1, maxLength: 12 }).map((parts) => parts.join(' ')) },
);
export const painlessRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(fc.constantFrom('script_fields', 'script_query', 'script_score', 'runtime', 'sort', 'agg'), painlessSource, fc.option(fc.dictionary(anyString, anyJson, { maxKeys: 2 }), { nil: undefined }), fc.constantFrom('painless', 'expression', 'mustache', 'x', undefined))
  .map(([where, source, p, lang]) => {
    const script: Record<string, unknown> = { source };
    if (p) script['params'] = p;
    if (lang !== undefined) script['lang'] = lang;
    let body: Record<string, unknown>;
    switch (where) {
      case 'script_fields':
        body = { script_fields: { f: { script } } };
        break;
      case 'script_query':
        body = { query: { bool: { filter: { script: { script } } } } };
        break;
      case 'script_score':
        body = { query: { script_score: { query: { match_all: {} }, script } } };
        break;
      case 'runtime':
        body = { runtime_mappings: { r: { type: 'long', script } }, fields: ['r'], query: { range: { r: { gte: 0 } } } };
        break;
      case 'sort':
        body = { sort: { _script: { type: 'number', script, order: 'asc' } } };
        break;
      default:
        body = { size: 0, aggs: { s: { sum: { script } } } };
    }
    return { method: 'POST', path: `/${FIXTURE}/_search`, body };
  });

// ------------------------------------------------------------------ EQL

export const EQL_INDEX = 'fuzz-events';
const EQL_FIELDS = ['process.name', 'process.pid', 'process.args', 'host.id', 'user.name', 'destination.ip', 'destination.port', 'file.path', 'message', 'event.category', '@timestamp', 'event.sequence', 'process.parent.name'];
const EQL_UNKNOWN_FIELDS = ['nope', 'process.nope', '`odd name`', '?maybe.field', '_id', 'process'];
const EQL_CATEGORIES = ['process', 'network', 'file', 'any', 'registry', '"quoted"', 'unknown_cat'];
const EQL_FUNCTIONS = ['add', 'between', 'cidrMatch', 'concat', 'divide', 'endsWith', 'endsWith~', 'indexOf', 'indexOf~', 'length', 'modulo', 'multiply', 'number', 'startsWith', 'startsWith~', 'string', 'stringContains', 'stringContains~', 'substring', 'subtract', 'nosuchfunction'];

const eqlLiteral = fc.oneof(
  fc.constantFrom('"cmd.exe"', '"powershell.exe"', '"h1"', '"10.0.0.0/8"', '"C:\\\\Windows\\\\*"', '"*.exe"', '"a"', '""', '"unterminated', "'single'", '"""raw"""', '"\\u{1F600}"', '"\\x"'),
  fc.integer({ min: -5, max: 70000 }).map(String),
  fc.constantFrom('1.5', '-0.0', '1e400', '9223372036854775808', 'true', 'false', 'null', '0x1F', '1..2'),
);
const eqlField = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...EQL_FIELDS) }, { weight: 1, arbitrary: fc.constantFrom(...EQL_UNKNOWN_FIELDS) });
const eqlValue: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    eqlField,
    eqlLiteral,
    fc.tuple(fc.constantFrom(...EQL_FUNCTIONS), fc.array(tie('v'), { maxLength: 4 })).map(([f, args]) => `${f}(${args.join(', ')})`),
    fc.tuple(tie('v'), fc.constantFrom('+', '-', '*', '/', '%'), tie('v')).map(([a, op, b]) => `${a} ${op} ${b}`),
  ),
})).v;
const eqlCondition: fc.Arbitrary<string> = fc.letrec<{ c: string }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('true', 'false'),
    fc.tuple(eqlValue, fc.constantFrom('==', '!=', '<', '<=', '>', '>=', ':', 'like', 'like~', 'regex', 'regex~', '=~', '==='), eqlValue).map(([a, op, b]) => `${a} ${op} ${b}`),
    fc.tuple(eqlField, fc.constantFrom('in', 'in~', 'not in', ':', 'like~'), fc.array(eqlLiteral, { minLength: 1, maxLength: 3 })).map(([f, op, vs]) => `${f} ${op} (${vs.join(', ')})`),
    fc.tuple(eqlField, fc.constantFrom('regex', 'regex~'), fc.constantFrom('"(a+)+$"', '".*.*.*.*x"', '"[z-a]"', '"cmd\\\\.exe"', '"a{1000}"')).map(([f, op, r]) => `${f} ${op} ${r}`),
    eqlValue.map((v) => `${v}`),
    fc.tuple(tie('c'), fc.constantFrom('and', 'or'), tie('c')).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('c').map((c) => `not ${c}`),
    tie('c').map((c) => `(${c})`),
  ),
})).c;
const eqlEvent = fc.tuple(fc.constantFrom(...EQL_CATEGORIES), eqlCondition).map(([cat, c]) => `${cat} where ${c}`);
const eqlSpan = fc.constantFrom('', ' with maxspan=30s', ' with maxspan=1h', ' with maxspan=0', ' with maxspan=-1s', ' with maxspan=5x', ' with maxspan=10000000d');
const eqlBy = fc.oneof({ weight: 2, arbitrary: fc.constant('') }, { weight: 2, arbitrary: fc.array(eqlField, { minLength: 1, maxLength: 2 }).map((fs) => ` by ${fs.join(', ')}`) });
const eqlStage = fc.tuple(eqlEvent, eqlBy, fc.constantFrom('', '', '', ' with runs=2', ' with runs=0', ' with runs=200'), fc.constantFrom('', '', '', '', '!')).map(([e, by, runs, miss]) => `${miss}[${e}]${by}${runs}`);
const eqlSequence = fc
  .tuple(eqlBy, eqlSpan, fc.array(eqlStage, { minLength: 1, maxLength: 4 }), fc.option(eqlEvent, { nil: undefined, freq: 4 }))
  .map(([by, span, stages, until]) => `sequence${by}${span} ${stages.join(' ')}${until ? ` until [${until}]` : ''}`);
const eqlSample = fc.tuple(eqlBy, fc.array(eqlStage, { minLength: 1, maxLength: 3 })).map(([by, stages]) => `sample${by} ${stages.join(' ')}`);
const eqlPipes = fc.array(fc.constantFrom('| head 3', '| tail 2', '| head 0', '| head -1', '| tail 100000', '| head x', '| sort x', '| unique process.name', '| count', '|'), { maxLength: 2 }).map((ps) => (ps.length ? ' ' + ps.join(' ') : ''));
const validEql = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(
    'any where true',
    'process where process.name == "cmd.exe"',
    'process where process.name : ("cmd*", "pow*") and process.pid > 100',
    'network where destination.port >= 443 and cidrMatch(destination.ip, "10.0.0.0/8")',
    'file where file.path like~ "c:\\\\windows\\\\*"',
    'process where startsWith~(process.name, "CMD") or length(user.name) > 3',
    'sequence by host.id with maxspan=1h [process where true] [network where true]',
    'sequence [process where true] by host.id [file where true] by host.id until [network where destination.port == 22] by host.id',
    'sequence by host.id [process where true] ![file where true] [network where true]',
    'sequence by host.id [process where true] with runs=2 [network where true]',
    'sample by host.id [process where true] [network where true]',
    'process where true | tail 3',
    'any where ?process.parent.name == null | head 5',
  ) },
  { weight: 1, arbitrary: eqlEvent },
  { weight: 1, arbitrary: eqlSequence },
  { weight: 1, arbitrary: eqlSample },
);
const eqlFilter = fc.constantFrom<unknown>(
  { term: { 'host.id': 'h1' } },
  { range: { '@timestamp': { gte: '2024-01-01T10:10:00Z' } } },
  { bool: { must_not: { term: { 'user.name': 'SYSTEM' } } } },
  { match: { message: 'event' } },
  { match_all: {} },
);
/** an EQL query: well-formed by construction or broken on purpose (cut, spliced, garbled) */
export const eqlQuery: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(validEql, eqlPipes).map(([q, p]) => q + p) },
  { weight: 2, arbitrary: fc.tuple(validEql, fc.nat(), fc.constantFrom('', ']', '[', ')', '(', '"', 'where', 'by', ',', '|', '`', '~', '!', '?', '\\', '\u0000', 'sequence', '🙂')).map(([q, n, junk]) => q.slice(0, n % (q.length + 1)) + junk + q.slice(n % (q.length + 1))) },
  { weight: 1, arbitrary: fc.tuple(validEql, fc.nat()).map(([q, n]) => q.slice(0, n % (q.length + 1))) },
  { weight: 1, arbitrary: anyJson },
);
const eqlRuntimeMappings = fc.oneof(
  fc.constant({ rt_host: { type: 'keyword', script: "emit(doc['host.id'].value)" } }),
  fc.constant({ rt_port: { type: 'long', script: { source: "emit(doc['destination.port'].size() == 0 ? 0 : doc['destination.port'].value * 2)" } } }),
  fc.constant({ rt_bad: { type: 'long', script: 'emit(' } }),
  fc.constant({ rt_x: { type: 'nope' } }),
  fc.dictionary(anyString, anyJson, { maxKeys: 2 }),
);
/** a body with only well-formed fields, so that queries reach execution */
const goodEqlBody = fc
  .tuple(
    fc.tuple(validEql, fc.constantFrom('', '', '| head 3', '| tail 2')).map(([q, p]) => (p ? `${q} ${p}` : q)),
    fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
    fc.option(fc.constantFrom(3, 10, 1000), { nil: undefined }),
    fc.option(eqlFilter, { nil: undefined, freq: 3 }),
    fc.option(fc.constantFrom('head', 'tail'), { nil: undefined }),
    fc.option(fc.constantFrom('event.sequence', 'process.pid'), { nil: undefined, freq: 3 }),
    fc.option(fc.constantFrom<unknown>(['process.name', 'host.id'], ['*'], [{ field: '@timestamp', format: 'epoch_millis' }]), { nil: undefined, freq: 3 }),
    fc.option(fc.constantFrom<Record<string, unknown>>({ keep_on_completion: true }, { wait_for_completion_timeout: '0s' }, { wait_for_completion_timeout: '0s', keep_alive: '2m' }), { nil: undefined, freq: 4 }),
  )
  .map(([query, size, fetchSize, filter, pos, tiebreaker, fields, asyncParams]) => {
    const b: Record<string, unknown> = { query };
    if (size !== undefined) b['size'] = size;
    if (fetchSize !== undefined) b['fetch_size'] = fetchSize;
    if (filter !== undefined) b['filter'] = filter;
    if (pos !== undefined) b['result_position'] = pos;
    if (tiebreaker !== undefined) b['tiebreaker_field'] = tiebreaker;
    if (fields !== undefined) b['fields'] = fields;
    return { ...b, ...(asyncParams ?? {}) };
  });
const anyEqlBody = params({
  query: eqlQuery,
  size: fc.oneof(fc.integer({ min: -2, max: 20 }), fc.constantFrom(1.5, 0, 10001, 2 ** 31, 'x', '5')),
  fetch_size: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom(1000, 10000, 10001, -1, 'x')),
  filter: fc.oneof(eqlFilter, goodLeaf, query),
  event_category_field: fc.constantFrom('event.category', 'process.name', 'nope', 'message', '@timestamp', ''),
  timestamp_field: fc.constantFrom('@timestamp', 'process.pid', 'nope', 'host.id', ''),
  tiebreaker_field: fc.constantFrom('event.sequence', 'process.pid', 'nope', 'message', 'host.id'),
  result_position: fc.constantFrom('head', 'tail', 'middle', ''),
  fields: fc.oneof(fc.array(fc.oneof(fc.constantFrom(...EQL_FIELDS, '*', 'rt_host'), fc.record({ field: fc.constantFrom(...EQL_FIELDS, 'x*'), format: fc.constantFrom('epoch_millis', 'yyyy', 'bad format') })), { maxLength: 3 }), anyJson),
  runtime_mappings: eqlRuntimeMappings,
  max_samples_per_key: fc.oneof(fc.integer({ min: -1, max: 4 }), fc.constantFrom(1.5, 'x')),
  wait_for_completion_timeout: fc.constantFrom('0s', '0', '1ms', '10s', '-1', 'x', '5'),
  keep_alive: fc.constantFrom('1m', '2d', '0s', '59s', 'x', '-1'),
  keep_on_completion: fc.oneof(fc.boolean(), fc.constantFrom('true', 'x')),
  allow_partial_search_results: fc.oneof(fc.boolean(), fc.constant('nope')),
  allow_partial_sequence_results: fc.oneof(fc.boolean(), fc.constant(1)),
});

const EQL_URL_PARAMS = ['wait_for_completion_timeout', 'keep_on_completion', 'keep_alive', 'allow_partial_search_results', 'allow_partial_sequence_results', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards', 'ccs_minimize_roundtrips', 'size', 'unknown_param'];
export const eqlRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 4, arbitrary: goodEqlBody.map((body): FuzzRequest => ({ method: 'POST', path: `/${EQL_INDEX}/_eql/search`, body })) },
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        fc.constantFrom('POST', 'POST', 'POST', 'GET'),
        fc.constantFrom(EQL_INDEX, EQL_INDEX, EQL_INDEX, 'fuzz-ev*', `${EQL_INDEX},missing`, 'missing', FIXTURE, '_all', '-x', 'remote:fuzz-events'),
        fc.oneof(goodEqlBody, anyEqlBody, anyEqlBody),
        fc.option(fc.array(fc.tuple(fc.constantFrom(...EQL_URL_PARAMS), paramValue), { minLength: 1, maxLength: 2 }), { nil: [], freq: 3 }),
      )
      // a GET goes without a body (fetch cannot send one): the query is then missing
      .map(([method, target, body, qs]) => ({
        method: method as FuzzRequest['method'],
        path: `/${target}/_eql/search${qs.length ? '?' + qs.map(([k, v]) => `${k}=${encode(String(v))}`).join('&') : ''}`,
        ...(method === 'POST' ? { body } : {}),
      })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('GET /_eql/search/', 'GET /_eql/search/status/', 'DELETE /_eql/search/'), fc.oneof(anyString, fc.constant('FmNJRUZ1YWZCU3dHY1BIOUhaenVSRkEaaXFlZ3h4c1RTWFNocDdnY2FSaERnUTozNDE=')), fc.constantFrom('', '?wait_for_completion_timeout=0s', '?keep_alive=30s', '?keep_alive=x'))
      .map(([mp, id, qs]) => {
        const [method, p] = mp.split(' ');
        return { method: method as FuzzRequest['method'], path: `${p}${encode(id)}${qs}` };
      }),
  },
);
