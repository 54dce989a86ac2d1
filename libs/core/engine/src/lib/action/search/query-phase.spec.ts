import { RawJson, stringifyJson } from '@strata/core-common';
import { BUILTIN_QUERY_PARSERS } from '../../query-dsl/builtin-parsers.js';
import { createParseContext } from '../../query-dsl/parse-context.js';
import { QueryParserRegistry } from '../../query-dsl/query-parser.js';
import type { MappedFieldType } from '../../mapper/mapped-field-type.js';
import type { DirectoryReader, LeafReader } from '../../index/leaf-reader.js';
import { parseSort } from '../../search/sort.js';
import { TermScorer } from '../../search/term-query.js';
import type { SearchSource, ShardQueryResult, ShardSearchRequest } from '../../search/spi-search.js';
import { fakeIndexMetadata, fakeReader, fieldTypes, type FakeDoc } from '../../search/testing/fake-index.js';
import { blocksOnlyReader } from '../../index/testing/blocks-only.js';
import { DocValuesRangeQuery, DocValuesTermsQuery } from '../../search/doc-values-query.js';
import { IndexSearcher } from '../../search/index-searcher.js';
import type { Query } from '../../search/query.js';
import { ConjunctionScorer, DisjunctionSumScorer } from '../../search/scorers.js';
import { NO_MORE_DOCS } from '../../search/doc-id-set.js';
import { existsIterator } from '../../search/exists-query.js';
import { executeQueryPhase, executeQueryPhaseSliced, javaStringHashCode, prepareShardQuery, sliceFilter, type QueryPhaseControl } from './query-phase.js';
import { mergeTopDocs, reduceMaxScore, reduceTotalHits } from './search-phase-controller.js';
import { emptySearchSource, parseSearchSource, validateSearchSource } from './search-source.js';
import { executeFetchPhase } from './fetch-phase.js';
import { filterSearchSource } from './source-filter.js';
import { parseAggregations, reduceAggregations, renderAggregations } from '../../aggregations/aggregation-phase.js';

const FIELDS: Record<string, MappedFieldType> = {
  body: fieldTypes.text('body'),
  tag: fieldTypes.keyword('tag'),
  price: fieldTypes.double('price'),
  n: fieldTypes.long('n'),
  ts: fieldTypes.date('ts'),
};

const DOCS: FakeDoc[] = [
  { id: 'a', text: { body: 'red fox' }, keyword: { tag: ['x', 'z'] }, num: { price: 3, n: [5, 1], ts: 3000 } },
  { id: 'b', text: { body: 'red red dog' }, keyword: { tag: 'y' }, num: { price: 1, n: 7 } },
  { id: 'c', text: { body: 'blue fox' }, num: { price: 2, n: [2, 9], ts: 1000 } },
  { id: 'd', text: { body: 'red bird' }, keyword: { tag: 'w' }, num: { price: 2, ts: 2000 } },
];

/** `n` docs of 1–9 words of a vocabulary of 8 with skewed frequencies (some words rare: high idf), `price` i % 13 */
function skewedDocs(seed: number, n: number, deleted?: (i: number, rnd: () => number) => boolean): FakeDoc[] {
  let s = seed;
  const rnd = (): number => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 4294967296;
  };
  const vocab = ['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7'];
  return Array.from({ length: n }, (_, i) => {
    const words: string[] = [];
    const len = 1 + Math.floor(rnd() * 9);
    for (let j = 0; j < len; j++) words.push(vocab[Math.min(7, Math.floor(-Math.log2(1 - rnd() * 0.996)))]!);
    const doc: FakeDoc = { id: `d${i}`, text: { body: words.join(' ') }, num: { price: i % 13 } };
    if (deleted) doc.deleted = deleted(i, rnd);
    return doc;
  });
}

/** scorers answer canBatch() false until restored: the query phase goes doc by doc */
function withoutBatches(): { restore(): void } {
  const spies = [TermScorer.prototype, DisjunctionSumScorer.prototype, ConjunctionScorer.prototype].map((p) => jest.spyOn(p, 'canBatch').mockReturnValue(false));
  return { restore: () => spies.forEach((s) => s.mockRestore()) };
}

const registry = new QueryParserRegistry(BUILTIN_QUERY_PARSERS);
const meta = fakeIndexMetadata('idx');

function request(source: Partial<SearchSource>, shardIndex = 0, numShards = 1): ShardSearchRequest {
  return {
    index: 'idx',
    shardId: shardIndex,
    shardIndex,
    numShards,
    source: { ...emptySearchSource(), ...source },
    scroll: false,
    nowMillis: 0,
    nowUsed: false,
    profile: false,
  };
}

function run(source: Partial<SearchSource>, reader: DirectoryReader = fakeReader([DOCS.slice(0, 2), DOCS.slice(2)]), shardIndex = 0, numShards = 1): ShardQueryResult {
  const ctx = createParseContext({
    registry,
    index: meta,
    fieldType: (_i, n) => FIELDS[n],
    matchingFieldNames: () => Object.keys(FIELDS),
    nowMillis: 0,
  });
  const req = request(source, shardIndex, numShards);
  return executeQueryPhase(req, { parseContext: ctx, indexMetadata: meta, reader, fieldType: (n) => FIELDS[n] }, prepareShardQuery(req, ctx));
}

const idsOf = (r: ShardQueryResult, reader = fakeReader([DOCS.slice(0, 2), DOCS.slice(2)])) =>
  executeFetchPhase(r.hits, emptySearchSource(), { index: 'idx', reader, fieldType: (n) => FIELDS[n], matchingFieldNames: () => [] }).map((h) => h._id);

describe('sorting', () => {
  it('numeric asc/desc with doc tiebreak and ES sort values', () => {
    const asc = run({ sort: parseSort([{ price: 'asc' }]) });
    expect(idsOf(asc)).toEqual(['b', 'c', 'd', 'a']);
    expect(asc.hits.map((h) => h.sortValues)).toEqual([[1], [2], [2], [3]]);
    expect(asc.hits.every((h) => Number.isNaN(h.score))).toBe(true);
    expect(asc.maxScore).toBeNull();
    const desc = run({ sort: parseSort([{ price: { order: 'desc' } }, '_doc']) });
    expect(idsOf(desc)).toEqual(['a', 'c', 'd', 'b']);
    expect(desc.hits.map((h) => h.sortValues)).toEqual([
      [3, 0],
      [2, 2],
      [2, 3],
      [1, 1],
    ]);
  });

  it('missing values: _last by default, _first, custom; long missing shows Long.MAX_VALUE', () => {
    expect(idsOf(run({ sort: parseSort(['ts']) }))).toEqual(['c', 'd', 'a', 'b']);
    expect(idsOf(run({ sort: parseSort([{ ts: 'desc' }]) }))).toEqual(['a', 'd', 'c', 'b']);
    expect(idsOf(run({ sort: parseSort([{ ts: { order: 'asc', missing: '_first' } }]) }))).toEqual(['b', 'c', 'd', 'a']);
    expect(idsOf(run({ sort: parseSort([{ ts: { order: 'asc', missing: 1500 } }]) }))).toEqual(['c', 'b', 'd', 'a']);
    const r = run({ sort: parseSort(['ts']) });
    expect(stringifyJson(r.hits[3]!.sortValues)).toBe('[9223372036854775807]');
    expect(r.hits[0]!.sortValues).toEqual([1000]);
  });

  it('keyword sort with missing and multi-valued mode', () => {
    expect(idsOf(run({ sort: parseSort(['tag']) }))).toEqual(['d', 'a', 'b', 'c']);
    expect(run({ sort: parseSort(['tag']) }).hits.map((h) => h.sortValues![0])).toEqual(['w', 'x', 'y', null]);
    // desc uses max: a -> z
    expect(idsOf(run({ sort: parseSort([{ tag: 'desc' }]) }))).toEqual(['a', 'b', 'd', 'c']);
    expect(idsOf(run({ sort: parseSort([{ tag: { order: 'asc', missing: '_first' } }]) }))).toEqual(['c', 'd', 'a', 'b']);
  });

  it('numeric modes min/max/sum/avg/median', () => {
    const vals = (mode: string) => run({ query: { exists: { field: 'n' } }, sort: parseSort([{ n: { order: 'asc', mode } }]) }).hits.map((h) => h.sortValues![0]);
    expect(vals('min')).toEqual([1, 2, 7]);
    expect(vals('max')).toEqual([5, 7, 9]);
    expect(vals('sum')).toEqual([6, 7, 11]);
    expect(vals('avg')).toEqual([3, 6, 7]);
    expect(vals('median')).toEqual([3, 5.5, 7]);
  });

  it('_score sort, track_scores and unmapped_type', () => {
    const r = run({ query: { match: { body: 'red' } }, sort: parseSort(['_score', { price: 'asc' }]) });
    expect(r.hits.every((h) => !Number.isNaN(h.score))).toBe(true);
    expect(r.hits[0]!.sortValues![0]).toBe(r.hits[0]!.score);
    const t = run({ query: { match: { body: 'red' } }, sort: parseSort(['price']), trackScores: true });
    expect(t.hits.every((h) => h.score > 0)).toBe(true);
    expect(t.maxScore).not.toBeNull();
    expect(() => run({ sort: parseSort(['nope']) })).toThrow('No mapping found for [nope] in order to sort on');
    const u = run({ sort: parseSort([{ nope: { unmapped_type: 'long' } }]) });
    expect(u.hits).toHaveLength(4);
  });

  it('_script sort of type number', () => {
    const r = run({ sort: parseSort([{ _script: { type: 'number', script: { source: "doc['price'].value * -1" }, order: 'asc' } }]) });
    expect(idsOf(r)).toEqual(['a', 'c', 'd', 'b']);
    expect(r.hits.map((h) => h.sortValues![0])).toEqual([-3, -2, -2, -1]);
  });

  it('sort on a text field is rejected like fielddata', () => {
    expect(() => run({ sort: parseSort(['body']) })).toThrow(/Text fields are not optimised/);
  });
});

