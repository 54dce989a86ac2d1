/**
 * has_child, has_parent and parent_id, contributed through ExtensionPoints.QueryParser: usable wherever a
 * query clause is (bool, constant_score, function_score, EQL filter, alias filters, the request cache key).
 */
import { Errors } from '@strata/core-common';
import {
  BooleanQuery,
  MatchNoDocsQuery,
  TermQuery,
  parseInnerHits,
  requestLevel,
  withBoost,
  type Query,
  type QueryParseContext,
  type QueryParser,
} from '@strata/core-engine';
import { Joiner } from './joiner.js';
import { HasChildQuery, HasParentQuery, type ChildScoreMode } from './join-queries.js';
import { ParentChildInnerHits } from './join-inner-hits.js';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function body(name: string, json: unknown): Json {
  if (!isObject(json)) throw Errors.parsing(`[${name}] query malformed, no start_object after query name`);
  return json;
}

function checkKeys(name: string, o: Json, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) throw Errors.parsing(`[${name}] query does not support [${k}]`);
}

function bool(name: string, key: string, v: unknown): boolean {
  if (v === undefined) return false;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw Errors.parsing(`[${name}] failed to parse field [${key}]`);
}

function num(name: string, key: string, v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (Number.isNaN(n)) throw Errors.parsing(`[${name}] failed to parse field [${key}]`);
  return n;
}

const SCORE_MODES: Record<string, ChildScoreMode> = { none: 'none', avg: 'avg', sum: 'sum', min: 'min', max: 'max' };

/** the inner query restricted to one relation (ES Queries.filtered(query, joiner.filter(type))) */
function filtered(inner: Query, joiner: Joiner, relations: readonly string[]): Query {
  const filter: Query = relations.length === 1 ? new TermQuery(joiner.field, relations[0]!) : new BooleanQuery(relations.map((r) => ({ occur: 'should' as const, query: new TermQuery(joiner.field, r) })));
  return new BooleanQuery([
    { occur: 'must', query: inner },
    { occur: 'filter', query: filter },
  ]);
}

/** the join field, or the ES error (none configured) / match-nothing with ignore_unmapped */
function joinerOrFail(name: string, ctx: QueryParseContext, ignoreUnmapped: boolean): Joiner | null {
  const joiner = ctx.index ? Joiner.fromContext(ctx) : undefined;
  if (!joiner) {
    if (ignoreUnmapped || !ctx.index) return null;
    throw Errors.queryShard(`[${name}] no join field has been configured`, ctx.indexName, undefined, ctx.index?.uuid);
  }
  return joiner;
}

export const hasChildQueryParser: QueryParser = {
  name: 'has_child',
  parse(json, ctx) {
    const o = body('has_child', json);
    checkKeys('has_child', o, ['type', 'query', 'score_mode', 'min_children', 'max_children', 'ignore_unmapped', 'inner_hits', 'boost', '_name']);
    if (o['query'] !== undefined && !isObject(o['query'])) throw Errors.parsing('[has_child] query does not support [query]');
    if (o['type'] === undefined) throw requestLevel(Errors.illegalArgument("[has_child] requires 'type' field"));
    if (o['query'] === undefined) throw requestLevel(Errors.illegalArgument("[has_child] requires 'query' field"));
    const type = String(o['type']);
    const mode = o['score_mode'] === undefined ? 'none' : SCORE_MODES[String(o['score_mode'])];
    if (!mode) throw requestLevel(Errors.illegalArgument(`No score mode for child query [${String(o['score_mode'])}] found`));
    const min = o['min_children'] === undefined ? 1 : Math.trunc(num('has_child', 'min_children', o['min_children']));
    const max = o['max_children'] === undefined ? 2147483647 : Math.trunc(num('has_child', 'max_children', o['max_children']));
    if (min < 0) throw requestLevel(Errors.illegalArgument("[has_child] requires non-negative 'min_children' field"));
    if (max < 0) throw requestLevel(Errors.illegalArgument("[has_child] requires non-negative 'max_children' field"));
    if (max < min) throw requestLevel(Errors.illegalArgument("[has_child] 'max_children' is less than 'min_children'"));
    const ignoreUnmapped = bool('has_child', 'ignore_unmapped', o['ignore_unmapped']);
    const boost = o['boost'] === undefined ? 1 : num('has_child', 'boost', o['boost']);
    const ih = o['inner_hits'] === undefined ? undefined : parseInnerHits(o['inner_hits'], type);
    const joiner = joinerOrFail('has_child', ctx, ignoreUnmapped);
    const { result: inner, innerHits: children } = ctx.collectInnerHits(() => ctx.parseInnerQuery(o['query']));
    if (!joiner) return new MatchNoDocsQuery('[has_child] no join field');
    if (!joiner.childTypeExists(type)) {
      if (ignoreUnmapped) return new MatchNoDocsQuery(`[has_child] unknown child type [${type}]`);
      throw Errors.queryShard(`[has_child] join field [${joiner.field}] doesn't hold [${type}] as a child`, ctx.indexName, undefined, ctx.index?.uuid);
    }
    const childQuery = filtered(inner, joiner, [type]);
    const parentType = joiner.parentOf(type);
    if (ih) ctx.addInnerHits(new ParentChildInnerHits(ih.name, ih.source, childQuery, joiner, 'children', type, parentType, children));
    return withBoost(new HasChildQuery(childQuery, joiner.field, parentType, mode, min, max), boost);
  },
};

