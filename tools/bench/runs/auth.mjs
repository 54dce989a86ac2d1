// "auth overhead": what authentication and authorization add to a request. Two small services with the
// same one-document index, one with security off and one with security on (elastic's bootstrap password),
// then the same cheap request (GET /<index>/_doc/1) measured round-robin in four modes — security off, and
// with security on authenticated by HTTP Basic, by an API key and by an OAuth2 access token (bearer), each
// after warm-up so the authentication cache is warm. Reports p50/p95 per mode and the p50 added over off.
import { createClient } from '../lib/http.mjs';
import { startService } from '../lib/service.mjs';
import { summarize } from '../lib/stats.mjs';
import { assert } from './checks.mjs';

const INDEX = 'auth-bench';
const PASSWORD = 'bench-elastic-password';
const BASIC = 'Basic ' + Buffer.from(`elastic:${PASSWORD}`).toString('base64');

async function seed(client) {
  await client.ok('PUT', `/${INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } });
  await client.ok('PUT', `/${INDEX}/_doc/1?refresh=true`, { msg: 'hello', n: 1 });
}

/**
 * Measures the four modes; `rounds` requests per mode, interleaved so drift of the machine hits every
 * mode alike. Returns one result row per mode.
 */
export async function measureAuthOverhead({ rounds = 3000, warmup = 300, main, log = () => undefined } = {}) {
  const off = await startService({ main, extraArgs: ['-E', 'xpack.security.enabled=false', '-E', 'logger.level=warn'] });
  let on;
  const clients = [];
  try {
    on = await startService({
      main,
      extraArgs: ['-E', 'xpack.security.enabled=true', '-E', `bootstrap.password=${PASSWORD}`, '-E', 'logger.level=warn'],
      probeAuth: BASIC,
    });
    const offClient = createClient(off.url, { maxSockets: 1 });
    const admin = createClient(on.url, { maxSockets: 1, headers: { authorization: BASIC } });
    clients.push(offClient, admin);
    await seed(offClient);
    await seed(admin);
    const key = await admin.ok('POST', '/_security/api_key', { name: 'bench' });
    const token = await admin.ok('POST', '/_security/oauth2/token', { grant_type: 'password', username: 'elastic', password: PASSWORD });
    const modes = [
      { name: 'auth_off', description: 'security off', client: offClient },
      { name: 'auth_basic', description: 'security on, HTTP Basic (elastic)', client: admin },
      { name: 'auth_api_key', description: 'security on, ApiKey', client: createClient(on.url, { maxSockets: 1, headers: { authorization: `ApiKey ${key.encoded}` } }) },
      { name: 'auth_bearer', description: 'security on, Bearer access token', client: createClient(on.url, { maxSockets: 1, headers: { authorization: `Bearer ${token.access_token}` } }) },
    ];
    clients.push(modes[2].client, modes[3].client);
    const path = `/${INDEX}/_doc/1`;
    const check = (res, mode) => {
      assert(res.status === 200, `${mode.name}: GET ${path} -> HTTP ${res.status}: ${res.text.slice(0, 200)}`);
      assert(res.json?.found === true, `${mode.name}: document not found`);
    };
    for (let k = 0; k < warmup; k++) for (const m of modes) check(await m.client.request('GET', path), m);
    // every authenticated request is paired with a security-off one, alternating which goes first, so both
    // services are equally warm (a request right after the other service's is slower than a back-to-back one)
    const samples = modes.map(() => []);
    for (let k = 0; k < rounds; k++) {
      for (let i = 1; i < modes.length; i++) {
        const pair = (k + i) % 2 === 0 ? [0, i] : [i, 0];
        for (const m of pair) {
          const res = await modes[m].client.request('GET', path);
          check(res, modes[m]);
          samples[m].push(res.ms);
        }
      }
    }
    const offP50 = summarize(samples[0]).p50;
    const rows = modes.map((m, i) => {
      const s = summarize(samples[i]);
      const row = { group: 'auth', name: m.name, description: `${m.description}: GET ${path}, ${s.n} requests`, status: 'ok', notes: [], ...s };
      if (i > 0) {
        row.addedP50Ms = s.p50 - offP50;
        row.notes.push(`p50 added over security off: ${(row.addedP50Ms * 1000).toFixed(0)} µs`);
      }
      return row;
    });
    for (const r of rows) log(`${r.name}: p50 ${r.p50.toFixed(3)} ms, p95 ${r.p95.toFixed(3)} ms${r.addedP50Ms !== undefined ? `, added p50 ${(r.addedP50Ms * 1000).toFixed(0)} µs` : ''}`);
    return rows;
  } finally {
    for (const c of clients) c.close();
    await on?.stop();
    await off.stop();
  }
}

async function run(ctx) {
  // many more requests than the query runs: the differences measured are tens of microseconds
  const rounds = Math.max(1000, ctx.opts.runs * 100);
  return measureAuthOverhead({ rounds, warmup: Math.max(100, ctx.opts.warmup * 50), main: ctx.opts.main });
}

export default {
  name: 'auth',
  runs: [{ name: 'auth_overhead', description: 'added latency of authenticated requests (basic, API key, bearer) over security off', custom: run }],
};