describe('query phase options', () => {
  it('top-k by score with total hits and max_score', () => {
    const r = run({ query: { match: { body: 'red' } }, size: 2 });
    expect(r.totalHits).toEqual({ value: 3, relation: 'eq' });
    expect(idsOf(r)).toEqual(['b', 'a']);
    expect(r.maxScore).toBe(r.hits[0]!.score);
    expect(r.sortMeta).toBeNull();
  });

  it('a doc whose score bound cannot enter the full top hits is counted, not scored: same hits, scores, totals and max_score', () => {
    // random docs over a small vocabulary with skewed frequencies (some words rare: high idf), several segments
    const docs = skewedDocs(12345, 1200);
    const reader = fakeReader([docs.slice(0, 500), docs.slice(500, 900), docs.slice(900)]);
    const scored = jest.spyOn(TermScorer.prototype, 'score');
    // (doc by doc: scorers that score in batches compute every score, the bound is not asked for)
    const noBatches = withoutBatches();
    let skipped = 0;
    try {
      const queries: unknown[] = [
        { match: { body: 'w0 w5' } },
        { match: { body: 'w1 w6 w7' } },
        { match: { body: 'w0 w1 w2 w3' } },
        { bool: { should: [{ match: { body: 'w0' } }, { match: { body: { query: 'w4', boost: 2.5 } } }] } },
        { bool: { must: [{ match: { body: 'w1' } }], should: [{ match: { body: 'w6' } }] } },
        { bool: { should: [{ match: { body: 'w0' } }, { match: { body: 'w3' } }], must_not: [{ match: { body: 'w2' } }] } },
        { bool: { must: [{ match: { body: 'w0 w2' } }], filter: [{ range: { price: { gte: 4 } } }] } },
        { bool: { should: [{ match: { body: 'w0' } }, { match: { body: 'w5' } }, { match: { body: 'w7' } }], minimum_should_match: 2 } },
      ];
      for (const query of queries) {
        for (const [size, from, tth] of [[3, 0, undefined], [10, 5, true], [1, 0, 50]] as const) {
          scored.mockClear();
          const got = run({ query, size, from, ...(tth !== undefined ? { trackTotalHitsUpTo: tth === true ? 2147483647 : tth } : {}) }, reader);
          const calls = scored.mock.calls.length;
          scored.mockClear();
          // sorted on _score: every doc scored (the sort keys take the score), the same ranking
          const want = run({ query, size, from, sort: parseSort(['_score']), trackScores: true, ...(tth !== undefined ? { trackTotalHitsUpTo: tth === true ? 2147483647 : tth } : {}) }, reader);
          expect(got.hits.map((h) => [h.doc, h.score])).toEqual(want.hits.map((h) => [h.doc, h.score]));
          if (got.totalHits?.relation === 'eq') expect(got.totalHits).toEqual(want.totalHits);
          expect(got.maxScore).toBe(want.maxScore);
          expect(got.hits.length).toBeGreaterThan(0);
          if (calls < scored.mock.calls.length) skipped++;
        }
      }
    } finally {
      scored.mockRestore();
      noBatches.restore();
    }
    expect(skipped).toBeGreaterThan(5);
  });

  it('scorers that score in batches: the same hits, scores, totals and max_score as doc by doc (deletes, several segments, track_total_hits)', () => {
    const docs = skewedDocs(777, 2400, (i, rnd) => i >= 1000 && rnd() < 0.15);
    const reader = fakeReader([docs.slice(0, 1000), docs.slice(1000, 1900), docs.slice(1900)]);
    const queries: unknown[] = [
      { match: { body: 'w1' } },
      { match: { body: 'w0 w5' } },
      { match: { body: 'w1 w6 w7' } },
      { match: { body: 'w0 w1 w2 w3' } },
      { bool: { must: [{ match: { body: 'w0' } }], filter: [{ range: { price: { gte: 4, lt: 9 } } }] } },
      { bool: { filter: [{ match: { body: 'w2' } }, { range: { price: { gte: 2 } } }] } },
      { bool: { should: [{ match: { body: 'w0' } }, { match: { body: 'w3' } }], must_not: [{ match: { body: 'w2' } }] } },
    ];
    const batched = [TermScorer.prototype, DisjunctionSumScorer.prototype, ConjunctionScorer.prototype].map((p) => jest.spyOn(p, 'nextBatch'));
    let batches = 0;
    try {
      for (const query of queries) {
        for (const [size, from, tth] of [[10, 0, undefined], [3, 0, 50], [10, 5, 2147483647], [1, 0, 0], [5, 0, -1], [20, 0, 400]] as const) {
          const source = { query, size, from, ...(tth !== undefined ? { trackTotalHitsUpTo: tth } : {}) };
          batched.forEach((b) => b.mockClear());
          const got = run(source, reader);
          for (const b of batched) batches += b.mock.calls.length;
          const off = withoutBatches();
          let want: ShardQueryResult;
          try {
            want = run(source, reader);
          } finally {
            off.restore();
          }
          expect(got).toEqual(want);
        }
      }
    } finally {
      batched.forEach((b) => b.mockRestore());
    }
    expect(batches).toBeGreaterThan(50);
  });

  it('post_filter filters hits but not totals of aggregations; min_score; terminate_after', () => {
    expect(idsOf(run({ postFilter: { term: { tag: 'y' } } }))).toEqual(['b']);
    expect(run({ postFilter: { term: { tag: 'y' } } }).totalHits).toEqual({ value: 1, relation: 'eq' });
    const all = run({ query: { match: { body: 'red' } } });
    const min = run({ query: { match: { body: 'red' } }, minScore: all.hits[0]!.score });
    expect(min.totalHits!.value).toBe(1);
    const ta = run({ terminateAfter: 2 });
    expect(ta.totalHits).toEqual({ value: 2, relation: 'eq' });
    expect(ta.terminatedEarly).toBe(true);
    expect(run({ terminateAfter: 10 }).terminatedEarly).toBe(false);
  });

  it('track_total_hits false / integer', () => {
    expect(run({ trackTotalHitsUpTo: -1 }).totalHits).toBeUndefined();
    const r = run({ trackTotalHitsUpTo: 2, size: 1, sort: parseSort(['_doc']) });
    expect(r.totalHits!.relation).toBe('gte');
    expect(reduceTotalHits([r], 2)).toEqual({ value: 2, relation: 'gte' });
  });

  it('search_after continues after the given sort values', () => {
    const p1 = run({ size: 2, sort: parseSort([{ price: 'asc' }, { _doc: 'asc' }]) });
    const after = p1.hits[1]!.sortValues!;
    const p2 = run({ size: 2, sort: parseSort([{ price: 'asc' }, { _doc: 'asc' }]), searchAfter: after });
    expect([...idsOf(p1), ...idsOf(p2)]).toEqual(['b', 'c', 'd', 'a']);
    expect(p2.totalHits!.value).toBe(4);
    expect(() => run({ sort: parseSort(['price']), searchAfter: [1, 2] })).toThrow('search_after has 2 value(s) but sort has 1.');
    const s = run({ query: { match: { body: 'red' } }, size: 1, sort: parseSort(['_score']) });
    const s2 = run({ query: { match: { body: 'red' } }, size: 5, sort: parseSort(['_score']), searchAfter: s.hits[0]!.sortValues });
    expect(s2.hits).toHaveLength(2);
  });

  it('slices partition a shard: disjoint, union = all', () => {
    const many: FakeDoc[] = Array.from({ length: 200 }, (_, i) => ({ id: `doc-${i}`, num: { n: i } }));
    const reader = fakeReader([many.slice(0, 90), many.slice(90)]);
    for (const field of [undefined, 'n']) {
      const seen = new Map<string, number>();
      for (let id = 0; id < 4; id++) {
        const r = run({ size: 200, slice: { id, max: 4, ...(field ? { field } : {}) } }, reader);
        for (const h of idsOf(r, reader)) seen.set(h, (seen.get(h) ?? 0) + 1);
        expect(r.hits.length).toBeGreaterThan(10);
      }
      expect(seen.size).toBe(200);
      expect([...seen.values()].every((c) => c === 1)).toBe(true);
    }
  });

  it('slices by shard first', () => {
    expect(sliceFilter({ id: 0, max: 2 }, 0, 4)).toBe('all');
    expect(sliceFilter({ id: 0, max: 2 }, 1, 4)).toBe('none');
    expect(sliceFilter({ id: 1, max: 2 }, 3, 4)).toBe('all');
    expect(sliceFilter({ id: 1, max: 4 }, 1, 4)).toBe('all');
    expect(typeof sliceFilter({ id: 1, max: 4 }, 1, 2)).toBe('function');
    expect(sliceFilter({ id: 1, max: 4 }, 0, 2)).toBe('none');
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('The quick brown fox')).toBe(-1739336029);
  });

  it('shard results survive a structured clone', () => {
    const r = run({ query: { match: { body: 'red' } }, sort: parseSort([{ ts: 'asc' }, { tag: 'asc' }]), trackScores: true });
    const clone = structuredClone(r);
    expect(clone).toEqual(r);
    const req = request(parseSearchSource({ query: { match_all: {} }, sort: ['price'], search_after: [1] }));
    expect(structuredClone(req)).toEqual(req);
  });
});

