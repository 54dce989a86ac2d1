// Loads prepared _bulk bodies into an index with a few concurrent clients, checking every response;
// returns the wall-clock milliseconds and the service CPU seconds spent.
import { assert } from '../runs/checks.mjs';
import { readCpuSeconds } from './service.mjs';

/**
 * (Re)creates `index` with `body` (settings/mappings), sends `bodies` (NDJSON Buffers) to `path` (default
 * `/<index>/_bulk`) with `clients` workers, refreshes and checks `_count` equals `expectCount`.
 */
export async function loadBulk(ctx, { index, body, bodies, path = `/${index}/_bulk`, clients = 2, expectCount }) {
  const del = await ctx.client.request('DELETE', `/${index}`);
  assert(del.status === 200 || del.status === 404, `DELETE /${index} -> HTTP ${del.status}`);
  const c = await ctx.client.request('PUT', `/${index}`, body);
  assert(c.status === 200, `PUT /${index} -> HTTP ${c.status} ${c.text.slice(0, 200)}`);
  let next = 0;
  const cpu0 = ctx.pid ? readCpuSeconds(ctx.pid) : null;
  const t0 = process.hrtime.bigint();
  async function worker() {
    while (next < bodies.length) {
      const b = bodies[next++];
      const res = await ctx.client.request('POST', path, b, { contentType: 'application/x-ndjson' });
      assert(res.status === 200, `_bulk -> HTTP ${res.status} ${res.text.slice(0, 300)}`);
      assert(res.json.errors === false, `_bulk item errors: ${res.text.slice(0, 300)}`);
    }
  }
  await Promise.all(Array.from({ length: clients }, worker));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  await ctx.client.request('POST', `/${index}/_refresh`);
  const cpu = cpu0 !== null ? readCpuSeconds(ctx.pid) - cpu0 : null;
  if (expectCount !== undefined) {
    const count = await ctx.client.request('GET', `/${index}/_count`);
    assert(count.json?.count === expectCount, `${index}: count ${count.json?.count}, expected ${expectCount}`);
  }
  return { ms, cpu };
}
