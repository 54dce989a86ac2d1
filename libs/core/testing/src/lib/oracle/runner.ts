/**
 * The differential oracle: fast-check generates a small index (random mapping, 1-3 shards), a history of
 * writes (bulk index/overwrite, partial updates, deletes, refreshes that cut segments, flushes, force
 * merges) and searches (a query, a sort with from/size and a search_after walk, aggregations); the
 * service's answers are compared with the naive evaluators of the registered kinds. A mismatch fails
 * the property and fast-check shrinks it to a minimal case.
 */
import fc from 'fast-check';
import type { AggEvalContext, AggGenContext, AggKind, EvalContext, GenContext, QueryKind } from './kinds.js';
import type { Corpus, Json, ModelDoc, OracleField, OracleFieldType, OracleMapping } from './model.js';
import { AGG_KINDS, QUERY_KINDS } from './registry.js';
import { SEQ_FIELD, renderSort, sortArbitrary, sortDocs, type SortSpecItem } from './sorting.js';
import { fieldValue } from './values.js';
import { NESTED_FIELDS, NESTED_PATH, nestedValue } from './nested.js';
import { runtimeFieldsFor, runtimeMappings, withRuntimeFields } from './scripts.js';
import { JOIN_CHILD, JOIN_FIELD, JOIN_PARENT, joinRouting, joinValue } from './join.js';

/** what the oracle needs of a running service (a TestHost fits) */
export interface OracleTarget {
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

export interface OracleOptions {
  target: OracleTarget;
  seed: number;
  runs: number;
  /** stop generating new cases after this many milliseconds (the cases run so far are reported) */
  timeLimitMs?: number;
  /** kinds added on top of the registry (features living in their own lib) */
  queryKinds?: readonly QueryKind[];
  /** also generate mappings with a join field (join.ts; the target must have the join-queries feature) */
  join?: boolean;
  /** called with each query whose hits' scores were compared */
  onScored?: (query: Json) => void;
  /**
   * A feature's own top-level queries (e.g. scored joins): two searches in three use them, unsorted (so their
   * scores are compared when modelled), the others any registered query as usual.
   */
  focusQuery?: (ctx: GenContext) => fc.Arbitrary<Json> | null;
  aggKinds?: readonly AggKind[];
}

export interface OracleReport {
  seed: number;
  /** generated cases (one index + its writes + its searches each) */
  cases: number;
  /** search requests sent and compared */
  searches: number;
  /** individual comparisons that held (hit lists, totals, pages, aggregation trees) */
  checks: number;
  /** the query and aggregation kinds that were exercised, with how many times */
  kinds: Record<string, number>;
  /** searches whose hits' `_score`s were compared (every matching document's score modelled) */
  scored: number;
  /** the query kinds inside those searches, with how many times */
  scoredKinds: Record<string, number>;
}

// ------------------------------------------------------------------------------------------ scenario

const FIELD_DEFS: ReadonlyArray<{ name: string; types: readonly OracleFieldType[] }> = [
  { name: 'kw', types: ['keyword'] },
  { name: 'kw2', types: ['keyword'] },
  { name: 'txt', types: ['text'] },
  { name: 'n', types: ['long', 'integer'] },
  { name: 'd', types: ['double', 'float'] },
  { name: 'dt', types: ['date'] },
  { name: 'ip', types: ['ip'] },
  { name: 'b', types: ['boolean'] },
];

export type WriteOp =
  | { op: 'index'; id: string; source: Json }
  | { op: 'update'; id: string; doc: Json }
  | { op: 'delete'; id: string }
  | { op: 'refresh' }
  | { op: 'flush' }
  | { op: 'merge' };

export interface SearchCase {
  query?: Json;
  /** filters the hits, not the aggregations */
  postFilter?: Json;
  /** `track_total_hits` as a number: the total is exact up to it, then `{value: n, relation: gte}` */
  trackUpTo?: number;
  sort?: SortSpecItem[];
  from: number;
  size: number;
  /** page size of a search_after walk over the sort (0: no walk) */
  walk: number;
  aggs?: Record<string, Json>;
}

export interface Scenario {
  shards: number;
  mapping: OracleMapping;
  ops: WriteOp[];
  searches: SearchCase[];
}

const mappingArbitrary: fc.Arbitrary<OracleMapping> = fc
  .tuple(...FIELD_DEFS.map((d) => fc.option(fc.constantFrom(...d.types), { nil: undefined, freq: 5 })), fc.boolean(), fc.boolean())
  .map(([...picked]) => {
    const withRuntime = picked.pop() as boolean;
    const withNested = picked.pop() as boolean;
    const types = picked as Array<OracleFieldType | undefined>;
    const m: OracleMapping = { fields: FIELD_DEFS.flatMap((d, i) => (types[i] ? [{ name: d.name, type: types[i]! } as OracleField] : [])) };
    if (withNested) {
      m.nested = [NESTED_PATH];
      m.fields.push(...NESTED_FIELDS.map((f) => ({ ...f, name: `${NESTED_PATH}.${f.name}`, nested: NESTED_PATH })));
    }
    if (withRuntime) m.fields.push(...runtimeFieldsFor(m));
    return m;
  })
  .filter((m) => m.fields.length > 0);

function sourceArbitrary(mapping: OracleMapping, partial: boolean): fc.Arbitrary<Json> {
  const rec: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of mapping.fields) if (!f.nested && !f.runtime) rec[f.name] = fieldValue(f.type);
  for (const path of mapping.nested ?? []) rec[path] = nestedValue(mapping.fields.filter((f) => f.nested === path), path);
  return fc.record(rec, { requiredKeys: [] }).filter((s) => !partial || Object.keys(s).length > 0);
}

