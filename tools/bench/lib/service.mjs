// Starting, probing and stopping the Strata host for measurements.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const HOST_MAIN = path.join(REPO_ROOT, 'apps/host/dist/main.cjs');

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** One GET / without keep-alive; resolves the status code (or rejects when nobody listens). */
function probe(port, auth) {
  return new Promise((resolve, reject) => {
    const headers = auth ? { Authorization: auth } : {};
    const req = http.request({ host: '127.0.0.1', port, path: '/', method: 'GET', agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.setTimeout(2000, () => req.destroy(new Error('probe timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** VmRSS / VmHWM of a process in bytes (Linux /proc), or null when unavailable. */
export function readMemory(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => {
      const m = s.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm'));
      return m ? Number(m[1]) * 1024 : null;
    };
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return null;
  }
}

/** User + system CPU seconds consumed so far by a process (Linux /proc/<pid>/stat), or null. */
export function readCpuSeconds(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime is field 14, stime field 15 => indexes 11 and 12.
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** Size in bytes of all files under dir (recursive), 0 when missing. */
export function dirSize(dir) {
  let total = 0;
  const walk = (d) => {
    let entries;
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) { try { total += fs.statSync(p).size; } catch { /* gone */ } }
    }
  };
  walk(dir);
  return total;
}

/**
 * Spawns `node <main> -E http.port=<port> -E path.data=<dataDir> -E xpack.security.enabled=false` and waits
 * for the first answered GET / (`probeAuth`: an Authorization header for a service started with security on).
 * Returns { pid, port, url, dataDir, startupMs, logFile, stop(), logTail() }.
 * startupMs = spawn -> first HTTP 200 on GET / (polling every 5 ms).
 */
/** the V8 flags `npm start` gives the service (package.json "start"): a larger young generation */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=32'];

export async function startService({
  main = HOST_MAIN, port, dataDir, nodeArgs = SERVICE_NODE_FLAGS, extraArgs = [], timeoutMs = 30_000, logFile, env = {}, probeAuth,
} = {}) {
  if (!fs.existsSync(main)) {
    throw new Error(`host bundle not found: ${main}\nbuild it first: node tools/scripts/build-host.mjs (npm run build)`);
  }
  port = port || (await freePort());
  const ownsDataDir = !dataDir;
  dataDir = dataDir || fs.mkdtempSync(path.join(os.tmpdir(), 'strata-bench-data-'));
  logFile = logFile || path.join(os.tmpdir(), `strata-bench-${port}.log`);
  const log = fs.openSync(logFile, 'w');
  // the measurements run with security off unless the caller sets xpack.security.enabled (the auth run does)
  const security = extraArgs.some((a) => String(a).includes('xpack.security.enabled')) ? [] : ['-E', 'xpack.security.enabled=false'];
  const args = [...nodeArgs, main, '-E', `http.port=${port}`, '-E', `path.data=${dataDir}`, ...security, ...extraArgs];
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', log, log],
    env: { ...process.env, ...env },
  });
  fs.closeSync(log);
  let exited = null;
  const exitPromise = new Promise((resolve) => child.on('exit', (code, signal) => {
    exited = { code, signal };
    resolve(exited);
  }));

  const logTail = (n = 40) => {
    try { return fs.readFileSync(logFile, 'utf8').split('\n').slice(-n).join('\n'); } catch { return ''; }
  };

  async function stop({ graceMs = 10_000, removeData = ownsDataDir, keepLog = false } = {}) {
    if (!exited) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => { if (!exited) child.kill('SIGKILL'); }, graceMs);
      await exitPromise;
      clearTimeout(timer);
    }
    if (removeData) {
      fs.rmSync(dataDir, { recursive: true, force: true });
      // keep the log of a service that did not exit cleanly
      if (exited.code === 0 && !keepLog) fs.rmSync(logFile, { force: true });
    }
    return exited;
  }

  let startupMs = null;
  let lastErr = null;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      const status = await probe(port, probeAuth);
      if (status === 200) {
        startupMs = Number(process.hrtime.bigint() - t0) / 1e6;
        break;
      }
      lastErr = new Error(`GET / answered HTTP ${status}`);
    } catch (e) {
      lastErr = e;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  if (startupMs === null) {
    await stop({ graceMs: 2000 });
    const why = exited ? `exited (code ${exited.code}, signal ${exited.signal})` : `no HTTP 200 on GET / within ${timeoutMs} ms (${lastErr?.message})`;
    throw new Error(`service failed to start: ${why}\n--- ${logFile} (tail) ---\n${logTail()}`);
  }
  return {
    pid: child.pid, port, url: `http://127.0.0.1:${port}`, dataDir, startupMs, logFile, args,
    get exited() { return exited; }, stop, logTail,
  };
}

/**
 * One HTTP request with a JSON body (or an NDJSON string); resolves { status, text, json } (json undefined
 * when the answer is empty or not JSON).
 */
export async function requestJson(baseUrl, method, path, body, ndjson = false) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['content-type'] = ndjson ? 'application/x-ndjson' : 'application/json';
    init.body = ndjson ? body : JSON.stringify(body);
  }
  const r = await fetch(baseUrl + path, init);
  const text = await r.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, text, json };
}

/** the translog replays a node logged (`replayed translog operations`, one per shard), and the other log lines */
export function parseNodeLog(text) {
  const replays = [];
  const lines = [];
  for (const line of text.split('\n')) {
    let o;
    try {
      o = JSON.parse(line);
    } catch {
      continue;
    }
    const msg = String(o.message ?? o.msg ?? '');
    if (msg === 'replayed translog operations') replays.push({ ops: o.ops, indexed: o.indexed ?? o.ops, ms: o.took_ms, cpuMs: o.cpu_ms ?? o.took_ms });
    else lines.push({ msg, o });
  }
  return { replays, lines };
}
