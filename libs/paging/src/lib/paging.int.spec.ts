/**
 * Black-box HTTP tests of PIT, scroll and sliced scroll through the real node (createTestHost + paging).
 */
import { createTestHost, ManualClock, type TestHost } from '@strata/core-testing';
import { pagingFeature } from './paging.module.js';

const clock = new ManualClock(Date.UTC(2026, 0, 1));

async function seed(host: TestHost, index: string, n: number, shards = 1): Promise<void> {
  const c = await host.request('PUT', `/${index}`, {
    settings: { number_of_shards: shards, number_of_replicas: 0 },
    mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' }, msg: { type: 'text' } } },
  });
  expect(c.status).toBe(200);
  const lines: object[] = [];
  for (let i = 0; i < n; i++) {
    lines.push({ index: { _index: index, _id: `d${i}` } });
    lines.push({ n: i, tag: i % 3 === 0 ? 'a' : 'b', msg: i % 2 === 0 ? 'even fox' : 'odd fox jumps' });
  }
  const b = await host.request('POST', '/_bulk?refresh=true', lines);
  expect(b.status).toBe(200);
  expect(b.body.errors).toBe(false);
}

describe('paging over HTTP', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({ features: [pagingFeature], clock });
    await seed(host, 'logs', 25, 2);
  });
  afterAll(async () => {
    await host?.close();
  });

  async function openPit(index: string, keepAlive = '1m') {
    const r = await host.request('POST', `/${index}/_pit?keep_alive=${keepAlive}`);
    expect(r.status).toBe(200);
    expect(typeof r.body.id).toBe('string');
    return r.body.id as string;
  }

  describe('point in time', () => {
    it('needs keep_alive', async () => {
      const r = await host.request('POST', '/logs/_pit');
      expect(r.status).toBe(400);
      expect(r.body.error.type).toBe('action_request_validation_exception');
      expect(r.body.error.reason).toBe('Validation Failed: 1: [keep_alive] is not specified;');
    });

    it('answers index_not_found_exception for a missing index', async () => {
      const r = await host.request('POST', '/nope/_pit?keep_alive=1m');
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe('index_not_found_exception');
    });

    it('sees the snapshot taken at open, pages with search_after and the _shard_doc tiebreaker', async () => {
      await seed(host, 'snap', 10, 1);
      const id = await openPit('snap');
      // changes after opening are invisible through the PIT
      await host.request('PUT', '/snap/_doc/late?refresh=true', { n: 100, tag: 'a' });
      await host.request('DELETE', '/snap/_doc/d0?refresh=true');
      const seen: string[] = [];
      let after: unknown[] | undefined;
      for (let page = 0; page < 5; page++) {
        const r = await host.request('POST', '/_search', {
          size: 3,
          pit: { id, keep_alive: '1m' },
          sort: [{ tag: 'asc' }],
          ...(after ? { search_after: after } : {}),
        });
        expect(r.status).toBe(200);
        expect(typeof r.body.pit_id).toBe('string');
        expect(Object.keys(r.body)[0]).toBe('pit_id');
        expect(r.body.hits.total).toEqual({ value: 10, relation: 'eq' });
        const hits = r.body.hits.hits;
        for (const h of hits) {
          expect(h.sort).toHaveLength(2);
          expect(Number.isInteger(h.sort[1])).toBe(true);
          seen.push(h._id);
        }
        if (hits.length === 0) break;
        after = hits[hits.length - 1].sort;
      }
      expect(seen).toHaveLength(10);
      expect(new Set(seen).size).toBe(10);
      expect(seen).toContain('d0');
      expect(seen).not.toContain('late');
      // without the PIT the live index shows the changes
      const live = await host.request('GET', '/snap/_count');
      expect(live.body.count).toBe(10);
      const gone = await host.request('GET', '/snap/_doc/d0');
      expect(gone.status).toBe(404);
    });

    it('rejects an index in the path', async () => {
      const id = await openPit('logs');
      const r = await host.request('POST', '/logs/_search', { pit: { id } });
      expect(r.status).toBe(400);
      expect(r.body.error.type).toBe('action_request_validation_exception');
      expect(r.body.error.reason).toBe(
        'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;',
      );
    });

    it('explicit _shard_doc desc reverses the order', async () => {
      const id = await openPit('logs');
      const asc = await host.request('POST', '/_search', { size: 25, pit: { id }, sort: [{ _shard_doc: 'asc' }] });
      const desc = await host.request('POST', '/_search', { size: 25, pit: { id }, sort: [{ _shard_doc: 'desc' }] });
      const a = asc.body.hits.hits.map((h: any) => h._id);
      const d = desc.body.hits.hits.map((h: any) => h._id);
      expect(a).toHaveLength(25);
      expect(d).toEqual([...a].reverse());
      expect(asc.body.hits.hits[0].sort).toHaveLength(1);
    });

    it('close frees it; a closed or expired PIT is search_context_missing_exception (404)', async () => {
      const id = await openPit('logs');
      const del = await host.request('DELETE', '/_pit', { id });
      expect(del.status).toBe(200);
      // one freed context per shard of the PIT (logs has 2 shards); a closed PIT did not succeed (ES ClosePointInTimeResponse)
      expect(del.body).toEqual({ succeeded: true, num_freed: 2 });
      const again = await host.request('DELETE', '/_pit', { id });
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ succeeded: false, num_freed: 0 });
      const r = await host.request('POST', '/_search', { pit: { id } });
      expect(r.status).toBe(404);
      expect(r.body.error.root_cause[0].type).toBe('search_context_missing_exception');

      const short = await openPit('logs', '10s');
      clock.advance(11_000);
      const expired = await host.request('POST', '/_search', { pit: { id: short } });
      expect(expired.status).toBe(404);
      expect(expired.body.error.root_cause[0].type).toBe('search_context_missing_exception');
    });

    it('every search extends retention with its keep_alive', async () => {
      const id = await openPit('logs', '10s');
      clock.advance(8_000);
      const r1 = await host.request('POST', '/_search', { size: 1, pit: { id, keep_alive: '10s' } });
      expect(r1.status).toBe(200);
      clock.advance(8_000);
      const r2 = await host.request('POST', '/_search', { size: 1, pit: { id: r1.body.pit_id } });
      expect(r2.status).toBe(200);
    });

    it('sliced PIT: slices are disjoint and cover everything', async () => {
      const id = await openPit('logs');
      const all = new Set<string>();
      let total = 0;
      for (let s = 0; s < 3; s++) {
        const r = await host.request('POST', '/_search', { size: 100, pit: { id }, slice: { id: s, max: 3 } });
        expect(r.status).toBe(200);
        for (const h of r.body.hits.hits) all.add(h._id);
        total += r.body.hits.hits.length;
      }
      expect(total).toBe(25);
      expect(all.size).toBe(25);
    });
  });

  describe('scroll', () => {
    async function scrollAll(first: any, scroll = '1m'): Promise<{ ids: string[]; pages: number; lastId: string }> {
      const ids: string[] = first.hits.hits.map((h: any) => h._id);
      let sid = first._scroll_id as string;
      let pages = 1;
      for (;;) {
        const r = await host.request('POST', '/_search/scroll', { scroll, scroll_id: sid });
        expect(r.status).toBe(200);
        expect(typeof r.body._scroll_id).toBe('string');
        expect(r.body.aggregations).toBeUndefined();
        sid = r.body._scroll_id;
        pages++;
        if (r.body.hits.hits.length === 0) break;
        ids.push(...r.body.hits.hits.map((h: any) => h._id));
      }
      return { ids, pages, lastId: sid };
    }

    it('walks every document once over a snapshot; aggregations only in the first response', async () => {
      const r = await host.request('POST', '/logs/_search?scroll=1m', {
        size: 4,
        query: { match: { msg: 'fox' } },
        aggs: { tags: { terms: { field: 'tag' } } },
      });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)[0]).toBe('_scroll_id');
      expect(r.body.hits.total).toEqual({ value: 25, relation: 'eq' });
      expect(r.body.aggregations.tags.buckets).toEqual([
        { key: 'b', doc_count: 16 },
        { key: 'a', doc_count: 9 },
      ]);
      expect(r.body.hits.hits[0].sort).toBeUndefined();
      expect(typeof r.body.hits.hits[0]._score).toBe('number');
      await host.request('PUT', '/logs/_doc/late?refresh=true', { n: 1000, msg: 'fox' });
      const { ids } = await scrollAll(r.body);
      expect(ids).toHaveLength(25);
      expect(new Set(ids).size).toBe(25);
      expect(ids).not.toContain('late');
      await host.request('DELETE', '/logs/_doc/late?refresh=true');
    });

    it('keeps scores in descending order across pages and repeats the total', async () => {
      const r = await host.request('POST', '/logs/_search?scroll=1m', { size: 5, query: { match: { msg: 'odd jumps' } } });
      const scores: number[] = r.body.hits.hits.map((h: any) => h._score);
      let sid = r.body._scroll_id;
      for (;;) {
        const p = await host.request('GET', `/_search/scroll?scroll=1m&scroll_id=${encodeURIComponent(sid)}`);
        expect(p.status).toBe(200);
        expect(p.body.hits.total).toEqual({ value: 12, relation: 'eq' });
        if (p.body.hits.hits.length === 0) break;
        scores.push(...p.body.hits.hits.map((h: any) => h._score));
        sid = p.body._scroll_id;
      }
      expect(scores).toHaveLength(12);
      for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThanOrEqual(scores[i - 1]!);
    });

    it('sorted by _doc returns every doc with per-shard doc sort values; field sorts keep their values', async () => {
      const r = await host.request('POST', '/logs/_search?scroll=1m', { size: 7, sort: ['_doc'] });
      expect(r.body.hits.hits[0].sort).toHaveLength(1);
      const { ids } = await scrollAll(r.body);
      expect(new Set(ids).size).toBe(25);

      const f = await host.request('POST', '/logs/_search?scroll=1m', { size: 6, sort: [{ n: 'desc' }] });
      const values: number[] = f.body.hits.hits.map((h: any) => h.sort[0]);
      let sid = f.body._scroll_id;
      for (;;) {
        const p = await host.request('POST', `/_search/scroll/${sid}`, { scroll: '1m' });
        if (p.body.hits.hits.length === 0) break;
        for (const h of p.body.hits.hits) {
          expect(h.sort).toHaveLength(1);
          values.push(h.sort[0]);
        }
        sid = p.body._scroll_id;
      }
      expect(values).toEqual(Array.from({ length: 25 }, (_, i) => 24 - i));
    });

    it('sorted on a date with heavy ties, several segments and deletes: every live doc exactly once, in order', async () => {
      // 240 docs over 2 shards, 11 distinct timestamps, written in 4 refreshes (several segments per shard)
      const c = await host.request('PUT', '/ties', {
        settings: { number_of_shards: 2, number_of_replicas: 0 },
        mappings: { properties: { ts: { type: 'date' }, k: { type: 'keyword' } } },
      });
      expect(c.status).toBe(200);
      const model = new Map<string, number>();
      const base = Date.UTC(2026, 0, 1);
      for (let batch = 0; batch < 4; batch++) {
        const lines: object[] = [];
        for (let i = batch * 60; i < (batch + 1) * 60; i++) {
          const ts = base + ((i * 7) % 11) * 1000;
          model.set(`t${i}`, ts);
          lines.push({ index: { _index: 'ties', _id: `t${i}` } }, { ts, k: `v${i % 5}` });
        }
        const b = await host.request('POST', '/_bulk?refresh=true', lines);
        expect(b.body.errors).toBe(false);
      }
      for (let i = 3; i < 240; i += 17) {
        expect((await host.request('DELETE', `/ties/_doc/t${i}`)).status).toBe(200);
        model.delete(`t${i}`);
      }
      await host.request('POST', '/ties/_refresh');
      const walk = async (order: 'asc' | 'desc', query?: object) => {
        const r = await host.request('POST', '/ties/_search?scroll=1m', { size: 7, sort: [{ ts: order }], ...(query ? { query } : {}) });
        expect(r.status).toBe(200);
        // changes after the scroll opened are invisible to it
        if (order === 'asc' && !query) {
          await host.request('DELETE', '/ties/_doc/t0?refresh=true');
          await host.request('PUT', '/ties/_doc/late?refresh=true', { ts: base });
        }
        const seen: Array<[string, number]> = [];
        let page = r.body;
        for (;;) {
          for (const h of page.hits.hits) {
            expect(h.sort).toHaveLength(1);
            seen.push([h._id, h.sort[0]]);
          }
          if (page.hits.hits.length === 0) break;
          const next = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: page._scroll_id });
          expect(next.status).toBe(200);
          page = next.body;
        }
        await host.request('DELETE', '/_search/scroll', { scroll_id: page._scroll_id });
        return seen;
      };
      const check = (seen: Array<[string, number]>, want: Map<string, number>, order: 'asc' | 'desc') => {
        expect(seen.map(([id]) => id).sort()).toEqual([...want.keys()].sort());
        for (const [id, v] of seen) expect(v).toBe(want.get(id));
        const values = seen.map(([, v]) => v);
        const sorted = [...want.values()].sort((a, b) => (order === 'asc' ? a - b : b - a));
        expect(values).toEqual(sorted);
      };
      const before = new Map(model);
      check(await walk('asc'), before, 'asc');
      model.delete('t0');
      model.set('late', base);
      check(await walk('desc'), model, 'desc');
      const lo = base + 2000;
      const hi = base + 8000;
      const inRange = new Map([...model].filter(([, v]) => v >= lo && v < hi));
      expect(inRange.size).toBeGreaterThan(100);
      check(await walk('asc', { range: { ts: { gte: lo, lt: hi } } }), inRange, 'asc');
    });

    it('counts the total exactly past 10,000 (the default threshold does not apply to a scroll), repeated on every page', async () => {
      await seed(host, 'many', 10_050);
      const r = await host.request('POST', '/many/_search?scroll=1m', { size: 5000, _source: false });
      expect(r.status).toBe(200);
      expect(r.body.hits.total).toEqual({ value: 10_050, relation: 'eq' });
      const p = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: r.body._scroll_id });
      expect(p.body.hits.total).toEqual({ value: 10_050, relation: 'eq' });
      const asInt = await host.request('POST', '/many/_search?scroll=1m&rest_total_hits_as_int=true', { size: 1 });
      expect(asInt.body.hits.total).toBe(10_050);
      // any other threshold is refused in a scroll context, as Elasticsearch does
      const capped = await host.request('POST', '/many/_search?scroll=1m', { size: 1, track_total_hits: 100 });
      expect(capped.status).toBe(400);
      expect(capped.body.error.root_cause[0].reason).toContain('disabling [track_total_hits] is not allowed in a scroll context');
      const plain = await host.request('POST', '/many/_search', { size: 1 });
      expect(plain.body.hits.total).toEqual({ value: 10_000, relation: 'gte' });
      await host.request('DELETE', '/_search/scroll/_all');
      await host.request('DELETE', '/many');
    });

    it('a scroll request without scroll frees the context', async () => {
      const r = await host.request('POST', '/logs/_search?scroll=1m', { size: 2 });
      const sid = r.body._scroll_id;
      const p = await host.request('POST', '/_search/scroll', { scroll_id: sid });
      expect(p.status).toBe(200);
      expect(p.body.hits.hits).toHaveLength(2);
      const gone = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: sid });
      expect(gone.status).toBe(404);
      expect(gone.body.error.type).toBe('search_phase_execution_exception');
      expect(gone.body.error.root_cause[0].type).toBe('search_context_missing_exception');
    });

    it('clears by id, array, comma list, path and _all', async () => {
      await host.request('DELETE', '/_search/scroll/_all');
      const open = async () => (await host.request('POST', '/logs/_search?scroll=1m', { size: 1 })).body._scroll_id as string;
      const a = await open();
      let r = await host.request('DELETE', '/_search/scroll', { scroll_id: a });
      expect(r.status).toBe(200);
      // one freed context per shard (logs has 2 shards)
      expect(r.body).toEqual({ succeeded: true, num_freed: 2 });
      r = await host.request('DELETE', '/_search/scroll', { scroll_id: a });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ succeeded: true, num_freed: 0 });
      const [b, c] = [await open(), await open()];
      r = await host.request('DELETE', '/_search/scroll', { scroll_id: [b, c] });
      expect(r.body.num_freed).toBe(4);
      const [d, e] = [await open(), await open()];
      r = await host.request('DELETE', `/_search/scroll/${d},${e}`);
      expect(r.body.num_freed).toBe(4);
      await open();
      await open();
      r = await host.request('DELETE', '/_search/scroll/_all');
      expect(r.body.num_freed).toBe(4);
      r = await host.request('DELETE', '/_search/scroll', { scroll_id: 'not-a-scroll-id!' });
      expect(r.status).toBe(400);
      expect(r.body.error.type).toBe('illegal_argument_exception');
      expect(r.body.error.reason).toBe('Cannot parse scroll id');
      // the Java cause stays in caused_by; the root cause is the top-level exception
      expect(r.body.error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason: 'Cannot parse scroll id' }]);
      expect(r.body.error.caused_by.type).toBe('illegal_argument_exception');
    });

    it('contexts expire on their own (reaper) and count in _nodes/stats', async () => {
      await host.request('DELETE', '/_search/scroll/_all');
      const r = await host.request('POST', '/logs/_search?scroll=30s', { size: 1 });
      let stats = await host.request('GET', '/_nodes/stats/indices/search');
      const node = (s: any) => Object.values(s.body.nodes)[0] as any;
      // counted per shard, as Elasticsearch: one scroll over the 2 shards of logs
      expect(node(stats).indices.search.scroll_current).toBe(2);
      expect(node(stats).indices.search.open_contexts).toBeGreaterThanOrEqual(2);
      clock.advance(31_000);
      await new Promise((res) => setTimeout(res, 1200));
      stats = await host.request('GET', '/_nodes/stats/indices/search');
      expect(node(stats).indices.search.scroll_current).toBe(0);
      const gone = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: r.body._scroll_id });
      expect(gone.status).toBe(404);
    });

    it('enforces search.max_open_scroll_context (dynamic)', async () => {
      await host.request('DELETE', '/_search/scroll/_all');
      const s = await host.request('PUT', '/_cluster/settings', { transient: { 'search.max_open_scroll_context': 2 } });
      expect(s.status).toBe(200);
      expect((await host.request('POST', '/logs/_search?scroll=1m', { size: 1 })).status).toBe(200);
      expect((await host.request('POST', '/logs/_search?scroll=1m', { size: 1 })).status).toBe(200);
      const r = await host.request('POST', '/logs/_search?scroll=1m', { size: 1 });
      expect(r.status).toBe(429);
      expect(r.body.error.root_cause[0].reason).toBe(
        'Trying to create too many scroll contexts. Must be less than or equal to: [2]. This limit can be set by changing the [search.max_open_scroll_context] setting.',
      );
      await host.request('PUT', '/_cluster/settings', { transient: { 'search.max_open_scroll_context': null } });
      await host.request('DELETE', '/_search/scroll/_all');
    });

    it('bounds keep-alives by search.max_keep_alive (dynamic)', async () => {
      await host.request('PUT', '/_cluster/settings', { persistent: { 'search.max_keep_alive': '1h' } });
      const r = await host.request('POST', '/logs/_search?scroll=2h', { size: 1 });
      expect(r.status).toBe(400);
      expect(r.body.error.reason).toBe(
        'Keep alive for request (2h) is too large. It must be less than (1h). This limit can be set by changing the [search.max_keep_alive] cluster level setting.',
      );
      const pit = await host.request('POST', '/logs/_pit?keep_alive=90m');
      expect(pit.status).toBe(400);
      expect((await host.request('POST', '/logs/_search?scroll=30m', { size: 1 })).status).toBe(200);
      await host.request('PUT', '/_cluster/settings', { persistent: { 'search.max_keep_alive': null } });
      await host.request('DELETE', '/_search/scroll/_all');
    });

    it('rejects from and size 0 like Elasticsearch', async () => {
      const f = await host.request('POST', '/logs/_search?scroll=1m', { from: 5, size: 2 });
      expect(f.status).toBe(400);
      expect(f.body.error.reason).toContain('using [from] is not allowed in a scroll context');
      const ok = await host.request('POST', '/logs/_search?scroll=1m&from=0', { size: 2 });
      expect(ok.status).toBe(200);
    });

    it('sliced scroll: slices are disjoint and their union is everything; max_slices_per_scroll enforced', async () => {
      const all: string[] = [];
      for (let s = 0; s < 4; s++) {
        const r = await host.request('POST', '/logs/_search?scroll=1m', { size: 3, slice: { id: s, max: 4 } });
        expect(r.status).toBe(200);
        const { ids } = await scrollAll(r.body);
        all.push(...ids);
      }
      expect(all).toHaveLength(25);
      expect(new Set(all).size).toBe(25);
      const byField: string[] = [];
      for (let s = 0; s < 2; s++) {
        const r = await host.request('POST', '/logs/_search?scroll=1m', { size: 5, slice: { field: 'n', id: s, max: 2 } });
        expect(r.status).toBe(200);
        byField.push(...(await scrollAll(r.body)).ids);
      }
      expect(new Set(byField).size).toBe(25);
      expect(byField).toHaveLength(25);
      await host.request('PUT', '/logs/_settings', { index: { max_slices_per_scroll: 2 } });
      const r = await host.request('POST', '/logs/_search?scroll=1m', { size: 3, slice: { id: 0, max: 3 } });
      expect(r.status).toBe(400);
      expect(r.body.error.reason).toBe(
        'The number of slices [3] is too large. It must be less than [2]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.',
      );
      await host.request('PUT', '/logs/_settings', { index: { max_slices_per_scroll: null } });
    });
  });

  it('pages a PIT and a scroll while documents are indexed and deleted concurrently', async () => {
    await seed(host, 'busy', 300, 2);
    const pit = (await host.request('POST', '/busy/_pit?keep_alive=1m')).body.id as string;
    const first = await host.request('POST', '/busy/_search?scroll=1m', { size: 40, sort: ['_doc'] });
    const writer = (async () => {
      for (let k = 0; k < 10; k++) {
        const lines: object[] = [];
        for (let i = 0; i < 30; i++) lines.push({ index: { _index: 'busy', _id: `new-${k}-${i}` } }, { n: 1000 + i });
        lines.push({ delete: { _index: 'busy', _id: `d${k}` } });
        const b = await host.request('POST', '/_bulk?refresh=true', lines);
        expect(b.body.errors).toBe(false);
      }
    })();
    const pitIds: string[] = [];
    const pitWalk = (async () => {
      let after: unknown[] | undefined;
      for (;;) {
        const r = await host.request('POST', '/_search', { size: 25, pit: { id: pit }, sort: [{ n: 'asc' }], ...(after ? { search_after: after } : {}) });
        expect(r.status).toBe(200);
        if (r.body.hits.hits.length === 0) break;
        pitIds.push(...r.body.hits.hits.map((h: any) => h._id));
        after = r.body.hits.hits[r.body.hits.hits.length - 1].sort;
      }
    })();
    const scrollIds: string[] = first.body.hits.hits.map((h: any) => h._id);
    const scrollWalk = (async () => {
      let sid = first.body._scroll_id;
      for (;;) {
        const r = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: sid });
        expect(r.status).toBe(200);
        if (r.body.hits.hits.length === 0) break;
        scrollIds.push(...r.body.hits.hits.map((h: any) => h._id));
        sid = r.body._scroll_id;
      }
    })();
    await Promise.all([writer, pitWalk, scrollWalk]);
    for (const ids of [pitIds, scrollIds]) {
      expect(ids).toHaveLength(300);
      expect(new Set(ids).size).toBe(300);
      expect(ids.some((id) => id.startsWith('new-'))).toBe(false);
      expect(ids).toContain('d0');
    }
    expect((await host.request('GET', '/busy/_count')).body.count).toBe(300 + 300 - 10);
  });
});
