#!/usr/bin/env node
// A deliberately naive in-memory stand-in for the service, used only to dry-run the benchmark harness
// itself (runner flow and the exactness of its checks) while the real host is not available:
//   node tools/bench/run.mjs --main tools/bench/mock-server.mjs --docs 20000
// It implements just what run.mjs sends (full scans, no real scoring). Not a reference implementation.
import http from 'node:http';

let port = 9200;
for (let k = 2; k < process.argv.length; k++) {
  if (process.argv[k] === '-E') {
    const [key, val] = process.argv[++k].split('=');
    if (key === 'http.port') port = Number(val);
  }
}

// MOCK_FAULT=total|sort|agg injects a wrong answer, to prove the benchmark's checks catch it.
const FAULT = process.env.MOCK_FAULT ?? '';
const indices = new Map(); // name -> { docs: [], visible: 0 }
const get = (o, p) => p.split('.').reduce((c, k) => (c == null ? undefined : c[k]), o);
const tokens = (s) => String(s).toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
const toMs = (v) => (typeof v === 'number' ? v : Date.parse(v));

function matches(q, d) {
  const [type] = Object.keys(q);
  const body = q[type];
  switch (type) {
    case 'match_all': return 1;
    case 'term': {
      const [f] = Object.keys(body);
      const v = typeof body[f] === 'object' && body[f] !== null ? body[f].value : body[f];
      return get(d, f) === v ? 1 : 0;
    }
    case 'range': {
      const [f] = Object.keys(body);
      const r = body[f];
      let v = get(d, f);
      if (v === undefined) return 0;
      const isDate = f === '@timestamp';
      if (isDate) v = toMs(v);
      const c = (x) => (isDate ? toMs(x) : x);
      if (r.gte !== undefined && !(v >= c(r.gte))) return 0;
      if (r.gt !== undefined && !(v > c(r.gt))) return 0;
      if (r.lte !== undefined && !(v <= c(r.lte))) return 0;
      if (r.lt !== undefined && !(v < c(r.lt))) return 0;
      return 1;
    }
    case 'match': {
      const [f] = Object.keys(body);
      const qtext = typeof body[f] === 'object' ? body[f].query : body[f];
      const and = typeof body[f] === 'object' && body[f].operator === 'and';
      const dt = new Set(tokens(get(d, f) ?? ''));
      const qt = tokens(qtext);
      const n = qt.filter((t) => dt.has(t)).length;
      return (and ? n === qt.length : n > 0) ? n : 0;
    }
    case 'bool': {
      let score = 0;
      for (const c of body.must ?? []) { const s = matches(c, d); if (!s) return 0; score += s; }
      for (const c of body.filter ?? []) if (!matches(c, d)) return 0;
      return score || 1;
    }
    default: throw Object.assign(new Error(`mock: unsupported query ${type}`), { status: 400 });
  }
}

