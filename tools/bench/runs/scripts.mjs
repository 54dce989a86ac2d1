// Scripts and runtime fields on the shared Painless engine: a script_score over every document and a terms
// aggregation on a runtime keyword field (the script reads a keyword doc value and emits it).
import { COUNTRIES } from '../generate.mjs';
import { assert, assertHitCount, assertSearchOk, assertTotal, buckets } from './checks.mjs';

const TERMS_SIZE = 10;

function createTruth() {
  const t = { docs: 0, maxBytes: -Infinity, countries: new Float64Array(COUNTRIES.length) };
  return {
    truth: t,
    onDoc(rec) {
      t.docs++;
      if (rec.bytes > t.maxBytes) t.maxBytes = rec.bytes;
      t.countries[rec.country]++;
    },
  };
}

const runs = [
  {
    name: 'script_score_all',
    description: "script_score over match_all: Math.log(2 + doc['http.response.body.bytes'].value) * params.f, size 10",
    params: { request_cache: 'false' },
    request: (ctx) => ({
      method: 'POST',
      path: `/${ctx.index}/_search`,
      body: {
        query: {
          script_score: {
            query: { match_all: {} },
            script: { source: "Math.log(2 + doc['http.response.body.bytes'].value) * params.f", params: { f: 1 } },
          },
        },
        _source: false,
      },
    }),
    check(res, ctx) {
      const j = assertSearchOk(res);
      assertTotal(j, ctx.truth.docs);
      const hits = assertHitCount(j, Math.min(10, ctx.truth.docs));
      const top = Math.fround(Math.log(2 + ctx.truth.maxBytes));
      assert(hits[0]._score === top, () => `top _score ${hits[0]._score}, expected ${top}`);
      for (let k = 1; k < hits.length; k++) {
        assert(hits[k]._score <= hits[k - 1]._score, () => `_score not descending at hit ${k}`);
      }
      return hits.length;
    },
  },
  {
    name: 'terms_agg_runtime_keyword',
    description: `size 0, terms (size ${TERMS_SIZE}) on a runtime keyword field emitting source.geo.country_iso_code`,
    params: { request_cache: 'false' },
    request: (ctx) => ({
      method: 'POST',
      path: `/${ctx.index}/_search`,
      body: {
        size: 0,
        runtime_mappings: { country_rt: { type: 'keyword', script: { source: "emit(doc['source.geo.country_iso_code'].value)" } } },
        aggs: { countries: { terms: { field: 'country_rt', size: TERMS_SIZE } } },
      },
    }),
    check(res, ctx) {
      const j = assertSearchOk(res);
      assertTotal(j, ctx.truth.docs);
      const b = buckets(j, 'countries');
      const expected = COUNTRIES.map((key, k) => ({ key, doc_count: ctx.truth.countries[k] }))
        .filter((x) => x.doc_count > 0)
        .sort((a, c) => c.doc_count - a.doc_count || (a.key < c.key ? -1 : 1))
        .slice(0, TERMS_SIZE);
      assert(b.length === expected.length, () => `${b.length} buckets, expected ${expected.length}`);
      if (ctx.shards === 1) {
        b.forEach((x, k) => assert(x.key === expected[k].key && x.doc_count === expected[k].doc_count,
          () => `bucket ${k} ${JSON.stringify(x)}, expected ${JSON.stringify(expected[k])}`));
      }
      return b.length;
    },
  },
];

export default { name: 'scripts', createTruth, runs };
