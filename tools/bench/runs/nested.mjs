// "nested": documents with 3 nested objects each (1 document per generated one: --docs parents, default
// 1M, so 4M Lucene documents). Loads them once with `comments` mapped nested and once mapped as a plain
// object (the flat baseline, same JSON), and reports the indexing cost of nested documents against flat
// ones; then measures a nested query and a nested terms aggregation (p50), every response checked against
// counts computed while generating.
import { createRng } from '../lib/prng.mjs';
import { loadBulk } from '../lib/bulk-load.mjs';
import { measureRequest } from '../lib/measure.mjs';
import { assert, assertSearchOk } from './checks.mjs';

const AUTHORS = 200;
const PER_DOC = 3;
const NESTED = 'bench-nested';
const FLAT = 'bench-flat';

function mappings(nested) {
  return {
    settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1' },
    mappings: {
      properties: {
        n: { type: 'long' },
        cat: { type: 'keyword' },
        comments: {
          ...(nested ? { type: 'nested' } : {}),
          properties: { author: { type: 'keyword' }, stars: { type: 'integer' }, text: { type: 'text' } },
        },
      },
    },
  };
}

/** the documents as _bulk bodies, and the truth of the measured requests */
function generate(parents) {
  const rng = createRng(20240614);
  const truth = { match: 0, crossMatch: 0, authors: new Float64Array(AUTHORS) };
  const bodies = [];
  let lines = [];
  for (let i = 0; i < parents; i++) {
    const comments = [];
    let own = false;
    let hasA = false;
    let has5 = false;
    for (let k = 0; k < PER_DOC; k++) {
      // a skewed author distribution: author 0 is the most frequent
      const a = Math.min(AUTHORS - 1, Math.floor(-Math.log(1 - rng.next()) * 25));
      const stars = 1 + rng.int(5);
      comments.push({ author: `a${a}`, stars, text: `comment ${k} of ${i}` });
      truth.authors[a]++;
      if (a === 7 && stars === 5) own = true;
      if (a === 7) hasA = true;
      if (stars === 5) has5 = true;
    }
    if (own) truth.match++;
    if (hasA && has5) truth.crossMatch++;
    lines.push('{"index":{}}', JSON.stringify({ n: i, cat: `c${i % 50}`, comments }));
    if (lines.length === 10000) {
      bodies.push(Buffer.from(lines.join('\n') + '\n'));
      lines = [];
    }
  }
  if (lines.length) bodies.push(Buffer.from(lines.join('\n') + '\n'));
  return { bodies, truth };
}

const QUERY = { nested: { path: 'comments', query: { bool: { filter: [{ term: { 'comments.author': 'a7' } }, { term: { 'comments.stars': 5 } }] } } } };

