// "mixed_qps": the hit-returning standard queries (term, range+sort, bool, text OR) sent round-robin by
// --qps-clients concurrent connections for --qps-seconds; reports queries/s and latency under load.
// Every response is checked like in the single-query runs.
import { readCpuSeconds } from '../lib/service.mjs';
import { summarize } from '../lib/stats.mjs';
import queries from './queries.mjs';

const MIX = ['term_status', 'term_country', 'range_day_sort_desc', 'bool_match_filter', 'text_or_3'];

async function run(ctx) {
  const defs = MIX.map((n) => queries.runs.find((r) => r.name === n));
  const qctx = { ...ctx, truth: ctx.truths.get('queries') };
  const clients = ctx.opts.qpsClients;
  const row = {
    group: 'throughput', name: 'mixed_qps', status: 'ok', notes: [],
    description: `${MIX.length} hit queries round-robin, ${clients} concurrent clients, ${ctx.opts.qpsSeconds} s`,
  };
  if (!qctx.truth) return [{ ...row, status: 'skipped', error: 'needs the queries group expectations' }];
  const samples = [];
  let next = 0;
  let failure = null;
  const cpu0 = ctx.pid ? readCpuSeconds(ctx.pid) : null;
  const t0 = Date.now();
  const deadline = t0 + ctx.opts.qpsSeconds * 1000;
  async function worker() {
    while (!failure && Date.now() < deadline) {
      const def = defs[next++ % defs.length];
      const r = def.request(qctx);
      const res = await ctx.client.request(r.method, r.path, r.body);
      try {
        def.check(res, qctx);
      } catch (e) {
        failure = new Error(`${def.name}: ${e.message}`);
        return;
      }
      samples.push(res.ms);
    }
  }
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = (Date.now() - t0) / 1000;
  if (failure) return [{ ...row, status: 'failed', error: failure.message }];
  const cpuMsPerRequest = cpu0 !== null && samples.length ? ((readCpuSeconds(ctx.pid) - cpu0) * 1000) / samples.length : undefined;
  return [{ ...row, ...summarize(samples), qps: samples.length / seconds, cpuMsPerRequest, result: `${(samples.length / seconds).toFixed(1)} q/s` }];
}

export default { name: 'throughput', runs: [{ name: 'mixed_qps', description: 'mixed query throughput', custom: run }] };