describe('coordinator merge', () => {
  const shard = (shardIndex: number, hits: Array<[number, number]>, total = hits.length): ShardQueryResult => ({
    index: 'i',
    shardId: shardIndex,
    shardIndex,
    hits: hits.map(([doc, score]) => ({ doc, score })),
    totalHits: { value: total, relation: 'eq' },
    maxScore: hits.length ? Math.max(...hits.map((h) => h[1])) : null,
    sortMeta: null,
    timedOut: false,
  });

  it('mergeTopDocs by score, ties by shard then doc, from/size', () => {
    const m = mergeTopDocs([shard(0, [[5, 2], [1, 1]]), shard(1, [[0, 3], [2, 1]])], { from: 0, size: 10 });
    expect(m.map((x) => [x.shardIndex, x.hit.doc])).toEqual([
      [1, 0],
      [0, 5],
      [0, 1],
      [1, 2],
    ]);
    const page = mergeTopDocs([shard(0, [[5, 2], [1, 1]]), shard(1, [[0, 3], [2, 1]])], { from: 1, size: 2 });
    expect(page.map((x) => [x.shardIndex, x.hit.doc])).toEqual([
      [0, 5],
      [0, 1],
    ]);
  });

  it('mergeTopDocs by field keys with missing handling', () => {
    const a: ShardQueryResult = {
      ...shard(0, []),
      sortMeta: [{ kind: 'string', reverse: 1, missingFirst: false }],
      hits: [
        { doc: 0, score: NaN, keys: ['b'], sortValues: ['b'] },
        { doc: 1, score: NaN, keys: [null], sortValues: [null] },
      ],
    };
    const b: ShardQueryResult = {
      ...shard(1, []),
      sortMeta: [{ kind: 'string', reverse: 1, missingFirst: false }],
      hits: [{ doc: 0, score: NaN, keys: ['a'], sortValues: ['a'] }],
    };
    expect(mergeTopDocs([a, b], { from: 0, size: 10 }).map((x) => x.hit.keys![0])).toEqual(['a', 'b', null]);
  });

  it('reduceTotalHits and max score', () => {
    expect(reduceTotalHits([shard(0, [], 6000), shard(1, [], 6000)], 10000)).toEqual({ value: 10000, relation: 'gte' });
    expect(reduceTotalHits([shard(0, [], 6), shard(1, [], 7)], 10000)).toEqual({ value: 13, relation: 'eq' });
    expect(reduceTotalHits([shard(0, [], 6)], -1)).toBeUndefined();
    expect(reduceMaxScore([shard(0, [[1, 2]]), shard(1, []), shard(2, [[0, 5]])])).toBe(5);
  });
});

