// "join": parents and children in one index (a join field, 1 shard): --docs/10 parents (at most 100,000)
// with 10 children each. Measures has_child and has_parent (p50) matching every parent, and the same queries
// when only 1% of the parents match, to show that the cost follows the matching documents. Every response's
// total is checked against the generated counts.
import { loadBulk } from '../lib/bulk-load.mjs';
import { measureRequest } from '../lib/measure.mjs';
import { assert, assertSearchOk } from './checks.mjs';

const INDEX = 'bench-join';
const CHILDREN = 10;
const GROUPS = 100;

function generate(parents) {
  const bodies = [];
  let lines = [];
  const flush = () => {
    bodies.push(Buffer.from(lines.join('\n') + '\n'));
    lines = [];
  };
  for (let i = 0; i < parents; i++) {
    const pid = `p${i}`;
    const group = `g${i % GROUPS}`;
    lines.push(JSON.stringify({ index: { _id: pid } }), JSON.stringify({ rel: 'parent', group, rank: i % 1000 }));
    for (let k = 0; k < CHILDREN; k++) {
      lines.push(JSON.stringify({ index: { _id: `${pid}c${k}`, routing: pid } }), JSON.stringify({ rel: { name: 'child', parent: pid }, cgroup: group, n: k }));
    }
    if (lines.length >= 11000) flush();
  }
  if (lines.length) flush();
  return bodies;
}

async function run(ctx) {
  const parents = Math.max(100, Math.min(100_000, Math.floor(ctx.gen.docs / 10)));
  const total = parents * (CHILDREN + 1);
  const row = { group: 'join', name: 'join_load', status: 'ok', notes: [], description: `${parents} parents × ${CHILDREN} children (join field, 1 shard)` };
  try {
    const body = {
      settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1' },
      mappings: { properties: { rel: { type: 'join', relations: { parent: 'child' } }, group: { type: 'keyword' }, cgroup: { type: 'keyword' }, rank: { type: 'integer' }, n: { type: 'integer' } } },
    };
    const { ms } = await loadBulk(ctx, { index: INDEX, body, bodies: generate(parents), expectCount: total });
    row.p50 = ms;
    row.result = `${(total / (ms / 1000)).toFixed(0)} docs/s`;
  } catch (e) {
    return [{ ...row, status: 'failed', error: e.message }];
  }
  const rows = [row];
  const matchedParents = parents / GROUPS;
  const defs = [
    ['has_child', 'every parent has matching children', { has_child: { type: 'child', query: { match_all: {} } } }, parents],
    ['has_child_1pct', '1% of the parents have matching children', { has_child: { type: 'child', query: { term: { cgroup: 'g0' } } } }, matchedParents],
    ['has_parent', 'every parent matches', { has_parent: { parent_type: 'parent', query: { match_all: {} } } }, parents * CHILDREN],
    ['has_parent_1pct', '1% of the parents match', { has_parent: { parent_type: 'parent', query: { term: { group: 'g0' } } } }, matchedParents * CHILDREN],
  ];
  for (const [name, what, query, expected] of defs) {
    rows.push(
      await measureRequest(ctx, {
        group: 'join',
        name,
        params: { request_cache: 'false' },
        description: `${Object.keys(query)[0]} over ${parents} parents / ${parents * CHILDREN} children: ${what}`,
        request: () => ({ method: 'POST', path: `/${INDEX}/_search`, body: { query, size: 10, track_total_hits: true } }),
        check(res) {
          const j = assertSearchOk(res);
          assert(j.hits.total.value === expected, `total ${j.hits.total.value}, expected ${expected}`);
          return `${j.hits.total.value} hits`;
        },
      }),
    );
  }
  await ctx.client.request('DELETE', `/${INDEX}`);
  return rows;
}

export default { name: 'join', runs: [{ name: 'join', description: 'has_child / has_parent, all vs 1% of the parents matching', custom: run }] };
