#!/usr/bin/env node
// First search after a restart: starts the built node on an existing data directory (a clean shutdown left
// it), polls GET / every 5 ms, then sends one search; prints spawn → first 200 on GET /, spawn → first search
// answered, that search's own time, and the node's RSS right after. The node is stopped with SIGTERM.
//   node tools/bench/restart.mjs --data DIR [--index logs] [--query '{"query":{"term":{"http.response.status_code":404}}}']
//   [--main apps/host/dist/main.cjs] [--user elastic --password changeme] [--cache 64mb]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const arg = (k, d) => (process.argv.indexOf(k) >= 0 ? process.argv[process.argv.indexOf(k) + 1] : d);
const data = arg('--data');
if (!data) throw new Error('--data DIR is required');
const index = arg('--index', 'logs');
const body = arg('--query', '{"query":{"term":{"http.response.status_code":404}}}');
const main = arg('--main', 'apps/host/dist/main.cjs');
const user = arg('--user');
const headers = { 'content-type': 'application/json' };
if (user) headers.authorization = `Basic ${Buffer.from(`${user}:${arg('--password', '')}`).toString('base64')}`;
const port = await new Promise((res) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => res(p));
  });
});
const url = `http://127.0.0.1:${port}`;
const t0 = performance.now();
// without --user the node runs with security off, as the other bench scripts start it
const extra = user ? [] : ['-E', 'xpack.security.enabled=false'];
const cache = arg('--cache') ? ['-E', `indices.store.block_cache.size=${arg('--cache')}`] : [];
const child = spawn(process.execPath, ['--max-semi-space-size=32', main, '-E', `http.port=${port}`, '-E', `path.data=${data}`, '-E', 'logger.level=warn', ...extra, ...cache], { stdio: 'ignore' });
let up = 0;
for (;;) {
  try {
    const r = await fetch(`${url}/`, { headers });
    await r.text();
    if (r.status === 200 || r.status === 401) {
      up = performance.now() - t0;
      break;
    }
  } catch {
    /* not listening yet */
  }
  await new Promise((r) => setTimeout(r, 5));
}
const s0 = performance.now();
const r = await fetch(`${url}/${index}/_search`, { method: 'POST', headers, body });
const json = await r.json();
const first = performance.now() - t0;
const searchMs = performance.now() - s0;
const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024;
console.log(JSON.stringify({ status: r.status, total: json.hits?.total, startup_ms: Math.round(up), first_search_ms: Math.round(first), search_ms: Math.round(searchMs), took: json.took, rss_mb: Math.round(rss / 1048576) }));
child.kill('SIGTERM');
await new Promise((res) => child.on('exit', res));
