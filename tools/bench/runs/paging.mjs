// Deep paging runs: every document of the index, in pages of 1,000, by search_after over a point in time
// and by scroll (sort _doc). Each reports pages' p50/p95, docs/s over the whole walk, and the first vs the
// last page latency (a page must not get slower with depth). Checks: every document is returned exactly once.
import { summarize } from '../lib/stats.mjs';
import { assert, assertSearchOk } from './checks.mjs';

const PAGE = 1000;

function finish(row, samples, ids, ctx, t0) {
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  assert(ids.size === ctx.gen.docs, `walked ${ids.size} distinct docs, expected ${ctx.gen.docs}`);
  const first = samples[0];
  const lastFull = samples.length > 2 ? samples[samples.length - 2] : samples[samples.length - 1];
  Object.assign(row, summarize(samples));
  row.result = `${Math.round(ids.size / secs).toLocaleString('en-US')} docs/s`;
  row.notes.push(`${samples.length} pages in ${secs.toFixed(1)} s; first page ${first.toFixed(1)} ms, last full page ${lastFull.toFixed(1)} ms`);
  row.docsPerSecond = ids.size / secs;
  row.firstPageMs = first;
  row.lastPageMs = lastFull;
}

async function pitWalk(ctx) {
  const row = { group: 'paging', name: 'pit_search_after_all', description: `all docs by search_after + PIT, pages of ${PAGE}, sort _shard_doc`, status: 'ok', notes: [] };
  let pit;
  try {
    const open = await ctx.client.request('POST', `/${ctx.index}/_pit?keep_alive=2m`);
    assert(open.status === 200, `open PIT -> HTTP ${open.status} ${open.text.slice(0, 200)}`);
    pit = open.json.id;
    const ids = new Set();
    const samples = [];
    let after;
    const t0 = process.hrtime.bigint();
    for (;;) {
      const body = { size: PAGE, pit: { id: pit, keep_alive: '2m' }, sort: [{ _shard_doc: 'asc' }], track_total_hits: false };
      if (after) body.search_after = after;
      const res = await ctx.client.request('POST', '/_search', body);
      const j = assertSearchOk(res);
      samples.push(res.ms);
      pit = j.pit_id ?? pit;
      const hits = j.hits.hits;
      for (const h of hits) ids.add(h._id);
      if (hits.length < PAGE) break;
      after = hits[hits.length - 1].sort;
    }
    finish(row, samples, ids, ctx, t0);
  } catch (e) {
    row.status = 'failed';
    row.error = e.message;
  } finally {
    if (pit) await ctx.client.request('DELETE', '/_pit', { id: pit });
  }
  return row;
}

async function scrollWalk(ctx) {
  const row = { group: 'paging', name: 'scroll_all', description: `all docs by scroll, pages of ${PAGE}, sort _doc`, status: 'ok', notes: [] };
  let sid;
  try {
    const ids = new Set();
    const samples = [];
    const t0 = process.hrtime.bigint();
    let res = await ctx.client.request('POST', `/${ctx.index}/_search?scroll=2m`, { size: PAGE, sort: ['_doc'] });
    for (;;) {
      const j = assertSearchOk(res);
      samples.push(res.ms);
      sid = j._scroll_id;
      assert(typeof sid === 'string', 'no _scroll_id');
      const hits = j.hits.hits;
      for (const h of hits) ids.add(h._id);
      if (hits.length === 0) break;
      res = await ctx.client.request('POST', '/_search/scroll', { scroll: '2m', scroll_id: sid });
    }
    finish(row, samples, ids, ctx, t0);
  } catch (e) {
    row.status = 'failed';
    row.error = e.message;
  } finally {
    if (sid) await ctx.client.request('DELETE', '/_search/scroll', { scroll_id: sid });
  }
  return row;
}

export default {
  name: 'paging',
  runs: [
    { name: 'pit_search_after_all', description: 'all docs by search_after + PIT', custom: async (ctx) => [await pitWalk(ctx)] },
    { name: 'scroll_all', description: 'all docs by scroll', custom: async (ctx) => [await scrollWalk(ctx)] },
  ],
};