const idArbitrary = fc.integer({ min: 0, max: 24 }).map(String);

function opArbitrary(mapping: OracleMapping): fc.Arbitrary<WriteOp> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.record({ op: fc.constant('index' as const), id: idArbitrary, source: sourceArbitrary(mapping, false) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('update' as const), id: idArbitrary, doc: sourceArbitrary(mapping, true) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), id: idArbitrary }) },
    { weight: 3, arbitrary: fc.constant({ op: 'refresh' as const }) },
    { weight: 1, arbitrary: fc.constant({ op: 'flush' as const }) },
    { weight: 1, arbitrary: fc.constant({ op: 'merge' as const }) },
  );
}

/** generation contexts over a mapping and a set of kinds */
class Kinds {
  readonly queryByName = new Map<string, QueryKind>();
  readonly aggByName = new Map<string, AggKind>();
  private readonly queryMemo = new Map<number, fc.Arbitrary<Json>>();
  private readonly aggMemo = new Map<number, fc.Arbitrary<Json>>();

  readonly gen: AggGenContext;
  readonly evalCtx: EvalContext;
  /** the live documents of the case being checked */
  corpus: Corpus = [];

  constructor(
    readonly mapping: OracleMapping,
    readonly queryKinds: readonly QueryKind[],
    readonly aggKinds: readonly AggKind[],
  ) {
    for (const k of queryKinds) for (const n of k.names) this.queryByName.set(n, k);
    for (const k of aggKinds) for (const n of k.names) this.aggByName.set(n, k);
    this.gen = {
      mapping,
      fields: (...types) => mapping.fields.filter((f) => types.includes(f.type)),
      query: (depth) => this.query(depth),
      subAggs: (depth) => (depth <= 0 ? fc.constant(undefined) : fc.option(this.named(this.agg(depth), 2), { nil: undefined, freq: 2 })),
    };
    const corpus = (): Corpus => this.corpus;
    this.evalCtx = {
      mapping,
      matches: (q, d) => this.matches(q, d),
      score: (q, d) => this.score(q, d),
      get corpus() {
        return corpus();
      },
    };
  }

