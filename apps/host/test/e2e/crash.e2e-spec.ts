import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHost, http, spawnHost, stopHost, type HostProcess } from './helpers.js';

const hostArgs = (dataPath: string): string[] => ['-E', 'http.port=0', '-E', `path.data=${dataPath}`];

describe('crash safety of the built host', () => {
  let dataPath: string;
  let proc: HostProcess | undefined;

  beforeAll(() => {
    buildHost();
    dataPath = mkdtempSync(join(tmpdir(), 'strata-crash-'));
  });
  afterAll(async () => {
    if (proc) await stopHost(proc);
    rmSync(dataPath, { recursive: true, force: true });
  });

  it('keeps every acknowledged document across kill -9 (index auto-created by the first write)', async () => {
    proc = await spawnHost(hostArgs(dataPath));
    const json = { 'Content-Type': 'application/json' };
    const acked: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await http(`${proc.url}/crash/_doc/single-${i}?refresh=false`, { method: 'PUT', headers: json, body: JSON.stringify({ n: i }) });
      if (r.status === 201 || r.status === 200) acked.push(`single-${i}`);
    }
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) lines.push(JSON.stringify({ index: { _id: `bulk-${i}` } }), JSON.stringify({ n: i, kind: 'bulk' }));
    const bulk = await http(`${proc.url}/crash/_bulk?refresh=false`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-ndjson' },
      body: lines.join('\n') + '\n',
    });
    expect(bulk.status).toBe(200);
    for (const item of bulk.json.items as Array<{ index: { _id: string; status: number } }>) {
      if (item.index.status < 300) acked.push(item.index._id);
    }
    expect(acked).toHaveLength(240);

    await stopHost(proc, 'SIGKILL');
    proc = await spawnHost(hostArgs(dataPath));

    for (const id of acked) {
      const r = await http(`${proc.url}/crash/_doc/${id}`);
      expect({ id, status: r.status, found: r.json?.found }).toEqual({ id, status: 200, found: true });
    }
    expect((await http(`${proc.url}/crash/_refresh`, { method: 'POST' })).status).toBe(200);
    const count = await http(`${proc.url}/_cat/count/crash?h=count`);
    expect(count.text).toBe('240\n');
  });
});
