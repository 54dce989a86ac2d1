import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHost, http, spawnHost, stopHost, type HostProcess } from './helpers.js';

const JSON_CT = { 'Content-Type': 'application/json' };

function bulk(from: number, to: number): string {
  const lines: string[] = [];
  for (let i = from; i < to; i++) lines.push(JSON.stringify({ index: { _id: `d${i}` } }), JSON.stringify({ n: i, text: `document ${i} `.repeat(8) }));
  return lines.join('\n') + '\n';
}

describe('snapshots and restores across kill -9 and restarts', () => {
  let dataPath: string;
  let repoPath: string;
  let proc: HostProcess | undefined;
  const args = (): string[] => ['-E', 'http.port=0', '-E', `path.data=${dataPath}`, '-E', `path.repo=${repoPath}`];

  beforeAll(() => {
    buildHost();
    dataPath = mkdtempSync(join(tmpdir(), 'strata-snapcrash-'));
    repoPath = mkdtempSync(join(tmpdir(), 'strata-snapcrash-repo-'));
  });
  afterAll(async () => {
    if (proc) await stopHost(proc);
    rmSync(dataPath, { recursive: true, force: true });
    rmSync(repoPath, { recursive: true, force: true });
  });

  const count = async (index: string): Promise<number> => {
    await http(`${proc!.url}/${index}/_refresh`, { method: 'POST' });
    return (await http(`${proc!.url}/${index}/_count`)).json.count as number;
  };

  it('a snapshot interrupted by kill -9 leaves the repository with its earlier snapshots, restorable; the repository registration survives', async () => {
    proc = await spawnHost(args());
    expect((await http(`${proc.url}/_snapshot/backup`, { method: 'PUT', headers: JSON_CT, body: JSON.stringify({ type: 'fs', settings: { location: 'backup' } }) })).status).toBe(200);
    await http(`${proc.url}/data`, { method: 'PUT', headers: JSON_CT, body: JSON.stringify({ settings: { number_of_shards: 2, number_of_replicas: 0 } }) });
    for (let b = 0; b < 10; b++) {
      const r = await http(`${proc.url}/data/_bulk`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: bulk(b * 1000, (b + 1) * 1000) });
      expect(r.json.errors).toBe(false);
    }
    const s1 = await http(`${proc.url}/_snapshot/backup/first?wait_for_completion=true`, { method: 'PUT', headers: JSON_CT, body: '{"indices":"data"}' });
    expect(s1.json.snapshot.state).toBe('SUCCESS');
    await http(`${proc.url}/data/_bulk`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: bulk(10_000, 15_000) });
    // the second snapshot starts, then the process dies while it copies
    expect((await http(`${proc.url}/_snapshot/backup/second`, { method: 'PUT', headers: JSON_CT, body: '{"indices":"data"}' })).json).toEqual({ accepted: true });
    await stopHost(proc, 'SIGKILL');

    proc = await spawnHost(args());
    expect(Object.keys((await http(`${proc.url}/_snapshot`)).json)).toEqual(['backup']);
    const list = await http(`${proc.url}/_snapshot/backup/_all`);
    const names = list.json.snapshots.map((s: { snapshot: string; state: string }) => `${s.snapshot}:${s.state}`);
    expect(names[0]).toBe('first:SUCCESS');
    expect(names.length === 1 || names[1] === 'second:SUCCESS').toBe(true);
    expect(await count('data')).toBe(15_000);
    const restored = await http(`${proc.url}/_snapshot/backup/first/_restore?wait_for_completion=true`, {
      method: 'POST',
      headers: JSON_CT,
      body: JSON.stringify({ rename_pattern: 'data', rename_replacement: 'data-first' }),
    });
    expect(restored.status).toBe(200);
    expect(await count('data-first')).toBe(10_000);
    // what the interrupted snapshot left is unreferenced and removable; nothing a snapshot uses goes
    expect((await http(`${proc.url}/_snapshot/backup/_cleanup`, { method: 'POST' })).status).toBe(200);
    const again = await http(`${proc.url}/_snapshot/backup/first/_restore?wait_for_completion=true`, {
      method: 'POST',
      headers: JSON_CT,
      body: JSON.stringify({ rename_pattern: 'data', rename_replacement: 'data-again' }),
    });
    expect(again.status).toBe(200);
    expect(await count('data-again')).toBe(10_000);
  });

  it('a restore interrupted by kill -9 leaves no half index; a graceful restart keeps restored indices', async () => {
    expect((await http(`${proc!.url}/_snapshot/backup/first/_restore`, { method: 'POST', headers: JSON_CT, body: JSON.stringify({ rename_pattern: 'data', rename_replacement: 'data-cut' }) })).json).toEqual({
      accepted: true,
    });
    await stopHost(proc!, 'SIGKILL');
    proc = await spawnHost(args());
    const exists = await http(`${proc.url}/data-cut`, { method: 'HEAD' });
    if (exists.status === 200) expect(await count('data-cut')).toBe(10_000);
    else expect(exists.status).toBe(404);
    const state = await http(`${proc.url}/_cluster/state/metadata`);
    const uuids = Object.values(state.json.metadata.indices as Record<string, { settings: { index: { uuid: string } } }>).map((m) => m.settings.index.uuid);
    expect(readdirSync(join(dataPath, 'indices')).sort()).toEqual(uuids.sort());

    await stopHost(proc, 'SIGTERM');
    proc = await spawnHost(args());
    expect(await count('data-first')).toBe(10_000);
    expect(await count('data')).toBe(15_000);
  });
});