  query(depth: number): fc.Arbitrary<Json> {
    let a = this.queryMemo.get(depth);
    if (!a) {
      const options = this.queryKinds.flatMap((k) => {
        const arb = k.arbitrary(this.gen, depth);
        return arb ? [{ weight: Math.max(1, Math.round((k.weight ?? 1) * 10)), arbitrary: arb }] : [];
      });
      a = fc.oneof(...options);
      this.queryMemo.set(depth, a);
    }
    return a;
  }

  agg(depth: number): fc.Arbitrary<Json> {
    let a = this.aggMemo.get(depth);
    if (!a) {
      const options = this.aggKinds.flatMap((k) => {
        const arb = k.arbitrary(this.gen, depth);
        return arb ? [{ weight: Math.max(1, Math.round((k.weight ?? 1) * 10)), arbitrary: arb }] : [];
      });
      a = options.length ? fc.oneof(...options) : fc.constant({});
      this.aggMemo.set(depth, a);
    }
    return a;
  }

  named(arb: fc.Arbitrary<Json>, max: number): fc.Arbitrary<Record<string, Json>> {
    return fc.array(arb, { minLength: 1, maxLength: max }).map((list) => Object.fromEntries(list.map((a, i) => [`a${i}`, a])));
  }

  matches(query: Json, doc: ModelDoc): boolean {
    const [name] = Object.keys(query);
    const kind = this.queryByName.get(name!);
    if (!kind) throw new Error(`oracle: no kind evaluates the query [${name}]`);
    return kind.matches(name!, query[name!], doc, this.evalCtx);
  }

  score(query: Json, doc: ModelDoc): number | undefined {
    const [name] = Object.keys(query);
    const kind = this.queryByName.get(name!);
    return kind?.score ? kind.score(name!, query[name!], doc, this.evalCtx) : undefined;
  }

  evaluateAggs(aggs: Record<string, Json> | undefined, docs: Corpus, allDocs: Corpus): Json {
    const out: Json = {};
    if (!aggs) return out;
    const ctx: AggEvalContext = { ...this.evalCtx, allDocs, evaluateSubs: (subs, ds) => this.evaluateAggs(subs, ds, allDocs) };
    for (const [name, spec] of Object.entries(aggs)) {
      const type = Object.keys(spec).find((k) => k !== 'aggs')!;
      const kind = this.aggByName.get(type);
      if (!kind) throw new Error(`oracle: no kind evaluates the aggregation [${type}]`);
      out[name] = kind.evaluate(type, spec[type] as Json, spec['aggs'] as Record<string, Json> | undefined, docs, ctx);
    }
    return out;
  }
}

/** the generation/evaluation contexts of a mapping (built once per distinct mapping) */
function kindsFor(mapping: OracleMapping, queryKinds: readonly QueryKind[], aggKinds: readonly AggKind[], cache: Map<string, Kinds>): Kinds {
  const key = JSON.stringify(mapping);
  let k = cache.get(key);
  if (!k) cache.set(key, (k = new Kinds(mapping, queryKinds, aggKinds)));
  return k;
}