describe('fetch', () => {
  it('script_fields', () => {
    const reader = fakeReader([DOCS]);
    const s = parseSearchSource({ script_fields: { double: { script: { source: "doc['price'].value * params.k", params: { k: 2 } } }, src: { script: "params._source.price + ':' + doc['price'].size()" } }, _source: false });
    const ctx = createParseContext({ registry: new QueryParserRegistry(BUILTIN_QUERY_PARSERS), index: fakeIndexMetadata('idx'), fieldType: (_i, n) => FIELDS[n], matchingFieldNames: () => [], nowMillis: 0 });
    const prepared = prepareShardQuery({ index: 'idx', shardId: 0, shardIndex: 0, numShards: 1, source: s, scroll: false, nowMillis: 0, nowUsed: false } as ShardSearchRequest, ctx);
    const hits = executeFetchPhase([{ doc: 1, score: 1.5 }], s, { index: 'idx', reader, fieldType: (n) => FIELDS[n], matchingFieldNames: () => [], scriptFields: prepared.scriptFields });
    expect(hits[0]!['fields']).toEqual({ double: [2], src: ['1:1'] });
    const noSrc = parseSearchSource({ script_fields: { one: { script: '1' } } });
    const h2 = executeFetchPhase([{ doc: 1, score: 1 }], noSrc, { index: 'idx', reader, fieldType: (n) => FIELDS[n], matchingFieldNames: () => [] });
    expect(h2[0]!['_source']).toBeUndefined();
    const withSrc = parseSearchSource({ script_fields: { one: { script: '1' } }, _source: true });
    expect(executeFetchPhase([{ doc: 1, score: 1 }], withSrc, { index: 'idx', reader, fieldType: (n) => FIELDS[n], matchingFieldNames: () => [] })[0]!['_source']).toBeDefined();
    const bad = parseSearchSource({ script_fields: { x: { script: 'nope(' } } });
    expect(() => prepareShardQuery({ index: 'idx', shardId: 0, shardIndex: 0, numShards: 1, source: bad, scroll: false, nowMillis: 0, nowUsed: false } as ShardSearchRequest, ctx)).toThrow('compile error');
  });

  it('source filtering with wildcards and nested objects', () => {
    const src = { a: 1, b: { c: 2, d: { e: 3 } }, f: [{ g: 1, h: 2 }], 'x.y': 4 };
    expect(filterSearchSource(src, ['b.c', 'f.g'], [])).toEqual({ b: { c: 2 }, f: [{ g: 1 }] });
    expect(filterSearchSource(src, ['b.*'], ['b.d.e'])).toEqual({ b: { c: 2, d: {} } });
    expect(filterSearchSource(src, [], ['b', 'f'])).toEqual({ a: 1, 'x.y': 4 });
    expect(filterSearchSource(src, ['*'], [])).toEqual(src);
  });

  it('fields, docvalue_fields, version, seq_no, highlight', () => {
    const reader = fakeReader([DOCS]);
    const s = parseSearchSource({
      fields: ['price', 't*'],
      docvalue_fields: ['tag'],
      version: true,
      seq_no_primary_term: true,
      highlight: { fields: { body: {} } },
    });
    const ctxq = createParseContext({ registry, index: meta, fieldType: (_i, n) => FIELDS[n], matchingFieldNames: () => [], nowMillis: 0 });
    const { extractHighlightTerms } = jest.requireActual('./highlighter.js') as typeof import('./highlighter.js');
    const hits = executeFetchPhase([{ doc: 0, score: 1 }], s, {
      index: 'idx',
      reader,
      fieldType: (n) => FIELDS[n],
      matchingFieldNames: (p) => Object.keys(FIELDS).filter((k) => new RegExp('^' + p.replace('*', '.*') + '$').test(k)),
      highlightTerms: extractHighlightTerms(ctxq.parseInnerQuery({ match: { body: 'fox' } })),
    });
    expect(hits[0]).toEqual({
      _index: 'idx',
      _id: 'a',
      _version: 1,
      _seq_no: 0,
      _primary_term: 1,
      _score: 1,
      _source: expect.any(RawJson),
      fields: { price: [3], tag: ['x', 'z'], ts: ['1970-01-01T00:00:03.000Z'] },
      highlight: { body: ['red <em>fox</em>'] },
    });
    expect((hits[0]!['_source'] as RawJson).value()).toEqual({ body: 'red fox', tag: ['x', 'z'], price: 3, n: [5, 1], ts: 3000 });
  });
});

describe('field-sorted top hits', () => {
  // ties on every key, missing values and multi-valued fields: the docs a full heap turns away without making
  // their sort values must be exactly the ones the whole sorted list puts after its first k
  const words = ['alpha', 'beta', 'gamma', 'délta', 'Beta'];
  const docs: FakeDoc[] = Array.from({ length: 400 }, (_, i): FakeDoc => {
    const keyword: Record<string, string | string[]> = {};
    if (i % 11 !== 0) keyword['tag'] = i % 17 === 0 ? [words[i % 5]!, words[(i * 3) % 5]!] : words[(i * 7) % 5]!;
    const num: Record<string, number> = { n: (i * 31) % 13 };
    if (i % 9 !== 0) Object.assign(num, { price: ((i * 13) % 7) / 2, ts: (i * 7919) % 50 });
    return { id: `d${i}`, keyword, num, deleted: i % 23 === 0 };
  });
  const reader = fakeReader([docs.slice(0, 150), docs.slice(150, 151), docs.slice(151)]);
  it('the top k of every sort are the first k of the whole sorted match', () => {
    const sorts = [
      [{ tag: 'asc' }],
      [{ tag: 'desc' }, { price: 'asc' }],
      [{ tag: { order: 'asc', missing: '_first' } }, { n: 'desc' }, '_doc'],
      [{ price: 'desc' }, { tag: 'asc' }],
      [{ ts: { order: 'asc', missing: 7 } }],
      [{ n: 'asc' }, { ts: 'desc' }],
      ['_doc'],
      [{ _doc: 'desc' }],
    ];
    for (const sort of sorts)
      for (const size of [1, 3, 10, 40])
        for (const query of [undefined, { range: { n: { gte: 2, lte: 10 } } }]) {
          const all = run({ query, size: 1000, sort: parseSort(sort) }, reader);
          const top = run({ query, size, sort: parseSort(sort) }, reader);
          expect(top.hits.map((h) => [h.doc, h.sortValues])).toEqual(all.hits.slice(0, size).map((h) => [h.doc, h.sortValues]));
          expect(top.totalHits).toEqual(all.totalHits);
        }
  });
  it('collapsed: the best hit of each group is its first in the whole sorted match', () => {
    const nOf = (doc: number) => docs[doc]!.num!['n'];
    const sorts = [undefined, [{ tag: 'asc' }], [{ price: 'desc' }, { tag: 'asc' }], [{ ts: 'asc' }, '_doc'], [{ _doc: 'desc' }]];
    for (const sort of sorts)
      for (const query of [
        { match_all: {} },
        { range: { ts: { gte: 5, lte: 40 } } },
        { term: { tag: 'beta' } },
        // scores of 1, 2 and 3 (clauses matched)
        { bool: { should: [{ term: { tag: 'beta' } }, { range: { ts: { gte: 5, lte: 40 } } }, { range: { n: { gte: 3, lte: 8 } } }] } },
      ]) {
        const sorted = sort ? { sort: parseSort(sort) } : {};
        const all = run({ query, size: 1000, ...sorted }, reader);
        const firsts = new Map<unknown, number>();
        for (const h of all.hits) if (!firsts.has(nOf(h.doc))) firsts.set(nOf(h.doc), h.doc);
        const collapsed = run({ query, size: 1000, ...sorted, collapse: { field: 'n' } }, reader);
        expect(collapsed.hits.map((h) => h.doc)).toEqual([...firsts.values()]);
      }
  });
});

describe('points-based sort shortcut', () => {
  const docs: FakeDoc[] = Array.from({ length: 300 }, (_, i) => ({
    id: `d${i}`,
    num: { ts: (i * 7919) % 97, n: i },
    deleted: i % 13 === 0,
  }));
  const reader = fakeReader([docs.slice(0, 120), docs.slice(120, 250), docs.slice(250)]);
  const same = (source: Partial<SearchSource>) => {
    const fast = run(source, reader);
    const slow = run({ ...source, postFilter: { match_all: {} } }, reader);
    expect(fast.hits.map((h) => [h.doc, h.sortValues])).toEqual(slow.hits.map((h) => [h.doc, h.sortValues]));
    expect(fast.totalHits).toEqual(slow.totalHits);
    return fast;
  };
  it('range + sort on the same field gives the same page as the full scan, with ties and deletions', () => {
    for (const order of ['asc', 'desc'])
      for (const size of [1, 5, 10, 50]) {
        const r = same({ query: { range: { ts: { gte: 10, lt: 60 } } }, size, sort: parseSort([{ ts: order }]) });
        expect(r.hits).toHaveLength(size);
        same({ query: { range: { ts: { gt: 10, lte: 60 } } }, size, from: 3, sort: parseSort([{ ts: order }, { n: 'desc' }]) });
      }
  });
  it('match_all sorted by a dense field', () => {
    same({ size: 7, sort: parseSort([{ ts: 'desc' }]) });
    same({ size: 7, sort: parseSort([{ n: 'asc' }, '_doc']) });
    same({ size: 7, trackTotalHitsUpTo: -1, sort: parseSort([{ n: 'asc' }]) });
  });
});

