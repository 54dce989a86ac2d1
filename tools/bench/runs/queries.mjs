// The standard query runs: one search each, measured W warm-up + R times, every response checked against
// exact expectations computed from the generator while the data was produced (see createTruth).
import { COUNTRIES, VOCABULARY } from '../generate.mjs';
import { assert, assertHitCount, assertSearchOk, assertTotal, buckets, getPath } from './checks.mjs';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Query parameters (fixed, so results are comparable across runs). */
export const PARAMS = Object.freeze({
  status: 404,
  country: 'DE',
  day: 1, // zero-based day of the data span used by the one-day range
  boolWordRank: 50,
  bytesMin: 10_000,
  orWordRanks: [200, 700, 1500],
  termsAggSize: 10,
});

const word = (rank) => VOCABULARY[rank - 1];

function createTruth(gen) {
  const countryIdx = COUNTRIES.indexOf(PARAMS.country);
  const dayLo = gen.startMs + PARAMS.day * DAY_MS;
  const dayHi = dayLo + DAY_MS;
  const hours = Math.ceil((gen.endMs - gen.startMs) / HOUR_MS) + 1;
  const boolW = PARAMS.boolWordRank - 1;
  const orW = new Set(PARAMS.orWordRanks.map((r) => r - 1));
  const t = {
    docs: 0,
    status: 0,
    country: 0,
    countries: new Float64Array(COUNTRIES.length),
    day: 0,
    dayLast: [], // last 10 timestamps inside the day (ascending)
    hourly: new Float64Array(hours),
    firstTs: Infinity,
    lastTs: -Infinity,
    bool: 0,
    or: 0,
  };
  return {
    truth: t,
    onDoc(rec) {
      t.docs++;
      if (rec.status === PARAMS.status) t.status++;
      if (rec.country === countryIdx) t.country++;
      t.countries[rec.country]++;
      if (rec.ts >= dayLo && rec.ts < dayHi) {
        t.day++;
        t.dayLast.push(rec.ts);
        if (t.dayLast.length > 10) t.dayLast.shift();
      }
      t.hourly[Math.floor((rec.ts - gen.startMs) / HOUR_MS)]++;
      if (rec.ts < t.firstTs) t.firstTs = rec.ts;
      if (rec.ts > t.lastTs) t.lastTs = rec.ts;
      let hasBool = false, hasOr = false;
      for (let k = 0; k < rec.nwords; k++) {
        const w = rec.words[k];
        if (w === boolW) hasBool = true;
        if (orW.has(w)) hasOr = true;
      }
      if (hasBool && rec.bytes >= PARAMS.bytesMin) t.bool++;
      if (hasOr) t.or++;
    },
  };
}

function termRun(name, description, field, value, expectedOf) {
  return {
    name,
    description,
    request: (ctx) => ({ method: 'POST', path: `/${ctx.index}/_search`, body: { query: { term: { [field]: value } } } }),
    check(res, ctx) {
      const j = assertSearchOk(res);
      const expected = expectedOf(ctx.truth);
      assert(expected > 0, 'the data set has no matching document (too few docs?)');
      assertTotal(j, expected);
      const hits = assertHitCount(j, Math.min(10, expected));
      for (const h of hits) {
        assert(getPath(h._source, field) === value, () => `hit ${h._id} has ${field}=${getPath(h._source, field)}`);
      }
      return j.hits.total.value;
    },
  };
}

function textHitsContain(hits, words) {
  for (const h of hits) {
    const msg = getPath(h._source, 'message');
    assert(typeof msg === 'string', () => `hit ${h._id} has no message`);
    const toks = msg.split(' ');
    assert(words.some((w) => toks.includes(w)), () => `hit ${h._id} contains none of ${words.join(',')}`);
  }
}

function assertScoresDesc(hits) {
  for (let k = 1; k < hits.length; k++) {
    assert(typeof hits[k]._score === 'number' && hits[k]._score <= hits[k - 1]._score,
      () => `_score not descending at hit ${k}: ${hits[k - 1]._score} then ${hits[k]._score}`);
  }
}

