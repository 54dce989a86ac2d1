import { coreModules } from '../node.js';
import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';
import { searchApiModule } from './index.js';

/** the one date-time implementation (core-common) seen from the API: mappings, range date math, aggs, Painless */
describe('dates on the shared date-time implementation (black box)', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, contentType?: string) => api.call(method, path, body, contentType);
  const ids = (r: { body: any }) => r.body.hits.hits.map((h: any) => h._id).sort();
  const search = (body: unknown) => call('POST', '/ev/_search', body);

  beforeAll(async () => {
    const features = coreModules().includes(searchApiModule) ? [] : [{ name: 'search-api', module: searchApiModule }];
    api = await startApiTestNode({ prefix: 'strata-dates-', settings: { 'node.name': 'n1' }, features });
    const created = await call('PUT', '/ev', {
      mappings: { properties: { ts: { type: 'date' }, day: { type: 'date', format: "dd/MM/yyyy G||EEE, dd MMM yyyy HH:mm:ss ZZZZ" } } },
    });
    if (created.status !== 200) throw new Error(created.text);
    const docs = [
      // 2024-03-30T23:30 in Paris (+01:00): the day before the DST change
      { ts: '2024-03-30T22:30:00Z', day: '30/03/2024 AD' },
      // 2024-03-31T00:30 in Paris (+01:00; DST starts at 02:00)
      { ts: '2024-03-30T23:30:00Z', day: 'Sun, 31 Mar 2024 10:00:00 GMT+02:00' },
      // 2024-03-31T12:00 in Paris (+02:00)
      { ts: '2024-03-31T10:00:00Z', day: 'Sun, 31 Mar 2024 12:00:00 GMT' },
    ];
    const lines = docs.flatMap((d, i) => [JSON.stringify({ index: { _id: String(i + 1) } }), JSON.stringify(d)]).join('\n') + '\n';
    const r = await call('POST', '/ev/_bulk?refresh=true', lines, NDJSON);
    if (r.status !== 200 || r.body.errors) throw new Error('bulk failed: ' + r.text);
  });

  afterAll(() => api.close());

  it('range date math rounds in the zone with its DST rules (midnight before the gap is +01:00, not the +02:00 of the anchor)', async () => {
    const r = await search({ query: { range: { ts: { gte: '2024-03-31T12:00:00||/d', time_zone: 'Europe/Paris' } } }, _source: false });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(['2', '3']);
    const lt = await search({ query: { range: { ts: { lt: '2024-03-31T12:00:00||/d', time_zone: 'Europe/Paris' } } }, _source: false });
    expect(ids(lt)).toEqual(['1']);
  });

  it('mapping formats with era and localized offset letters parse and print', async () => {
    const r = await search({ query: { range: { day: { gte: '31/03/2024 AD' } } }, fields: ['day'], _source: false, sort: ['_doc'] });
    expect(r.body.hits.hits.map((h: any) => [h._id, h.fields.day[0]])).toEqual([
      ['2', '31/03/2024 AD'],
      ['3', '31/03/2024 AD'],
    ]);
    const bad = await call('PUT', '/bad', { mappings: { properties: { d: { type: 'date', format: 'yyyy-qq' } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.caused_by.reason).toContain('Invalid format: [yyyy-qq]: Unknown pattern letter: q');
  });

  it('date_histogram keys in a zone print with the shared formatter', async () => {
    const r = await search({
      size: 0,
      aggs: { d: { date_histogram: { field: 'ts', calendar_interval: 'day', time_zone: 'Europe/Paris', format: "yyyy-MM-dd'T'HH:mmXXX EEE" } } },
    });
    expect(r.body.aggregations.d.buckets.map((b: any) => [b.key_as_string, b.doc_count])).toEqual([
      ['2024-03-30T00:00+01:00 Sat', 1],
      ['2024-03-31T00:00+01:00 Sun', 2],
    ]);
  });

  it('Painless ZonedDateTime: zones, DST-correct calendar arithmetic, DateTimeFormatter, parse', async () => {
    const r = await search({
      query: { ids: { values: ['3'] } },
      _source: false,
      script_fields: {
        paris: { script: "ZonedDateTime z = doc['ts'].value.withZoneSameInstant(ZoneId.of('Europe/Paris')); return z.toString() + ' ' + z.getHour() + ' ' + z.getDayOfWeek()" },
        minus: { script: "doc['ts'].value.withZoneSameInstant(ZoneId.of('Europe/Paris')).minusDays(1).toString()" },
        fmt: { script: "doc['ts'].value.format(DateTimeFormatter.ofPattern('dd.MM.yyyy HH:mm'))" },
        parsed: { script: "ZonedDateTime.parse('2024-10-27T01:30:00+01:00[Europe/Paris]').plusHours(1).toString()" },
        utc: { script: "ZonedDateTime.parse('2024-01-02T03:04:05.5Z').plusMonths(1).toString()" },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.hits.hits[0].fields).toEqual({
      paris: ['2024-03-31T12:00+02:00[Europe/Paris] 12 SUNDAY'],
      minus: ['2024-03-30T12:00+01:00[Europe/Paris]'],
      fmt: ['31.03.2024 10:00'],
      parsed: ['2024-10-27T02:30+01:00[Europe/Paris]'],
      utc: ['2024-02-02T03:04:05.500Z'],
    });
    const bad = await search({ script_fields: { z: { script: "ZoneId.of('Mars/Olympus')" } } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('Mars/Olympus');
  });
});
