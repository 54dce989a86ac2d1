/** REST handlers of the search APIs: _search, _count, _msearch, _field_caps, _validate/query. */
import { inject, injectable } from 'inversify';
import { EsError, Errors, RestResponses, jsonSyntaxErrorAt, indicesOptionsFromParams, indicesOptionsOf, checkIndicesAccess, checkParsedJson, route, toEsError, withExactSearchIntegers, type RestHandler, type RestRequest, type RestResponse, wildcardRegExp } from '@strata/core-common';
import {
  EngineTokens,
  SearchService,
  createParseContext,
  type IndexNameExpressionResolver,
  type IndicesService,
  type MapperService,
  type MappedFieldType,
  type SearchRequest,
  resolveDateMathIndexName,
} from '@strata/core-engine';
import { SEARCH_PARAMS, buildSearchRequest, indicesOf, searchTypeParam } from './search-request-builder.js';

export const SearchActions = {
  SEARCH: 'indices:data/read/search',
  MSEARCH: 'indices:data/read/msearch',
  FIELD_CAPS: 'indices:data/read/field_caps',
  VALIDATE_QUERY: 'indices:admin/validate/query',
  EXPLAIN: 'indices:data/read/explain',
} as const;

/** the JSON body; integers beyond 2^53 in its query and search_after stay exact (as strings of digits) */
function body(req: RestRequest): unknown {
  return req.hasBody() ? withExactSearchIntegers(req.rawBody(), req.jsonBody()) : undefined;
}

@injectable()
export class SearchRestHandler implements RestHandler {
  readonly name = 'search';
  readonly routes = [
    route('GET', '/_search', SearchActions.SEARCH),
    route('POST', '/_search', SearchActions.SEARCH),
    route('GET', '/{index}/_search', SearchActions.SEARCH),
    route('POST', '/{index}/_search', SearchActions.SEARCH),
  ];
  readonly params = SEARCH_PARAMS;

  constructor(@inject(EngineTokens.SearchService) private readonly search: SearchService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const request = buildSearchRequest(req, this.search, body(req));
    const res = await this.search.search(request);
    return RestResponses.ok(res.body);
  }
}

@injectable()
export class CountRestHandler implements RestHandler {
  readonly name = 'count';
  readonly routes = [
    route('GET', '/_count', SearchActions.SEARCH),
    route('POST', '/_count', SearchActions.SEARCH),
    route('GET', '/{index}/_count', SearchActions.SEARCH),
    route('POST', '/{index}/_count', SearchActions.SEARCH),
  ];
  readonly params = [
    'q',
    'df',
    'default_operator',
    'analyzer',
    'analyze_wildcard',
    'lenient',
    'min_score',
    'terminate_after',
    'routing',
    'preference',
    'allow_no_indices',
    'ignore_unavailable',
    'ignore_throttled',
    'expand_wildcards',
  ];

  constructor(@inject(EngineTokens.SearchService) private readonly search: SearchService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const b = body(req);
    let query: unknown;
    if (b !== undefined) {
      if (b === null || typeof b !== 'object' || Array.isArray(b)) throw Errors.parsing('request body is required');
      for (const [k, v] of Object.entries(b as Record<string, unknown>)) {
        if (k !== 'query') throw Errors.parsing(`request does not support [${k}]`);
        query = v;
      }
    }
    const request = buildSearchRequest(req, this.search, query === undefined ? undefined : { query });
    const ms = req.param('min_score');
    if (ms !== undefined) request.source.minScore = Number(ms);
    return RestResponses.ok(await this.search.count(request));
  }
}

const MSEARCH_HEADER_KEYS = new Set([
  'index',
  'indices',
  'search_type',
  'request_cache',
  'preference',
  'routing',
  'allow_partial_search_results',
  'ccs_minimize_roundtrips',
  'expand_wildcards',
  'ignore_unavailable',
  'allow_no_indices',
  'ignore_throttled',
]);