describe('match_all shortcut', () => {
  it('first k live docs, total = numDocs, same as the full scan', () => {
    const docs: FakeDoc[] = Array.from({ length: 50 }, (_, i) => ({ id: `d${i}`, num: { n: i }, deleted: i % 7 === 0 }));
    const reader = fakeReader([docs.slice(0, 20), docs.slice(20)]);
    for (const size of [0, 3, 30, 100]) {
      const fast = run({ size, query: { match_all: { boost: 2 } } }, reader);
      const slow = run({ size, query: { match_all: { boost: 2 } }, postFilter: { match_all: {} } }, reader);
      expect(fast.hits).toEqual(slow.hits);
      expect(fast.totalHits).toEqual(slow.totalHits);
      expect(fast.maxScore).toBe(slow.maxScore);
    }
  });
});

describe('index-order paging', () => {
  it('search_after on _doc / _shard_doc without total hits visits each doc once, in order', () => {
    const docs: FakeDoc[] = Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, num: { n: i }, deleted: i % 9 === 4 }));
    const reader = fakeReader([docs.slice(0, 15), docs.slice(15, 16), docs.slice(16)]);
    for (const field of ['_doc', '_shard_doc']) {
      const seen: string[] = [];
      let after: unknown[] | undefined;
      for (let page = 0; page < 20; page++) {
        const r = run({ size: 6, sort: parseSort([field]), trackTotalHitsUpTo: -1, ...(after ? { searchAfter: after } : {}) }, reader, 1, 3);
        if (r.hits.length === 0) break;
        seen.push(...idsOf(r, reader));
        after = r.hits[r.hits.length - 1]!.sortValues;
      }
      expect(seen).toEqual(docs.filter((d) => !d.deleted).map((d) => d.id));
    }
  });
});

describe('collapse', () => {
  const docs: FakeDoc[] = [
    { id: 'p1', keyword: { user: 'u1' }, num: { price: 5 } },
    { id: 'p2', keyword: { user: 'u2' }, num: { price: 9 } },
    { id: 'p3', keyword: { user: 'u1' }, num: { price: 7 } },
    { id: 'p4', num: { price: 1 } },
    { id: 'p5', keyword: { user: 'u3' }, num: { price: 8 } },
    { id: 'p6', keyword: { user: ['u1', 'u2'] }, num: { price: 0 } },
  ];
  const F = { ...FIELDS, user: fieldTypes.keyword('user') };
  const runC = (source: Partial<SearchSource>, reader: DirectoryReader) => {
    const ctx = createParseContext({ registry, index: meta, fieldType: (_i, n) => F[n as keyof typeof F], matchingFieldNames: () => [], nowMillis: 0 });
    const req = request(source);
    return executeQueryPhase(req, { parseContext: ctx, indexMetadata: meta, reader, fieldType: (n) => F[n as keyof typeof F] }, prepareShardQuery(req, ctx));
  };
  it('keeps the best hit per group, counts every match', () => {
    const reader = fakeReader([docs.slice(0, 3), docs.slice(3, 5)]);
    const r = runC({ sort: parseSort([{ price: 'desc' }]), collapse: { field: 'user' } }, reader);
    expect(r.hits.map((h) => [h.collapseKey, h.sortValues![0]])).toEqual([
      ['u2', 9],
      ['u3', 8],
      ['u1', 7],
      [null, 1],
    ]);
    expect(r.totalHits!.value).toBe(5);
    const merged = mergeTopDocs([r, { ...r, shardIndex: 1 }], { from: 1, size: 2, collapse: true });
    expect(merged.map((m) => m.hit.collapseKey)).toEqual(['u3', 'u1']);
  });
  it('multi-valued collapse fields fail', () => {
    expect(() => runC({ collapse: { field: 'user' } }, fakeReader([docs]))).toThrow('failed to collapse, the collapse field must be single valued');
  });
});

describe('rescore', () => {
  it('re-scores the top window with the rescore query', () => {
    const base = run({ query: { match: { body: 'red' } } });
    const r = run({
      query: { match: { body: 'red' } },
      rescore: [{ windowSize: 2, query: { term: { tag: 'w' } }, queryWeight: 1, rescoreQueryWeight: 10, scoreMode: 'total' }],
    });
    // d (tag w) is third by the query alone, outside the window: unchanged order
    expect(idsOf(r)).toEqual(idsOf(base));
    const r2 = run({
      query: { match: { body: 'red' } },
      rescore: [{ windowSize: 3, query: { term: { tag: 'w' } }, queryWeight: 0.5, rescoreQueryWeight: 10, scoreMode: 'total' }],
    });
    expect(idsOf(r2)[0]).toBe('d');
    const d = base.hits.find((h) => idsOf({ ...base, hits: [h] })[0] === 'd')!;
    const t = run({ query: { term: { tag: 'w' } } }).hits[0]!.score;
    const f = Math.fround;
    expect(r2.hits[0]!.score).toBe(f(f(d.score * 0.5) + f(t * 10)));
    const other = r2.hits[1]!;
    const orig = base.hits.find((h) => h.doc === other.doc)!;
    expect(other.score).toBe(f(orig.score * 0.5));
    expect(r2.maxScore).toBe(r2.hits[0]!.score);
  });
  it('rescore cannot be combined with a field sort', () => {
    expect(() =>
      validateSearchSource(parseSearchSource({ sort: ['price'], rescore: { query: { rescore_query: { match_all: {} } } } }), false),
    ).toThrow('Cannot use [sort] option in conjunction with [rescore].');
  });
});

describe('timeout', () => {
  it('stops collecting and reports timed_out', () => {
    const docs: FakeDoc[] = Array.from({ length: 20000 }, (_, i) => ({ id: `d${i}`, num: { n: i } }));
    const reader = fakeReader([docs]);
    const r = run({ query: { range: { n: { gte: 0 } } }, timeoutMs: 0, trackTotalHitsUpTo: 2147483647 }, reader);
    expect(r.timedOut).toBe(true);
    expect(r.totalHits!.value).toBeLessThan(20000);
    const ok = run({ query: { range: { n: { gte: 0 } } }, timeoutMs: 60000, trackTotalHitsUpTo: 2147483647 }, reader);
    expect(ok.timedOut).toBe(false);
    expect(ok.totalHits!.value).toBe(20000);
    expect(parseSearchSource({ timeout: '2s' }).timeoutMs).toBe(2000);
  });
  it('stops collecting a scorer that scores in batches too (the clock is read every 4,096 docs)', () => {
    const docs: FakeDoc[] = Array.from({ length: 20000 }, (_, i) => ({ id: `d${i}`, text: { body: i % 3 === 0 ? 'red fox' : 'red' } }));
    const reader = fakeReader([docs]);
    const query = { match: { body: 'red fox' } };
    const r = run({ query, timeoutMs: 0, trackTotalHitsUpTo: 2147483647 }, reader);
    // (the doc at the 4,096th pause point is not counted, as doc by doc)
    expect([r.timedOut, r.totalHits!.value]).toEqual([true, 4095]);
    const off = withoutBatches();
    try {
      expect(run({ query, timeoutMs: 0, trackTotalHitsUpTo: 2147483647 }, reader)).toEqual(r);
    } finally {
      off.restore();
    }
    const ok = run({ query, timeoutMs: 60000, trackTotalHitsUpTo: 2147483647 }, reader);
    expect([ok.timedOut, ok.totalHits!.value]).toEqual([false, 20000]);
  });
});

