/**
 * inner_hits (Elasticsearch's InnerHitBuilder / InnerHitsContext): the documents that made a hit match —
 * the nested objects of a nested query, the children of has_child, the parent of has_parent. A query parser
 * registers an InnerHitsDefinition with the parse context; the fetch phase then computes, for each hit, the
 * best `from + size` candidates matching the definition's query and fetches them like search hits.
 */
import { Errors } from '@strata/core-common';
import type { DirectoryReader, LeafReaderContext } from '../index/leaf-reader.js';
import type { Query } from './query.js';
import type { SearchSource } from './spi-search.js';
import { isObject } from '../query-dsl/parse-utils.js';
import { parseSearchSource } from '../action/search/search-source.js';

export interface InnerHitsDefinition {
  /** key in the hit's `inner_hits` (defaults: nested path, has_child type, has_parent parent_type) */
  readonly name: string;
  /** from (0), size (3), sort, _source, highlight, fields, docvalue_fields, version, seq_no_primary_term, explain, track_scores */
  readonly source: SearchSource;
  /** the query inner hits must match; its scores are the inner hits' scores */
  readonly query: Query;
  /**
   * the documents (shard-global ids in `reader`, ascending) among which the inner hits of one hit are found:
   * the hit's nested objects, children or parent
   */
  candidates(reader: DirectoryReader, hit: { leaf: LeafReaderContext; doc: number }): number[];
  /** set for nested inner hits: their `_source` is their object inside the root document, with `_nested` */
  readonly nestedPath?: string;
  /** inner hits defined inside this definition's query (computed for each of its inner hits) */
  readonly children: readonly InnerHitsDefinition[];
}

const KEYS = new Set([
  'name', 'ignore_unmapped', 'from', 'size', 'explain', 'version', 'seq_no_primary_term', 'track_scores', 'stored_fields',
  'docvalue_fields', 'script_fields', 'sort', '_source', 'highlight', 'fields', 'collapse',
]);

/** a parsed `inner_hits` object: its name and its search source (size 3 unless given) */
export function parseInnerHits(json: unknown, defaultName: string): { name: string; source: SearchSource } {
  if (!isObject(json)) throw Errors.xContentParse('[inner_hits] inner_hits must be an object');
  const body: Record<string, unknown> = {};
  let name = defaultName;
  for (const [k, v] of Object.entries(json)) {
    if (!KEYS.has(k)) throw Errors.xContentParse(`[inner_hits] unknown field [${k}]`);
    if (k === 'name') name = String(v);
    else if (k !== 'ignore_unmapped' && k !== 'collapse') body[k] = v;
  }
  const source = parseSearchSource(body);
  if (body['size'] === undefined) source.size = 3;
  return { name, source };
}

/** ES's index.max_inner_result_window check (default 100) */
export function checkInnerResultWindow(def: InnerHitsDefinition, settings: Record<string, unknown>): void {
  const max = Number(settings['index.max_inner_result_window'] ?? 100);
  const s = def.source;
  if (s.from + s.size > max) {
    throw Errors.illegalArgument(
      `Inner result window is too large, the inner hit definition's [${def.name}]'s from + size must be less than or equal to: [${max}] but was [${s.from + s.size}]. This limit can be set by changing the [index.max_inner_result_window] index level setting.`,
    );
  }
}