@injectable()
export class MultiSearchRestHandler implements RestHandler {
  readonly name = 'msearch';
  readonly routes = [
    route('GET', '/_msearch', SearchActions.MSEARCH),
    route('POST', '/_msearch', SearchActions.MSEARCH),
    route('GET', '/{index}/_msearch', SearchActions.MSEARCH),
    route('POST', '/{index}/_msearch', SearchActions.MSEARCH),
  ];
  readonly params = [
    'search_type',
    'max_concurrent_searches',
    'max_concurrent_shard_requests',
    'pre_filter_shard_size',
    'typed_keys',
    'rest_total_hits_as_int',
    'ccs_minimize_roundtrips',
    'allow_no_indices',
    'ignore_unavailable',
    'ignore_throttled',
    'expand_wildcards',
    'routing',
  ];

  constructor(@inject(EngineTokens.SearchService) private readonly search: SearchService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const start = process.hrtime.bigint();
    const raw = req.hasBody() ? req.rawBody() : '';
    if (raw.length > 0 && !raw.endsWith('\n')) throw Errors.illegalArgument('The msearch request must be terminated by a newline [\\n]');
    const lines = req.ndjsonLines();
    if (lines.length === 0) throw Errors.actionRequestValidation(['no requests added']);
    for (let i = 0; i < lines.length; i += 2) {
      let h: unknown;
      try {
        h = JSON.parse(lines[i]!);
      } catch {
        continue;
      }
      if (h && typeof h === 'object' && !Array.isArray(h)) {
        for (const k of Object.keys(h)) {
          if (!MSEARCH_HEADER_KEYS.has(k)) throw Errors.illegalArgument(`key [${k}] is not supported in the metadata section`);
        }
      }
    }
    const defaultIndices = indicesOf(req);
    const responses: unknown[] = [];
    // lines that are not UTF-8: a header fails the request, a body its search (as a line Jackson cannot read)
    const notUtf8 = req.invalidUtf8Lines?.();
    for (let i = 0; i < lines.length; i += 2) {
      const badHeaderBytes = notUtf8?.get(i);
      if (badHeaderBytes) throw jsonSyntaxErrorAt({ line: 1, col: badHeaderBytes.col }, badHeaderBytes.message);
      let header: Record<string, unknown>;
      try {
        header = JSON.parse(lines[i]!) as Record<string, unknown>;
      } catch (e) {
        throw Errors.xContentParse(`Failed to parse header line: ${(e as Error).message}`);
      }
      const badHeader = checkParsedJson(lines[i]!, header);
      if (badHeader) throw Errors.xContentParse(badHeader.message, 1, badHeader.offset + 1);
      if (header === null || typeof header !== 'object' || Array.isArray(header)) throw Errors.illegalArgument('msearch header must be an object');
      const bodyLine = lines[i + 1];
      if (bodyLine === undefined) throw Errors.illegalArgument('The msearch request must be terminated by a newline [\\n]');
      try {
        const badBodyBytes = notUtf8?.get(i + 1);
        if (badBodyBytes) throw jsonSyntaxErrorAt({ line: 1, col: badBodyBytes.col }, badBodyBytes.message);
        let b: unknown;
        try {
          b = JSON.parse(bodyLine);
        } catch (e) {
          throw Errors.xContentParse(`Unexpected character: ${(e as Error).message}`);
        }
        const bad = checkParsedJson(bodyLine, b);
        if (bad) throw Errors.xContentParse(bad.message, 1, bad.offset + 1);
        b = withExactSearchIntegers(bodyLine, b);
        const request = this.itemRequest(req, header, b, defaultIndices, bodyLine);
        // each search of an msearch is authorized on its own, as Elasticsearch does
        checkIndicesAccess(SearchActions.SEARCH, request.indices, (n) => resolveDateMathIndexName(n, Date.now()));
        const res = await this.search.search(request);
        responses.push({ ...res.body, status: 200 });
      } catch (e) {
        const err = toEsError(e);
        responses.push({ error: err.toBody().error, status: err.status });
      }
    }
    return RestResponses.ok({ took: Number((process.hrtime.bigint() - start) / 1000000n), responses });
  }