describe('size-0 aggregations over every document (column-wise collection)', () => {
  const many: FakeDoc[] = Array.from({ length: 500 }, (_, i) => ({
    id: `d${i}`,
    keyword: { tag: i % 7 === 0 ? ['p', 'q', `t${i % 5}`] : i % 11 === 0 ? [] : `t${i % 5}` },
    num: { ts: i % 13 === 0 ? [i * 3_600_000, i * 3_600_000 + 60_000, (i + 3) * 3_600_000] : i * 1_800_000 + (i % 3) * 1000 },
    deleted: i % 9 === 4,
  }));
  const aggs = {
    t: { terms: { field: 'tag', size: 20 } },
    h: { date_histogram: { field: 'ts', fixed_interval: '2h' } },
    c: { date_histogram: { field: 'ts', calendar_interval: 'day', time_zone: 'Europe/Paris', offset: '+3h' } },
    f: { terms: { field: 'tag', include: 't[0-3]' } },
  };
  function aggRun(size: number, segments: FakeDoc[][]): Record<string, unknown> {
    const reader = fakeReader(segments);
    const factories = parseAggregations(aggs);
    const ctx = createParseContext({ registry, index: meta, fieldType: (_i, n) => FIELDS[n], matchingFieldNames: () => Object.keys(FIELDS), nowMillis: 0 });
    const req = request({ size, aggregations: aggs } as Partial<SearchSource>);
    const r = executeQueryPhase(req, { parseContext: ctx, indexMetadata: meta, reader, fieldType: (n) => FIELDS[n], aggregations: factories }, prepareShardQuery(req, ctx));
    expect(r.totalHits!.value).toBe(many.filter((d) => !d.deleted).length);
    return renderAggregations(factories, reduceAggregations(factories, [r.aggregations!]), { typedKeys: false });
  }
  it('count exactly what doc-by-doc collection counts (deletes, multi-valued and missing values)', () => {
    for (const segs of [[many], [many.slice(0, 123), many.slice(123, 400), many.slice(400)]]) {
      const bulk = aggRun(0, segs);
      expect(bulk).toEqual(aggRun(1, segs));
      expect((bulk['t'] as { buckets: unknown[] }).buckets.length).toBeGreaterThan(3);
    }
  });
  it('terms counted once per column stay exact as deletes arrive in the same segments', () => {
    // the same segment columns searched again and again while their live docs change (counts are reused per column)
    const segs = [many.slice(0, 123).map((d) => ({ ...d, deleted: false })), many.slice(123).map((d) => ({ ...d, deleted: false }))];
    const reader = fakeReader(segs);
    const terms = { t: aggs.t, f: aggs.f };
    const countTerms = (r: DirectoryReader, size: number): unknown => {
      const factories = parseAggregations(terms);
      const ctx = createParseContext({ registry, index: meta, fieldType: (_i, n) => FIELDS[n], matchingFieldNames: () => Object.keys(FIELDS), nowMillis: 0 });
      const req = request({ size, aggregations: terms } as Partial<SearchSource>);
      const res = executeQueryPhase(req, { parseContext: ctx, indexMetadata: meta, reader: r, fieldType: (n) => FIELDS[n], aggregations: factories }, prepareShardQuery(req, ctx));
      return renderAggregations(factories, reduceAggregations(factories, [res.aggregations!]), { typedKeys: false });
    };
    // a straightforward count over the live docs of `segs`
    const expected = (): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const d of segs.flat()) {
        if (d.deleted) continue;
        const v = d.keyword!['tag'];
        for (const t of new Set(Array.isArray(v) ? v : [v])) out[t] = (out[t] ?? 0) + 1;
      }
      return out;
    };
    const bucketsOf = (r: unknown, name: string): Record<string, number> =>
      Object.fromEntries((r as Record<string, { buckets: Array<{ key: string; doc_count: number }> }>)[name]!.buckets.map((b) => [b.key, b.doc_count]));
    let seed = 7;
    for (let round = 0; round < 6; round++) {
      const bulk = countTerms(reader, 0);
      expect(bulk).toEqual(countTerms(reader, 1));
      expect(bulk).toEqual(countTerms(fakeReader(segs), 1));
      const exp = expected();
      expect(bucketsOf(bulk, 't')).toEqual(exp);
      expect(bucketsOf(bulk, 'f')).toEqual(Object.fromEntries(Object.entries(exp).filter(([k]) => /^t[0-3]$/.test(k))));
      // delete more docs (a whole 32-doc word, then scattered ones, the segments' last docs) in the same leaves
      segs.forEach((docs, s) => {
        const leaf = reader.leaves[s]!.reader as unknown as { liveDocs: Uint32Array | null; numDocs: number };
        for (let i = 0; i < docs.length; i++) {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          if ((round === 1 && i >= 32 && i < 64) || (round > 1 && seed % 5 === 0) || (round === 3 && i === docs.length - 1)) docs[i]!.deleted = true;
        }
        const live = new Uint32Array((docs.length + 31) >>> 5);
        docs.forEach((d, i) => {
          if (!d.deleted) live[i >>> 5]! |= 1 << (i & 31);
        });
        leaf.liveDocs = live;
        leaf.numDocs = docs.filter((d) => !d.deleted).length;
      });
      (reader as { numDocs: number }).numDocs = segs.flat().filter((d) => !d.deleted).length;
    }
  });
});


describe('sorted deep paging over points (search_after on a numeric field)', () => {
  const docs: FakeDoc[] = Array.from({ length: 300 }, (_, i) => ({ id: `p${i}`, num: { n: (i * 7) % 23 }, deleted: i % 17 === 3 }));
  const segs = [docs.slice(0, 100), docs.slice(100, 250), docs.slice(250)];
  for (const order of ['asc', 'desc'] as const) {
    it(`visits every live document exactly once, in order, ties included (${order})`, () => {
      const reader = fakeReader(segs);
      const expected = docs
        .map((d, i) => ({ id: d.id, n: d.num!['n'] as number, i, deleted: d.deleted }))
        .filter((d) => !d.deleted)
        .sort((a, b) => (order === 'asc' ? a.n - b.n : b.n - a.n) || a.i - b.i)
        .map((d) => d.id);
      const seen: string[] = [];
      let after: unknown[] | undefined;
      for (let page = 0; page < 200; page++) {
        const r = run({ size: 7, sort: parseSort([{ n: order }, '_doc']), trackTotalHitsUpTo: -1, ...(after ? { searchAfter: after } : {}) }, reader);
        if (r.hits.length === 0) break;
        seen.push(...idsOf(r, reader));
        after = r.hits[r.hits.length - 1]!.sortValues as unknown[];
      }
      expect(seen).toEqual(expected);
    });
  }
});