async function run(ctx) {
  const parents = ctx.gen.docs;
  const rows = [];
  const base = { group: 'nested', status: 'ok', notes: [] };
  // indexing cost: the same documents into a nested and a flat index, alternately, best of 2 (up to 200k docs)
  const costDocs = Math.min(parents, 200_000);
  const small = generate(costDocs);
  const indexing = { ...base, name: 'nested_indexing', description: `${costDocs} docs × ${PER_DOC} objects, nested mapping vs the same JSON as plain objects, best of 2 each` };
  let truth;
  try {
    const flat = [];
    const nested = [];
    for (let round = 0; round < 2; round++) {
      flat.push(await loadBulk(ctx, { index: FLAT, body: mappings(false), bodies: small.bodies, expectCount: costDocs }));
      nested.push(await loadBulk(ctx, { index: NESTED, body: mappings(true), bodies: small.bodies, expectCount: costDocs }));
    }
    // the flat baseline crosses objects: the same bool matches where a7 and 5 stars come from different objects
    const cross = await ctx.client.request('POST', `/${FLAT}/_count`, { query: QUERY.nested.query });
    assert(cross.json?.count === small.truth.crossMatch, `flat cross-object count ${cross.json?.count}, expected ${small.truth.crossMatch}`);
    await ctx.client.request('DELETE', `/${FLAT}`);
    const best = (xs) => xs.reduce((a, b) => (b.ms < a.ms ? b : a));
    const f = best(flat);
    const n = best(nested);
    indexing.p50 = n.ms;
    indexing.nestedMs = n.ms;
    indexing.flatMs = f.ms;
    indexing.overhead = n.ms / f.ms - 1;
    indexing.result = `nested ${(costDocs / (n.ms / 1000)).toFixed(0)} docs/s vs flat ${(costDocs / (f.ms / 1000)).toFixed(0)} docs/s (${indexing.overhead >= 0 ? '+' : ''}${(indexing.overhead * 100).toFixed(0)}% time)`;
    const cpu = (xs) => Math.min(...xs.map((x) => x.cpu ?? Infinity));
    if (ctx.pid) {
      indexing.nestedCpu = cpu(nested);
      indexing.flatCpu = cpu(flat);
      indexing.notes.push(`service CPU per 1000 docs: nested ${((indexing.nestedCpu * 1000) / costDocs * 1000).toFixed(1)} ms, flat ${((indexing.flatCpu * 1000) / costDocs * 1000).toFixed(1)} ms`);
    }
    // the query index: every generated parent, nested
    const t0 = Date.now();
    const all = parents === costDocs ? small : generate(parents);
    truth = all.truth;
    const load = await loadBulk(ctx, { index: NESTED, body: mappings(true), bodies: all.bodies, expectCount: parents });
    indexing.notes.push(`query index: ${parents} parents (${parents * (PER_DOC + 1)} Lucene docs) loaded at ${(parents / (load.ms / 1000)).toFixed(0)} docs/s; generated in ${Date.now() - t0 - Math.round(load.ms)} ms`);
  } catch (e) {
    rows.push({ ...indexing, status: 'failed', error: e.message });
    return rows;
  }
  rows.push(indexing);
  const top = [...truth.authors.entries()].sort((a, b) => b[1] - a[1] || (`a${a[0]}` < `a${b[0]}` ? -1 : 1)).slice(0, 10);
  rows.push(
    await measureRequest(ctx, {
      group: 'nested',
      name: 'nested_query',
      params: { request_cache: 'false' },
      description: `nested query (author a7 AND 5 stars in one object) over ${parents} parents × ${PER_DOC}`,
      request: () => ({ method: 'POST', path: `/${NESTED}/_search`, body: { query: QUERY, size: 10, track_total_hits: true } }),
      check(res) {
        const j = assertSearchOk(res);
        assert(j.hits.total.value === truth.match, `total ${j.hits.total.value}, expected ${truth.match} (cross-object would be ${truth.crossMatch})`);
        return `${j.hits.total.value} hits`;
      },
    }),
  );
  rows.push(
    await measureRequest(ctx, {
      group: 'nested',
      name: 'nested_terms_agg',
      params: { request_cache: 'false' },
      description: `nested aggregation + terms on comments.author (size 10) over ${parents} parents × ${PER_DOC}`,
      request: () => ({ method: 'POST', path: `/${NESTED}/_search`, body: { size: 0, aggs: { c: { nested: { path: 'comments' }, aggs: { a: { terms: { field: 'comments.author', size: 10 } } } } } } }),
      check(res) {
        const j = assertSearchOk(res);
        const c = j.aggregations?.c;
        assert(c?.doc_count === parents * PER_DOC, `nested doc_count ${c?.doc_count}, expected ${parents * PER_DOC}`);
        const got = c.a.buckets.map((b) => `${b.key}:${b.doc_count}`).join(',');
        const want = top.map(([a, n]) => `a${a}:${n}`).join(',');
        assert(got === want, `buckets ${got}, expected ${want}`);
        return `${c.a.buckets.length} buckets`;
      },
    }),
  );
  await ctx.client.request('DELETE', `/${NESTED}`);
  return rows;
}

export default { name: 'nested', runs: [{ name: 'nested', description: 'nested documents: indexing cost, nested query, nested terms agg', custom: run }] };