  private itemRequest(req: RestRequest, header: Record<string, unknown>, b: unknown, defaultIndices: string[] | undefined, raw: string): SearchRequest {
    const source = this.search.parseSource(b);
    const idx = header['index'] ?? header['indices'];
    const indices = idx === undefined ? defaultIndices : Array.isArray(idx) ? idx.map(String) : String(idx).split(',');
    const bool = (v: unknown, d: boolean) => (v === undefined ? d : v === true || v === 'true');
    const request: SearchRequest = {
      // header options over the URL's (IndicesOptions.fromMap with the request's as defaults)
      indicesOptions: indicesOptionsFromParams((n) => header[n], indicesOptionsOf(req)),
      source,
      searchType: searchTypeParam((header['search_type'] as string | undefined) ?? req.param('search_type')),
      typedKeys: req.boolParam('typed_keys', false),
      restTotalHitsAsInt: req.boolParam('rest_total_hits_as_int', false),
      allowPartialSearchResults: bool(header['allow_partial_search_results'], true),
      rawBody: raw,
      attributes: {},
    };
    if (req.principal) request.principal = req.principal;
    if (request.restTotalHitsAsInt && source.trackTotalHitsUpTo === 10000) source.trackTotalHitsUpTo = 2147483647;
    if (indices !== undefined) request.indices = indices;
    if (header['request_cache'] !== undefined) request.requestCache = bool(header['request_cache'], true);
    if (header['routing'] !== undefined) request.routing = String(header['routing']).split(',');
    if (header['preference'] !== undefined) request.preference = String(header['preference']);
    return request;
  }
}

const METADATA_FIELDS: Record<string, { searchable: boolean; aggregatable: boolean }> = {
  _id: { searchable: true, aggregatable: false },
  _ignored: { searchable: true, aggregatable: false },
  _index: { searchable: true, aggregatable: true },
  _seq_no: { searchable: true, aggregatable: true },
  _source: { searchable: false, aggregatable: false },
  _version: { searchable: false, aggregatable: true },
  _field_names: { searchable: true, aggregatable: false },
};

function wildcardMatch(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  return wildcardRegExp(pattern).test(name);
}

@injectable()
export class FieldCapsRestHandler implements RestHandler {
  readonly name = 'field_caps';
  readonly routes = [
    route('GET', '/_field_caps', SearchActions.FIELD_CAPS),
    route('POST', '/_field_caps', SearchActions.FIELD_CAPS),
    route('GET', '/{index}/_field_caps', SearchActions.FIELD_CAPS),
    route('POST', '/{index}/_field_caps', SearchActions.FIELD_CAPS),
  ];
  readonly params = ['fields', 'allow_no_indices', 'ignore_unavailable', 'expand_wildcards', 'include_unmapped', 'filters', 'types', 'include_empty_fields'];