describe('constant-score queries ranked by score stop counting at track_total_hits', () => {
  const docs: FakeDoc[] = Array.from({ length: 400 }, (_, i) => ({ id: `c${i}`, num: { n: i % 10 }, deleted: i % 13 === 0 }));
  const reader = fakeReader([docs.slice(0, 150), docs.slice(150)]);
  const matching = docs.filter((d) => !d.deleted && (d.num!['n'] as number) >= 5).length;
  it('same top hits as a full count, total a lower bound', () => {
    const q = { range: { n: { gte: 5 } } };
    const exact = run({ query: q, size: 10, trackTotalHitsUpTo: 2147483647 }, reader);
    expect(exact.totalHits).toEqual({ value: matching, relation: 'eq' });
    const capped = run({ query: q, size: 10, trackTotalHitsUpTo: 50 }, reader);
    expect(capped.totalHits).toEqual({ value: 51, relation: 'gte' });
    expect(idsOf(capped, reader)).toEqual(idsOf(exact, reader));
    expect(capped.maxScore).toBe(exact.maxScore);
    const none = run({ query: q, size: 3, trackTotalHitsUpTo: -1 }, reader);
    expect(none.totalHits).toBeUndefined();
    expect(idsOf(none, reader)).toEqual(idsOf(exact, reader).slice(0, 3));
    // more hits wanted than the threshold: the count goes on until the top k are full
    const wide = run({ query: q, size: 120, trackTotalHitsUpTo: 50 }, reader);
    expect(wide.totalHits).toEqual({ value: 120, relation: 'gte' });
    // exactly as many matches as the threshold: the count is exact
    expect(run({ query: q, size: 10, trackTotalHitsUpTo: matching }, reader).totalHits).toEqual({ value: matching, relation: 'eq' });
    expect(wide.hits).toHaveLength(120);
  });
  it('a numeric term counts the matches of segments without deletes instead of visiting them', () => {
    // segments without deletes (counted), with deletes (visited), with a doc holding the value twice (visited)
    const mk = (from: number, to: number, del: boolean, twice = false): FakeDoc[] =>
      Array.from({ length: to - from }, (_, j) => {
        const i = from + j;
        return { id: `t${i}`, num: { n: twice && i % 50 === 0 ? [7, 7] : i % 3 === 0 ? 7 : i % 10 }, deleted: del && i % 7 === 0 };
      });
    const segs = [mk(0, 40, false), mk(40, 200, false), mk(200, 300, true), mk(300, 420, false, true), mk(420, 700, false)];
    const reader = fakeReader(segs);
    const live = segs.flat().filter((d) => !d.deleted && [d.num!['n']].flat().includes(7)).map((d) => d.id);
    const q = { term: { n: 7 } };
    for (const size of [3, 10, 30, 150]) {
      for (const threshold of [0, 5, 20, 60, live.length - 1, live.length, 2147483647]) {
        const r = run({ query: q, size, trackTotalHitsUpTo: threshold }, reader);
        // constant score: the first `size` matches in doc order
        expect(idsOf(r, reader)).toEqual(live.slice(0, size));
        // visiting docs one by one stops at the first count that fills the top k and passes the threshold
        const stop = Math.max(size, threshold + 1);
        expect(r.totalHits).toEqual(stop <= live.length ? { value: stop, relation: 'gte' } : { value: live.length, relation: 'eq' });
        expect(reduceTotalHits([r], threshold)).toEqual(live.length > threshold ? { value: threshold, relation: 'gte' } : { value: live.length, relation: 'eq' });
      }
    }
  });
});

describe('disjunctions ranked by score skip docs that cannot enter the top k (MaxScore)', () => {
  // words of very different frequencies, so rare words score far above common ones
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const docs: FakeDoc[] = Array.from({ length: 1500 }, (_, i) => {
    const toks: string[] = [];
    const n = 1 + Math.floor(rnd() * 12);
    for (let t = 0; t < n; t++) {
      const r = rnd();
      toks.push(r < 0.5 ? 'w0' : r < 0.8 ? 'w1' : r < 0.93 ? 'w2' : r < 0.98 ? 'w3' : r < 0.995 ? 'w4' : 'w5');
    }
    return { id: `m${i}`, text: { body: toks.join(' ') }, deleted: i % 17 === 0 };
  });
  const reader = fakeReader([docs.slice(0, 400), docs.slice(400, 1100), docs.slice(1100)]);
  const queries = [
    { match: { body: 'w0 w5' } },
    { match: { body: 'w0 w1 w4' } },
    { match: { body: 'w0 w1 w2 w3 w4 w5' } },
    { bool: { should: [{ match: { body: 'w0' } }, { match: { body: { query: 'w1', boost: 3 } } }, { term: { tag: 'nothing' } }] } },
  ];
  for (const q of queries) {
    it(`same top hits and scores as exhaustive scoring: ${JSON.stringify(q)}`, () => {
      for (const size of [1, 10, 50]) {
        const exact = run({ query: q, size, trackTotalHitsUpTo: 2147483647 }, reader);
        expect(exact.totalHits!.relation).toBe('eq');
        for (const upTo of [0, 5, 100, -1]) {
          const r = run({ query: q, size, trackTotalHitsUpTo: upTo }, reader);
          expect(r.hits.map((h) => [h.doc, h.score])).toEqual(exact.hits.map((h) => [h.doc, h.score]));
          expect(r.maxScore).toBe(exact.maxScore);
          if (upTo === -1) expect(r.totalHits).toBeUndefined();
          else {
            expect(r.totalHits!.value).toBeLessThanOrEqual(exact.totalHits!.value);
            expect(r.totalHits!.value).toBeGreaterThan(upTo);
            expect(r.totalHits!.relation).toBe('gte');
          }
        }
      }
    });
  }
  it('skips: fewer docs counted than match when the threshold is low', () => {
    const exact = run({ query: { match: { body: 'w0 w5' } }, size: 3, trackTotalHitsUpTo: 2147483647 }, reader);
    const r = run({ query: { match: { body: 'w0 w5' } }, size: 3, trackTotalHitsUpTo: 0 }, reader);
    expect(r.totalHits!.value).toBeLessThan(exact.totalHits!.value / 2);
  });
});

describe('query phase in slices (executeQueryPhaseSliced)', () => {
  // one segment of 20,000 docs and three small ones: pause points between segments and every 256 docs
  const big: FakeDoc[] = Array.from({ length: 20_000 }, (_, i) => ({ id: `d${i}`, text: { body: i % 2 ? 'red fox' : 'red' }, num: { n: i } }));
  const reader = fakeReader([big, DOCS.slice(0, 2), DOCS.slice(2, 3), DOCS.slice(3)]);
  const sliced = (source: Partial<SearchSource>, control: QueryPhaseControl) => {
    const ctx = createParseContext({ registry, index: meta, fieldType: (_i, n) => FIELDS[n], matchingFieldNames: () => Object.keys(FIELDS), nowMillis: 0 });
    const req = request(source);
    return executeQueryPhaseSliced(req, { parseContext: ctx, indexMetadata: meta, reader, fieldType: (n) => FIELDS[n] }, prepareShardQuery(req, ctx), control);
  };

  it('gives the result of the one-go phase, pausing for the event loop between slices', async () => {
    const source = { query: { match: { body: 'red' } }, size: 5, sort: parseSort([{ n: 'desc' }]) } as Partial<SearchSource>;
    let checks = 0;
    let immediates = 0;
    const tick = () => {
      immediates++;
      if (immediates < 1000) setImmediate(tick);
    };
    setImmediate(tick);
    const r = await sliced(source, { cancelled: () => (checks++, undefined), sliceMs: 0 });
    expect(r).toEqual(run(source, reader));
    expect(r.totalHits).toEqual({ value: 20_003, relation: 'eq' });
    // 3 segment boundaries + 20,003 collected docs / 256
    expect(checks).toBe(3 + 78);
    // other work ran while the phase paused
    expect(immediates).toBeGreaterThanOrEqual(81);
  });

  it('stops mid-segment with task_cancelled_exception once cancelled', async () => {
    let checks = 0;
    const err = await sliced({ query: { match_all: {} }, size: 0, minScore: 0 } as Partial<SearchSource>, {
      cancelled: () => (++checks >= 2 ? 'by user request' : undefined),
      sliceMs: 0,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'task_cancelled_exception', status: 400, reason: 'task cancelled [by user request]' });
    // inside the first (20,000-doc) segment: after 2 × 256 docs
    expect(checks).toBe(2);
  });
});

