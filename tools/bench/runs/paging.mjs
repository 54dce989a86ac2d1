// Deep paging runs (from/size, search_after, PIT, scroll): reserved for the paging work.
//
// How to add a run (any group file here, registered in runs/index.mjs):
//   - request-shaped: { name, description, params?, request(ctx) -> {method, path, body}, check(res, ctx) -> result }
//     The runner measures W warm-ups + R repetitions; check() must throw (assert/fail from checks.mjs) on
//     any insane response, and its return value lands in the row's `result` column.
//   - multi-request: { name, description, custom: async (ctx) => rows[] } (see runs/cache.mjs); build each
//     row with summarize() from lib/stats.mjs: { group, name, description, status, n, p50, p95, ... }.
// ctx: { client (lib/http.mjs), index, shards, gen {docs, days, startMs, endMs}, truth (this group's, from
//        createTruth(gen).onDoc(rec) called for every generated document), opts {warmup, runs, ...}, warn(msg) }
export default { name: 'paging', runs: [] };