  constructor(
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.IndicesService) private readonly indices: IndicesService,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
    @inject(EngineTokens.SearchService) private readonly search: SearchService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const b = body(req) as Record<string, unknown> | undefined;
    if (b !== undefined && (b === null || typeof b !== 'object' || Array.isArray(b))) throw Errors.parsing('request body must be an object');
    if (b) for (const k of Object.keys(b)) if (!['fields', 'index_filter', 'runtime_mappings'].includes(k)) throw Errors.parsing(`request does not support [${k}]`);
    let fields = req.listParam('fields');
    if (!fields && b && b['fields'] !== undefined) fields = Array.isArray(b['fields']) ? b['fields'].map(String) : String(b['fields']).split(',');
    if (!fields || fields.length === 0) throw Errors.actionRequestValidation(['no fields specified']);
    const typesFilter = req.listParam('types');
    const includeUnmapped = req.boolParam('include_unmapped', false);
    let concrete = [...new Set(this.resolver.concreteIndices(indicesOf(req), indicesOptionsOf(req), 'read'))].sort();
    if (b && b['index_filter'] !== undefined) {
      // indices where the filter cannot match any document are dropped (the can-match phase of Elasticsearch)
      const kept: string[] = [];
      for (const index of concrete) {
        const res = await this.search.count({
          indices: [index],
          indicesOptions: { ignoreUnavailable: true, allowNoIndices: true, expandWildcards: { open: true, closed: false, hidden: true } },
          source: { ...this.search.parseSource({ query: b['index_filter'] }), terminateAfter: 1 },
          searchType: 'query_then_fetch',
          typedKeys: false,
          restTotalHitsAsInt: false,
          allowPartialSearchResults: true,
          attributes: {},
        });
        if ((res['count'] as number) > 0) kept.push(index);
      }
      concrete = kept;
    }
    // field -> type -> caps + indices
    const caps = new Map<string, Map<string, { searchable: boolean; aggregatable: boolean; metadata: boolean; indices: string[] }>>();
    const add = (name: string, type: string, searchable: boolean, aggregatable: boolean, metadata: boolean, index: string) => {
      let byType = caps.get(name);
      if (!byType) caps.set(name, (byType = new Map()));
      let c = byType.get(type);
      if (!c) byType.set(type, (c = { searchable, aggregatable, metadata, indices: [] }));
      c.searchable &&= searchable;
      c.aggregatable &&= aggregatable;
      c.indices.push(index);
    };
    const seenPerIndex = new Map<string, Set<string>>();
    for (const index of concrete) {
      const meta = this.indices.indexMetadata(index);
      const seen = new Set<string>();
      seenPerIndex.set(index, seen);
      const names = new Set<string>();
      for (const f of fields) for (const n of this.mappers.matchingFieldNames(meta, f.includes('*') ? f : f)) names.add(n);
      for (const f of fields) if (!f.includes('*') && this.mappers.fieldType(meta, f)) names.add(f);
      const leafTypes = new Map<string, MappedFieldType>();
      for (const n of this.mappers.matchingFieldNames(meta, '*')) {
        const ft = this.mappers.fieldType(meta, n);
        if (ft) leafTypes.set(n, ft);
      }
      // object parents of leaf fields
      for (const n of leafTypes.keys()) {
        const parts = n.split('.');
        for (let i = 1; i < parts.length; i++) {
          const parent = parts.slice(0, i).join('.');
          if (leafTypes.has(parent)) break; // multi-field of a leaf
          if (fields.some((f) => wildcardMatch(f, parent))) names.add(parent);
        }
      }
      for (const n of names) {
        const ft = leafTypes.get(n) ?? this.mappers.fieldType(meta, n);
        if (ft) {
          if (ft.type === 'alias') continue;
          const type = ft.type === 'object' || ft.type === 'nested' ? ft.type : ft.type;
          const searchable = ft.type === 'object' || ft.type === 'nested' ? false : ft.searchable;
          const aggregatable = ft.type === 'object' || ft.type === 'nested' ? false : ft.hasDocValues || ft.kind === 'keyword';
          add(n, type, searchable, aggregatable, n.startsWith('_'), index);
        } else if (!leafTypes.has(n)) {
          add(n, 'object', false, false, false, index);
        }
        seen.add(n);
      }
      for (const [m, c] of Object.entries(METADATA_FIELDS)) {
        if (fields.some((f) => (f === '*' ? true : f === m || (f.includes('*') && f.startsWith('_') && wildcardMatch(f, m))))) {
          add(m, m, c.searchable, c.aggregatable, true, index);
          seen.add(m);
        }
      }
    }
    const out: Record<string, Record<string, unknown>> = {};
    for (const name of [...caps.keys()].sort()) {
      const byType = caps.get(name)!;
      const entry: Record<string, unknown> = {};
      for (const [type, c] of byType) {
        if (typesFilter && !typesFilter.includes(type)) continue;
        const e: Record<string, unknown> = { type, metadata_field: c.metadata, searchable: c.searchable, aggregatable: c.aggregatable };
        if (byType.size > 1 || (includeUnmapped && c.indices.length < concrete.length)) e['indices'] = c.indices;
        entry[type] = e;
      }
      if (includeUnmapped) {
        const missing = concrete.filter((i) => !seenPerIndex.get(i)!.has(name));
        if (missing.length) entry['unmapped'] = { type: 'unmapped', metadata_field: false, searchable: false, aggregatable: false, indices: missing };
      }
      if (Object.keys(entry).length) out[name] = entry;
    }
    return RestResponses.ok({ indices: concrete, fields: out });
  }
}

@injectable()
export class ValidateQueryRestHandler implements RestHandler {
  readonly name = 'validate_query';
  readonly routes = [
    route('GET', '/_validate/query', SearchActions.VALIDATE_QUERY),
    route('POST', '/_validate/query', SearchActions.VALIDATE_QUERY),
    route('GET', '/{index}/_validate/query', SearchActions.VALIDATE_QUERY),
    route('POST', '/{index}/_validate/query', SearchActions.VALIDATE_QUERY),
  ];
  readonly params = ['explain', 'rewrite', 'all_shards', 'q', 'df', 'default_operator', 'analyzer', 'analyze_wildcard', 'lenient', 'allow_no_indices', 'ignore_unavailable', 'expand_wildcards'];

