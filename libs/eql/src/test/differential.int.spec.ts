/**
 * The service (3 shards, several segments, fetch_size 5) and the in-process engine must give the same answers
 * on the same seeded random events: event queries, sequences (by, maxspan, until, runs, missing events) and
 * samples.
 */
import { seededRandom } from '@strata/core-common';
import { createTestHost, type TestHost } from '@strata/core-testing';
import { eql } from '../index.js';
import { eqlFeature } from '../lib/eql.module.js';

const CATEGORIES = ['process', 'network', 'file'];
const NAMES = ['cmd.exe', 'powershell.exe', 'net.exe', 'svchost.exe'];

function makeEvents(seed: number, n: number): Array<Record<string, unknown>> {
  const r = seededRandom(seed);
  const out: Array<Record<string, unknown>> = [];
  let ts = Date.UTC(2026, 0, 1);
  for (let i = 0; i < n; i++) {
    ts += Math.floor(r() * 4000);
    out.push({
      '@timestamp': new Date(ts).toISOString(),
      seq: i,
      event: { category: CATEGORIES[Math.floor(r() * CATEGORIES.length)] },
      host: { id: `h${Math.floor(r() * 4)}` },
      process: { name: NAMES[Math.floor(r() * NAMES.length)], pid: Math.floor(r() * 50) },
      ...(r() < 0.8 ? { user: { name: `u${Math.floor(r() * 3)}` } } : {}),
    });
  }
  return out;
}

const FIELD_TYPES = {
  '@timestamp': 'date',
  seq: 'long',
  'event.category': 'keyword',
  'host.id': 'keyword',
  'process.name': 'keyword',
  'process.pid': 'long',
  'user.name': 'keyword',
};

const QUERIES = [
  'process where process.name == "cmd.exe"',
  'any where process.pid > 25 and not user.name == "u1"',
  'any where startsWith~(process.name, "P") or length(process.name) == 7',
  'file where process.name : ("net*", "SVC*") | head 7',
  'sequence by host.id [process where process.name == "cmd.exe"] [network where true]',
  'sequence by host.id with maxspan=10s [process where true] [file where true] [network where true]',
  'sequence by host.id [process where true] [network where true] until [file where process.name == "net.exe"]',
  'sequence by host.id [process where true] with runs=2 [file where true]',
  'sequence by host.id with maxspan=20s [process where true] ![file where true] [network where true]',
  'sequence by user.name [process where true] by process.name [network where true] by process.name',
  'sequence [process where process.pid == 1] [network where process.pid == 2]',
  'sample by host.id [process where true] [network where true] [file where true]',
];

describe('service and in-process engine agree', () => {
  let host: TestHost;
  const events = makeEvents(20260101, 400);

  beforeAll(async () => {
    host = await createTestHost({ features: [eqlFeature] });
    const props: Record<string, unknown> = {};
    for (const [f, t] of Object.entries(FIELD_TYPES)) {
      const parts = f.split('.');
      let o = props;
      for (let i = 0; i < parts.length - 1; i++) {
        o[parts[i]!] ??= { properties: {} };
        o = (o[parts[i]!] as { properties: Record<string, unknown> }).properties;
      }
      o[parts[parts.length - 1]!] = { type: t };
    }
    expect((await host.request('PUT', '/ev', { settings: { number_of_shards: 3 }, mappings: { properties: props } })).status).toBe(200);
    // several bulks and refreshes: several segments per shard
    for (let i = 0; i < events.length; i += 100) {
      const lines = events.slice(i, i + 100).flatMap((e) => [{ index: { _index: 'ev', _id: String(e['seq']) } }, e]);
      expect((await host.request('POST', '/_bulk?refresh=true', lines)).body.errors).toBe(false);
    }
  });
  afterAll(async () => {
    await host?.close();
  });

  const ids = (hits: Array<Record<string, unknown>>) => hits.map((h) => (h['_source'] as { seq: number } | undefined)?.seq ?? -1);

  for (const query of QUERIES) {
    for (const resultPosition of ['head', 'tail'] as const) {
      it(`${query} (${resultPosition})`, async () => {
        const size = 25;
        const local = await eql(query, events, { size, resultPosition, fieldTypes: FIELD_TYPES });
        const remote = await host.request('POST', '/ev/_eql/search', { query, size, result_position: resultPosition, fetch_size: 5 });
        expect(remote.status).toBe(200);
        const l = local.hits.events ? ids(local.hits.events) : local.hits.sequences!.map((s) => [ids(s.events), s.join_keys]);
        const r = remote.body.hits.events ? ids(remote.body.hits.events) : remote.body.hits.sequences.map((s: { events: Array<Record<string, unknown>>; join_keys?: unknown[] }) => [ids(s.events), s.join_keys]);
        if (query.startsWith('sample')) {
          // which events a sample picks depends on index order (shards, segments): compare the keys
          expect(r.map((x: unknown[]) => x[1])).toEqual(l.map((x) => (x as unknown[])[1]));
        } else expect(r).toEqual(l);
        expect(remote.body.hits.total).toEqual(local.hits.total);
      });
    }
  }
});