function scenarioArbitrary(
  queryKinds: readonly QueryKind[],
  aggKinds: readonly AggKind[],
  cache: Map<string, Kinds>,
  join: boolean,
  focusQuery: OracleOptions['focusQuery'],
): fc.Arbitrary<Scenario> {
  const mappings = join ? fc.tuple(mappingArbitrary, fc.boolean()).map(([m, j]) => (j ? { ...m, join: true } : m)) : mappingArbitrary;
  return mappings.chain((mapping) => {
    const kinds = kindsFor(mapping, queryKinds, aggKinds, cache);
    const anySearch: fc.Arbitrary<SearchCase> = fc.record(
      {
        query: kinds.query(2),
        postFilter: kinds.query(1),
        trackUpTo: fc.integer({ min: 0, max: 12 }),
        sort: sortArbitrary(mapping),
        from: fc.integer({ min: 0, max: 8 }),
        size: fc.integer({ min: 0, max: 6 }),
        walk: fc.integer({ min: 0, max: 4 }),
        aggs: kinds.named(kinds.agg(2), 3),
      },
      { requiredKeys: ['from', 'size', 'walk'] },
    );
    const focus = focusQuery?.(kinds.gen);
    const search: fc.Arbitrary<SearchCase> = focus
      ? fc.oneof(
          { weight: 1, arbitrary: anySearch },
          {
            weight: 2,
            arbitrary: fc.record(
              { query: focus, from: fc.constant(0), size: fc.constant(0), walk: fc.constant(0), aggs: kinds.named(kinds.agg(2), 3) },
              { requiredKeys: ['query', 'from', 'size', 'walk'] },
            ),
          },
        )
      : anySearch;
    return fc
      .record({
        shards: fc.integer({ min: 1, max: 3 }),
        // (with a join field, enough writes that parents usually have children)
        ops: fc.array(opArbitrary(mapping), { minLength: mapping.join ? 30 : 0, maxLength: 45 }),
        searches: fc.array(search, { minLength: 1, maxLength: 4 }),
      })
      .map(({ shards, ops, searches }) => ({ shards, mapping, ops, searches }));
  });
}

// ------------------------------------------------------------------------------------------ comparison

