/**
 * The `strata` command as a user runs it (the built apps/host/dist/strata.cjs): start, health, load
 * (NDJSON, _bulk pairs, JSON, CSV, per-item failures, resume after a kill -9), connection errors.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHost, cliPath, http, spawnHost, startE2eHost, stopHost, type E2eHost } from './helpers.js';

/** runs the command (asynchronously: the node under test lives in this process) */
function strata(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ status: code ?? -1, stdout, stderr });
    });
  });
}

describe('strata command', () => {
  let host: E2eHost;
  let dir: string;

  beforeAll(async () => {
    buildHost();
    host = await startE2eHost();
    dir = mkdtempSync(join(tmpdir(), 'strata-cli-'));
  });
  afterAll(async () => {
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async (index: string) => (await http(`${host.url}/${index}/_count`)).json.count;

  it('prints its usage', async () => {
    const r = await strata(['help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: strata <command> [options]');
    const none = await strata([]);
    expect(none.status).toBe(64);
    const bad = await strata(['frobnicate']);
    expect(bad.status).toBe(64);
    expect(bad.stderr).toBe('strata: unknown command [frobnicate]; try strata help\n');
  });

  it('verify: a stopped node\'s files intact (exit 0), a corrupt _source block (exit 1), nothing there (exit 2)', async () => {
    const data = join(dir, 'verify-data');
    const p = await spawnHost(['start', '-E', 'http.port=0', '-E', `path.data=${data}`], { script: cliPath });
    const docs = Array.from({ length: 300 }, (_, i) => `{"index":{"_id":"v${i}"}}\n{"n":${i},"s":"${'x'.repeat(i)}"}\n`).join('');
    expect((await http(`${p.url}/v/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: docs })).status).toBe(200);
    await stopHost(p, 'SIGTERM');
    const ok = await strata(['verify', data]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^OK {6}\S+ \(1 segments, format 5\)$/m);
    expect(JSON.parse(ok.stdout.trim().split('\n').pop()!)).toEqual({ shards: 1, corrupt_shards: 0, segments: 1 });
    const shard = join(data, 'indices', readdirSync(join(data, 'indices'))[0]!, '0');
    const src = join(shard, readdirSync(shard).find((f) => f.endsWith('.src'))!);
    const bytes = readFileSync(src);
    bytes[100] ^= 0x01;
    writeFileSync(src, bytes);
    const bad = await strata(['verify', data]);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain('CORRUPT');
    expect(bad.stdout).toContain('checksum failed');
    expect((await strata(['verify', join(dir, 'nothing-here')])).status).toBe(2);
  });

  it('health: one line, exit 0 on green; --json; ES_URL; an unreachable node is exit 69', async () => {
    const r = await strata(['health', '--url', host.url]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^green {2}cluster \[strata\] at http:\/\/127\.0\.0\.1:\d+: 1 node\(s\)/);
    const j = await strata(['health', '--json'], { ES_URL: host.url });
    expect(JSON.parse(j.stdout)).toMatchObject({ cluster_name: 'strata', status: 'green' });
    const down = await strata(['health', '--url', 'http://127.0.0.1:1']);
    expect(down.status).toBe(69);
    expect(down.stderr).toBe('strata: cannot reach http://127.0.0.1:1: ECONNREFUSED\n');
  });

  it('loads NDJSON documents with progress, and reports the _count', async () => {
    const file = join(dir, 'docs.ndjson');
    writeFileSync(file, Array.from({ length: 2500 }, (_, i) => JSON.stringify({ n: i, msg: `doc ${i}` })).join('\n') + '\n');
    const r = await strata(['load', file, '--index', 'docs', '--url', host.url, '--batch', '1000']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^loaded .*docs\.ndjson into \[docs\]: 2500 indexed, 0 failed in \d+\.\ds \([\d,]+ docs\/s\); _count: 2500\n$/);
    expect(r.stderr).toContain('loading [==============================] 100% | 2,500 docs |');
    expect(await count('docs')).toBe(2500);
    expect(existsSync(`${file}.docs.strata-load.json`)).toBe(false);
  });

  it('loads _bulk pairs, a JSON array and CSV (typed cells, nested headers)', async () => {
    const bulk = join(dir, 'pairs.ndjson');
    writeFileSync(bulk, '{"index":{"_id":"a"}}\n{"v":1}\n{"create":{"_id":"b"}}\n{"v":2}\n{"delete":{"_id":"zz"}}\n');
    const r1 = await strata(['load', bulk, '--index', 'pairs', '--url', host.url, '--no-progress']);
    // deleting a missing document answers 404 not_found without an error: not a failure, as in ES
    expect(r1.status).toBe(0);
    expect(r1.stdout).toContain('3 indexed, 0 failed');
    expect((await http(`${host.url}/pairs/_doc/b`)).json._source).toEqual({ v: 2 });
    const arr = join(dir, 'arr.json');
    writeFileSync(arr, JSON.stringify([{ a: 1 }, { a: 2 }, { a: 3 }]));
    expect((await strata(['load', arr, '--index', 'arr', '--url', host.url, '--no-progress'])).status).toBe(0);
    expect(await count('arr')).toBe(3);
    const csv = join(dir, 'people.csv');
    writeFileSync(csv, 'id,name,age,active,geo.city\n1,"Smith, J",42,true,Paris\n2,Ann,,false,"Ro""me"\n');
    expect((await strata(['load', csv, '--index', 'people', '--url', host.url, '--id-field', 'id', '--no-progress'])).status).toBe(0);
    expect((await http(`${host.url}/people/_doc/1`)).json._source).toEqual({ id: 1, name: 'Smith, J', age: 42, active: true, geo: { city: 'Paris' } });
    expect((await http(`${host.url}/people/_doc/2`)).json._source).toEqual({ id: 2, name: 'Ann', active: false, geo: { city: 'Ro"me' } });
  });

  it('writes every failed item (line, status, error, document) and exits 2', async () => {
    await http(`${host.url}/typed`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ mappings: { properties: { n: { type: 'long' } } } }) });
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, '{"n":1}\n{"n":"x"}\n{"n":3}\n');
    const r = await strata(['load', file, '--index', 'typed', '--url', host.url, '--no-progress']);
    expect(r.status).toBe(2);
    expect(r.stdout).toContain('2 indexed, 1 failed');
    expect(r.stdout).toContain(`failed items (line, status, error, document): ${file}.typed.failures.ndjson`);
    const failures = readFileSync(`${file}.typed.failures.ndjson`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ line: 2, status: 400, error: { type: 'document_parsing_exception' }, document: '{"n":"x"}' });
  });

  it('resumes a load killed with SIGKILL from its last acknowledged batch (exactly once with --id-field)', async () => {
    const file = join(dir, 'big.ndjson');
    const N = 20_000;
    writeFileSync(file, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `k${i}`, n: i, pad: 'x'.repeat(40) })).join('\n') + '\n');
    const state = `${file}.big.strata-load.json`;
    const child = spawn(process.execPath, [cliPath, 'load', file, '--index', 'big', '--url', host.url, '--batch', '500', '--concurrency', '1', '--id-field', 'id', '--no-progress'], { stdio: 'ignore' });
    // kill it as soon as a resume point exists
    const t0 = Date.now();
    while (!existsSync(state) && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(existsSync(state)).toBe(true);
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved.items_done).toBeGreaterThan(0);
    expect(saved.items_done).toBeLessThan(N);
    expect(saved.size).toBe(statSync(file).size);
    // without --resume it refuses rather than loading twice
    const refused = await strata(['load', file, '--index', 'big', '--url', host.url, '--no-progress']);
    expect(refused.status).toBe(64);
    expect(refused.stderr).toContain('pass --resume to continue it or --restart to load from the start');
    const r = await strata(['load', file, '--index', 'big', '--url', host.url, '--batch', '5000', '--id-field', 'id', '--resume', '--no-progress']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`(${saved.items_done} items done before resuming)`);
    expect(r.stdout).toContain(`_count: ${N}`);
    expect(await count('big')).toBe(N);
    expect(existsSync(state)).toBe(false);
  }, 120_000);

  it('start: runs the service, as npm start does', async () => {
    const data = mkdtempSync(join(tmpdir(), 'strata-cli-start-'));
    const p = await spawnHost(['start', '-E', 'http.port=0', '-E', `path.data=${data}`], { script: cliPath });
    try {
      const banner = await http(p.url + '/');
      expect(banner.json.tagline).toBe('You Know, for Search');
    } finally {
      p.child.kill('SIGTERM');
      await new Promise((r) => p.child.once('exit', r));
      rmSync(data, { recursive: true, force: true });
    }
  });
});
