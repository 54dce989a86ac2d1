/**
 * Scroll pages computed ahead of their request (PagingService.scheduleAhead): once a full page is out, the
 * next one is computed while the client reads it. What must not change: every document exactly once and in
 * order over the scroll's snapshot, the bytes of every page, `_stats` counting only pages asked for, and
 * clear-scroll / expiry freeing everything.
 */
import { createTestHost, ManualClock, type TestHost } from '@strata/core-testing';
import { pagingFeature } from './paging.module.js';
import { PagingService, PagingTokens } from './paging.service.js';
import type { ContextRegistry } from './context-registry.js';
import { decodeScrollId } from './context-id.js';

const clock = new ManualClock(Date.UTC(2026, 0, 1));

async function seed(host: TestHost, index: string, n: number): Promise<void> {
  const c = await host.request('PUT', `/${index}`, {
    settings: { number_of_shards: 2, number_of_replicas: 0 },
    mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' }, msg: { type: 'text' } } },
  });
  expect(c.status).toBe(200);
  const lines: object[] = [];
  // n repeats three times: pages end inside runs of ties, on both shards
  for (let i = 0; i < n; i++) lines.push({ index: { _index: index, _id: `d${i}` } }, { n: Math.floor(i / 3), tag: `t${i % 4}`, msg: 'fox ü "q"' });
  const b = await host.request('POST', '/_bulk?refresh=true', lines);
  expect(b.body.errors).toBe(false);
}

