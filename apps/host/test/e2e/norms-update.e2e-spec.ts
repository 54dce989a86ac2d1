/**
 * Disabling norms on an existing field through the update mapping API (Elasticsearch 8: `norms` may go from
 * true to false, never back), against the built host: the update shows in `GET _mapping` and survives restarts;
 * re-enabling is refused with Elasticsearch's error and changes nothing; docs indexed after the update have no
 * norms, docs before keep theirs until their segment is merged with one without (then none has). Scores follow
 * a BM25 model (field length 1 without norms, as Lucene) and, once force-merged, equal those of an index created
 * with `norms: false` holding the same docs. Every doc is read back after kill -9 and after a graceful restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHost, http, spawnHost, stopHost, type HostProcess } from './helpers.js';

jest.setTimeout(120_000);

const hostArgs = (dataPath: string): string[] => ['-E', 'http.port=0', '-E', `path.data=${dataPath}`];
const JSON_CT = { 'Content-Type': 'application/json' };
const WORDS = ['x', 'y', 'z', 'w'];

/** doc i: a text of 1..7 words (none for every 9th doc), a keyword */
function source(i: number): Record<string, unknown> {
  const src: Record<string, unknown> = { k: `k${i % 3}`, n: i };
  if (i % 9 !== 4) src['t'] = Array.from({ length: 1 + ((i * 5) % 7) }, (_, j) => WORDS[(i + j * j) % WORDS.length]).join(' ');
  return src;
}

/** Lucene's SmallFloat.intToByte4 / byte4ToInt round trip: the field length a norm stands for */
function normLength(len: number): number {
  const NUM_FREE = 24;
  const longToInt4 = (l: number): number => {
    const nb = 31 - Math.clz32(l);
    if (nb < 3) return l;
    const shift = nb - 3;
    let enc = (l >>> shift) & 0x07;
    enc |= (shift + 1) << 3;
    return enc;
  };
  const int4ToLong = (b: number): number => {
    const bits = b & 0x07;
    const shift = (b >>> 3) - 1;
    return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
  };
  const byte = len < NUM_FREE ? len : NUM_FREE + longToInt4(len - NUM_FREE);
  return byte < NUM_FREE ? byte : NUM_FREE + int4ToLong(byte - NUM_FREE);
}

/**
 * BM25 (k1 1.2, b 0.75; Lucene 8+: no (k1 + 1) factor) of the docs matching `term` in field t, over the docs
 * `ids` of one shard; `dl(id)`: the field length the doc's segment gives (1 without norms)
 */
function model(ids: readonly number[], term: string, dl: (i: number) => number): Map<string, number> {
  const withT = ids.filter((i) => source(i)['t'] !== undefined);
  const tokens = (i: number): string[] => (source(i)['t'] as string).split(' ');
  const N = withT.length;
  const sumTtf = withT.reduce((s, i) => s + tokens(i).length, 0);
  const avgdl = sumTtf / N;
  const matching = withT.filter((i) => tokens(i).includes(term));
  const idf = Math.log(1 + (N - matching.length + 0.5) / (matching.length + 0.5));
  const out = new Map<string, number>();
  for (const i of matching) {
    const freq = tokens(i).filter((w) => w === term).length;
    out.set(`d${i}`, (idf * freq) / (freq + 1.2 * (1 - 0.75 + (0.75 * dl(i)) / avgdl)));
  }
  return out;
}

