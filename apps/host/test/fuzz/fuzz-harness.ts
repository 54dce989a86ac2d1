/**
 * Runs generated requests against a node and checks the contract of bad input: every request gets a 2xx or
 * a 4xx in Elasticsearch's error shape, never a 5xx, never a hang; the node keeps answering; the data a
 * request was rejected for is unchanged.
 */
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import {
  EQL_INDEX,
  FIXTURE,
  aggs,
  bulkBody,
  deepJson,
  eqlRequest,
  indexSettings,
  mappingsBody,
  painlessRequest,
  query,
  searchBody,
  simulateBody,
  urlRequest,
  type FuzzRequest,
} from './arbitraries.js';

export interface Outcome {
  status: number;
  json: any;
  ms: number;
}

export interface FamilyReport {
  family: string;
  cases: number;
  ok2xx: number;
  client4xx: number;
  server5xx: number;
  /** 5xx that Elasticsearch answers the same way (see isEsParity5xx), not counted in server5xx */
  esParity5xx: number;
  badShape: number;
  hangs: number;
  dataChanged: number;
  slowestMs: number;
  /** 4xx answers by error type (what the generated requests ran into) */
  errorTypes: Record<string, number>;
  failures: string[];
}

export const REQUEST_TIMEOUT_MS = 20_000;

