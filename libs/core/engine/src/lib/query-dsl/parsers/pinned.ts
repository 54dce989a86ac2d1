/** pinned: the given ids first (in order), then the organic query (scores capped below the pinned ones) */
import { Errors } from '@strata/core-common';
import { BoostQuery, CappedScoreQuery, ConstantScoreQuery, DisjunctionMaxQuery } from '../../search/basic-queries.js';
import { TermInSetQuery } from '../../search/multi-term-query.js';
import type { Query } from '../../search/query.js';
import { boostOf, checkKeys, isObject, requireObject, withBoost } from '../parse-utils.js';
import type { QueryParser } from '../query-parser.js';

const buf = new DataView(new ArrayBuffer(4));
function intBitsToFloat(i: number): number {
  buf.setInt32(0, i);
  return buf.getFloat32(0);
}
/** Elasticsearch's PinnedQueryBuilder.MAX_ORGANIC_SCORE */
export const MAX_ORGANIC_SCORE = Math.fround(intBitsToFloat(0xfe << 23) - 1);
const MAX_ORGANIC_BITS = (() => {
  buf.setFloat32(0, MAX_ORGANIC_SCORE);
  return buf.getInt32(0);
})();

export const pinnedParser: QueryParser = {
  name: 'pinned',
  parse(json, ctx) {
    const o = requireObject('pinned', json);
    checkKeys('pinned', o, ['ids', 'docs', 'organic']);
    if (!isObject(o['organic'])) throw Errors.parsing('[pinned] requires [organic]');
    let ids: string[];
    if (Array.isArray(o['ids'])) ids = o['ids'].map(String);
    else if (Array.isArray(o['docs'])) {
      ids = o['docs']
        .filter((d) => isObject(d) && (d['_index'] === undefined || d['_index'] === ctx.indexName))
        .map((d) => String((d as Record<string, unknown>)['_id']));
    } else throw Errors.illegalArgument('[pinned] Either ids or docs must be provided');
    if (ids.length > 100) throw Errors.illegalArgument('[pinned] Max of 100 ids/docs exceeded: ' + ids.length + ' provided.');
    const organic = ctx.parseInnerQuery(o['organic']);
    const clauses: Query[] = [];
    let pin = MAX_ORGANIC_BITS + 1 + ids.length;
    for (const id of [...new Set(ids)]) {
      clauses.push(new BoostQuery(new ConstantScoreQuery(new TermInSetQuery('_id', [id])), intBitsToFloat(pin)));
      pin--;
    }
    clauses.push(new CappedScoreQuery(organic, MAX_ORGANIC_SCORE));
    return withBoost(new DisjunctionMaxQuery(clauses, 0), boostOf('pinned', o));
  },
};
