// Measuring one request-shaped run: W warm-ups, then up to R measured repetitions (stopping early after
// maxSeconds once at least minRuns samples exist). Every response is checked; the first failed check
// marks the row FAILED with the reason.
import { readCpuSeconds } from './service.mjs';
import { summarize } from './stats.mjs';

export function withParams(path, params) {
  if (!params || !Object.keys(params).length) return path;
  const qs = new URLSearchParams(params).toString();
  return path + (path.includes('?') ? '&' : '?') + qs;
}

/**
 * def: { name, description, request(ctx) -> {method, path, body, params?}, params?, check(res, ctx) -> result }
 * Returns a result row.
 */
export async function measureRequest(ctx, def) {
  const { warmup, runs, maxRunSeconds, minRuns } = ctx.opts;
  const row = { group: def.group, name: def.name, description: def.description, status: 'ok', notes: [] };
  let params = { ...(def.params ?? {}), ...(def.request(ctx).params ?? {}) };
  const once = async () => {
    const r = def.request(ctx);
    const res = await ctx.client.request(r.method, withParams(r.path, params), r.body);
    requests++;
    return res;
  };
  const samples = [];
  const tooks = [];
  let result;
  let requests = 0;
  const cpu0 = ctx.pid ? readCpuSeconds(ctx.pid) : null;
  try {
    // First request: tolerate a service that rejects optional tuning params (e.g. request_cache) by
    // dropping them once, and say so in the notes.
    let res = await once();
    if (res.status === 400 && Object.keys(params).some((p) => res.text.includes(p))) {
      row.notes.push(`service rejected params ${JSON.stringify(params)}: measured without them`);
      ctx.warn(`${def.name}: service rejected ${JSON.stringify(params)} (HTTP 400); measuring without`);
      params = {};
      res = await once();
    }
    result = def.check(res, ctx);
    for (let k = 1; k < warmup; k++) def.check(await once(), ctx);
    const t0 = Date.now();
    for (let k = 0; k < runs; k++) {
      const res2 = await once();
      result = def.check(res2, ctx);
      samples.push(res2.ms);
      if (typeof res2.json?.took === 'number') tooks.push(res2.json.took);
      if (samples.length >= minRuns && Date.now() - t0 > maxRunSeconds * 1000) {
        row.notes.push(`stopped after ${samples.length} runs (time budget ${maxRunSeconds}s)`);
        break;
      }
    }
  } catch (e) {
    row.status = 'failed';
    row.error = e.message;
  }
  Object.assign(row, summarize(samples));
  row.samples = samples.map((v) => Math.round(v * 1000) / 1000); // raw wall-clock ms, in order (JSON only)
  // Service CPU per request (warm-ups included; /proc ticks are 10 ms, so this is an average over all requests):
  // much less sensitive to a busy machine than wall-clock latency.
  if (cpu0 !== null && requests > 0 && row.status === 'ok') row.cpuMsPerRequest = ((readCpuSeconds(ctx.pid) - cpu0) * 1000) / requests;
  if (tooks.length) row.tookP50 = summarize(tooks).p50;
  row.result = result;
  return row;
}
