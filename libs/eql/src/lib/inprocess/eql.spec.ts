import { EsError } from '@strata/core-common';
import { eql } from '../../index.js';

const t0 = Date.UTC(2024, 0, 1);
const ev = (i: number, category: string, extra: Record<string, unknown> = {}) => ({
  '@timestamp': new Date(t0 + i * 1000).toISOString(),
  event: { category },
  seq: i,
  ...extra,
});

const events = [
  ev(1, 'process', { host: { id: 'a' }, process: { name: 'cmd.exe' } }),
  ev(2, 'network', { host: { id: 'a' }, destination: { port: 443 } }),
  ev(3, 'process', { host: { id: 'b' }, process: { name: 'cmd.exe' } }),
  ev(4, 'file', { host: { id: 'b' }, file: { name: 'x.exe' } }),
  ev(5, 'network', { host: { id: 'b' }, destination: { port: 80 } }),
  ev(60, 'network', { host: { id: 'b' }, destination: { port: 443 } }),
  ev(61, 'process', { host: { id: 'a' }, process: { name: 'powershell.exe' } }),
];

const ids = (hits: Array<Record<string, unknown>> | undefined) => (hits ?? []).map((h) => (h['_source'] as { seq: number } | undefined)?.seq ?? -1);
const seqIds = (r: Awaited<ReturnType<typeof eql>>) => (r.hits.sequences ?? []).map((s) => ids(s.events));

async function* stream<T>(xs: T[]): AsyncIterable<T> {
  for (const x of xs) yield x;
}

describe('in-process eql()', () => {
  it('basic queries: condition, order, size, result_position, pipes', async () => {
    const r = await eql('process where process.name == "cmd.exe"', [...events].reverse());
    expect(r.hits.total).toEqual({ value: 2, relation: 'eq' });
    expect(ids(r.hits.events)).toEqual([1, 3]);
    expect(ids((await eql('any where true', events, { size: 2 })).hits.events)).toEqual([60, 61]);
    expect(ids((await eql('any where true', events, { size: 2, resultPosition: 'head' })).hits.events)).toEqual([1, 2]);
    expect(ids((await eql('any where true | head 4 | tail 2', events)).hits.events)).toEqual([3, 4]);
    expect(ids((await eql('process where process.name : "CMD*"', events)).hits.events)).toEqual([1, 3]);
    expect(ids((await eql('any where startsWith~(process.name, "POWER")', events)).hits.events)).toEqual([61]);
    expect(ids((await eql('network where destination.port in (443, 8443) and not host.id == "a"', events)).hits.events)).toEqual([60]);
  });

  it('sequences by key with maxspan, until, runs and missing events', async () => {
    const q = 'sequence by host.id with maxspan=30s [process where process.name == "cmd.exe"] [network where true]';
    const r = await eql(q, events);
    expect(seqIds(r)).toEqual([
      [1, 2],
      [3, 5],
    ]);
    expect(r.hits.sequences!.map((s) => s.join_keys)).toEqual([['a'], ['b']]);
    // same result from a stream in timestamp order
    expect(seqIds(await eql(q, stream(events)))).toEqual([
      [1, 2],
      [3, 5],
    ]);
    // maxspan excludes the late network event
    expect(seqIds(await eql('sequence by host.id with maxspan=10s [file where true] [network where destination.port == 443]', events))).toEqual([]);
    expect(seqIds(await eql('sequence by host.id [file where true] [network where destination.port == 443]', events))).toEqual([[4, 60]]);
    // until
    expect(seqIds(await eql('sequence by host.id [process where true] [network where true] until [file where true]', events))).toEqual([[1, 2]]);
    // runs
    expect(seqIds(await eql('sequence by host.id [network where true] with runs=2', events))).toEqual([[5, 60]]);
    // a missing event between the two
    expect(seqIds(await eql('sequence by host.id [process where true] ![file where true] [network where true]', events))).toEqual([[1, -1, 2]]);
  });

  it('samples group distinct events per join key', async () => {
    const r = await eql('sample by host.id [process where true] [network where true]', events);
    expect(seqIds(r)).toEqual([
      [1, 2],
      [3, 5],
    ]);
    expect(r.hits.sequences!.map((s) => s.join_keys)).toEqual([['a'], ['b']]);
  });

  it('errors are Elasticsearch-shaped', async () => {
    await expect(eql("process where x == 'a'", events)).rejects.toMatchObject({ type: 'parsing_exception' });
    await expect(eql('process where true', events, { fieldTypes: { '@timestamp': 'date' } })).rejects.toMatchObject({
      type: 'verification_exception',
      reason: 'Found 1 problem\nline 1:1: Unknown column [event.category]',
    });
    const outOfOrder = stream([events[1], events[0]]);
    await expect(eql('sequence [any where true] [any where true]', outOfOrder)).rejects.toBeInstanceOf(EsError);
    await expect(eql('any where true', [{ '@timestamp': [1, 2] }])).rejects.toMatchObject({ type: 'invalid_argument_exception' });
  });

  it('can be cancelled', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('stop'));
    await expect(eql('sequence [any where true] [any where true]', events, { signal: ctl.signal })).rejects.toThrow('stop');
  });
});
