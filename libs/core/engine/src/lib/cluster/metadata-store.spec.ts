import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileMetadataStore, InMemoryMetadataStore } from './metadata-store.js';

describe('MetadataStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-md-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('persists atomically and reloads, keeping the cluster uuid and dropping transient settings', async () => {
    const s1 = new FileMetadataStore(dir);
    const uuid = s1.current().clusterUuid;
    expect(uuid).toHaveLength(22);
    await s1.update((d) => {
      d.persistentSettings['a'] = 1;
      d.transientSettings['b'] = 2;
      d.custom['ingest'] = { pipelines: { p: {} } };
    });
    expect(s1.current().version).toBe(1);
    expect(fs.existsSync(path.join(dir, '_state', 'metadata.json.tmp'))).toBe(false);
    const s2 = new FileMetadataStore(dir);
    expect(s2.current().clusterUuid).toBe(uuid);
    expect(s2.current().version).toBe(1);
    expect(s2.current().persistentSettings).toEqual({ a: 1 });
    expect(s2.current().transientSettings).toEqual({});
    expect(s2.current().custom).toEqual({ ingest: { pipelines: { p: {} } } });
  });

  it('keeps the uuid from the very first start even without updates', () => {
    const s1 = new FileMetadataStore(dir);
    const s2 = new FileMetadataStore(dir);
    expect(s2.current().clusterUuid).toBe(s1.current().clusterUuid);
  });

  it('ignores a torn temp file left by a crash', async () => {
    const s1 = new FileMetadataStore(dir);
    await s1.update((d) => {
      d.persistentSettings['x'] = 'y';
    });
    fs.writeFileSync(path.join(dir, '_state', 'metadata.json.tmp'), '{"version":99,"clu');
    const s2 = new FileMetadataStore(dir);
    expect(s2.current().persistentSettings).toEqual({ x: 'y' });
  });

  it('aborts when fn throws, serialises updates and notifies listeners', async () => {
    const s = new InMemoryMetadataStore();
    const seen: number[] = [];
    s.onChange((n, p) => seen.push(n.version * 10 + p.version));
    await expect(
      s.update(() => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(s.current().version).toBe(0);
    const results = await Promise.all([1, 2, 3].map((i) => s.update((d) => void (d.custom[`k${i}`] = i))));
    expect(results.map((r) => r.version)).toEqual([1, 2, 3]);
    expect(seen).toEqual([10, 21, 32]);
    expect(Object.isFrozen(s.current().custom)).toBe(true);
  });
});
