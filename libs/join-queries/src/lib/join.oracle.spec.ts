/**
 * The differential oracle with parent/child documents: core's oracle (random mappings, shards, writes and
 * searches) plus a join field, and join kinds evaluated naively from the model — has_child, has_parent,
 * parent_id queries and children / parent aggregations. Short seeded run in npm test; JOIN_ORACLE_RUNS /
 * JOIN_ORACLE_SEED for longer runs.
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

const hasChild: QueryKind = {
  names: ['has_child'],
  arbitrary(ctx, depth) {
    if (!ctx.mapping.join || depth < 1) return null;
    return fc
      .record(
        {
          type: fc.constant(JOIN_CHILD),
          query: ctx.query(depth - 1),
          score_mode: fc.constantFrom('none', 'avg', 'sum', 'min', 'max'),
          min_children: fc.integer({ min: 1, max: 3 }),
          max_children: fc.integer({ min: 3, max: 5 }),
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
};

const hasParent: QueryKind = {
  names: ['has_parent'],
  arbitrary(ctx, depth) {
    if (!ctx.mapping.join || depth < 1) return null;
    return fc
      .record({ parent_type: fc.constant(JOIN_PARENT), query: ctx.query(depth - 1), score: fc.boolean() }, { requiredKeys: ['parent_type', 'query'] })
      .map((b) => ({ has_parent: b }));
  },
  matches(_n, body, doc, ctx) {
    const p = parentOf(doc, ctx);
    return p !== undefined && ctx.matches((body as Json)['query'] as Json, p);
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
    const seed = Number(process.env['JOIN_ORACLE_SEED'] ?? 20_260_614);
    const runs = Number(process.env['JOIN_ORACLE_RUNS'] ?? 25);
    const report = await runOracle({ target: host, seed, runs, join: true, queryKinds: [hasChild, hasParent, parentId], aggKinds: [joinAggs] });
    expect(report.cases).toBe(runs);
    expect((report.kinds['has_child'] ?? 0) + (report.kinds['has_parent'] ?? 0) + (report.kinds['parent_id'] ?? 0)).toBeGreaterThan(0);
  }, 600_000);
});
