/**
 * The differential oracle with parent/child documents: core's oracle (random mappings, shards, writes and
 * searches) plus a join field, and join kinds evaluated naively from the model — has_child, has_parent,
 * parent_id queries and children / parent aggregations. Scores are compared too whenever every hit's score is
 * modelled: the join kinds' inner queries are often sums of `constant_score` clauses with different boosts, so
 * has_child's score modes (Lucene float sums, avg = sum / count) and has_parent's `score` are checked exactly.
 * Short seeded run in npm test; JOIN_ORACLE_RUNS / JOIN_ORACLE_SEED for longer runs.
 */
import fc from 'fast-check';
import {
  JOIN_CHILD,
  JOIN_PARENT,
  JOIN_PARENTS,
  createTestHost,
  isParentDoc,
  parentIdOf,
  runOracle,
  type AggKind,
  type Corpus,
  type EvalContext,
  type GenContext,
  type Json,
  type ModelDoc,
  type QueryKind,
  type TestHost,
} from '@strata/core-testing';
import { joinQueriesFeature } from './join-queries.module.js';

function childrenOf(parent: ModelDoc, ctx: EvalContext): ModelDoc[] {
  return ctx.corpus.filter((d) => parentIdOf(d) === parent.id);
}

function parentOf(child: ModelDoc, ctx: EvalContext): ModelDoc | undefined {
  const pid = parentIdOf(child);
  return pid === undefined ? undefined : ctx.corpus.find((d) => d.id === pid && isParentDoc(d));
}

const parentIds = fc.integer({ min: 0, max: JOIN_PARENTS }).map(String);

type ScoreMode = 'none' | 'avg' | 'sum' | 'min' | 'max';

/**
 * An inner query for a join: any registered query, or (half the time) a disjunction of `constant_score`
 * clauses with different boosts, whose score (the sum of the matching clauses' boosts) varies per document
 * and is modelled, so the join's score arithmetic is compared.
 */
function innerQuery(ctx: GenContext, depth: number): fc.Arbitrary<Json> {
  return fc.oneof(ctx.query(depth - 1), scoredQuery(ctx));
}

/** 1–3 `constant_score` clauses (any leaf query, or a broad one) with different boosts, as bool should */
function scoredQuery(ctx: GenContext): fc.Arbitrary<Json> {
  const broad = fc.constantFrom<Json>(...ctx.mapping.fields.filter((f) => !f.nested).map((f) => ({ exists: { field: f.name } })), { match_all: {} });
  return fc
    .array(fc.record({ filter: fc.oneof(ctx.query(0), broad), boost: fc.constantFrom(0.5, 1, 1.5, 2, 3.25) }), { minLength: 1, maxLength: 3 })
    .map((clauses) => ({ bool: { should: clauses.map((c) => ({ constant_score: c })) } }));
}

/** the focus of the run: has_child (every score mode) and has_parent (score true / false) over scored inner queries */
function joinFocus(ctx: GenContext): fc.Arbitrary<Json> | null {
  if (!ctx.mapping.join) return null;
  const hc = fc
    .record(
      {
        type: fc.constant(JOIN_CHILD),
        query: scoredQuery(ctx),
        score_mode: fc.constantFrom('none', 'avg', 'sum', 'min', 'max'),
        min_children: fc.integer({ min: 1, max: 2 }),
        max_children: fc.integer({ min: 2, max: 5 }),
        boost: boostArb,
      },
      { requiredKeys: ['type', 'query', 'score_mode'] },
    )
    .map((b) => ({ has_child: b }));
  const hp = fc
    .record({ parent_type: fc.constant(JOIN_PARENT), query: scoredQuery(ctx), score: fc.boolean(), boost: boostArb }, { requiredKeys: ['parent_type', 'query', 'score'] })
    .map((b) => ({ has_parent: b }));
  return fc.oneof(hc, hp, ctx.query(2).chain((q) => hc.map((j) => ({ bool: { must: [j], should: [q] } }))));
}

const boostArb = fc.option(fc.constantFrom(0.5, 2, 3), { nil: undefined });

/** the join's score arithmetic as Lucene's join collectors do it (float32 sums, avg = sum / count) */
function childScore(mode: ScoreMode, scores: number[]): number {
  const f = Math.fround;
  if (mode === 'none') return 1;
  if (mode === 'max') return Math.max(...scores);
  if (mode === 'min') return Math.min(...scores);
  let sum = 0;
  for (const s of scores) sum = f(sum + f(s));
  return mode === 'avg' ? f(sum / scores.length) : sum;
}

