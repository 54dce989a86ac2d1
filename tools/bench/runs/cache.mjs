// "size-0 aggregation, cold vs cached": the same size-0 search measured right after clearing the shard
// request cache (cold) and then repeatedly without clearing (cached). Also checks that cached responses
// equal uncached ones and, when GET /<index>/_stats/request_cache answers, that cache hits were counted.
import { summarize } from '../lib/stats.mjs';
import { assert, assertSearchOk, buckets } from './checks.mjs';

const DAY_MS = 86_400_000;

function body(ctx) {
  return {
    size: 0,
    query: { range: { '@timestamp': { gte: new Date(ctx.gen.startMs).toISOString(), lt: new Date(ctx.gen.startMs + 3 * DAY_MS).toISOString() } } },
    aggs: {
      by_status: { terms: { field: 'http.response.status_code', size: 5 } },
      per_hour: { date_histogram: { field: '@timestamp', fixed_interval: '1h' } },
    },
  };
}

async function cacheStats(ctx) {
  const res = await ctx.client.request('GET', `/${ctx.index}/_stats/request_cache`);
  if (res.status !== 200) return null;
  const rc = res.json?.indices?.[ctx.index]?.total?.request_cache ?? res.json?._all?.total?.request_cache;
  return rc ?? null;
}

async function run(ctx) {
  const { warmup, runs } = ctx.opts;
  const path = `/${ctx.index}/_search`;
  const b = body(ctx);
  const base = { group: 'cache', notes: [] };
  const cold = { ...base, name: 'agg_size0_cold', description: 'size 0, range 3 days + terms + date_histogram, request cache cleared before each', status: 'ok' };
  const cached = { ...base, notes: [], name: 'agg_size0_cached', description: 'the same search repeated (request cache warm)', status: 'ok' };
  const check = (res) => {
    const j = assertSearchOk(res);
    buckets(j, 'by_status');
    buckets(j, 'per_hour');
    return j;
  };
  const clear = await ctx.client.request('POST', `/${ctx.index}/_cache/clear?request=true`);
  if (clear.status !== 200) {
    const why = `POST /${ctx.index}/_cache/clear?request=true -> HTTP ${clear.status}`;
    return [{ ...cold, status: 'skipped', error: why }, { ...cached, status: 'skipped', error: why }];
  }
  let reference;
  try {
    const coldSamples = [];
    for (let k = 0; k < runs; k++) {
      await ctx.client.ok('POST', `/${ctx.index}/_cache/clear?request=true`);
      const res = await ctx.client.request('POST', path, b);
      const j = check(res);
      if (!reference) reference = JSON.stringify(j.aggregations);
      assert(JSON.stringify(j.aggregations) === reference, 'cold responses differ between runs');
      coldSamples.push(res.ms);
    }
    Object.assign(cold, summarize(coldSamples));
  } catch (e) {
    cold.status = 'failed';
    cold.error = e.message;
  }
  try {
    for (let k = 0; k < warmup; k++) check(await ctx.client.request('POST', path, b));
    const before = await cacheStats(ctx);
    const samples = [];
    for (let k = 0; k < runs; k++) {
      const res = await ctx.client.request('POST', path, b);
      const j = check(res);
      if (reference) assert(JSON.stringify(j.aggregations) === reference, 'cached aggregations differ from uncached ones');
      samples.push(res.ms);
    }
    Object.assign(cached, summarize(samples));
    const after = await cacheStats(ctx);
    if (before && after && typeof after.hit_count === 'number') {
      const hits = after.hit_count - (before.hit_count ?? 0);
      cached.cacheHits = hits;
      if (hits < runs) cached.notes.push(`only ${hits} request-cache hits counted for ${runs} runs`);
    } else {
      cached.notes.push('request_cache stats unavailable');
    }
  } catch (e) {
    cached.status = 'failed';
    cached.error = e.message;
  }
  return [cold, cached];
}

export default {
  name: 'cache',
  runs: [{ name: 'agg_size0_cold_vs_cached', description: 'size-0 aggregation with and without the request cache', custom: run }],
};