  constructor(
    @inject(EngineTokens.SearchService) private readonly search: SearchService,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.IndicesService) private readonly indices: IndicesService,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
  ) {}

  handle(req: RestRequest): RestResponse {
    const b = body(req) as Record<string, unknown> | undefined;
    const explain = req.boolParam('explain', false);
    let query: unknown = b?.['query'];
    if (b) for (const k of Object.keys(b)) if (k !== 'query') throw Errors.parsing(`request does not support [${k}]`);
    const q = req.param('q');
    if (q !== undefined) {
      const qs: Record<string, unknown> = { query: q };
      if (req.param('df') !== undefined) qs['default_field'] = req.param('df');
      if (req.param('default_operator') !== undefined) qs['default_operator'] = req.param('default_operator');
      query = { query_string: qs };
    }
    const concrete = [...new Set(this.resolver.concreteIndices(indicesOf(req), indicesOptionsOf(req), 'read'))].sort();
    let valid = true;
    const explanations: Array<Record<string, unknown>> = [];
    let firstError: string | undefined;
    for (const index of concrete) {
      const meta = this.indices.indexMetadata(index);
      const ctx = createParseContext({
        registry: this.search.registry,
        index: meta,
        fieldType: (i, n) => this.mappers.fieldType(i, n),
        matchingFieldNames: (i, p) => this.mappers.matchingFieldNames(i, p),
        nowMillis: Date.now(),
      });
      try {
        const parsed = query === undefined ? undefined : ctx.parseInnerQuery(query);
        explanations.push({ index, valid: true, explanation: parsed ? parsed.toString() : '*:*' });
      } catch (e) {
        const err = e instanceof EsError ? e : toEsError(e);
        if (err.type === 'parsing_exception' && !explain) throw err;
        valid = false;
        const msg = `[${index}/${meta.uuid}] ${err.type === 'query_shard_exception' ? 'QueryShardException' : 'ParsingException'}[${err.reason}]`;
        firstError ??= msg;
        explanations.push({ index, valid: false, error: msg });
      }
    }
    const out: Record<string, unknown> = { _shards: { total: concrete.length, successful: concrete.length, failed: 0 }, valid };
    if (explain) out['explanations'] = explanations;
    else if (!valid && firstError) out['error'] = firstError;
    return RestResponses.ok(out);
  }
}

@injectable()
export class ExplainRestHandler implements RestHandler {
  readonly name = 'explain';
  readonly routes = [route('GET', '/{index}/_explain/{id}', SearchActions.EXPLAIN), route('POST', '/{index}/_explain/{id}', SearchActions.EXPLAIN)];
  readonly params = ['q', 'df', 'default_operator', 'analyzer', 'analyze_wildcard', 'lenient', 'routing', 'preference', 'stored_fields', '_source', '_source_includes', '_source_excludes'];

  constructor(@inject(EngineTokens.SearchService) private readonly search: SearchService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const b = body(req);
    let query: unknown;
    if (b !== undefined) {
      if (b === null || typeof b !== 'object' || Array.isArray(b)) throw Errors.parsing('request body or source parameter is required');
      for (const [k, v] of Object.entries(b as Record<string, unknown>)) {
        if (k !== 'query') throw Errors.parsing(`request does not support [${k}]`);
        query = v;
      }
    }
    const q = req.param('q');
    if (q !== undefined) {
      const qs: Record<string, unknown> = { query: q };
      if (req.param('df') !== undefined) qs['default_field'] = req.param('df');
      if (req.param('default_operator') !== undefined) qs['default_operator'] = req.param('default_operator');
      if (req.param('analyzer') !== undefined) qs['analyzer'] = req.param('analyzer');
      query = { query_string: qs };
    }
    if (query === undefined) throw Errors.actionRequestValidation(['query is missing']);
    const routing = req.param('routing');
    const res = await this.search.explain(req.pathParam('index'), req.pathParam('id'), query, routing !== undefined ? { routing } : {});
    return RestResponses.json(res.status, res.body);
  }
}

void searchTypeParam;