describe('doc values read block by block (segments on disk): collapse, slices, docvalue_fields, _ignored', () => {
  const docs: FakeDoc[] = Array.from({ length: 60 }, (_, i) => ({
    id: `b${i}`,
    keyword: { user: `u${(i * 7) % 9}`, tag: i % 4 === 0 ? ['x', 'y'] : `t${i % 5}`, ...(i % 10 === 3 ? { _ignored: ['body'] } : {}) },
    num: { price: (i * 13) % 17, n: i % 6 === 0 ? [i, i + 100] : i, ...(i % 5 !== 2 ? { ts: 1_000_000 + ((i * 37) % 60) * 60_000 } : {}) },
  }));
  const F = { ...FIELDS, user: fieldTypes.keyword('user') };
  const segs = [docs.slice(0, 25), docs.slice(25, 26), docs.slice(26)];
  const runB = (source: Partial<SearchSource>, reader: DirectoryReader) => {
    const ctx = createParseContext({ registry, index: meta, fieldType: (_i, n) => F[n as keyof typeof F], matchingFieldNames: () => [], nowMillis: 0 });
    const req = request(source);
    return executeQueryPhase(req, { parseContext: ctx, indexMetadata: meta, reader, fieldType: (n) => F[n as keyof typeof F] }, prepareShardQuery(req, ctx));
  };
  const fetch = (r: ShardQueryResult, reader: DirectoryReader) =>
    executeFetchPhase(r.hits, parseSearchSource({ docvalue_fields: ['tag', 'n', 'price', 'user'], _source: false }), {
      index: 'idx',
      reader,
      fieldType: (n) => F[n as keyof typeof F],
      matchingFieldNames: () => [],
    });

  it('answer as over the whole columns, which are never read', () => {
    const whole = fakeReader(segs);
    const sources: Partial<SearchSource>[] = [
      { size: 20, sort: parseSort([{ price: 'desc' }]), collapse: { field: 'user' } },
      { size: 20, sort: parseSort([{ n: 'asc' }]), collapse: { field: 'price' } },
      ...[0, 1, 2].map((id) => ({ size: 100, slice: { id, max: 3, field: 'n' } })),
      // sorts on multi-valued keyword and numeric doc values, every mode
      { size: 100, sort: parseSort([{ tag: { order: 'desc', mode: 'min' } }, { user: 'asc' }, { n: { order: 'desc', mode: 'median' } }]) },
      { size: 100, sort: parseSort([{ tag: { order: 'asc', mode: 'max' } }, { n: { order: 'asc', mode: 'avg' } }]) },
      ...(['min', 'max', 'sum', 'median'] as const).map((mode) => ({ size: 100, sort: parseSort([{ n: { order: 'desc', mode } }, { price: 'asc' }]) })),
    ];
    const want = sources.map((s) => runB(s, whole));
    expect(want[0]!.hits.map((h) => h.collapseKey).sort()).toEqual(['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8']);
    expect(want[1]!.hits).toHaveLength(17);
    expect(want.slice(2, 5).reduce((n, r) => n + r.hits.length, 0)).toBe(60);
    expect(want[5]!.hits.slice(0, 3).map((h) => h.sortValues)).toEqual([['x', 'u0', 86], ['x', 'u0', 50], ['x', 'u1', 40]]);
    expect(want[8]!.hits.slice(0, 2).map((h) => h.sortValues)).toEqual([[154, 5], [148, 12]]);
    expect(want[9]!.hits.slice(0, 2).map((h) => h.sortValues)).toEqual([[208, 5], [196, 12]]);
    const fetched = fetch(want[0]!, whole);
    expect(fetched).toHaveLength(9);
    const all = fetch(runB({ size: 100 }, whole), whole);
    expect(all[0]!['fields']).toEqual({ tag: ['x', 'y'], n: [0, 100], price: [0], user: ['u0'] });
    expect(all.filter((h) => h['_ignored'] !== undefined).map((h) => [h['_id'], h['_ignored']])).toEqual(
      [3, 13, 23, 33, 43, 53].map((i) => [`b${i}`, ['body']]),
    );
    for (const blockSize of [1, 2, 8, 4096]) {
      const blocks = blocksOnlyReader(fakeReader(segs), blockSize);
      const got = sources.map((s) => runB(s, blocks));
      expect(got.map((r) => r.hits.map((h) => [h.doc, h.collapseKey, h.collapseValue, h.sortValues]))).toEqual(
        want.map((r) => r.hits.map((h) => [h.doc, h.collapseKey, h.collapseValue, h.sortValues])),
      );
      expect(fetch(want[0]!, blocks)).toEqual(fetched);
      expect(fetch(runB({ size: 100 }, whole), blocks)).toEqual(all);
      expect(() => runB({ collapse: { field: 'tag' } }, blocks)).toThrow('failed to collapse, the collapse field must be single valued');
    }
  });

  it('score and match on doc values as over the whole columns: function_score, distance_feature, exists, terms_set, ranges, doc-values queries', () => {
    const whole = fakeReader(segs);
    const queries: unknown[] = [
      { function_score: { query: { match_all: {} }, functions: [{ field_value_factor: { field: 'price', missing: 1, factor: 2 } }, { gauss: { n: { origin: 30, scale: 10, decay: 0.5 }, multi_value_mode: 'avg' } }], score_mode: 'sum' } },
      { function_score: { query: { match_all: {} }, functions: [{ random_score: { seed: 7, field: 'n' } }, { exp: { n: { origin: 10, scale: 5 }, multi_value_mode: 'max' } }] } },
      { distance_feature: { field: 'ts', origin: 1_000_000 + 30 * 60_000, pivot: '10m' } },
      { bool: { must: [{ exists: { field: 'tag' } }, { exists: { field: 'ts' } }] } },
      { terms_set: { tag: { terms: ['x', 't1', 't2', 'y'], minimum_should_match_field: 'price' } } },
      { bool: { must: { term: { user: 'u3' } }, filter: { range: { n: { gte: 40, lte: 130 } } } } },
    ];
    const hitsOf = (q: unknown, reader: DirectoryReader) => runB({ size: 100, query: q } as Partial<SearchSource>, reader).hits.map((h) => [h.doc, h.score]);
    const want = queries.map((q) => hitsOf(q, whole));
    expect(want.map((h) => h.length)).toEqual([60, 60, 48, 48, want[4]!.length, want[5]!.length]);
    expect(want[4]!.length).toBeGreaterThan(0);
    expect(want[5]!.length).toBeGreaterThan(0);
    // the scan queries of fields without an index (doc values only)
    const scans = [new DocValuesTermsQuery('tag', ['x', 't3']), new DocValuesRangeQuery('n', 20, 110, true, false)];
    const scanDocs = (q: Query, reader: DirectoryReader) => {
      const w = new IndexSearcher(reader).createWeight(q, false, 1);
      const out: number[] = [];
      for (const leaf of reader.leaves) {
        const sc = w.scorer(leaf);
        if (sc) for (let d = sc.nextDoc(); d !== NO_MORE_DOCS; d = sc.nextDoc()) out.push(leaf.docBase + d);
      }
      return out;
    };
    const wantScans = scans.map((q) => scanDocs(q, whole));
    expect(wantScans[0]).toEqual(docs.map((_, i) => i).filter((i) => i % 4 === 0 || i % 5 === 3));
    expect(wantScans[1]).toEqual(docs.map((_, i) => i).filter((i) => (i >= 20 && i < 110) || (i % 6 === 0 && i + 100 < 110)));
    // exists from doc values presence (a leaf without `_field_names` postings)
    const presence = (leaf: LeafReader, field: string) => {
      const it = existsIterator(Object.assign(Object.create(leaf) as LeafReader, { postings: () => null }), field);
      const out: number[] = [];
      if (it) for (let d = it.nextDoc(); d !== NO_MORE_DOCS; d = it.nextDoc()) out.push(d);
      return out;
    };
    const first = docs.slice(0, 25).map((_, i) => i);
    expect(presence(whole.leaves[0]!.reader, 'ts')).toEqual(first.filter((i) => i % 5 !== 2));
    expect(presence(whole.leaves[0]!.reader, 'tag')).toEqual(first);
    for (const blockSize of [1, 2, 8, 4096]) {
      const blocks = blocksOnlyReader(fakeReader(segs), blockSize);
      for (const f of ['ts', 'tag', 'n', 'user']) expect(presence(blocks.leaves[0]!.reader, f)).toEqual(presence(whole.leaves[0]!.reader, f));
      expect(queries.map((q) => hitsOf(q, blocks))).toEqual(want);
      expect(scans.map((q) => scanDocs(q, blocks))).toEqual(wantScans);
    }
  });
});