export const hasParentQueryParser: QueryParser = {
  name: 'has_parent',
  parse(json, ctx) {
    const o = body('has_parent', json);
    checkKeys('has_parent', o, ['parent_type', 'query', 'score', 'ignore_unmapped', 'inner_hits', 'boost', '_name']);
    if (o['query'] !== undefined && !isObject(o['query'])) throw Errors.parsing('[has_parent] query does not support [query]');
    if (o['parent_type'] === undefined) throw requestLevel(Errors.illegalArgument("[has_parent] requires 'parent_type' field"));
    if (o['query'] === undefined) throw requestLevel(Errors.illegalArgument("[has_parent] requires 'query' field"));
    const type = String(o['parent_type']);
    const score = bool('has_parent', 'score', o['score']);
    const ignoreUnmapped = bool('has_parent', 'ignore_unmapped', o['ignore_unmapped']);
    const boost = o['boost'] === undefined ? 1 : num('has_parent', 'boost', o['boost']);
    const ih = o['inner_hits'] === undefined ? undefined : parseInnerHits(o['inner_hits'], type);
    const joiner = joinerOrFail('has_parent', ctx, ignoreUnmapped);
    const { result: inner, innerHits: children } = ctx.collectInnerHits(() => ctx.parseInnerQuery(o['query']));
    if (!joiner) return new MatchNoDocsQuery('[has_parent] no join field');
    if (!joiner.parentTypeExists(type)) {
      if (ignoreUnmapped) return new MatchNoDocsQuery(`[has_parent] unknown parent type [${type}]`);
      throw Errors.queryShard(`[has_parent] join field [${joiner.field}] doesn't hold [${type}] as a parent`, ctx.indexName, undefined, ctx.index?.uuid);
    }
    const parentQuery = filtered(inner, joiner, [type]);
    const childTypes = joiner.childrenOf(type);
    if (ih) ctx.addInnerHits(new ParentChildInnerHits(ih.name, ih.source, parentQuery, joiner, 'parent', type, type, children));
    return withBoost(new HasParentQuery(parentQuery, joiner.field, type, childTypes, score), boost);
  },
};

export const parentIdQueryParser: QueryParser = {
  name: 'parent_id',
  parse(json, ctx) {
    const o = body('parent_id', json);
    checkKeys('parent_id', o, ['type', 'id', 'ignore_unmapped', 'boost', '_name']);
    if (o['type'] === undefined) throw requestLevel(Errors.illegalArgument("[parent_id] requires 'type' field"));
    if (o['id'] === undefined) throw requestLevel(Errors.illegalArgument("[parent_id] requires 'id' field"));
    const type = String(o['type']);
    const id = String(o['id']);
    const ignoreUnmapped = bool('parent_id', 'ignore_unmapped', o['ignore_unmapped']);
    const boost = o['boost'] === undefined ? 1 : num('parent_id', 'boost', o['boost']);
    const joiner = joinerOrFail('parent_id', ctx, ignoreUnmapped);
    if (!joiner) return new MatchNoDocsQuery('[parent_id] no join field');
    if (!joiner.childTypeExists(type)) {
      if (ignoreUnmapped) return new MatchNoDocsQuery(`[parent_id] unknown child type [${type}]`);
      throw Errors.queryShard(`[parent_id] join field [${joiner.field}] doesn't hold [${type}] as a child`, ctx.indexName, undefined, ctx.index?.uuid);
    }
    // ES ParentIdQueryBuilder: the parent id term scores, the relation filters
    const q = new BooleanQuery([
      { occur: 'must', query: new TermQuery(joiner.parentJoinField(type), id) },
      { occur: 'filter', query: new TermQuery(joiner.field, type) },
    ]);
    return withBoost(q, boost);
  },
};