export async function send(base: string, r: FuzzRequest): Promise<Outcome> {
  const t0 = Date.now();
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (r.raw !== undefined) {
    body = r.raw;
    headers['content-type'] = r.contentType ?? 'application/x-ndjson';
  } else if (r.body !== undefined) {
    body = JSON.stringify(r.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(base + r.path, { method: r.method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  let json: unknown;
  try {
    // errors come back in the format the request asked for (`format=yaml`)
    json = !text ? undefined : (res.headers.get('content-type') ?? '').includes('yaml') ? parseYaml(text) : JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json, ms: Date.now() - t0 };
}

/** why an outcome breaks the contract (undefined: it does not) */
export function violation(r: FuzzRequest, o: Outcome): string | undefined {
  if (isEsParity5xx(o)) return undefined;
  if (o.status >= 500) return `server error ${o.status}: ${JSON.stringify(o.json)?.slice(0, 300)}`;
  if (o.status < 200 || (o.status >= 300 && o.status < 400)) return `unexpected status ${o.status}`;
  if (o.status >= 400 && r.method !== 'HEAD') {
    const b = o.json;
    if (b && typeof b === 'object' && 'error' in b) {
      const e = b.error;
      if (typeof e === 'string') return b.status === o.status ? undefined : `error string without status`;
      if (!e || typeof e.type !== 'string' || !Array.isArray(e.root_cause) || (typeof e.reason !== 'string' && e.reason !== null)) return `error not in ES shape: ${JSON.stringify(b).slice(0, 300)}`;
      if (b.status !== o.status) return `error status ${b.status} differs from HTTP ${o.status}`;
      return undefined;
    }
    // 404s that are answers, not errors: a missing document, an empty alias lookup
    if (o.status === 404 && b && typeof b === 'object' && (b.found === false || Object.keys(b).length === 0 || 'error' in b || typeof b.status === 'number')) return undefined;
    return `4xx without an ES error body: ${JSON.stringify(b)?.slice(0, 300)}`;
  }
  return undefined;
}

/**
 * 5xx answers Elasticsearch gives too, kept for parity: `_cat/...?s=<unknown column>` throws Java's
 * UnsupportedOperationException in RestTable.getRowOrder, which ES renders as a 500.
 */
export function isEsParity5xx(o: Outcome): boolean {
  const e = o.json?.error;
  return o.status === 500 && e?.type === 'unsupported_operation_exception' && typeof e.reason === 'string' && e.reason.startsWith('Unable to sort by unknown sort key');
}

/** everything stored in an index, for before/after comparisons */
export async function digest(base: string, index: string): Promise<string> {
  const s = await send(base, { method: 'POST', path: `/${index}/_search?size=10000&version=true&seq_no_primary_term=true`, body: { sort: ['_doc'], query: { match_all: {} } } });
  const m = await send(base, { method: 'GET', path: `/${index}/_mapping` });
  const st = await send(base, { method: 'GET', path: `/${index}/_settings?flat_settings=true` });
  const hits = ((s.json?.hits?.hits ?? []) as any[]).map((h) => [h._id, h._version, h._seq_no, h._source]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  return JSON.stringify({ status: s.status, hits, mapping: m.json, settings: st.json?.[index]?.settings });
}

export interface Family {
  name: string;
  requests(seed: number, runs: number): FuzzRequest[];
  /** creates what the family reads (once, before its first request) */
  setup?(base: string): Promise<void>;
  /** indices besides the fixture whose contents must be the same after the family */
  indices?: readonly string[];
  /** checks on the side: data a rejected request must not have changed */
  around?(base: string, r: FuzzRequest): Promise<(o: Outcome) => Promise<string | undefined>>;
}

const sample = <T>(arb: fc.Arbitrary<T>, seed: number, runs: number): T[] => fc.sample(arb, { seed, numRuns: runs });

let mappingSeq = 0;

/** JSON nested 50..3000 levels deep in queries, aggregations, documents, mappings and bulk items */
const DEEP_FAMILY: Family = {
  name: 'deep_nesting',
  requests: (seed, runs) =>
    sample(fc.tuple(fc.constantFrom('query', 'aggs', 'doc', 'mapping', 'bulk'), deepJson), seed, runs).map(([where, d]): FuzzRequest => {
      switch (where) {
        case 'query':
          return { method: 'POST', path: `/${FIXTURE}/_search`, body: { query: { bool: { must: d } } } };
        case 'aggs':
          return { method: 'POST', path: `/${FIXTURE}/_search`, body: { size: 0, aggs: { a: { terms: { field: 'tag' }, aggs: d } } } };
        case 'doc':
          return { method: 'PUT', path: '/fuzz-scratch/_doc/deep', body: { d } };
        case 'mapping':
          return { method: 'PUT', path: '/fuzz-scratch/_mapping', body: { properties: { d: d as Record<string, unknown> } } };
        default:
          return { method: 'POST', path: '/_bulk', raw: JSON.stringify({ index: { _index: 'fuzz-bulk' } }) + '\n' + JSON.stringify({ d }) + '\n' };
      }
    }),
};

export const FAMILIES: Family[] = [
  {
    name: 'query_dsl',
    requests: (seed, runs) =>
      sample(
        fc.oneof({ weight: 6, arbitrary: query.map((q) => ({ query: q })) }, { weight: 3, arbitrary: searchBody }),
        seed,
        runs,
      ).map((body) => ({ method: 'POST' as const, path: `/${FIXTURE}/_search`, body })),
  },
  {
    name: 'aggregations',
    requests: (seed, runs) =>
      sample(aggs, seed, runs).map((a) => ({
        method: 'POST' as const,
        path: `/${FIXTURE}/_search`,
        body: { size: 0, aggs: a },
      })),
  },
  {
    name: 'mappings',
    requests: (seed, runs) =>
      sample(fc.tuple(fc.boolean(), mappingsBody, fc.option(indexSettings, { nil: undefined })), seed, runs).map(([create, mappings, settings]) =>
        create
          ? { method: 'PUT' as const, path: `/fuzz-m-${++mappingSeq}`, body: settings ? { mappings, settings } : { mappings } }
          : { method: 'PUT' as const, path: `/fuzz-scratch/_mapping`, body: mappings },
      ),
    async around(base, r) {
      const before = r.path.startsWith('/fuzz-scratch') ? await digest(base, 'fuzz-scratch') : undefined;
      return async (o) => {
        if (r.path.startsWith('/fuzz-m-')) {
          const exists = await send(base, { method: 'HEAD', path: r.path });
          if (o.status >= 400 && exists.status !== 404) return 'a rejected index creation left the index behind';
          if (exists.status === 200) await send(base, { method: 'DELETE', path: r.path });
          return undefined;
        }
        if (o.status >= 400 && (await digest(base, 'fuzz-scratch')) !== before) return 'a rejected mapping update changed the mapping';
        return undefined;
      };
    },
  },
  {
    name: 'bulk_ndjson',
    requests: (seed, runs) => sample(bulkBody, seed, runs).map((raw) => ({ method: 'POST' as const, path: '/_bulk', raw })),
    async around(base) {
      const count = async (): Promise<unknown> => (await send(base, { method: 'GET', path: '/fuzz-bulk*/_count?ignore_unavailable=true&allow_no_indices=true' })).json?.count;
      await send(base, { method: 'POST', path: '/fuzz-bulk*/_refresh?ignore_unavailable=true&allow_no_indices=true' });
      const before = await count();
      return async (o) => {
        if (o.status < 400) return undefined;
        await send(base, { method: 'POST', path: '/fuzz-bulk*/_refresh?ignore_unavailable=true&allow_no_indices=true' });
        const after = await count();
        return after === before ? undefined : `a rejected bulk changed the document count (${String(before)} -> ${String(after)})`;
      };
    },
  },
  {
    name: 'url_parameters',
    requests: (seed, runs) => sample(urlRequest, seed, runs),
  },
  {
    name: 'ingest_pipelines',
    requests: (seed, runs) =>
      sample(fc.tuple(fc.boolean(), simulateBody), seed, runs).map(([store, body]) =>
        store ? { method: 'PUT' as const, path: '/_ingest/pipeline/fuzz-p', body: (body as Record<string, unknown>)['pipeline'] ?? body } : { method: 'POST' as const, path: '/_ingest/pipeline/_simulate?verbose=' + String(seed % 2 === 0), body },
      ),
    async around(base, r) {
      return async (o) => {
        if (r.method !== 'PUT') return undefined;
        const got = await send(base, { method: 'GET', path: '/_ingest/pipeline/fuzz-p' });
        if (o.status >= 400 && got.status !== 404) return 'a rejected pipeline was stored';
        if (got.status === 200) await send(base, { method: 'DELETE', path: '/_ingest/pipeline/fuzz-p' });
        return undefined;
      };
    },
  },
  {
    name: 'painless',
    requests: (seed, runs) => sample(painlessRequest, seed, runs),
  },
  DEEP_FAMILY,
  {
    name: 'eql',
    requests: (seed, runs) => sample(eqlRequest, seed, runs),
    setup: createEventsFixture,
    indices: [EQL_INDEX],
    async around(base) {
      return async (o) => {
        // a search that was stored (keep_on_completion, or still running at wait_for_completion_timeout)
        // is deleted again, which cancels it when it runs; that must be clean too
        const id = o.status === 200 && typeof o.json?.id === 'string' ? o.json.id : undefined;
        if (!id) return undefined;
        const d = await send(base, { method: 'DELETE', path: `/_eql/search/${encodeURIComponent(id)}` });
        return d.status >= 500 ? `deleting the stored search answered ${d.status}: ${JSON.stringify(d.json).slice(0, 300)}` : undefined;
      };
    },
  },
];

/** ECS-like events for EQL: process / network / file events of a few hosts over an hour */
async function createEventsFixture(base: string): Promise<void> {
  const r = await send(base, {
    method: 'PUT',
    path: `/${EQL_INDEX}`,
    body: {
      settings: { number_of_shards: 2 },
      mappings: {
        properties: {
          '@timestamp': { type: 'date' },
          event: { properties: { category: { type: 'keyword' }, sequence: { type: 'long' } } },
          process: { properties: { name: { type: 'keyword' }, pid: { type: 'long' }, args: { type: 'keyword' }, parent: { properties: { name: { type: 'keyword' } } } } },
          host: { properties: { id: { type: 'keyword' } } },
          user: { properties: { name: { type: 'keyword' } } },
          destination: { properties: { ip: { type: 'ip' }, port: { type: 'long' } } },
          file: { properties: { path: { type: 'keyword' } } },
          message: { type: 'text' },
        },
      },
    },
  });
  if (r.status !== 200) throw new Error(`events fixture: ${JSON.stringify(r.json)}`);
  const cats = ['process', 'network', 'file'];
  const lines: string[] = [];
  for (let i = 0; i < 120; i++) {
    const cat = cats[i % 3];
    const k = Math.floor(i / 3);
    const ev: Record<string, unknown> = {
      '@timestamp': new Date(Date.UTC(2024, 0, 1, 10, 0, 0) + i * 30_000).toISOString(),
      event: { category: cat, sequence: i },
      host: { id: `h${i % 4}` },
      user: { name: ['alice', 'bob', 'SYSTEM'][i % 3] },
      message: `event ${i} on h${i % 4}`,
    };
    if (cat === 'process') ev['process'] = { name: ['cmd.exe', 'powershell.exe', 'explorer.exe'][k % 3], pid: 100 + i, args: ['/c', `run${k % 5}`], ...(k % 2 ? { parent: { name: 'explorer.exe' } } : {}) };
    if (cat === 'network') ev['destination'] = { ip: `10.0.${k % 3}.${i % 250}`, port: [22, 443, 8080][k % 3] };
    if (cat === 'file') ev['file'] = { path: `C:\\Windows\\file${k % 7}.exe` };
    lines.push(JSON.stringify({ index: { _index: EQL_INDEX, _id: `e${i}` } }), JSON.stringify(ev));
  }
  const b = await send(base, { method: 'POST', path: '/_bulk?refresh=true', raw: lines.join('\n') + '\n' });
  if (b.status !== 200 || b.json.errors) throw new Error(`events fixture bulk: ${JSON.stringify(b.json).slice(0, 500)}`);
}

/** the fixture every family reads: a few documents over the common field types */
export async function createFixture(base: string): Promise<void> {
  const mappings = {
    properties: {
      title: { type: 'text', fields: { keyword: { type: 'keyword' } } },
      tag: { type: 'keyword' },
      count: { type: 'long' },
      price: { type: 'double' },
      ts: { type: 'date' },
      ok: { type: 'boolean' },
      addr: { type: 'ip' },
      loc: { type: 'geo_point' },
      obj: { properties: { inner: { type: 'keyword' } } },
      items: { type: 'nested', properties: { name: { type: 'keyword' }, qty: { type: 'integer' } } },
    },
  };
  for (const index of [FIXTURE, 'fuzz-scratch']) {
    const r = await send(base, { method: 'PUT', path: `/${index}`, body: { settings: { number_of_shards: index === FIXTURE ? 2 : 1 }, mappings } });
    if (r.status !== 200) throw new Error(`fixture ${index}: ${JSON.stringify(r.json)}`);
  }
  const lines: string[] = [];
  for (let i = 0; i < 40; i++) {
    lines.push(JSON.stringify({ index: { _index: FIXTURE, _id: String(i) } }));
    lines.push(
      JSON.stringify({
        title: `quick brown fox ${i} ${i % 3 ? 'jumps' : 'sleeps'}`,
        tag: ['a', 'b', 'c'][i % 3],
        count: i,
        price: i * 1.5,
        ts: `2024-01-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z`,
        ok: i % 2 === 0,
        addr: `10.0.0.${i}`,
        loc: { lat: 40 + i / 10, lon: -74 + i / 10 },
        obj: { inner: `v${i % 5}` },
        items: [{ name: `n${i % 4}`, qty: i }, { name: 'z', qty: 1 }],
      }),
    );
  }
  const b = await send(base, { method: 'POST', path: '/_bulk?refresh=true', raw: lines.join('\n') + '\n' });
  if (b.status !== 200 || b.json.errors) throw new Error(`fixture bulk: ${JSON.stringify(b.json).slice(0, 500)}`);
}

/** runs one family: every request, its checks, and the fixture digest before and after */
export async function runFamily(base: string, family: Family, seed: number, runs: number): Promise<FamilyReport> {
  const report: FamilyReport = { family: family.name, cases: 0, ok2xx: 0, client4xx: 0, server5xx: 0, esParity5xx: 0, badShape: 0, hangs: 0, dataChanged: 0, slowestMs: 0, errorTypes: {}, failures: [] };
  if (family.setup) await family.setup(base);
  const watched = [FIXTURE, ...(family.indices ?? [])];
  const before = await Promise.all(watched.map((i) => digest(base, i)));
  for (const r of family.requests(seed, runs)) {
    report.cases++;
    const after = family.around ? await family.around(base, r) : undefined;
    let o: Outcome;
    try {
      o = await send(base, r);
    } catch (e) {
      report.hangs++;
      report.failures.push(`${r.method} ${r.path} ${JSON.stringify(r.body ?? r.raw)?.slice(0, 500)} -> no answer: ${String(e)}`);
      continue;
    }
    report.slowestMs = Math.max(report.slowestMs, o.ms);
    if (isEsParity5xx(o)) report.esParity5xx++;
    else if (o.status >= 500) report.server5xx++;
    else if (o.status >= 400) {
      report.client4xx++;
      const type = typeof o.json?.error?.type === 'string' ? o.json.error.type : String(o.status);
      report.errorTypes[type] = (report.errorTypes[type] ?? 0) + 1;
    }
    else report.ok2xx++;
    const v = violation(r, o);
    if (v && o.status < 500) report.badShape++;
    const side = after ? await after(o) : undefined;
    if (side) report.dataChanged++;
    if (v || side) report.failures.push(`${r.method} ${r.path} ${JSON.stringify(r.body ?? r.raw)?.slice(0, 500)} -> ${v ?? side}`);
  }
  for (let i = 0; i < watched.length; i++) {
    if ((await digest(base, watched[i])) !== before[i]) {
      report.dataChanged++;
      report.failures.push(`index [${watched[i]}] changed during ${family.name}`);
    }
  }
  return report;
}
