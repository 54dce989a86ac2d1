/**
 * long / unsigned_long values beyond 2^53 over HTTP, checked on the exact response text (a JSON.parse of the
 * response would round them): doc values, `fields`, sort values, search_after, term / terms / range, exists,
 * terms aggregation keys; after a refresh, a kill -9 (translog replay), a force merge and a graceful restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHost, http, spawnHost, stopHost, type HostProcess } from './helpers.js';

const hostArgs = (dataPath: string): string[] => ['-E', 'http.port=0', '-E', `path.data=${dataPath}`];
const JSON_CT = { 'Content-Type': 'application/json' };

// [id, l, u] as written in the documents (strings are sent as JSON strings)
const DOCS: Array<[string, string, string]> = [
  ['1', '9007199254740993', '18446744073709551615'],
  ['2', '9007199254740992', '18446744073709551614'],
  ['3', '9223372036854775807', '9223372036854775808'],
  ['4', '-9223372036854775808', '0'],
  ['5', '-9007199254740993', '9007199254740993'],
  ['6', '42', '42'],
  ['7', '"9223372036854775806"', '"18446744073709551613"'],
];
// the model: ids in ascending order of l, with their exact values as ES prints them
const BY_L = [
  ['4', '-9223372036854775808', '0'],
  ['5', '-9007199254740993', '9007199254740993'],
  ['6', '42', '42'],
  ['2', '9007199254740992', '18446744073709551614'],
  ['1', '9007199254740993', '18446744073709551615'],
  ['7', '9223372036854775806', '18446744073709551613'],
  ['3', '9223372036854775807', '9223372036854775808'],
];

describe('exact 64-bit long and unsigned_long values (built host)', () => {
  let dataPath: string;
  let proc: HostProcess | undefined;

  beforeAll(() => {
    buildHost();
    dataPath = mkdtempSync(join(tmpdir(), 'strata-longs-'));
  });
  afterAll(async () => {
    if (proc) await stopHost(proc);
    rmSync(dataPath, { recursive: true, force: true });
  });

  const search = async (body: string, filter: string): Promise<string> => {
    const r = await http(`${proc!.url}/longs/_search?filter_path=${filter}`, { method: 'POST', headers: JSON_CT, body });
    expect(r.status).toBe(200);
    return r.text;
  };
  const ids = async (query: string): Promise<string> => search(`{"query":${query},"sort":["_doc"]}`, 'hits.hits._id');
  const idsOf = (list: string[]) => (list.length ? `{"hits":{"hits":[${list.map((id) => `{"_id":"${id}"}`).join(',')}]}}` : '{}');

  /** every read the brief lists, against the model */
  async function checkAll(extra: Array<[string, string, string]> = []): Promise<void> {
    const rows = [...BY_L, ...extra].sort((a, b) => (BigInt(a[1]) < BigInt(b[1]) ? -1 : 1));
    const dv = rows.map(([id, l, u]) => `{"_id":"${id}","fields":{"l":[${l}],"u":[${u}]},"sort":[${l}]}`);
    // doc values and sort values (doc 8 has no l: Long.MAX_VALUE, last)
    expect(await search('{"sort":[{"l":"asc"}],"docvalue_fields":["l","u"],"_source":false}', 'hits.hits._id,hits.hits.fields,hits.hits.sort')).toBe(
      `{"hits":{"hits":[${dv.join(',')},{"_id":"8","sort":[9223372036854775807]}]}}`,
    );
    // `fields` (read from _source)
    const fv = rows.map(([id, l, u]) => `{"_id":"${id}","fields":{"l":[${l}],"u":[${u}]}}`);
    expect(await search('{"sort":[{"l":"asc"}],"fields":["l","u"],"_source":false}', 'hits.hits._id,hits.hits.fields')).toBe(
      `{"hits":{"hits":[${fv.join(',')},{"_id":"8"}]}}`,
    );
    // search_after with the exact sort value a client echoes back (a JSON number)
    const i = rows.findIndex((r) => r[0] === '1');
    expect(await search('{"sort":[{"l":"asc"}],"search_after":[9007199254740993],"_source":false}', 'hits.hits._id')).toBe(idsOf([...rows.slice(i + 1).map((r) => r[0]), '8']));
    expect(await search('{"sort":[{"l":"asc"}],"search_after":[9007199254740992],"_source":false}', 'hits.hits._id')).toBe(idsOf([...rows.slice(i).map((r) => r[0]), '8']));
    // sort on unsigned_long, descending
    const byU = rows.slice().sort((a, b) => (BigInt(a[2]) > BigInt(b[2]) ? -1 : 1));
    expect(await search('{"sort":[{"u":"desc"}],"size":3,"_source":false}', 'hits.hits._id,hits.hits.sort')).toBe(
      `{"hits":{"hits":[${byU
        .slice(0, 3)
        .map(([id, , u]) => `{"_id":"${id}","sort":[${u}]}`)
        .join(',')}]}}`,
    );
    // term / terms / range distinguish ...992 from ...993 (numbers and strings alike)
    expect(await ids('{"term":{"l":9007199254740993}}')).toBe(idsOf(['1']));
    expect(await ids('{"term":{"l":"9007199254740992"}}')).toBe(idsOf(['2']));
    expect(await ids('{"term":{"u":18446744073709551615}}')).toBe(idsOf(['1']));
    expect(await ids('{"terms":{"l":[9007199254740993,42,-9223372036854775808]}}')).toBe(idsOf(['1', '4', '6']));
    expect(await ids('{"range":{"l":{"gt":9007199254740992}}}')).toBe(idsOf(rows.filter((r) => BigInt(r[1]) > 9007199254740992n).map((r) => r[0]).sort()));
    expect(await ids('{"range":{"l":{"lte":9007199254740992}}}')).toBe(idsOf(['2', '4', '5', '6']));
    expect(await ids('{"range":{"u":{"gte":9223372036854775808,"lt":18446744073709551615}}}')).toBe(idsOf(['2', '3', '7']));
    // exists and _count
    const count = await http(`${proc!.url}/longs/_count`, { method: 'POST', headers: JSON_CT, body: '{"query":{"exists":{"field":"l"}}}' });
    expect(count.json.count).toBe(rows.length);
    const c2 = await http(`${proc!.url}/longs/_count`, { method: 'POST', headers: JSON_CT, body: '{"query":{"range":{"l":{"gte":9007199254740993}}}}' });
    expect(c2.json.count).toBe(rows.filter((r) => BigInt(r[1]) >= 9007199254740993n).length);
    // terms aggregation keys (one doc per key: _key ascending among equal counts)
    const keys = (col: 1 | 2) =>
      rows
        .map((r) => r[col])
        .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
        .map((k) => `{"key":${k},"doc_count":1}`)
        .join(',');
    expect(await search('{"size":0,"aggs":{"l":{"terms":{"field":"l","size":20}},"u":{"terms":{"field":"u","size":20}}}}', 'aggregations.*.buckets')).toBe(
      `{"aggregations":{"l":{"buckets":[${keys(1)}]},"u":{"buckets":[${keys(2)}]}}}`,
    );
  }

  it('keeps every value exact through refresh, kill -9, force merge and a graceful restart', async () => {
    proc = await spawnHost(hostArgs(dataPath));
    const mk = await http(`${proc.url}/longs`, { method: 'PUT', headers: JSON_CT, body: '{"mappings":{"properties":{"l":{"type":"long"},"u":{"type":"unsigned_long"}}}}' });
    expect(mk.status).toBe(200);
    const lines = DOCS.flatMap(([id, l, u]) => [`{"index":{"_id":"${id}"}}`, `{"l":${l},"u":${u}}`]);
    lines.push('{"index":{"_id":"8"}}', '{"other":1}');
    const bulk = await http(`${proc.url}/longs/_bulk?refresh=true`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: lines.join('\n') + '\n' });
    expect(bulk.json.errors).toBe(false);
    await checkAll();

    // out of range: Elasticsearch's errors, nothing indexed
    for (const [body, reason] of [
      ['{"l":9223372036854775808}', 'Value [9223372036854775808] is out of range for a long'],
      ['{"l":-9223372036854775809}', 'Value [-9223372036854775809] is out of range for a long'],
      ['{"u":18446744073709551616}', 'Value "18446744073709551616" is out of range for an unsigned long'],
      ['{"u":-1}', 'Value "-1" is out of range for an unsigned long'],
    ]) {
      const r = await http(`${proc.url}/longs/_doc/bad?refresh=true`, { method: 'PUT', headers: JSON_CT, body: body! });
      expect([r.status, r.json.error.type, r.json.error.caused_by.reason]).toEqual([400, 'document_parsing_exception', reason]);
    }

    // kill -9: the unflushed documents come back from the translog, exact
    await stopHost(proc, 'SIGKILL');
    proc = await spawnHost(hostArgs(dataPath));
    await checkAll();

    // a second segment, then a merge of both into one
    const put = await http(`${proc.url}/longs/_doc/9?refresh=true`, { method: 'PUT', headers: JSON_CT, body: '{"l":9007199254740995,"u":9007199254740995}' });
    expect(put.status).toBe(201);
    const extra: Array<[string, string, string]> = [['9', '9007199254740995', '9007199254740995']];
    await checkAll(extra);
    const fm = await http(`${proc.url}/longs/_forcemerge?max_num_segments=1`, { method: 'POST' });
    expect(fm.status).toBe(200);
    const stats = await http(`${proc.url}/longs/_stats/segments`);
    expect(stats.json.indices.longs.primaries.segments.count).toBe(1);
    await checkAll(extra);

    // graceful restart: read back from the committed segment files
    await stopHost(proc, 'SIGTERM');
    proc = await spawnHost(hostArgs(dataPath));
    await checkAll(extra);
  });

  it('_source filtering and a partial update keep the stored digits of the other fields (also after kill -9)', async () => {
    proc ??= await spawnHost(hostArgs(dataPath));
    const mk = await http(`${proc.url}/snow`, { method: 'PUT', headers: JSON_CT, body: '{"mappings":{"properties":{"id":{"type":"long"},"n":{"type":"integer"},"o":{"properties":{"big":{"type":"unsigned_long"}}}}}}' });
    expect(mk.status).toBe(200);
    const put = await http(`${proc.url}/snow/_doc/a?refresh=true`, { method: 'PUT', headers: JSON_CT, body: '{"id":1234567890123456789,"n":1,"o":{"big":18446744073709551615,"s":"x"}}' });
    expect(put.status).toBe(201);
    const filtered = '{"_source":{"id":1234567890123456789,"o":{"big":18446744073709551615}}}';
    const checkFiltered = async (): Promise<void> => {
      const s1 = await http(`${proc!.url}/snow/_search?filter_path=hits.hits._source`, { method: 'POST', headers: JSON_CT, body: '{"_source":["id","o.big"]}' });
      expect(s1.text).toBe(`{"hits":{"hits":[${filtered}]}}`);
      const g = await http(`${proc!.url}/snow/_doc/a?_source_excludes=n,o.s&filter_path=_source`);
      expect(g.text).toBe(filtered);
    };
    await checkFiltered();
    // a partial update of another field: the stored id keeps every digit, in _source and in doc values
    const up = await http(`${proc.url}/snow/_update/a?refresh=true&_source=id,n`, { method: 'POST', headers: JSON_CT, body: '{"doc":{"n":2}}' });
    expect([up.status, up.json.result]).toEqual([200, 'updated']);
    expect(up.text).toContain('"get":{"_seq_no":1,"_primary_term":1,"found":true,"_source":{"id":1234567890123456789,"n":2}}');
    const checkUpdated = async (): Promise<void> => {
      const g = await http(`${proc!.url}/snow/_doc/a?filter_path=_source`);
      expect(g.text).toBe('{"_source":{"id":1234567890123456789,"n":2,"o":{"big":18446744073709551615,"s":"x"}}}');
      const t = await http(`${proc!.url}/snow/_search?filter_path=hits.hits._id,hits.hits.fields`, {
        method: 'POST',
        headers: JSON_CT,
        body: '{"query":{"term":{"id":1234567890123456789}},"docvalue_fields":["id"],"_source":false}',
      });
      expect(t.text).toBe('{"hits":{"hits":[{"_id":"a","fields":{"id":[1234567890123456789]}}]}}');
      await checkFiltered();
    };
    await checkUpdated();
    await stopHost(proc, 'SIGKILL');
    proc = await spawnHost(hostArgs(dataPath));
    await checkUpdated();
  });
});