describe('scroll pages computed ahead', () => {
  let host: TestHost;
  let registry: ContextRegistry;
  let paging: PagingService;

  beforeAll(async () => {
    host = await createTestHost({ features: [pagingFeature], clock });
    registry = host.container.get<ContextRegistry>(PagingTokens.ContextRegistry);
    paging = host.container.get(PagingService);
    await seed(host, 'ahead', 60);
  });
  afterAll(async () => {
    await host?.close();
  });

  /** the page being computed ahead for a scroll id (undefined when none), once it is done */
  async function ahead(scrollId: string): Promise<unknown> {
    const a = registry.get(decodeScrollId(scrollId).contextId)?.scroll?.ahead;
    return a ? await a.page : undefined;
  }
  const aheadChars = (): number => (paging as unknown as { aheadChars: number }).aheadChars;

  async function searchStats(): Promise<{ query_total: number; fetch_total: number; scroll_current: number; open_contexts: number }> {
    const r = await host.request('GET', '/ahead/_stats/search');
    expect(r.status).toBe(200);
    const s = r.body.indices.ahead.primaries.search;
    return { query_total: s.query_total, fetch_total: s.fetch_total, scroll_current: s.scroll_current, open_contexts: s.open_contexts };
  }

  it('computes the next page once a full page is out, and counts it in _stats only when it is asked for', async () => {
    const s0 = await searchStats();
    const first = await host.request('POST', '/ahead/_search?scroll=1m', { size: 10, sort: [{ n: 'asc' }] });
    expect(first.status).toBe(200);
    const p2 = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: first.body._scroll_id });
    expect(p2.body.hits.hits).toHaveLength(10);
    // page 3 is ready before anyone asks for it, and not counted
    expect(await ahead(p2.body._scroll_id)).toBeDefined();
    expect(aheadChars()).toBeGreaterThan(0);
    const s1 = await searchStats();
    expect(s1.query_total - s0.query_total).toBe(4); // two pages on two shards
    const p3 = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: p2.body._scroll_id });
    expect(p3.body.hits.hits.map((h: any) => h.sort[0])).toEqual([6, 7, 7, 7, 8, 8, 8, 9, 9, 9]);
    expect(p3.body.hits.total).toEqual({ value: 60, relation: 'eq' });
    const s2 = await searchStats();
    expect(s2.query_total - s1.query_total).toBe(2);
    expect(s2.fetch_total).toBeGreaterThan(s1.fetch_total);
    // page 4 is computed ahead in turn; clearing the scroll drops it uncounted and frees the shards' contexts
    expect(await ahead(p3.body._scroll_id)).toBeDefined();
    const cleared = await host.request('DELETE', '/_search/scroll', { scroll_id: p3.body._scroll_id });
    expect(cleared.body).toEqual({ succeeded: true, num_freed: 2 });
    const s3 = await searchStats();
    expect(s3.query_total).toBe(s2.query_total);
    expect(s3.fetch_total).toBe(s2.fetch_total);
    expect(s3.scroll_current).toBe(s0.scroll_current);
    expect(s3.open_contexts).toBe(s0.open_contexts);
    expect(aheadChars()).toBe(0);
    const gone = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: p3.body._scroll_id });
    expect(gone.status).toBe(404);
    expect(gone.body.error.root_cause[0].type).toBe('search_context_missing_exception');
  });

  it('an expired scroll frees its page computed ahead', async () => {
    const first = await host.request('POST', '/ahead/_search?scroll=30s', { size: 10, sort: ['_doc'] });
    const p2 = await host.request('POST', '/_search/scroll', { scroll: '30s', scroll_id: first.body._scroll_id });
    expect(await ahead(p2.body._scroll_id)).toBeDefined();
    clock.advance(31_000);
    const gone = await host.request('POST', '/_search/scroll', { scroll: '30s', scroll_id: p2.body._scroll_id });
    expect(gone.status).toBe(404);
    expect(gone.body.error.root_cause[0].type).toBe('search_context_missing_exception');
    expect(registry.count('scroll')).toBe(0);
    expect(aheadChars()).toBe(0);
  });

  it('the last page (no scroll parameter) frees the context and computes nothing ahead', async () => {
    const first = await host.request('POST', '/ahead/_search?scroll=1m', { size: 10, sort: [{ n: 'desc' }] });
    const p2 = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: first.body._scroll_id });
    expect(await ahead(p2.body._scroll_id)).toBeDefined();
    const last = await host.request('POST', '/_search/scroll', { scroll_id: p2.body._scroll_id });
    expect(last.status).toBe(200);
    expect(last.body.hits.hits.map((h: any) => h.sort[0])).toEqual([13, 12, 12, 12, 11, 11, 11, 10, 10, 10]);
    expect(registry.count('scroll')).toBe(0);
    expect(aheadChars()).toBe(0);
  });

  it('a page computed ahead is byte for byte the page computed on request (compact, pretty, filter_path, rest_total_hits_as_int)', async () => {
    const variants = ['', '?pretty', '?filter_path=hits.hits._id,hits.hits.sort,hits.total', '?rest_total_hits_as_int=true'];
    const normalize = (t: string) => t.replace(/"took" ?: ?\d+/, '"took":0').replace(/"_scroll_id" ?: ?"[^"]*"/, '"_scroll_id":""');
    let version = 0;
    for (const q of variants) {
      const texts: string[] = [];
      for (const fresh of [true, false]) {
        const first = await host.request('POST', '/ahead/_search?scroll=1m', { size: 8, sort: [{ n: 'asc' }, { tag: 'desc' }], _source: ['n', 'msg'] });
        const p2 = await host.request('POST', `/_search/scroll${q}`, { scroll: '1m', scroll_id: first.body._scroll_id });
        expect(p2.status).toBe(200);
        const sid = first.body._scroll_id as string; // the same for every page of a scroll
        expect(await ahead(sid)).toBeDefined();
        // a metadata change after the page was computed ahead: the request computes it again
        if (fresh) await host.request('PUT', '/_cluster/settings', { transient: { 'search.max_keep_alive': `${2 + version++}h` } });
        const p3 = await host.request('POST', `/_search/scroll${q}`, { scroll: '1m', scroll_id: sid });
        expect(p3.status).toBe(200);
        texts.push(normalize(p3.text));
        await host.request('DELETE', '/_search/scroll/_all');
      }
      expect(texts[1]).toBe(texts[0]);
      if (q === '') {
        const body = JSON.parse(texts[1]!);
        expect(Object.keys(body.hits)).toEqual(['total', 'max_score', 'hits']);
        expect(body.hits.hits.map((h: any) => h._source.n)).toEqual([5, 5, 6, 6, 6, 7, 7, 7]);
      }
      if (q === '?rest_total_hits_as_int=true') expect(JSON.parse(texts[1]!).hits.total).toBe(60);
    }
    await host.request('PUT', '/_cluster/settings', { transient: { 'search.max_keep_alive': null } });
  });

  it('every document exactly once and in order while documents are indexed, updated and deleted between pages', async () => {
    await seed(host, 'busy', 90);
    const first = await host.request('POST', '/busy/_search?scroll=1m', { size: 7, sort: [{ n: 'asc' }] });
    const seen: Array<{ id: string; n: number }> = first.body.hits.hits.map((h: any) => ({ id: h._id, n: h.sort[0] }));
    let sid = first.body._scroll_id as string;
    for (let page = 0; ; page++) {
      // the page computed ahead is ready; then the index changes under it
      await ahead(sid);
      const lines: object[] = [
        { index: { _index: 'busy', _id: `new-${page}` } },
        { n: page },
        { index: { _index: 'busy', _id: `d${(page * 7) % 90}` } },
        { n: 1000 + page },
        { delete: { _index: 'busy', _id: `d${(page * 11 + 5) % 90}` } },
      ];
      // a new field once: a mapping change drops the page computed ahead
      if (page === 3) lines.push({ index: { _index: 'busy', _id: 'mapped' } }, { n: 1, extra: 'new field' });
      const b = await host.request('POST', '/_bulk?refresh=true', lines);
      expect(b.body.errors).toBe(false);
      const r = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: sid });
      expect(r.status).toBe(200);
      expect(r.body.hits.total).toEqual({ value: 90, relation: 'eq' });
      if (r.body.hits.hits.length === 0) break;
      seen.push(...r.body.hits.hits.map((h: any) => ({ id: h._id, n: h.sort[0] })));
      sid = r.body._scroll_id;
    }
    expect(seen.map((s) => s.id).sort()).toEqual(Array.from({ length: 90 }, (_, i) => `d${i}`).sort());
    // the values of the scroll's snapshot (updates came later), in order
    for (let i = 0; i < seen.length; i++) {
      expect(seen[i]!.n).toBe(Math.floor(Number(seen[i]!.id.slice(1)) / 3));
      if (i > 0) expect(seen[i]!.n).toBeGreaterThanOrEqual(seen[i - 1]!.n);
    }
    await host.request('DELETE', '/_search/scroll/_all');
    expect(aheadChars()).toBe(0);
  });
});