function search(idx, body) {
  const docs = idx.docs.slice(0, idx.visible);
  const q = body.query ?? { match_all: {} };
  const hits = [];
  for (let i = 0; i < docs.length; i++) {
    const s = matches(q, docs[i].source);
    if (s) hits.push({ i, s, d: docs[i] });
  }
  const sort = body.sort?.[0];
  let sortField = null;
  if (sort) {
    sortField = typeof sort === 'string' ? sort : Object.keys(sort)[0];
    const ord = typeof sort === 'string' ? 'asc' : (typeof sort[sortField] === 'string' ? sort[sortField] : sort[sortField].order);
    const key = (h) => (sortField === '@timestamp' ? toMs(get(h.d.source, sortField)) : get(h.d.source, sortField));
    hits.sort((a, b) => (ord === 'desc' ? key(b) - key(a) : key(a) - key(b)) || a.i - b.i);
  } else {
    hits.sort((a, b) => b.s - a.s || a.i - b.i);
  }
  const size = body.size ?? 10;
  const from = body.from ?? 0;
  if (FAULT === 'total' && hits.length > 0 && hits.length < 10000) hits.pop();
  if (FAULT === 'sort' && sortField && hits.length > 3) [hits[1], hits[2]] = [hits[2], hits[1]];
  const total = hits.length > 10000 ? { value: 10000, relation: 'gte' } : { value: hits.length, relation: 'eq' };
  const out = {
    took: 1, timed_out: false, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
    hits: {
      total,
      max_score: sortField ? null : (hits[0]?.s ?? null),
      hits: hits.slice(from, from + size).map((h) => ({
        _index: idx.name, _id: h.d.id, _score: sortField ? null : h.s, _source: h.d.source,
        ...(sortField ? { sort: [sortField === '@timestamp' ? toMs(get(h.d.source, sortField)) : get(h.d.source, sortField)] } : {}),
      })),
    },
  };
  if (body.aggs) {
    out.aggregations = {};
    for (const [name, a] of Object.entries(body.aggs)) {
      if (a.terms) {
        const counts = new Map();
        for (const h of hits) { const v = get(h.d.source, a.terms.field); counts.set(v, (counts.get(v) ?? 0) + 1); }
        const all = [...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
        const top = all.slice(0, a.terms.size ?? 10);
        out.aggregations[name] = {
          doc_count_error_upper_bound: 0,
          sum_other_doc_count: all.slice(top.length).reduce((s, x) => s + x[1], 0),
          buckets: top.map(([key, doc_count]) => ({ key, doc_count: FAULT === 'agg' ? doc_count + 1 : doc_count })),
        };
      } else if (a.date_histogram) {
        const iv = 3_600_000;
        const counts = new Map();
        for (const h of hits) { const k = Math.floor(toMs(get(h.d.source, a.date_histogram.field)) / iv) * iv; counts.set(k, (counts.get(k) ?? 0) + 1); }
        const keys = [...counts.keys()];
        const buckets = [];
        if (keys.length) for (let k = Math.min(...keys); k <= Math.max(...keys); k += iv) buckets.push({ key_as_string: new Date(k).toISOString(), key: k, doc_count: counts.get(k) ?? 0 });
        out.aggregations[name] = { buckets };
      } else throw Object.assign(new Error('mock: unsupported agg'), { status: 400 });
    }
  }
  return out;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const send = (status, obj) => {
      const s = JSON.stringify(obj);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
      res.end(s);
    };
    try {
      const url = new URL(req.url, 'http://x');
      const parts = url.pathname.split('/').filter(Boolean);
      const text = Buffer.concat(chunks).toString('utf8');
      const body = () => (text ? JSON.parse(text) : {});
      const idx = indices.get(parts[0]);
      const missing = () => send(404, { error: { type: 'index_not_found_exception', reason: `no such index [${parts[0]}]` }, status: 404 });
      if (!parts.length) return send(200, { name: 'mock', cluster_name: 'mock', version: { number: '8.0.0-mock' }, tagline: 'You Know, for Search' });
      if (parts.length === 1 && req.method === 'PUT') { indices.set(parts[0], { name: parts[0], docs: [], visible: 0 }); return send(200, { acknowledged: true, shards_acknowledged: true, index: parts[0] }); }
      if (parts.length === 1 && req.method === 'DELETE') { if (!idx) return missing(); indices.delete(parts[0]); return send(200, { acknowledged: true }); }
      if (!idx) return missing();
      const op = parts[1];
      if (op === '_bulk') {
        const lines = text.split('\n');
        const items = [];
        for (let k = 0; k + 1 < lines.length; k += 2) {
          if (!lines[k]) { k--; continue; }
          const id = `d${idx.docs.length}`;
          idx.docs.push({ id, source: JSON.parse(lines[k + 1]) });
          items.push({ index: { _index: idx.name, _id: id, _version: 1, result: 'created', status: 201 } });
        }
        return send(200, { took: 1, errors: false, items });
      }
      if (op === '_refresh') { idx.visible = idx.docs.length; return send(200, { _shards: { total: 1, successful: 1, failed: 0 } }); }
      if (op === '_count') return send(200, { count: search(idx, { ...body(), size: 0 }).hits.hits.length === 0 ? idx.docs.slice(0, idx.visible).filter((d) => matches(body().query ?? { match_all: {} }, d.source)).length : 0 });
      if (op === '_search') {
        for (const p of url.searchParams.keys()) if (p !== 'request_cache') return send(400, { error: { type: 'illegal_argument_exception', reason: `unrecognized parameter: [${p}]` }, status: 400 });
        return send(200, search(idx, body()));
      }
      if (op === '_cache') return send(200, { _shards: { total: 1, successful: 1, failed: 0 } });
      return send(400, { error: { type: 'mock', reason: `unsupported ${req.method} ${url.pathname}` }, status: 400 });
    } catch (e) {
      send(e.status ?? 500, { error: { type: 'mock_exception', reason: e.message }, status: e.status ?? 500 });
    }
  });
});
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
