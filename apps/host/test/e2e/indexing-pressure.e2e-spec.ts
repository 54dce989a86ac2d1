/**
 * Indexing pressure (`indexing_pressure.memory.limit`): the bytes of writes in flight are counted while
 * they are coordinated and applied; a write that would pass the limit is rejected as a whole with 429
 * es_rejected_execution_exception in Elasticsearch's wording, before anything of it is applied; the node
 * keeps serving, and `_nodes/stats/indexing_pressure` reports the bytes in flight, the totals and the
 * rejections in Elasticsearch's shape. A test interceptor holds a bulk in flight, so requests overlap.
 */
import { ContainerModule } from 'inversify';
import { ExtensionPoints, type FeatureModule } from '@strata/core-common';
import type { IndexRequestInterceptor } from '@strata/core-engine';
import { DEFAULT_FEATURES } from '../../src/app/features.js';
import { http, startE2eHost, type E2eHost } from './helpers.js';

const held: Array<() => void> = [];
const holding: IndexRequestInterceptor = {
  name: 'test-holding-indexing',
  order: 1,
  async intercept(request) {
    if (request.index === 'held') await new Promise<void>((r) => held.push(r));
    return { kind: 'continue', request };
  },
};
const holdFeature: FeatureModule = {
  name: 'test-hold',
  module: new ContainerModule((o) => {
    o.bind(ExtensionPoints.IndexRequestInterceptor).toConstantValue(holding);
  }),
};

const LIMIT = 8192;
/** a bulk body and the bytes it weighs: 72 per operation + its id + its source line, as the node counts */
function bulk(index: string, tag: string, n: number, pad: number): { body: string; bytes: number } {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const id = `${tag}${i}`;
    const src = JSON.stringify({ n: i, text: 'x'.repeat(pad) });
    lines.push(JSON.stringify({ index: { _index: index, _id: id } }), src);
    bytes += 72 + id.length + Buffer.byteLength(src);
  }
  return { body: lines.join('\n') + '\n', bytes };
}
const post = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
const rejection = (inFlight: number, bytes: number) => ({
  error: {
    root_cause: [{ type: 'es_rejected_execution_exception', reason: expect.any(String) }],
    type: 'es_rejected_execution_exception',
    reason:
      `rejected execution of coordinating operation [coordinating_and_primary_bytes=${inFlight}, replica_bytes=0, all_bytes=${inFlight}, ` +
      `coordinating_operation_bytes=${bytes}, max_coordinating_and_primary_bytes=${LIMIT}]`,
  },
  status: 429,
});

describe('indexing_pressure.memory.limit', () => {
  let host: E2eHost;
  const pressure = async (): Promise<any> => Object.values((await http(`${host.url}/_nodes/stats/indexing_pressure`)).json.nodes as Record<string, any>)[0].indexing_pressure;
  beforeAll(async () => {
    host = await startE2eHost({ 'indexing_pressure.memory.limit': '8kb' }, [...DEFAULT_FEATURES, holdFeature]);
  });
  afterAll(async () => {
    for (const r of held.splice(0)) r();
    await host.close();
  });

  it('rejects a bulk larger than the limit as a whole, applying nothing', async () => {
    const big = bulk('free', 'big', 10, 1000);
    expect(big.bytes).toBeGreaterThan(LIMIT);
    const r = await http(`${host.url}/_bulk?refresh=true`, post(big.body));
    expect(r.status).toBe(429);
    expect(r.json).toEqual(rejection(0, big.bytes));
    expect(r.json.error.root_cause[0].reason).toBe(r.json.error.reason);
    expect((await http(`${host.url}/free/_count`)).status).toBe(404); // not even the index was created
    const small = bulk('free', 'small', 3, 100);
    const ok = await http(`${host.url}/_bulk?refresh=true`, post(small.body));
    expect([ok.status, ok.json.errors]).toEqual([200, false]);
    expect((await http(`${host.url}/free/_count`)).json.count).toBe(3);
  });

  it('counts bytes in flight: a write that would pass the limit meanwhile is rejected, smaller ones go on; stats in ES shape', async () => {
    const before = await pressure();
    const a = bulk('held', 'a', 5, 1000);
    const running = http(`${host.url}/_bulk?refresh=true`, post(a.body));
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    // bulk a is applying (held by the interceptor): its bytes are in flight
    const during = await pressure();
    expect(during.memory.current).toEqual({
      combined_coordinating_and_primary_in_bytes: a.bytes,
      coordinating_in_bytes: a.bytes,
      primary_in_bytes: a.bytes,
      replica_in_bytes: 0,
      all_in_bytes: a.bytes,
    });
    const b = bulk('free', 'b', 4, 1000);
    expect(a.bytes + b.bytes).toBeGreaterThan(LIMIT);
    const rb = await http(`${host.url}/_bulk`, post(b.body));
    expect(rb.status).toBe(429);
    expect(rb.json).toEqual(rejection(a.bytes, b.bytes));
    // a single-document write is refused the same way, a small one is accepted meanwhile
    const doc = JSON.stringify({ text: 'y'.repeat(4000) });
    const rd = await http(`${host.url}/free/_doc/big`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: doc });
    expect(rd.status).toBe(429);
    expect(rd.json).toEqual(rejection(a.bytes, 72 + 'big'.length + Buffer.byteLength(doc)));
    const rs = await http(`${host.url}/free/_doc/small?refresh=true`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
    expect(rs.status).toBe(201);
    for (const r of held.splice(0)) r();
    // the interceptor holds each document of bulk a in turn
    while ((await Promise.race([running.then(() => 'done'), new Promise((r) => setTimeout(() => r('wait'), 5))])) === 'wait') {
      for (const r of held.splice(0)) r();
    }
    const ra = await running;
    expect([ra.status, ra.json.errors, ra.json.items.length]).toEqual([200, false, 5]);
    // nothing in flight afterwards; the rejected bulk goes through now
    const after = await pressure();
    expect(after.memory.current).toEqual({ combined_coordinating_and_primary_in_bytes: 0, coordinating_in_bytes: 0, primary_in_bytes: 0, replica_in_bytes: 0, all_in_bytes: 0 });
    expect(after.memory.limit_in_bytes).toBe(LIMIT);
    expect(Object.keys(after.memory.total)).toEqual([
      'combined_coordinating_and_primary_in_bytes',
      'coordinating_in_bytes',
      'primary_in_bytes',
      'replica_in_bytes',
      'all_in_bytes',
      'coordinating_rejections',
      'primary_rejections',
      'replica_rejections',
    ]);
    expect(after.memory.total.coordinating_rejections - before.memory.total.coordinating_rejections).toBe(2);
    expect(after.memory.total.coordinating_in_bytes - before.memory.total.coordinating_in_bytes).toBe(a.bytes + 72 + 'small'.length + 7);
    const again = await http(`${host.url}/_bulk?refresh=true`, post(b.body));
    expect([again.status, again.json.errors]).toEqual([200, false]);
    expect((await http(`${host.url}/free/_count`)).json.count).toBe(3 + 1 + 4);
    expect((await http(`${host.url}/held/_count`)).json.count).toBe(5);
    // ?human adds the sized forms
    const human = Object.values((await http(`${host.url}/_nodes/stats/indexing_pressure?human`)).json.nodes as Record<string, any>)[0].indexing_pressure;
    expect(human.memory.limit).toBe('8kb');
    expect(human.memory.current.all).toBe('0b');
  });
});
