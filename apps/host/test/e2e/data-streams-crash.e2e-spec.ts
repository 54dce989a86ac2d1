import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHost, http, spawnHost, stopHost, type HostProcess } from './helpers.js';

const JSON_CT = { 'Content-Type': 'application/json' };
const NDJSON = { 'Content-Type': 'application/x-ndjson' };

/**
 * A data stream under ILM (rollover every 40 documents, then a shrink 2 → 1 shard) while documents keep
 * coming, with the node killed (-9) at arbitrary moments of rollovers and lifecycle steps: after every
 * restart the stream is consistent, no acknowledged document is lost, and the runner finishes the steps.
 */
describe('data streams and ILM across kill -9', () => {
  let dataPath: string;
  let proc: HostProcess | undefined;
  const args = (): string[] => ['-E', 'http.port=0', '-E', `path.data=${dataPath}`];

  beforeAll(() => {
    buildHost();
    dataPath = mkdtempSync(join(tmpdir(), 'strata-dscrash-'));
  });
  afterAll(async () => {
    if (proc) await stopHost(proc);
    rmSync(dataPath, { recursive: true, force: true });
  });

  const url = (p: string) => `${proc!.url}${p}`;

  async function checkConsistent(acked: number, quiet = false): Promise<string[]> {
    const backing = async (): Promise<string[]> => {
      const ds = await http(url('/_data_stream/logs-crash'));
      expect(ds.status).toBe(200);
      return ds.json.data_streams[0].indices.map((i: { index_name: string }) => i.index_name);
    };
    let names = await backing();
    for (const n of names) {
      const status = (await http(url(`/${n}`), { method: 'HEAD' })).status;
      // the lifecycle runner keeps going while this checks: a shrink may have swapped n for its shrunk copy
      // and deleted it since the stream was read — then n must no longer be listed
      if (status === 404) expect({ n, listed: (await backing()).includes(n) }).toEqual({ n, listed: false });
      else expect({ n, status }).toEqual({ n, status: 200 });
    }
    // the write index is the last one and takes writes (a rollover by the runner may come in between)
    const w = await http(url('/logs-crash/_doc'), { method: 'POST', headers: JSON_CT, body: JSON.stringify({ '@timestamp': '2024-01-01T00:00:00Z', probe: true }) });
    expect(w.status).toBe(201);
    if (w.json._index !== names[names.length - 1]) names = await backing();
    expect(w.json._index).toBe(names[names.length - 1]);
    await http(url('/logs-crash/_refresh'), { method: 'POST' });
    const count = await http(url('/logs-crash/_count'), { method: 'POST', headers: JSON_CT, body: JSON.stringify({ query: { exists: { field: 'n' } } }) });
    expect(count.json.count).toBe(acked);
    if (!quiet) return names;
    // at rest, no index directory is left over that no index refers to
    const state = await http(url('/_cluster/state/metadata'));
    const uuids = Object.values(state.json.metadata.indices as Record<string, { settings: { index: { uuid: string } } }>).map((m) => m.settings.index.uuid);
    expect(readdirSync(join(dataPath, 'indices')).sort()).toEqual(uuids.sort());
    return names;
  }

  it('keeps a consistent stream and every acknowledged document; the runner finishes after restart', async () => {
    proc = await spawnHost(args());
    await http(url('/_cluster/settings'), { method: 'PUT', headers: JSON_CT, body: JSON.stringify({ persistent: { 'indices.lifecycle.poll_interval': '1s' } }) });
    await http(url('/_ilm/policy/crashy'), {
      method: 'PUT',
      headers: JSON_CT,
      body: JSON.stringify({ policy: { phases: { hot: { actions: { rollover: { max_docs: 40 } } }, warm: { actions: { shrink: { number_of_shards: 1 }, forcemerge: { max_num_segments: 1 } } } } } }),
    });
    await http(url('/_index_template/crash'), {
      method: 'PUT',
      headers: JSON_CT,
      body: JSON.stringify({ index_patterns: ['logs-crash*'], data_stream: {}, priority: 500, template: { settings: { number_of_shards: 2, number_of_replicas: 0, 'index.lifecycle.name': 'crashy' } } }),
    });
    let acked = 0;
    let seq = 0;
    for (let round = 0; round < 4; round++) {
      const deadline = Date.now() + 700 + round * 450;
      while (Date.now() < deadline) {
        const lines: string[] = [];
        for (let i = 0; i < 25; i++) lines.push('{"create":{}}', JSON.stringify({ '@timestamp': '2024-01-01T00:00:00Z', n: seq++ }));
        const r = await http(url('/logs-crash/_bulk'), { method: 'POST', headers: NDJSON, body: lines.join('\n') + '\n' });
        expect(r.status).toBe(200);
        for (const it of r.json.items as Array<{ create: { status: number } }>) if (it.create.status === 201) acked++;
        await http(url('/logs-crash/_rollover'), { method: 'POST', headers: JSON_CT, body: '{"conditions":{"max_docs":60}}' });
      }
      await stopHost(proc, 'SIGKILL');
      proc = await spawnHost(args());
      await checkConsistent(acked);
    }
    // let the runner finish: every index but the write index rolled over, shrunk and merged, none in error
    let names: string[] = [];
    let settled = false;
    for (let i = 0; i < 60 && !settled; i++) {
      await new Promise((r) => setTimeout(r, 500));
      names = await checkConsistent(acked);
      const ex = await http(url('/logs-crash/_ilm/explain'));
      const states = names.slice(0, -1).map((n) => ex.json.indices[n]);
      expect(states.filter((s) => s?.step === 'ERROR')).toEqual([]);
      settled = states.every((s) => s && s.phase === 'warm' && s.step === 'complete');
    }
    expect(settled).toBe(true);
    await checkConsistent(acked, true);
    for (const n of names.slice(0, -1)) {
      expect(n.startsWith('shrink-')).toBe(true);
      const st = await http(url(`/${n}/_settings?flat_settings`));
      expect(st.json[n].settings['index.number_of_shards']).toBe('1');
    }
  });
});