const hasChild: QueryKind = {
  names: ['has_child'],
  arbitrary(ctx, depth) {
    if (!ctx.mapping.join || depth < 1) return null;
    return fc
      .record(
        {
          type: fc.constant(JOIN_CHILD),
          query: innerQuery(ctx, depth),
          score_mode: fc.constantFrom('none', 'avg', 'sum', 'min', 'max'),
          min_children: fc.integer({ min: 1, max: 3 }),
          max_children: fc.integer({ min: 3, max: 5 }),
          boost: boostArb,
        },
        { requiredKeys: ['type', 'query'] },
      )
      .map((b) => ({ has_child: b }));
  },
  matches(_n, body, doc, ctx) {
    const b = body as Json;
    if (!isParentDoc(doc)) return false;
    const n = childrenOf(doc, ctx).filter((c) => ctx.matches(b['query'] as Json, c)).length;
    return n >= Number(b['min_children'] ?? 1) && n <= Number(b['max_children'] ?? 2147483647);
  },
  score(_n, body, doc, ctx) {
    const b = body as Json;
    const mode = (b['score_mode'] ?? 'none') as ScoreMode;
    const boost = Number(b['boost'] ?? 1);
    if (mode === 'none') return boost;
    const scores: number[] = [];
    for (const c of childrenOf(doc, ctx)) {
      if (!ctx.matches(b['query'] as Json, c)) continue;
      const s = ctx.score(b['query'] as Json, c);
      if (s === undefined) return undefined;
      scores.push(s);
    }
    return childScore(mode, scores) * boost;
  },
};

const hasParent: QueryKind = {
  names: ['has_parent'],
  arbitrary(ctx, depth) {
    if (!ctx.mapping.join || depth < 1) return null;
    return fc
      .record({ parent_type: fc.constant(JOIN_PARENT), query: innerQuery(ctx, depth), score: fc.boolean(), boost: boostArb }, { requiredKeys: ['parent_type', 'query'] })
      .map((b) => ({ has_parent: b }));
  },
  matches(_n, body, doc, ctx) {
    const p = parentOf(doc, ctx);
    return p !== undefined && ctx.matches((body as Json)['query'] as Json, p);
  },
  score(_n, body, doc, ctx) {
    // score false: the query's boost; true: the parent's score times the boost
    const b = body as Json;
    const boost = Number(b['boost'] ?? 1);
    if (b['score'] !== true) return boost;
    const s = ctx.score(b['query'] as Json, parentOf(doc, ctx)!);
    return s === undefined ? undefined : s * boost;
  },
};

const parentId: QueryKind = {
  names: ['parent_id'],
  arbitrary(ctx) {
    if (!ctx.mapping.join) return null;
    return parentIds.map((id) => ({ parent_id: { type: JOIN_CHILD, id } }));
  },
  matches(_n, body, doc) {
    return parentIdOf(doc) === String((body as Json)['id']);
  },
};

/** children of the bucket's parents / distinct parents of the bucket's children */
const joinAggs: AggKind = {
  names: ['children', 'parent'],
  arbitrary(ctx, depth) {
    if (!ctx.mapping.join || depth < 1) return null;
    return fc
      .record({ type: fc.constantFrom('children', 'parent'), subs: ctx.subAggs(depth - 1) })
      .map(({ type, subs }) => (subs ? { [type]: { type: JOIN_CHILD }, aggs: subs } : { [type]: { type: JOIN_CHILD } }));
  },
  evaluate(type, _body, subs, docs, ctx) {
    let joined: ModelDoc[];
    if (type === 'children') joined = docs.filter(isParentDoc).flatMap((p) => childrenOf(p, ctx));
    else {
      const seen = new Set<ModelDoc>();
      joined = [];
      for (const d of docs) {
        const p = parentOf(d, ctx);
        if (p && !seen.has(p)) {
          seen.add(p);
          joined.push(p);
        }
      }
    }
    return { doc_count: joined.length, ...ctx.evaluateSubs(subs, joined as Corpus) };
  },
};

describe('differential oracle with parent/child documents (short seeded run)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await createTestHost({ features: [joinQueriesFeature] });
  });
  afterAll(() => host.close());

  it('join queries and aggregations answer like the naive model', async () => {
    const seed = Number(process.env['JOIN_ORACLE_SEED'] ?? 2);
    const runs = Number(process.env['JOIN_ORACLE_RUNS'] ?? 40);
    const scoredModes = new Set<string>();
    const scoredParentScore = new Set<boolean>();
    // the join clauses in scoring positions of a query whose scores were compared
    const onScored = (q: Json): void => {
      const [[name, body]] = Object.entries(q) as [[string, Json]];
      if (name === 'has_child') {
        scoredModes.add(String(body['score_mode'] ?? 'none'));
        if ((body['score_mode'] ?? 'none') !== 'none') onScored(body['query'] as Json);
      } else if (name === 'has_parent') {
        scoredParentScore.add(body['score'] === true);
        if (body['score'] === true) onScored(body['query'] as Json);
      } else if (name === 'bool') for (const c of [...((body['must'] ?? []) as Json[]), ...((body['should'] ?? []) as Json[])]) onScored(c);
    };
    const report = await runOracle({ target: host, seed, runs, join: true, queryKinds: [hasChild, hasParent, parentId], aggKinds: [joinAggs], onScored, focusQuery: joinFocus });
    expect(report.cases).toBe(runs);
    // every join kind ran, and has_child (each score mode) / has_parent (score true and false) had their scores compared
    for (const k of ['has_child', 'has_parent', 'parent_id', 'children', 'parent']) expect(report.kinds[k] ?? 0).toBeGreaterThan(0);
    expect(report.scoredKinds['has_child'] ?? 0).toBeGreaterThan(0);
    expect(report.scoredKinds['has_parent'] ?? 0).toBeGreaterThan(0);
    for (const mode of ['avg', 'sum', 'min', 'max', 'none']) expect(scoredModes.has(mode)).toBe(true);
    expect(scoredParentScore).toEqual(new Set([true, false]));
  }, 600_000);
});
