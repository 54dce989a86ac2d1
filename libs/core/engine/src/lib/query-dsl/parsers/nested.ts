/** nested: a block join from the objects of a nested field to their parent documents */
import { EsError, Errors } from '@strata/core-common';
import { MatchNoDocsQuery } from '../../search/basic-queries.js';
import { BooleanQuery } from '../../search/boolean-query.js';
import { NestedPathQuery, ToParentBlockJoinQuery, type NestedScoreMode } from '../../search/nested/block-join-query.js';
import { parseInnerHits } from '../../search/inner-hits.js';
import { NestedInnerHitsDefinition } from '../../search/nested/nested-inner-hits.js';
import { boolValue, boostOf, requestLevel, checkKeys, isObject, requireObject, withBoost } from '../parse-utils.js';
import type { QueryParser } from '../query-parser.js';

const SCORE_MODES: Record<string, NestedScoreMode> = { avg: 'avg', sum: 'sum', min: 'min', max: 'max', none: 'none' };

/** ES's score_mode values of nested / has_child ("total" is not accepted on the wire) */
export function parseScoreMode(v: unknown): NestedScoreMode {
  const m = typeof v === 'string' ? SCORE_MODES[v] : undefined;
  if (!m) throw requestLevel(Errors.illegalArgument(`No score mode for child query [${String(v)}] found`));
  return m;
}

export const nestedParser: QueryParser = {
  name: 'nested',
  parse(json, ctx) {
    const o = requireObject('nested', json);
    checkKeys('nested', o, ['path', 'query', 'score_mode', 'ignore_unmapped', 'inner_hits']);
    if (typeof o['path'] !== 'string') throw Errors.parsing('[nested] requires \'path\' field');
    if (!isObject(o['query'])) throw Errors.parsing('[nested] requires \'query\' field');
    const path = o['path'];
    const scoreMode = o['score_mode'] === undefined ? 'avg' : parseScoreMode(o['score_mode']);
    const ignoreUnmapped = o['ignore_unmapped'] === undefined ? false : boolValue('nested', 'ignore_unmapped', o['ignore_unmapped']);
    const boost = boostOf('nested', o);
    const mapper = ctx.nestedLookup.get(path);
    if (!mapper) {
      if (ignoreUnmapped || !ctx.index) {
        // the inner query is still checked for syntax errors (request-level); it is never run
        try {
          ctx.withNestedScope(path, () => ctx.parseInnerQuery(o['query']));
        } catch (e) {
          if (e instanceof EsError && (e.type === 'parsing_exception' || e.type === 'x_content_parse_exception')) throw e;
        }
        return new MatchNoDocsQuery(`[nested] unmapped path [${path}]`);
      }
      throw Errors.illegalState(`[nested] failed to find nested object under path [${path}]`);
    }
    // the parents are the documents of the enclosing nested query's path (root documents at the top)
    const parentPath = ctx.nestedScope() ?? null;
    const parseInner = () => ctx.withNestedScope(path, () => ctx.parseInnerQuery(o['query']));
    // inner hits defined inside the query belong to this query's inner hits when it has some
    const { result: inner, innerHits: children } = o['inner_hits'] !== undefined ? ctx.collectInnerHits(parseInner) : { result: parseInner(), innerHits: [] };
    const child = new BooleanQuery([
      { occur: 'must', query: inner },
      { occur: 'filter', query: new NestedPathQuery(path) },
    ]);
    if (o['inner_hits'] !== undefined) {
      const { name, source } = parseInnerHits(o['inner_hits'], path);
      ctx.addInnerHits(new NestedInnerHitsDefinition(name, source, child, path, parentPath, children));
    }
    return withBoost(new ToParentBlockJoinQuery(child, parentPath, scoreMode, path), boost);
  },
};
