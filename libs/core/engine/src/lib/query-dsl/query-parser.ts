/**
 * The Query DSL contract: a QueryParser turns one clause (`{"term": {...}}` → its inner JSON) into a Query
 * for one index. Contributed through ExtensionPoints.QueryParser; core registers its built-ins the same way.
 */
import type { ScriptService } from '@strata/core-common';
import { EsError, Errors } from '@strata/core-common';
import type { Analyzer } from '../analysis/analyzer.js';
import type { IndexMetadata } from '../cluster/metadata.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import type { NestedLookup } from '../mapper/mapping.js';
import type { Query } from '../search/query.js';
import type { InnerHitsDefinition } from '../search/inner-hits.js';
import { requestLevel } from './parse-utils.js';

export interface QueryParseContext {
  /** parses a nested clause object (`{"match": {...}}`) */
  parseInnerQuery(json: unknown): Query;
  /** search-time field type, undefined when unmapped */
  fieldType(name: string): MappedFieldType | undefined;
  /** concrete mapped leaf fields matching a pattern with `*` */
  matchingFieldNames(pattern: string): string[];
  /** the concrete index being searched (undefined when only validating syntax) */
  readonly index: IndexMetadata | undefined;
  readonly indexName: string;
  /** `now` of the request, epoch millis; call markNowUsed() when date math used `now` without rounding */
  nowMillis(): number;
  markNowUsed(): void;
  /** analyzer by name (built-in or from the index settings) */
  analyzer(name: string): Analyzer | undefined;
  /** `index.query.default_field` (default ["*"]) */
  defaultFields(): string[];
  /** queries carrying `_name` (named queries → `matched_queries` of hits); optional */
  readonly namedQueries?: Map<string, Query>;
  /** the nested fields of the index mapping (empty without an index) */
  readonly nestedLookup: NestedLookup;
  /** the path of the enclosing `nested` query while its inner query is parsed (ES NestedScope); undefined at the top */
  nestedScope(): string | undefined;
  /** runs `fn` (parsing an inner query) with `path` as the nested scope */
  withNestedScope<T>(path: string, fn: () => T): T;
  /** the shared script engine (script, script_score, function_score, runtime fields); optional in unit tests */
  readonly scripts?: ScriptService;
  /** registers the inner_hits of a clause (illegal_argument_exception on a duplicate name in the same scope) */
  addInnerHits(def: InnerHitsDefinition): void;
  /** runs `fn` with a fresh inner_hits scope and returns what it registered (inner hits of inner hits) */
  collectInnerHits<T>(fn: () => T): { result: T; innerHits: InnerHitsDefinition[] };
  /** the top-level inner_hits definitions registered so far */
  readonly innerHits: readonly InnerHitsDefinition[];
}

export interface QueryParser {
  readonly name: string;
  /** json: the clause body (the value under the clause name) */
  parse(json: unknown, ctx: QueryParseContext): Query;
}

export class QueryParserRegistry {
  private readonly parsers = new Map<string, QueryParser>();
  /** `indices.query.max_nested_depth`: how deep queries may nest inside queries (parsing is synchronous) */
  maxNestedDepth = 30;
  private depth = 0;

  constructor(parsers: readonly QueryParser[] = []) {
    for (const p of parsers) this.register(p);
  }

  register(p: QueryParser): void {
    if (this.parsers.has(p.name)) throw new Error(`query parser [${p.name}] is already registered`);
    this.parsers.set(p.name, p);
  }

  get(name: string): QueryParser | undefined {
    return this.parsers.get(name);
  }

  names(): string[] {
    return [...this.parsers.keys()];
  }

  /** parses a clause object `{"<name>": {...}}` */
  parse(json: unknown, ctx: QueryParseContext): Query {
    if (this.depth >= this.maxNestedDepth) {
      // Elasticsearch checks it while parsing the request body: a request-level error, not a shard failure
      throw requestLevel(
        Errors.illegalArgument('The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.max_nested_depth]'),
      );
    }
    this.depth++;
    try {
      return this.parseClause(json, ctx);
    } finally {
      this.depth--;
    }
  }

  private parseClause(json: unknown, ctx: QueryParseContext): Query {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
      throw Errors.parsing(`[_na] query malformed, must start with start_object`);
    }
    const entries = Object.entries(json as Record<string, unknown>);
    if (entries.length === 0) throw Errors.parsing('query malformed, empty clause found');
    const [name, body] = entries[0]!;
    const parser = this.parsers.get(name);
    if (!parser) {
      // NamedObjectNotFoundException is not an ElasticsearchException: the root cause is the parsing_exception
      throw new EsError('parsing_exception', 400, `unknown query [${name}]`, {
        metadata: { line: 1, col: 1 },
        cause: new EsError('named_object_not_found_exception', 400, `[1:1] unknown field [${name}]`),
        rootCauses: [new EsError('parsing_exception', 400, `unknown query [${name}]`, { metadata: { line: 1, col: 1 } })],
      });
    }
    if (entries.length > 1) {
      throw Errors.parsing(`[${name}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`);
    }
    const q = parser.parse(body, ctx);
    if (ctx.namedQueries && body !== null && typeof body === 'object' && !Array.isArray(body)) {
      const b = body as Record<string, unknown>;
      let name = typeof b['_name'] === 'string' ? b['_name'] : undefined;
      if (name === undefined) {
        // field-level form: {"term": {"field": {"value": ..., "_name": "x"}}}
        for (const v of Object.values(b)) {
          if (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as Record<string, unknown>)['_name'] === 'string') {
            name = (v as Record<string, unknown>)['_name'] as string;
            break;
          }
        }
      }
      if (name !== undefined) ctx.namedQueries.set(name, q);
    }
    return q;
  }
}