describe('disabling norms on an existing field (update mapping API)', () => {
  let dataPath: string;
  let proc: HostProcess | undefined;
  const call = async (method: string, path: string, body?: unknown) =>
    http(`${proc!.url}${path}`, body === undefined ? { method } : { method, headers: JSON_CT, body: JSON.stringify(body) });
  const bulk = async (index: string, ids: readonly number[], refresh: string) => {
    const lines = ids.flatMap((i) => [JSON.stringify({ index: { _id: `d${i}` } }), JSON.stringify(source(i))]);
    const r = await http(`${proc!.url}/${index}/_bulk?refresh=${refresh}`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: lines.join('\n') + '\n' });
    expect(r.status).toBe(200);
    expect(r.json.errors).toBe(false);
  };
  const scores = async (index: string, term: string): Promise<Map<string, number>> => {
    const r = await call('POST', `/${index}/_search`, { size: 1000, query: { match: { t: term } } });
    expect(r.status).toBe(200);
    return new Map((r.json.hits.hits as Array<{ _id: string; _score: number }>).map((h) => [h._id, h._score]));
  };
  const segments = async (index: string): Promise<number> => {
    const r = await call('GET', `/${index}/_segments`);
    return Object.keys(r.json.indices[index].shards['0'][0].segments).length;
  };
  const expectClose = (got: Map<string, number>, want: Map<string, number>): void => {
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [id, s] of want) expect({ id, s: got.get(id)! }).toEqual({ id, s: expect.closeTo(s, 5) });
  };
  const refusal = {
    status: 400,
    error: {
      root_cause: [{ type: 'illegal_argument_exception', reason: 'Mapper for [t] conflicts with existing mapper:\n\tCannot update parameter [norms] from [false] to [true]' }],
      type: 'illegal_argument_exception',
      reason: 'Mapper for [t] conflicts with existing mapper:\n\tCannot update parameter [norms] from [false] to [true]',
    },
  };
  const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);
  const before = range(0, 30);
  const after = range(30, 60);
  const unflushed = range(60, 75);
  const all = [...before, ...after, ...unflushed];
  const mappingAfter = { properties: { k: { type: 'keyword', norms: false }, n: { type: 'long' }, t: { type: 'text', norms: false } } };

  beforeAll(() => {
    buildHost();
    dataPath = mkdtempSync(join(tmpdir(), 'strata-norms-'));
  });
  afterAll(async () => {
    if (proc) await stopHost(proc);
    rmSync(dataPath, { recursive: true, force: true });
  });

  it('accepts true → false, refuses false → true (changing nothing), indexes new docs without norms; scores follow the model', async () => {
    proc = await spawnHost(hostArgs(dataPath));
    const settings = { number_of_shards: 1, number_of_replicas: 0 };
    expect((await call('PUT', '/n', { settings, mappings: { properties: { t: { type: 'text' }, k: { type: 'keyword', norms: true }, n: { type: 'long' } } } })).status).toBe(200);
    expect((await call('PUT', '/fresh', { settings, mappings: { properties: { t: { type: 'text', norms: false }, k: { type: 'keyword' }, n: { type: 'long' } } } })).status).toBe(200);
    await bulk('n', before, 'true');
    await bulk('fresh', before, 'true');
    // committed: recovery opens this segment (with norms) instead of replaying its docs from the translog
    expect((await call('POST', '/n,fresh/_flush')).status).toBe(200);

    // an index created without norms: enabling them is refused, explicitly or by the parameter's default
    for (const t of [{ type: 'text', norms: true }, { type: 'text' }]) {
      const r = await call('PUT', '/fresh/_mapping', { properties: { t } });
      expect({ status: r.status, ...r.json }).toEqual(refusal);
    }
    expect((await call('GET', '/fresh/_mapping')).json).toEqual({ fresh: { mappings: { properties: { k: { type: 'keyword' }, n: { type: 'long' }, t: { type: 'text', norms: false } } } } });

    const upd = await call('PUT', '/n/_mapping', { properties: { t: { type: 'text', norms: false }, k: { type: 'keyword', norms: false } } });
    expect({ status: upd.status, body: upd.json }).toEqual({ status: 200, body: { acknowledged: true } });
    expect((await call('GET', '/n/_mapping')).json).toEqual({ n: { mappings: mappingAfter } });
    // not re-enabled; a refused update changes nothing, not even its valid parts
    const again = await call('PUT', '/n/_mapping', { properties: { t: { type: 'text', norms: true }, extra: { type: 'keyword' } } });
    expect({ status: again.status, ...again.json }).toEqual(refusal);
    const kAgain = await call('PUT', '/n/_mapping', { properties: { k: { type: 'keyword', norms: true } } });
    expect(kAgain.json.error.reason).toBe('Mapper for [k] conflicts with existing mapper:\n\tCannot update parameter [norms] from [false] to [true]');
    expect((await call('GET', '/n/_mapping')).json).toEqual({ n: { mappings: mappingAfter } });

    await bulk('n', after, 'true');
    await bulk('fresh', after, 'true');
    expect((await call('POST', '/n,fresh/_flush')).status).toBe(200);
    expect(await segments('n')).toBe(2);
    // mixed segments: the docs before the update scored with their lengths, the ones after with length 1
    const ids = [...before, ...after];
    for (const term of ['x', 'w']) {
      const mixed = model(ids, term, (i) => (i < 30 ? normLength((source(i)['t'] as string).split(' ').length) : 1));
      expectClose(await scores('n', term), mixed);
      expectClose(await scores('fresh', term), model(ids, term, () => 1));
      // the docs after the update score as in the index made without norms (same shard statistics)
      const f = await scores('fresh', term);
      for (const [id, s] of await scores('n', term)) if (Number(id.slice(1)) >= 30) expect({ id, s }).toEqual({ id, s: f.get(id) });
    }
    // exists finds every doc with the field in both kinds of segment
    const withT = ids.filter((i) => source(i)['t'] !== undefined).length;
    expect((await call('POST', '/n/_count', { query: { exists: { field: 't' } } })).json.count).toBe(withT);
  });

  it('every doc is read back after kill -9 and a graceful restart; a force merge drops the norms: scores equal the index made without them', async () => {
    // acknowledged but never refreshed nor flushed: in the translog only when the process is killed
    await bulk('n', unflushed, 'false');
    await bulk('fresh', unflushed, 'false');
    await stopHost(proc!, 'SIGKILL');
    proc = await spawnHost(hostArgs(dataPath));
    const readAll = async (): Promise<void> => {
      for (const i of all) {
        const r = await call('GET', `/n/_doc/d${i}`);
        expect({ i, status: r.status, source: r.json?._source }).toEqual({ i, status: 200, source: source(i) });
      }
      expect((await call('GET', '/n/_mapping')).json).toEqual({ n: { mappings: mappingAfter } });
    };
    await readAll();
    await stopHost(proc, 'SIGTERM');
    proc = await spawnHost(hostArgs(dataPath));
    await readAll();
    await call('POST', '/_refresh');
    const withT = all.filter((i) => source(i)['t'] !== undefined).length;

    for (const index of ['n', 'fresh']) {
      const fm = await call('POST', `/${index}/_forcemerge?max_num_segments=1`);
      expect(fm.status).toBe(200);
      expect(await segments(index)).toBe(1);
    }
    const check = async (): Promise<void> => {
      for (const term of ['x', 'y', 'z', 'w']) {
        const n = await scores('n', term);
        const f = await scores('fresh', term);
        expect(n).toEqual(f);
        expectClose(n, model(all, term, () => 1));
      }
      expect((await call('POST', '/n/_count', { query: { exists: { field: 't' } } })).json.count).toBe(withT);
      expect((await call('POST', '/n/_count')).json.count).toBe(all.length);
    };
    await check();
    // the merged segment without norms survives a kill -9 and a graceful restart as written
    await stopHost(proc, 'SIGKILL');
    proc = await spawnHost(hostArgs(dataPath));
    await readAll();
    await check();
    await stopHost(proc, 'SIGTERM');
    proc = await spawnHost(hostArgs(dataPath));
    await readAll();
    await check();
  });
});