/** null when `actual` agrees with `expected` (extra object keys in actual are ignored), else where not */
export function disagreement(expected: unknown, actual: unknown, path = '$'): string | null {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const tol = 1e-9 * Math.max(1, Math.abs(expected));
    return Math.abs(expected - actual) <= tol ? null : `${path}: expected ${expected}, got ${actual}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    if (expected.length !== actual.length) {
      return `${path}: expected ${expected.length} elements ${JSON.stringify(expected)}, got ${actual.length} ${JSON.stringify(actual)}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const d = disagreement(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [k, v] of Object.entries(expected)) {
      const d = disagreement(v, (actual as Json)[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return expected === actual ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

class Mismatch extends Error {}

// ------------------------------------------------------------------------------------------ running

function indexBody(s: Scenario): Json {
  const properties: Json = { [SEQ_FIELD]: { type: 'long' } };
  for (const f of s.mapping.fields) if (!f.nested && !f.runtime) properties[f.name] = { type: f.type };
  for (const path of s.mapping.nested ?? []) {
    const sub: Json = {};
    for (const f of s.mapping.fields) if (f.nested === path) sub[f.name.substring(path.length + 1)] = { type: f.type };
    properties[path] = { type: 'nested', properties: sub };
  }
  if (s.mapping.join) properties[JOIN_FIELD] = { type: 'join', relations: { [JOIN_PARENT]: JOIN_CHILD } };
  return { settings: { number_of_shards: s.shards, number_of_replicas: 0, refresh_interval: -1 }, mappings: { properties } };
}

async function ok(target: OracleTarget, method: string, path: string, body?: unknown): Promise<any> {
  const r = await target.request(method, path, body);
  if (r.status >= 300) throw new Mismatch(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}\nrequest: ${JSON.stringify(body)}`);
  return r.body;
}

/** applies the writes to the service and to the model; returns the live documents */
async function applyWrites(target: OracleTarget, index: string, ops: WriteOp[], join = false): Promise<Map<string, ModelDoc>> {
  // with a join field every write of a child is routed to its parent (join.ts)
  const routing = (id: string): Json => {
    const r = join ? joinRouting(id) : undefined;
    return r === undefined ? {} : { routing: r };
  };
  const routingParam = (id: string): string => {
    const r = join ? joinRouting(id) : undefined;
    return r === undefined ? '' : `?routing=${r}`;
  };
  const model = new Map<string, ModelDoc>();
  let bulk: Json[] = [];
  const flushBulk = async () => {
    if (bulk.length === 0) return;
    const r = await ok(target, 'POST', `/${index}/_bulk`, bulk);
    if (r.errors) throw new Mismatch(`bulk failed: ${JSON.stringify(r.items.filter((i: Json) => Object.values(i)[0] && (Object.values(i)[0] as Json)['error']))}`);
    bulk = [];
  };
  for (const o of ops) {
    switch (o.op) {
      case 'index': {
        const source = { ...o.source, [SEQ_FIELD]: Number(o.id), ...(join ? { [JOIN_FIELD]: joinValue(o.id) } : {}) };
        bulk.push({ index: { _id: o.id, ...routing(o.id) } }, source);
        model.set(o.id, { id: o.id, source });
        break;
      }
      case 'delete':
        bulk.push({ delete: { _id: o.id, ...routing(o.id) } });
        model.delete(o.id);
        break;
      case 'update': {
        const old = model.get(o.id);
        if (!old) break;
        await flushBulk();
        await ok(target, 'POST', `/${index}/_update/${o.id}${routingParam(o.id)}`, { doc: o.doc });
        model.set(o.id, { id: o.id, source: { ...old.source, ...o.doc } });
        break;
      }
      default:
        await flushBulk();
        if (o.op === 'refresh') await ok(target, 'POST', `/${index}/_refresh`);
        else if (o.op === 'flush') await ok(target, 'POST', `/${index}/_flush`);
        else await ok(target, 'POST', `/${index}/_forcemerge?max_num_segments=1`);
    }
  }
  await flushBulk();
  await ok(target, 'POST', `/${index}/_refresh`);
  return model;
}

function countKinds(q: unknown, aggs: unknown, into: Record<string, number>, kinds: Kinds): void {
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (kinds.queryByName.has(k) || kinds.aggByName.has(k)) into[k] = (into[k] ?? 0) + 1;
        walk(x);
      }
    }
  };
  walk(q);
  walk(aggs);
}

async function checkSearch(opts: OracleOptions, index: string, c: SearchCase, docs: ModelDoc[], kinds: Kinds, report: OracleReport): Promise<void> {
  const target = opts.target;
  const queried = c.query ? docs.filter((d) => kinds.matches(c.query!, d)) : docs;
  const matching = c.postFilter ? queried.filter((d) => kinds.matches(c.postFilter!, d)) : queried;
  const body: Json = { track_total_hits: c.trackUpTo ?? true };
  const runtime = runtimeMappings(kinds.mapping);
  if (runtime) {
    body['runtime_mappings'] = runtime;
    report.kinds['runtime_mappings'] = (report.kinds['runtime_mappings'] ?? 0) + 1;
  }
  if (c.query) body['query'] = c.query;
  if (c.postFilter) body['post_filter'] = c.postFilter;
  if (c.aggs) body['aggs'] = c.aggs;
  let expectedIds: string[];
  if (c.sort) {
    body['sort'] = renderSort(c.sort);
    body['from'] = c.from;
    body['size'] = c.size;
    body['_source'] = false;
    expectedIds = sortDocs(matching, c.sort, kinds.mapping)
      .slice(c.from, c.from + c.size)
      .map((d) => d.id);
  } else {
    body['size'] = 100;
    body['_source'] = false;
    expectedIds = matching.map((d) => d.id).sort();
  }
  const r = await ok(target, 'POST', `/${index}/_search`, body);
  report.searches++;
  const fail = (what: string) => new Mismatch(`${what}\nrequest: ${JSON.stringify(body)}`);
  const total =
    c.trackUpTo !== undefined && matching.length > c.trackUpTo ? { value: c.trackUpTo, relation: 'gte' } : { value: matching.length, relation: 'eq' };
  const dt = disagreement(total, r.hits.total, '$.hits.total');
  if (dt) throw fail(dt);
  let ids = (r.hits.hits as Array<{ _id: string }>).map((h) => h._id);
  if (!c.sort) ids = ids.sort();
  const d = disagreement(expectedIds, ids, '$.hits.hits[*]._id');
  if (d) throw fail(d);
  report.checks += 2;
  // scores, when the query's kinds model them for every hit (scores are floats: compared to 1e-5 relative)
  if (!c.sort && c.query) {
    const expectedScores = new Map(matching.map((m) => [m.id, kinds.score(c.query!, m)]));
    if (matching.length > 0 && [...expectedScores.values()].every((s) => s !== undefined)) {
      for (const h of r.hits.hits as Array<{ _id: string; _score: number }>) {
        const want = expectedScores.get(h._id)!;
        if (Math.abs(h._score - want) > 1e-5 * Math.max(1, Math.abs(want))) {
          throw fail(`$.hits.hits[_id=${h._id}]._score: expected ${want}, got ${h._score}`);
        }
      }
      report.scored++;
      report.checks++;
      countKinds(c.query, undefined, report.scoredKinds, kinds);
      opts.onScored?.(c.query);
    }
  }
  if (c.aggs) {
    const expected = kinds.evaluateAggs(c.aggs, queried, docs);
    const da = disagreement(expected, r.aggregations, '$.aggregations');
    if (da) throw fail(da);
    report.checks++;
  }
  if (c.sort && c.walk > 0) {
    const all = sortDocs(matching, c.sort, kinds.mapping).map((x) => x.id);
    const seen: string[] = [];
    let after: unknown[] | undefined;
    for (let page = 0; page <= all.length; page++) {
      const wb: Json = { sort: renderSort(c.sort), size: c.walk, _source: false, track_total_hits: false };
      if (runtime) wb['runtime_mappings'] = runtime;
      if (c.query) wb['query'] = c.query;
      if (c.postFilter) wb['post_filter'] = c.postFilter;
      if (after) wb['search_after'] = after;
      const w = await ok(target, 'POST', `/${index}/_search`, wb);
      report.searches++;
      const hits = w.hits.hits as Array<{ _id: string; sort: unknown[] }>;
      if (hits.length === 0) break;
      seen.push(...hits.map((h) => h._id));
      after = hits[hits.length - 1]!.sort;
    }
    const dw = disagreement(all, seen, '$.search_after walk');
    if (dw) throw new Mismatch(`${dw}\nrequest: ${JSON.stringify({ ...body, size: c.walk })}`);
    report.checks++;
  }
}

let indexCounter = 0;

/**
 * Runs the oracle; resolves with what was covered, rejects (fast-check's report with the shrunk
 * counterexample and the seed to replay it) on the first disagreement.
 */
export async function runOracle(opts: OracleOptions): Promise<OracleReport> {
  const queryKinds = [...QUERY_KINDS, ...(opts.queryKinds ?? [])];
  const aggKinds = [...AGG_KINDS, ...(opts.aggKinds ?? [])];
  const report: OracleReport = { seed: opts.seed, cases: 0, searches: 0, checks: 0, kinds: {}, scored: 0, scoredKinds: {} };
  const cache = new Map<string, Kinds>();
  const prop = fc.asyncProperty(scenarioArbitrary(queryKinds, aggKinds, cache, opts.join === true, opts.focusQuery), async (scenario) => {
    const kinds = kindsFor(scenario.mapping, queryKinds, aggKinds, cache);
    const index = `oracle-${process.pid}-${++indexCounter}`;
    await ok(opts.target, 'PUT', `/${index}`, indexBody(scenario));
    try {
      const model = await applyWrites(opts.target, index, scenario.ops, scenario.mapping.join === true);
      const docs = [...model.values()].map((d) => withRuntimeFields(d, scenario.mapping));
      kinds.corpus = docs;
      for (const c of scenario.searches) {
        countKinds(c.query, c.aggs, report.kinds, kinds);
        await checkSearch(opts, index, c, docs, kinds, report);
      }
      report.cases++;
    } finally {
      await opts.target.request('DELETE', `/${index}`);
    }
  });
  await fc.assert(prop, {
    seed: opts.seed,
    numRuns: opts.runs,
    ...(opts.timeLimitMs ? { interruptAfterTimeLimit: opts.timeLimitMs, markInterruptAsFailure: false } : {}),
  });
  return report;
}