const runs = [
  termRun('term_status', `term http.response.status_code=${PARAMS.status}`, 'http.response.status_code', PARAMS.status, (t) => t.status),
  termRun('term_country', `term source.geo.country_iso_code=${PARAMS.country}`, 'source.geo.country_iso_code', PARAMS.country, (t) => t.country),
  {
    name: 'range_day_sort_desc',
    description: `range @timestamp one day (day ${PARAMS.day}), sort @timestamp desc, size 10`,
    request(ctx) {
      const lo = ctx.gen.startMs + PARAMS.day * DAY_MS;
      return {
        method: 'POST',
        path: `/${ctx.index}/_search`,
        body: {
          size: 10,
          query: { range: { '@timestamp': { gte: new Date(lo).toISOString(), lt: new Date(lo + DAY_MS).toISOString() } } },
          sort: [{ '@timestamp': 'desc' }],
        },
      };
    },
    check(res, ctx) {
      const j = assertSearchOk(res);
      assert(ctx.truth.day > 0, 'no document in the day range');
      assertTotal(j, ctx.truth.day);
      const expected = [...ctx.truth.dayLast].reverse();
      const hits = assertHitCount(j, expected.length);
      hits.forEach((h, k) => {
        assert(Array.isArray(h.sort) && h.sort[0] === expected[k],
          () => `hit ${k} sort ${JSON.stringify(h.sort)}, expected [${expected[k]}]`);
        assert(Date.parse(getPath(h._source, '@timestamp')) === expected[k], () => `hit ${k} @timestamp ${getPath(h._source, '@timestamp')}`);
      });
      return j.hits.total.value;
    },
  },
  {
    name: 'bool_match_filter',
    description: `bool: match message "${word(PARAMS.boolWordRank)}" (rank ${PARAMS.boolWordRank}) + filter bytes >= ${PARAMS.bytesMin}`,
    request: (ctx) => ({
      method: 'POST',
      path: `/${ctx.index}/_search`,
      body: {
        query: {
          bool: {
            must: [{ match: { message: word(PARAMS.boolWordRank) } }],
            filter: [{ range: { 'http.response.body.bytes': { gte: PARAMS.bytesMin } } }],
          },
        },
      },
    }),
    check(res, ctx) {
      const j = assertSearchOk(res);
      assert(ctx.truth.bool > 0, 'no matching document in the data set');
      assertTotal(j, ctx.truth.bool);
      const hits = assertHitCount(j, Math.min(10, ctx.truth.bool));
      textHitsContain(hits, [word(PARAMS.boolWordRank)]);
      for (const h of hits) assert(getPath(h._source, 'http.response.body.bytes') >= PARAMS.bytesMin, `hit ${h._id} bytes below filter`);
      assertScoresDesc(hits);
      return j.hits.total.value;
    },
  },
  {
    name: 'terms_agg',
    description: `size 0, terms source.geo.country_iso_code (size ${PARAMS.termsAggSize})`,
    params: { request_cache: 'false' },
    request: (ctx) => ({
      method: 'POST',
      path: `/${ctx.index}/_search`,
      body: { size: 0, aggs: { countries: { terms: { field: 'source.geo.country_iso_code', size: PARAMS.termsAggSize } } } },
    }),
    check(res, ctx) {
      const j = assertSearchOk(res);
      assertTotal(j, ctx.truth.docs);
      assertHitCount(j, 0);
      const b = buckets(j, 'countries');
      const expected = COUNTRIES.map((key, k) => ({ key, doc_count: ctx.truth.countries[k] }))
        .filter((x) => x.doc_count > 0)
        .sort((a, c) => c.doc_count - a.doc_count || (a.key < c.key ? -1 : 1))
        .slice(0, PARAMS.termsAggSize);
      assert(b.length === expected.length, () => `${b.length} buckets, expected ${expected.length}`);
      if (ctx.shards === 1) {
        b.forEach((x, k) => assert(x.key === expected[k].key && x.doc_count === expected[k].doc_count,
          () => `bucket ${k} ${JSON.stringify(x)}, expected ${JSON.stringify(expected[k])}`));
        const other = ctx.truth.docs - expected.reduce((s, x) => s + x.doc_count, 0);
        const agg = j.aggregations.countries;
        assert(agg.sum_other_doc_count === other, () => `sum_other_doc_count ${agg.sum_other_doc_count}, expected ${other}`);
      } else {
        assert(b[0].key === expected[0].key, () => `top bucket ${b[0].key}, expected ${expected[0].key}`);
      }
      return b.length;
    },
  },
  {
    name: 'date_histogram_1h',
    description: 'size 0, date_histogram @timestamp fixed_interval 1h',
    params: { request_cache: 'false' },
    request: (ctx) => ({
      method: 'POST',
      path: `/${ctx.index}/_search`,
      body: { size: 0, aggs: { per_hour: { date_histogram: { field: '@timestamp', fixed_interval: '1h' } } } },
    }),
    check(res, ctx) {
      const j = assertSearchOk(res);
      assertTotal(j, ctx.truth.docs);
      const b = buckets(j, 'per_hour');
      const t = ctx.truth;
      const firstH = Math.floor((t.firstTs - ctx.gen.startMs) / HOUR_MS);
      const lastH = Math.floor((t.lastTs - ctx.gen.startMs) / HOUR_MS);
      assert(b.length === lastH - firstH + 1, () => `${b.length} buckets, expected ${lastH - firstH + 1}`);
      b.forEach((x, k) => {
        const key = ctx.gen.startMs + (firstH + k) * HOUR_MS;
        assert(x.key === key && x.doc_count === t.hourly[firstH + k],
          () => `bucket ${k} {key:${x.key},doc_count:${x.doc_count}}, expected {key:${key},doc_count:${t.hourly[firstH + k]}}`);
      });
      assert(typeof b[0].key_as_string === 'string' && Date.parse(b[0].key_as_string) === b[0].key,
        () => `key_as_string ${b[0].key_as_string} does not match key ${b[0].key}`);
      return b.length;
    },
  },
  {
    name: 'text_or_3',
    description: `match message "${PARAMS.orWordRanks.map(word).join(' ')}" (ranks ${PARAMS.orWordRanks.join(',')}, OR)`,
    request: (ctx) => ({
      method: 'POST',
      path: `/${ctx.index}/_search`,
      body: { query: { match: { message: { query: PARAMS.orWordRanks.map(word).join(' '), operator: 'or' } } } },
    }),
    check(res, ctx) {
      const j = assertSearchOk(res);
      assert(ctx.truth.or > 0, 'no matching document in the data set');
      assertTotal(j, ctx.truth.or);
      const hits = assertHitCount(j, Math.min(10, ctx.truth.or));
      textHitsContain(hits, PARAMS.orWordRanks.map(word));
      assertScoresDesc(hits);
      return j.hits.total.value;
    },
  },
];

export default { name: 'queries', createTruth, runs };
